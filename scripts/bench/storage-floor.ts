// The storage floor: the statements of a request timed directly on the local D1's SQLite file, with no Worker,
// no D1 protocol and no network in between; and the bytes a row costs on that file.
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

/** A table's or an index's pages on disk, and the table it belongs to (itself for a table). */
export interface StoredObject {
  name: string;
  table: string;
  bytes: number;
}

/** The rows of `table`, and every table's and index's bytes on disk (dbstat, the whole file). */
export function storedBytes(file: string, table: string): { rows: number; objects: StoredObject[] } {
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    const rows = (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
    const objects = db
      .prepare(
        `SELECT d.name AS name, coalesce(s.tbl_name, d.name) AS "table", sum(d.pgsize) AS bytes
           FROM dbstat d LEFT JOIN sqlite_schema s ON s.name = d.name GROUP BY d.name`,
      )
      .all() as unknown as StoredObject[];
    return { rows, objects };
  } finally {
    db.close();
  }
}

export interface OrderStorage {
  orders: number;
  bytesPerOrder: number;
  /** Each part's bytes per order: the table, each of its indexes, each derived table (the search grams among them). */
  parts: { name: string; bytesPerOrder: number }[];
}

/**
 * Bytes per order on disk, over every order of the database: the orders table and each of its indexes, and the
 * tables derived from orders by triggers (order_*: the counts, the time lags and the search grams), each with its
 * indexes.
 */
export function orderStorage(file: string): OrderStorage {
  const { rows: orders, objects } = storedBytes(file, "orders");
  const parts = new Map<string, number>();
  const add = (name: string, bytes: number) => parts.set(name, (parts.get(name) ?? 0) + bytes);
  for (const o of objects) {
    if (o.table === "orders") add(o.name === "orders" ? "orders (table)" : o.name, o.bytes);
    else if (o.table.startsWith("order_")) add(`${o.table} (derived)`, o.bytes);
  }
  const list = [...parts].map(([name, bytes]) => ({ name, bytesPerOrder: bytes / orders }));
  return { orders, bytesPerOrder: list.reduce((sum, p) => sum + p.bytesPerOrder, 0), parts: list };
}
