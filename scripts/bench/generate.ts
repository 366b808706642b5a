// The data set's orders and numbers: generated deterministically (the distributions of a real account) and written
// through a fast path: INSERT … SELECT … FROM json_each(?) statements of up to a megabyte of rows each, several
// statements per D1 call.
import type { OrderStatus } from "../../src/db/schema.ts";
import { seededRandom } from "../../src/lib/seeded-random.ts";

export const DAY = 86_400_000;
/** Orders are spread over the two years before this instant. */
export const END = Date.parse("2026-11-01T00:00:00.000Z");
export const SPAN = 730 * DAY;

/** Ten country/type pairs with the weights a real account shows: most orders in a few pairs. */
export const PAIRS: [country: string, type: string, weight: number][] = [
  ["US", "mobile", 25],
  ["US", "landline", 12],
  ["US", "toll_free", 8],
  ["GB", "mobile", 12],
  ["GB", "landline", 8],
  ["DE", "mobile", 10],
  ["FR", "mobile", 8],
  ["NL", "landline", 7],
  ["AU", "mobile", 6],
  ["JP", "toll_free", 4],
];
const STATUSES: [OrderStatus, number][] = [
  ["pending", 15],
  ["processing", 8],
  ["fulfilled", 65],
  ["cancelled", 12],
];
/** Berlin's notes are about a quarter of all orders, the term of the broad search scenario. */
const TEAMS: [string, number][] = [
  ["Berlin", 28],
  ["Austin", 24],
  ["Lisbon", 18],
  ["São Paulo", 12],
  ["Zürich", 10],
  ["Malmö", 8],
];
const PURPOSES = ["support line", "sales outreach", "field team", "call centre", "SMS verification", "store hotline"];

function weighted<T>(
  next: () => number,
  choices: readonly (readonly [...unknown[], number])[],
  pick: (choice: readonly unknown[]) => T,
): T {
  const total = choices.reduce((sum, choice) => sum + (choice.at(-1) as number), 0);
  let roll = next() * total;
  for (const choice of choices) {
    roll -= choice.at(-1) as number;
    if (roll < 0) return pick(choice);
  }
  return pick(choices.at(-1)!);
}

export interface OrderSeed {
  id: string;
  seq: number;
  countryCode: string;
  numberType: string;
  quantity: number;
  status: OrderStatus;
  fulfilledQuantity: number;
  notes: string | null;
  requestedAt: number;
  fulfilledAt: number | null;
  updatedAt: number;
}

/** A (country_code, number_type) pair, weighted as a real account orders them. */
export function pickPair(next: () => number): [string, string] {
  return weighted(next, PAIRS, (c) => [c[0] as string, c[1] as string]);
}

/** An account's orders, oldest first, numbered from `firstSeq` (the sequence grows with time, as in the API). */
export function generateOrders(count: number, firstSeq: number, seed: number): OrderSeed[] {
  const next = seededRandom(seed);
  const times = Array.from({ length: count }, () => END - Math.floor(next() * SPAN)).sort((a, b) => a - b);
  return times.map((requestedAt, i) => {
    const [countryCode, numberType] = pickPair(next);
    const status = weighted(next, STATUSES, (c) => c[0] as OrderStatus);
    // Log-uniform from 1 to 10,000: many small orders, a few large ones.
    const quantity = Math.min(10_000, Math.max(1, Math.round(Math.exp(next() * Math.log(10_000)))));
    const fulfilledAt = status === "fulfilled" ? requestedAt + Math.floor(next() * 3 * DAY) : null;
    const team = weighted(next, TEAMS, (c) => c[0] as string);
    const purpose = PURPOSES[Math.floor(next() * PURPOSES.length)]!;
    const notes = next() < 0.9 ? `${team} ${purpose}, campaign ${1 + Math.floor(next() * 2000)}` : null;
    return {
      id: crypto.randomUUID(),
      seq: firstSeq + i,
      countryCode,
      numberType,
      quantity,
      status,
      fulfilledQuantity: status === "fulfilled" ? quantity : status === "processing" ? Math.floor(quantity / 2) : 0,
      notes,
      requestedAt,
      fulfilledAt,
      updatedAt: fulfilledAt ?? requestedAt,
    };
  });
}

/**
 * The most bytes of rows one statement carries in its one JSON parameter: D1 binds at most 100 parameters a statement
 * and takes strings of up to 2,000,000 bytes.
 */
