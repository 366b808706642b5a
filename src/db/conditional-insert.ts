// INSERT … SELECT … WHERE: a row that is written only if a condition holds when the statement runs, atomically.
import { getTableColumns, sql, type SQL } from "drizzle-orm";
import type { SQLiteTable } from "drizzle-orm/sqlite-core";
import type { Database } from "./client.ts";

/**
 * Inserts one row (every column given as an SQL expression, so a value may be a subquery) if `condition` holds,
 * and returns it; returns undefined when the condition does not hold. One statement: nothing can change between
 * the check and the write.
 */
export async function insertIf<T extends SQLiteTable>(
  db: Database,
  table: T,
  values: Record<keyof T["_"]["columns"], SQL>,
  condition: SQL,
): Promise<T["$inferSelect"] | undefined> {
  // INSERT … SELECT lists the table's columns in their declared order; the select list follows the same order.
  const columns = Object.keys(getTableColumns(table)) as (keyof T["_"]["columns"])[];
  const selectList = sql.join(
    columns.map((key) => values[key]),
    sql`, `,
  );
  const rows = await db
    .insert(table)
    .select(sql`SELECT ${selectList} WHERE ${condition}`)
    .returning();
  return (rows as T["$inferSelect"][])[0];
}
