// The stock's search at scale (LIFECYCLE.md, Scale): 1,000,000 numbers of one pair, seeded by SQL (the triggers of
// migrations/0019 fill the trigram index), searched by pair and starts_with under load (held to half of /healthz's
// throughput) and by contains and ends_with, common and rare (each held to 50 ms of SQLite time per request, from the
// Worker's log lines); and the storage a stock number costs, its share of the trigram index included. Then, once
// each: a reservation of 1,000 by quantity from that stock, an order from it, and the order's allocation from stock.
import { addCatalogPair } from "../../src/catalog/store.ts";
import type { Database } from "../../src/db/client.ts";
import { trigramQuery } from "../../src/db/search.ts";
import { SEARCH_CANDIDATES } from "../../src/search/store.ts";
import { SEEDING } from "../seed.ts";
import { type Operation, type Scenario, type SentOnce, withoutText } from "./scenarios.ts";
import { storedBytes } from "./storage-floor.ts";

/** The pair searched: orderable, and nobody else's numbers (+447…). */
const PAIR = { countryCode: "GB", numberType: "search_bench" };
const STOCK = 1_000_000;
/** Numbers come in ranges, as carriers assign them: 1,000 ranges of 1,000 consecutive numbers. */
const RANGE = 1_000;
/** Rows written by one seeding statement (each also indexed by its trigrams). */
const CHUNK = 10_000;
/** Numbers of the reservation by quantity: the most one reservation holds (MAX_RESERVATION_NUMBERS). */
const RESERVED = 1_000;
/** The SQLite time each one-off operation is held to ("well under a second"). */
const SQLITE_GOAL_MS = 500;

export interface SearchFixtures {
  /** A prefix of one range's numbers (starts_with). */
  startsWith: string;
  /** Patterns of one number only (a rare contains, a rare ends_with). */
  rareContains: string;
  rareEndsWith: string;
  /** Three digits with the fewest numbers at or above SEARCH_CANDIDATES, and that count: the scan's worst case. */
  edgeContains: string;
  edgeRows: number;
}

/** The i-th number: a range's six digits spread over the millions (7919 is prime to 10^6), then three of its own. */
function rangeDigits(range: number): string {
  return String((range * 7919 + 104_729) % 1_000_000).padStart(6, "0");
}

/**
 * 1,000,000 available numbers of PAIR in INSERT … SELECT statements of CHUNK rows over a recursive counter, then the patterns
 * the scenarios search for, chosen from the seeded trigram index.
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
  // The three digits whose numbers are fewest but still SEARCH_CANDIDATES or more: the search then scans the pair in
  // phone order, and the rarer the pattern, the longer the scan.
  let edge = { pattern: "", rows: Number.POSITIVE_INFINITY };
  for (let p = 0; p < 1000; p++) {
    const pattern = String(p).padStart(3, "0");
    const row = await d1
      .prepare(
        `SELECT count(*) AS rows FROM (SELECT rowid FROM stock_trigrams, (SELECT number FROM stock_pairs
           WHERE country_code = ?1 AND number_type = ?2) AS pair
           WHERE stock_trigrams MATCH ?3 AND rowid >= pair.number << 50 AND rowid < (pair.number + 1) << 50 LIMIT ?4)`,
      )
      .bind(PAIR.countryCode, PAIR.numberType, trigramQuery(pattern), 100_000)
      .first<{ rows: number }>();
    if (row && row.rows >= SEARCH_CANDIDATES && row.rows < edge.rows) edge = { pattern, rows: row.rows };
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
      `contains=${f.edgeContains} (${f.edgeRows.toLocaleString("en-US")} numbers have it), limit=100`,
      `&contains=${f.edgeContains}&limit=100`,
      underFiftyMs,
    ),
    search("ends_with=7 (common), limit=100", "&ends_with=7&limit=100", underFiftyMs),
    search(`ends_with=${f.rareEndsWith} (one number)`, `&ends_with=${f.rareEndsWith}`, underFiftyMs),
    search("contains=77, ends_with=00", "&contains=77&ends_with=00", underFiftyMs),
  ];
}

/**
 * Bytes per stock number on disk: the pages of stock_numbers, its indexes and the trigram index's tables (dbstat), over
 * every stock number; the trigram index's share of it.
 */
