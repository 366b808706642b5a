// The storage floor: the statements of a request timed directly on the local D1's SQLite file, with no Worker,
// no D1 protocol and no network in between.
import { readdirSync } from "node:fs";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import type { Segment } from "../../src/orders/list.ts";
import type { Statement } from "./scenarios.ts";

/** The SQLite file of the (only) local D1 database under a `--persist-to` folder. */
export function d1File(persistTo: string): string {
  const folder = path.join(persistTo, "v3", "d1", "miniflare-D1DatabaseObject");
  const file = readdirSync(folder).find((name) => name.endsWith(".sqlite") && name !== "metadata.sqlite");
  if (!file) throw new Error(`no D1 database file in ${folder}`);
  return path.join(folder, file);
}

type SqliteValue = string | number | null;

/** Median milliseconds of running all the statements once, over `runs` runs (after one warm-up run). */
export function timeStatements(file: string, statements: Statement[], runs = 15): number {
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    const prepared = statements.map((s) => ({ stmt: db.prepare(s.sql), params: s.params as SqliteValue[] }));
    const once = () => {
      const started = performance.now();
      for (const { stmt, params } of prepared) stmt.all(...params);
      return performance.now() - started;
    };
    once();
    const times = Array.from({ length: runs }, once).sort((a, b) => a - b);
    return times[Math.floor(runs / 2)]!;
  } finally {
    db.close();
  }
}

/** The account's order segments as the Worker reads them to pick a list plan. */
export function readSegments(file: string, customerId: string): Segment[] {
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    const rows = db
      .prepare("SELECT number_type, country_code, status, count FROM order_counts WHERE customer_id = ?")
      .all(customerId) as { number_type: string; country_code: string; status: Segment["status"]; count: number }[];
    return rows.map((r) => ({ numberType: r.number_type, countryCode: r.country_code, status: r.status, count: r.count }));
  } finally {
    db.close();
  }
}