const STATEMENT_BYTES = 1_000_000;
/** Statements per D1 call (one batch, one transaction): fewer round trips through the platform proxy. */
const STATEMENTS_PER_CALL = 8;

/** Rows into a table in the given order, as few statements and D1 calls as D1's limits allow. */
export async function insertRows(
  d1: D1Database,
  table: string,
  columns: readonly string[],
  rows: Iterable<unknown[]>,
): Promise<void> {
  const values = columns.map((_, i) => `value ->> ${i}`).join(", ");
  const sql = `INSERT INTO ${table} (${columns.join(", ")}) SELECT ${values} FROM json_each(?)`;
  let batch: D1PreparedStatement[] = [];
  let chunk: string[] = [];
  let bytes = 0;
  const endStatement = () => {
    batch.push(d1.prepare(sql).bind(`[${chunk.join(",")}]`));
    chunk = [];
    bytes = 0;
  };
  for (const row of rows) {
    const json = JSON.stringify(row);
    const size = Buffer.byteLength(json) + 1;
    if (bytes + size > STATEMENT_BYTES - 2 && chunk.length > 0) {
      endStatement();
      if (batch.length === STATEMENTS_PER_CALL) {
        await d1.batch(batch);
        batch = [];
      }
    }
    chunk.push(json);
    bytes += size;
  }
  if (chunk.length > 0) endStatement();
  if (batch.length > 0) await d1.batch(batch);
}

/** The columns of an order row as the seeds write them. */
export const ORDER_COLUMNS = [
  "id",
  "customer_id",
  "order_seq",
  "number_type",
  "country_code",
  "quantity",
  "status",
  "fulfilled_quantity",
  "notes",
  "requested_at",
  "fulfilled_at",
  "created_at",
  "updated_at",
];

/** The columns of a number row as the seeds write them. */
export const NUMBER_COLUMNS = [
  "id",
  "customer_id",
  "order_id",
  "phone_number",
  "country_code",
  "number_type",
  "status",
  "created_at",
  "updated_at",
];

/** An order's row in ORDER_COLUMNS' order (created when requested). */
export function orderRow(customerId: string, o: OrderSeed): unknown[] {
  return [
    o.id,
    customerId,
    o.seq,
    o.numberType,
    o.countryCode,
    o.quantity,
    o.status,
    o.fulfilledQuantity,
    o.notes,
    o.requestedAt,
    o.fulfilledAt,
    o.requestedAt,
    o.updatedAt,
  ];
}

/** An account's orders. */
export async function insertOrders(d1: D1Database, customerId: string, rows: OrderSeed[]): Promise<void> {
  await insertRows(
    d1,
    "orders",
    ORDER_COLUMNS,
    rows.map((o) => orderRow(customerId, o)),
  );
}

export interface NumberSeed {
  id: string;
  orderId: string;
  countryCode: string;
  numberType: string;
  status: string;
}

/**
 * `count` numbers of an account, allocated from its fulfilled orders in order (so oldest first), phone numbers
 * `phonePrefix` and seven digits.
 */
export async function insertNumbers(
  d1: D1Database,
  customerId: string,
  orders: OrderSeed[],
  count: number,
  { phonePrefix, seed }: { phonePrefix: string; seed: number },
): Promise<NumberSeed[]> {
  const next = seededRandom(seed);
  const rows: unknown[][] = [];
  for (const order of orders) {
    if (order.status !== "fulfilled") continue;
    for (let i = 0; i < order.quantity && rows.length < count; i++) {
      const status = next() < 0.9 ? "active" : next() < 0.5 ? "suspended" : "released";
      const phone = `${phonePrefix}${String(rows.length).padStart(7, "0")}`;
      rows.push([
        crypto.randomUUID(),
        customerId,
        order.id,
        phone,
        order.countryCode,
        order.numberType,
        status,
        order.fulfilledAt,
        order.fulfilledAt,
      ]);
    }
    if (rows.length >= count) break;
  }
  await insertRows(d1, "numbers", NUMBER_COLUMNS, rows);
  return rows.map((row) => ({
    id: row[0] as string,
    orderId: row[2] as string,
    countryCode: row[4] as string,
    numberType: row[5] as string,
    status: row[6] as string,
  }));
}