export function stockStorage(file: string): { numbers: number; bytesPerNumber: number; indexBytesPerNumber: number } {
  const { rows: numbers, objects } = storedBytes(file, "stock_numbers");
  const bytesOf = (owner: (table: string) => boolean) =>
    objects.filter((o) => owner(o.table)).reduce((sum, o) => sum + o.bytes, 0);
  // The FTS5 table's shadow tables (stock_trigrams_data, _idx, _config, _docsize) hold the index.
  const index = bytesOf((table) => table.startsWith("stock_trigrams"));
  return {
    numbers,
    bytesPerNumber: (bytesOf((table) => table === "stock_numbers") + index) / numbers,
    indexBytesPerNumber: index / numbers,
  };
}

/** A POST sent once with the large account's key or the bench's staff token (bench.ts's sendOnce). */
export type SendOnce = (
  name: string,
  requestId: string,
  path: string,
  body: unknown,
  credential: "customer" | "staff",
) => Promise<SentOnce>;

/** The answer's JSON object, or an empty one when it is none (the status then says what went wrong). */
function answerOf(sent: SentOnce): Record<string, unknown> {
  try {
    const answer = JSON.parse(sent.text) as unknown;
    return typeof answer === "object" && answer !== null ? (answer as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/**
 * Once each, after the searches (which the reservation would change): a reservation of RESERVED numbers by quantity
 * from the pair's 1,000,000, an order from it, and the operator's allocation of the order's RESERVED numbers from
 * stock, which must take the reserved numbers. A step is not sent when the one before was refused.
 */
export async function searchOperations(slug: string, send: SendOnce): Promise<Operation[]> {
  const n = RESERVED.toLocaleString("en-US");
  const held = (sent: SentOnce, done: boolean): Operation => ({
    ...withoutText(sent),
    // A refusal's own words, so a failed run says why.
    ...(sent.status >= 400 ? { name: `${sent.name} (${String(answerOf(sent).detail ?? sent.text)})` } : {}),
    goal: `well under 1 s of SQLite time`,
    met: done && (sent.d1Ms ?? Infinity) < SQLITE_GOAL_MS,
  });
  const reserved = await send(
    `reservation: ${n} by quantity from a stock of ${STOCK.toLocaleString("en-US")}`,
    "bench.search.reserve",
    `/api/customers/${slug}/reservations`,
    { country_code: PAIR.countryCode, number_type: PAIR.numberType, quantity: RESERVED },
    "customer",
  );
  const reservation = answerOf(reserved);
  const phoneNumbers = (reservation.phone_numbers as string[] | undefined) ?? [];
  const operations = [held(reserved, reserved.status === 201 && phoneNumbers.length === RESERVED)];
  if (reserved.status !== 201) return operations;

  const ordered = await send(
    `order from that reservation of ${n}`,
    "bench.search.order",
    `/api/customers/${slug}/orders`,
    { reservation_id: reservation.id },
    "customer",
  );
  const order = answerOf(ordered);
  operations.push(held(ordered, ordered.status === 201 && order.quantity === RESERVED && order.status === "pending"));
  if (ordered.status !== 201) return operations;

  const allocated = await send(
    `allocation: that order's ${n} from stock (the reserved ones first)`,
    "bench.search.allocate",
    `/admin/orders/${order.order_id}/numbers`,
    { from_stock: RESERVED },
    "staff",
  );
  const numbers = (answerOf(allocated).numbers as { phone_number: string }[] | undefined) ?? [];
  const reservedOnes = new Set(phoneNumbers);
  const taken = numbers.filter((number) => reservedOnes.has(number.phone_number)).length;
  const allocation = held(allocated, allocated.status === 201 && taken === RESERVED);
  const counted = `${allocated.name}: ${taken.toLocaleString("en-US")} of the ${numbers.length.toLocaleString("en-US")} reserved`;
  operations.push(allocated.status === 201 ? { ...allocation, name: counted } : allocation);
  return operations;
}
