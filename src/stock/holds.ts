// Which stock numbers may be taken now (LIFECYCLE.md "Reservations"): available ones, and reserved ones whose hold has
// lapsed (a reservation past its expires_at holds nothing, whether or not the expiry job has marked it). Search,
// reservations and allocations all judge a number with these, so they cannot disagree.
import { type AnyColumn, and, eq, isNotNull, lte, or, type SQL, sql } from "drizzle-orm";
import { type StockNumberRow, type StockStatus, stockNumbers } from "../db/schema.ts";
import { literal } from "../db/sql.ts";

/** Literal, as the partial indexes state it, so SQLite may use them. */
const AVAILABLE = sql`${stockNumbers.status} = ${literal("available" satisfies StockStatus)}`;
const RESERVED = sql`${stockNumbers.status} = ${literal("reserved" satisfies StockStatus)}`;

/** A stock number's hold ended by `now`, its status tested by `reserved` (held for an order: held_until null, never). */
function lapsed(reserved: SQL, now: number): SQL {
  return and(reserved, isNotNull(stockNumbers.heldUntil), lte(stockNumbers.heldUntil, now))!;
}

/**
 * A reserved number whose hold ended by `now` (held for an order, held_until is null: never lapses). isHoldLapsed is
 * its JS twin, for pages: change both together.
 */
export function holdLapsed(now: number): SQL {
  return lapsed(RESERVED, now);
}

/** The JS twin of holdLapsed, for a row already read. */
export function isHoldLapsed(row: Pick<StockNumberRow, "status" | "heldUntil">, now: number): boolean {
  return row.status === "reserved" && row.heldUntil !== null && row.heldUntil <= now;
}

/**
 * A stock number anyone may take now: available, or reserved with a lapsed hold. A check of rows found otherwise (by
 * their phone number): its status is read as `+status`, which no index matches, since SQLite would otherwise answer the
 * OR of two statuses from the status index, walking every available number of every pair (133 ms against 5 ms for a
 * reservation of 1,000 named numbers at a stock of a million, docs/performance.md).
 */
export function takeableNow(now: number): SQL {
  const status = sql`+${stockNumbers.status}`;
  return or(
    sql`${status} = ${literal("available" satisfies StockStatus)}`,
    lapsed(sql`${status} = ${literal("reserved" satisfies StockStatus)}`, now),
  )!;
}

/**
 * A stock number a reservation holds now (active before its time, or ordered): no one else may take or remove it.
 * isHeldNow is its JS twin: change both together.
 */
export function heldNow(now: number): SQL {
  return and(RESERVED, or(sql`${stockNumbers.heldUntil} IS NULL`, sql`${stockNumbers.heldUntil} > ${now}`))!;
}

/** The JS twin of heldNow, for a row already read (the console's offer to remove it). */
export function isHeldNow(row: Pick<StockNumberRow, "status" | "heldUntil">, now: number): boolean {
  return row.status === "reserved" && !isHoldLapsed(row, now);
}

/** A stock number held now for this reservation (active before its time, or ordered). */
export function heldFor(reservationId: string, now: number): SQL {
  return and(heldNow(now), eq(stockNumbers.reservationId, reservationId))!;
}

export { AVAILABLE as availableStock, RESERVED as reservedStock };

/** A stock pair: a (country_code, number_type). */
export interface StockPair {
  countryCode: string;
  numberType: string;
}

/**
 * The phone numbers (in `column`, the stock's by default) starting with these digits (E.164 without its "+"): a range
 * of an index by phone number.
 */
export function startingWith(digits: string | undefined, column: AnyColumn = stockNumbers.phoneNumber): SQL | undefined {
  if (digits === undefined || digits === "") return undefined;
  // ":" sorts just after "9": every number starting with the digits lies in [+digits, +digits:).
  return sql`${column} >= ${`+${digits}`} AND ${column} < ${`+${digits}:`}`;
}

/**
 * The first `limit` numbers of the pair anyone may take now, in phone-number order, those starting with `digits` when
 * given (and `matching`, a further condition on the row, when given): a subquery of one column, phone_number. Two index
 * ranges (the available numbers by phone number, and the reserved ones whose hold lapsed, few unless the expiry job is
 * late), each stopping at `limit`.
 */
export function firstTakeable(pair: StockPair, digits: string | undefined, limit: number, now: number, matching?: SQL): SQL {
  const ofPair = and(
    eq(stockNumbers.countryCode, pair.countryCode),
    eq(stockNumbers.numberType, pair.numberType),
    startingWith(digits),
    matching,
  );
  const arm = (which: SQL) =>
    sql`SELECT * FROM (SELECT ${stockNumbers.phoneNumber} AS phone_number FROM ${stockNumbers} WHERE ${and(ofPair, which)} ORDER BY ${stockNumbers.phoneNumber} LIMIT ${limit})`;
  return sql`SELECT phone_number FROM (${arm(AVAILABLE)} UNION ALL ${arm(holdLapsed(now))}) ORDER BY phone_number LIMIT ${limit}`;
}
