// Deletes expired rows for the scheduled jobs, a few hundred per statement so no statement holds the single-writer
// database for long.
import { type SQL, sql } from "drizzle-orm";
import type { SQLiteTable } from "drizzle-orm/sqlite-core";
import type { Database } from "./client.ts";

/** Rows deleted by one statement of a purge. */
const PURGE_BATCH = 500;

/** Deletes the rows of `table` where `where` holds, PURGE_BATCH a statement, until none is left. Returns how many. */
export async function deleteInBatches(db: Database, table: SQLiteTable, where: SQL): Promise<number> {
  let deleted = 0;
  for (;;) {
    const chunk = db.select({ rowid: sql`rowid` }).from(table).where(where).limit(PURGE_BATCH);
    // Counted from RETURNING: D1's meta.changes also counts what triggers wrote (event_counts, for events).
    const rows = await db.delete(table).where(sql`rowid IN ${chunk}`).returning({ rowid: sql`rowid` });
    deleted += rows.length;
    if (rows.length < PURGE_BATCH) return deleted;
  }
}
