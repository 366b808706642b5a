// The orders' search grams (order_search_grams) built once, after the data set is written, rather than order by
// order: the triggers of migrations/0026 put each order's grams at random places of an index that grows to a gigabyte
// (865 s for the million's orders with them, against 250 s without), where migration 0026's own backfill writes them
// in the index's order. Both come from the migration's text, so the bench builds exactly what the migration does.
import { readFileSync } from "node:fs";
import path from "node:path";
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

/** Runs `seed` without the grams' triggers, then builds the grams of every order and puts the triggers back. */
export async function withSearchGramsBuiltAfter<T>(d1: D1Database, seed: () => Promise<T>): Promise<T> {
  const { backfill, triggers } = searchGramStatements();
  for (const { name } of triggers) await d1.prepare(`DROP TRIGGER ${name}`).run();
  const seeded = await seed();
  await d1.prepare("DELETE FROM order_search_grams").run();
  await d1.prepare(backfill).run();
  for (const { sql } of triggers) await d1.prepare(sql).run();
  return seeded;
}
