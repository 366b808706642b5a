// The orders' search grams (order_search_grams) built once, after the data set is written, rather than order by
// order: the triggers of migrations/0026 put each order's grams at random places of an index that grows to a gigabyte
// (865 s for the million's orders with them, against about 250 s without), where migration 0026's own backfill writes
// them in the index's order. It runs on the database file through node:sqlite once the seeding's D1 proxy is closed:
// as one D1 statement of minutes, the local workerd drops the connection. The backfill and the triggers come from the
// migration's text, so the bench builds exactly what the migration does.
import { readFileSync } from "node:fs";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { ROOT } from "../local-dev.ts";

const MIGRATION = path.join(ROOT, "migrations", "0026_order_search_grams_derived.sql");

/** The migration's backfill of the grams, and its triggers by name. */
function searchGramStatements(): { backfill: string; triggers: { name: string; sql: string }[] } {
  const statements = readFileSync(MIGRATION, "utf8")
    .split("--> statement-breakpoint")
    .map((statement) => statement.replace(/^(\s*--[^\n]*\n|\s*\n)*/, "").trim());
  const backfill = statements.find((statement) => statement.startsWith("INSERT INTO order_search_grams"));
  const triggers = statements.flatMap((statement) => {
    const name = /^CREATE TRIGGER (order_search_grams_\w+)/.exec(statement)?.[1];
    return name ? [{ name, sql: statement }] : [];
  });
  if (!backfill || triggers.length === 0) throw new Error(`${MIGRATION}: no backfill or triggers of order_search_grams`);
  return { backfill, triggers };
}

/** Before seeding: the grams' triggers out, so writing orders writes no grams. */
export async function deferSearchGrams(d1: D1Database): Promise<void> {
  for (const { name } of searchGramStatements().triggers) await d1.prepare(`DROP TRIGGER ${name}`).run();
}

/** After seeding, on the D1 database's file: every order's grams by the migration's backfill, and its triggers back. */
export function buildSearchGrams(file: string): void {
  const { backfill, triggers } = searchGramStatements();
  const db = new DatabaseSync(file);
  try {
    db.exec("DELETE FROM order_search_grams");
    db.exec(backfill);
    for (const { sql } of triggers) db.exec(sql);
  } finally {
    db.close();
  }
}
