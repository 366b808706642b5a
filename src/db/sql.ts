// SQL fragments shared by the stores.
import { sql, type AnyColumn, type SQL } from "drizzle-orm";

/** Case-insensitive substring test with no wildcard characters: % and _ in the needle are literal. */
export function containsText(haystack: AnyColumn | SQL, needle: string): SQL {
  return sql`instr(lower(${haystack}), lower(${needle})) > 0`;
}

/** Membership in a list of any length as one bound parameter (D1 binds at most 100 a statement). */
export function inJsonList(column: AnyColumn | SQL, values: readonly string[]): SQL {
  return sql`${column} IN (SELECT value FROM json_each(${JSON.stringify(values)}))`;
}
