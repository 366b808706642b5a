// Which stock numbers may be taken now (LIFECYCLE.md "Reservations"): available ones, and reserved ones whose hold has
// lapsed (a reservation past its expires_at holds nothing, whether or not the expiry job has marked it). Search,
// reservations and allocations all judge a number with these, so they cannot disagree.
import { and, eq, isNotNull, lte, or, type SQL, sql } from "drizzle-orm";
import { type StockStatus, stockNumbers } from "../db/schema.ts";
import { literal } from "../db/sql.ts";

/** Literal, as the partial indexes state it, so SQLite may use them. */
const AVAILABLE = sql`${stockNumbers.status} = ${literal("available" satisfies StockStatus)}`;
const RESERVED = sql`${stockNumbers.status} = ${literal("reserved" satisfies StockStatus)}`;

/** A reserved number whose hold ended by `now` (held for an order, held_until is null: never lapses). */
export function holdLapsed(now: number): SQL {
  return and(RESERVED, isNotNull(stockNumbers.heldUntil), lte(stockNumbers.heldUntil, now))!;
}

/** A stock number anyone may take now: available, or reserved with a lapsed hold. */
export function takeableNow(now: number): SQL {
  return or(AVAILABLE, holdLapsed(now))!;
}

/** A stock number held now for this reservation (active before its time, or ordered). */
export function heldFor(reservationId: string, now: number): SQL {
  return and(
    RESERVED,
    eq(stockNumbers.reservationId, reservationId),
    or(sql`${stockNumbers.heldUntil} IS NULL`, sql`${stockNumbers.heldUntil} > ${now}`),
  )!;
}

export { AVAILABLE as availableStock, RESERVED as reservedStock };
