// The stock's search at scale (LIFECYCLE.md, Scale): 1,000,000 numbers of one pair, seeded by SQL (the triggers of
// migrations/0019 fill the suffix index), searched by pair and starts_with under load (held to half of /healthz's
// throughput) and by contains and ends_with, common and rare (each held to 50 ms of SQLite time per request, from the
// Worker's log lines); and the storage a stock number costs, its suffix rows included.
import { DatabaseSync } from "node:sqlite";
import { addCatalogPair } from "../../src/catalog/store.ts";
import type { Database } from "../../src/db/client.ts";
import { CONTAINS_CANDIDATES } from "../../src/search/store.ts";
import { SEEDING } from "../seed.ts";
import type { Scenario } from "./scenarios.ts";

/** The pair searched: orderable, and nobody else's numbers (+447…). */
const PAIR = { countryCode: "GB", numberType: "search_bench" };
const STOCK = 1_000_000;
/** Numbers come in ranges, as carriers assign them: 1,000 ranges of 1,000 consecutive numbers. */
const RANGE = 1_000;
/** Rows written by one seeding statement (each also writes its 12 suffix rows). */
const CHUNK = 100_000;

export interface SearchFixtures {
  /** A prefix of one range's numbers (starts_with). */
  startsWith: string;
  /** Patterns of one number only (a rare contains, a rare ends_with). */
  rareContains: string;
  rareEndsWith: string;
  /** Three digits with the fewest suffix rows at or above CONTAINS_CANDIDATES, and that count: the scan's worst case. */
  edgeContains: string;
  edgeRows: number;
}

/** The i-th number: a range's six digits spread over the millions (7919 is prime to 10^6), then three of its own. */
function rangeDigits(range: number): string {
  return String((range * 7919 + 104_729) % 1_000_000).padStart(6, "0");
}

/**
 * 1,000,000 available numbers of PAIR in ten INSERT … SELECT statements over a recursive counter, then the patterns
 * the scenarios search for, chosen from the seeded suffix index.
 */
export async function seedSearch(db: Database, d1: D1Database, log: (line: string) => void): Promise<SearchFixtures> {
  const now = Date.now();
  await addCatalogPair(db, SEEDING, PAIR, now);
  const started = performance.now();
  for (let from = 0; from < STOCK; from += CHUNK) {
    await d1
      .prepare(
        `WITH RECURSIVE n(i) AS (SELECT ?1 UNION ALL SELECT i + 1 FROM n WHERE i + 1 < ?2)
         INSERT INTO stock_numbers (phone_number, country_code, number_type, import_id, imported_at)
         SELECT '+447' || printf('%06d', ((i / ${RANGE}) * 7919 + 104729) % 1000000) || printf('%03d', i % ${RANGE}),
           ?3, ?4, ?5, ?6 FROM n`,
      )
      .bind(from, from + CHUNK, PAIR.countryCode, PAIR.numberType, crypto.randomUUID(), now)
      .run();
  }
  log(`search: ${STOCK.toLocaleString("en-US")} numbers of one pair in ${((performance.now() - started) / 1000).toFixed(0)} s`);
  // The three digits whose suffix rows are fewest but still CONTAINS_CANDIDATES or more: the search then scans the
  // pair in phone order, and the rarer the pattern, the longer the scan.
  let edge = { pattern: "", rows: Number.POSITIVE_INFINITY };
  for (let p = 0; p < 1000; p++) {
    const pattern = String(p).padStart(3, "0");
    const row = await d1
      .prepare(
        `SELECT count(*) AS rows FROM (SELECT 1 FROM stock_number_suffixes WHERE country_code = ? AND number_type = ?
           AND suffix >= ? AND suffix < ? LIMIT ?)`,
      )
      .bind(PAIR.countryCode, PAIR.numberType, pattern, `${pattern}:`, 100_000)
      .first<{ rows: number }>();
    if (row && row.rows >= CONTAINS_CANDIDATES && row.rows < edge.rows) edge = { pattern, rows: row.rows };
  }
  const range = rangeDigits(500);
  return {
    startsWith: `447${range.slice(0, 4)}`,
    rareContains: `${range.slice(2)}123`,
    rareEndsWith: `${range.slice(1)}456`,
    edgeContains: edge.pattern,
    edgeRows: edge.rows,
  };
}

export function searchScenarios(slug: string, f: SearchFixtures): Scenario[] {
  const search = (name: string, query: string, goal: Scenario["goal"]): Scenario => ({
    name: `search: ${name}`,
    method: "GET",
    path: () =>
      `/api/customers/${slug}/available-numbers?country_code=${PAIR.countryCode}&number_type=${PAIR.numberType}${query}`,
    credential: "customer",
    goal,
  });
  const fast = { minShare: 0.5 };
  const underFiftyMs = { maxD1Ms: 50 };
  return [
    search("pair (1,000,000 in stock)", "", fast),
    search(`starts_with=${f.startsWith}`, `&starts_with=${f.startsWith}`, fast),
    search("contains=77 (common)", "&contains=77", underFiftyMs),
    search(`contains=${f.rareContains} (one number)`, `&contains=${f.rareContains}`, underFiftyMs),
    search(
      `contains=${f.edgeContains} (${f.edgeRows.toLocaleString("en-US")} suffix rows), limit=100`,
      `&contains=${f.edgeContains}&limit=100`,
      underFiftyMs,
    ),
    search("ends_with=7 (common), limit=100", "&ends_with=7&limit=100", underFiftyMs),
    search(`ends_with=${f.rareEndsWith} (one number)`, `&ends_with=${f.rareEndsWith}`, underFiftyMs),
    search("contains=77, ends_with=00", "&contains=77&ends_with=00", underFiftyMs),
  ];
}

/**
 * Bytes per stock number on disk: the pages of stock_numbers, its indexes and the suffix index (dbstat), over every
 * stock number; the suffix index's share of it.
 */
export function stockStorage(file: string): { numbers: number; bytesPerNumber: number; suffixBytesPerNumber: number } {
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    const numbers = (db.prepare("SELECT count(*) AS n FROM stock_numbers").get() as { n: number }).n;
    const pages = db
      .prepare(
        `SELECT coalesce(tbl_name, d.name) AS owner, sum(pgsize) AS bytes FROM dbstat d
           LEFT JOIN sqlite_schema s ON s.name = d.name GROUP BY owner`,
      )
      .all() as { owner: string; bytes: number }[];
    const bytesOf = (owner: string) => pages.find((p) => p.owner === owner)?.bytes ?? 0;
    const suffixes = bytesOf("stock_number_suffixes");
    return {
      numbers,
      bytesPerNumber: (bytesOf("stock_numbers") + suffixes) / numbers,
      suffixBytesPerNumber: suffixes / numbers,
    };
  } finally {
    db.close();
  }
}
