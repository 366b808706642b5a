// SQL fragments shared by the stores.
import { type AnyColumn, Column, is, SQL, sql } from "drizzle-orm";

/** Case-insensitive substring test with no wildcard characters: % and _ in the needle are literal. */
export function containsText(haystack: AnyColumn | SQL, needle: string): SQL {
  return sql`instr(lower(${haystack}), lower(${needle})) > 0`;
}

/** toIso in SQL: ISO 8601 UTC with milliseconds; NULL stays NULL. */
export function iso(ms: AnyColumn | SQL): SQL {
  return sql`strftime('%Y-%m-%dT%H:%M:%fZ', ${ms} / 1000.0, 'unixepoch')`;
}

/** Membership in a list of any length as one bound parameter (D1 binds at most 100 a statement). */
export function inJsonList(column: AnyColumn | SQL, values: readonly string[]): SQL {
  return sql`${column} IN (SELECT value FROM json_each(${JSON.stringify(values)}))`;
}

/**
 * A string constant written into the SQL text, not bound: for the schema's CHECK constraints, which cannot take
 * parameters. Only for values of the code's own constants, never for input.
 */
export function literal(value: string): SQL {
  return sql.raw(quoted(value));
}

/** A parenthesised list of string constants written into the SQL text, as `literal` writes one. */
export function literalList(values: readonly string[]): SQL {
  return sql.raw(`(${values.map(quoted).join(", ")})`);
}

function quoted(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}

type Selection<T> = {
  [K in keyof T]: T[K] extends Column ? T[K] : T[K] extends SQL<infer U> ? SQL.Aliased<U> : SQL.Aliased<T[K]>;
};

/**
 * The select list of an INSERT … SELECT, one entry per column of the table in its declared order (drizzle checks
 * both): columns of the queried tables stay as they are, and constants and SQL expressions are named after their key.
 */
export function insertSelection<T extends Record<string, unknown>>(fields: T): Selection<T> {
  const entries = Object.entries(fields).map(([key, value]) => {
    if (is(value, Column)) return [key, value];
    return [key, (is(value, SQL) ? value : sql`${value}`).as(key)];
  });
  return Object.fromEntries(entries) as Selection<T>;
}

/**
 * A random version-4 UUID made by SQLite, a new one per row: for rows an INSERT … SELECT creates in numbers unknown
 * before it runs. (`random() & 3` picks the variant digit; abs(random()) could overflow.)
 */
export function randomUuid(): SQL {
  return sql`lower(hex(randomblob(4)) || '-' || hex(randomblob(2)) || '-4' || substr(hex(randomblob(2)), 2) || '-' || substr('89ab', 1 + (random() & 3), 1) || substr(hex(randomblob(2)), 2) || '-' || hex(randomblob(6)))`;
}
