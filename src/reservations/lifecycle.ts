// A reservation's life (LIFECYCLE.md "Reservations"): its limits, when it is active, what each state allows, and how
// long a hold through a profile's review lasts. The stores' SQL guards and the pages' checks are built from here.
import { and, gt, type SQL, sql } from "drizzle-orm";
import { type ReservationRow, type ReservationStatus, reservations, type StockStatus, stockNumbers } from "../db/schema.ts";
import { literal } from "../db/sql.ts";
import { DAY_MS } from "../lib/time.ts";

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;

/** Numbers one reservation holds, at most (by numbers or by quantity). */
export const MAX_RESERVATION_NUMBERS = 1_000;
/** Numbers in one account's active reservations, at most. */
export const MAX_ACTIVE_RESERVED_NUMBERS = 10_000;
export const TTL_MINUTES = { min: 5, max: 1_440, default: 30 } as const;
/** How long after its creation a reservation may be extended to, at most. */
export const MAX_EXTENDED_LIFE_MS = 24 * HOUR_MS;
/** A hold through a profile's review lasts at most this long after the reservation's creation. */
export const PROFILE_HOLD_MS = 14 * DAY_MS;
/** Once the profile's review ends (or it is deleted), the hold lasts at most this long more. */
export const PROFILE_HOLD_AFTER_REVIEW_MS = 24 * HOUR_MS;

/** The statuses of a profile whose review is open: a reservation may be held through it. */
export const PROFILE_STATUSES_HELD_THROUGH = ["pending", "under_review"] as const;

export function ttlMs(minutes: number): number {
  return minutes * MINUTE_MS;
}

/** The status a reservation has now: an active one past its time has expired, whether or not the job marked it. */
export function statusAt(row: Pick<ReservationRow, "status" | "expiresAt">, now: number): ReservationStatus {
  return row.status === "active" && row.expiresAt <= now ? "expired" : row.status;
}

/** Only an active reservation can be extended, cancelled or ordered. */
export function isActive(row: Pick<ReservationRow, "status" | "expiresAt">, now: number): boolean {
  return statusAt(row, now) === "active";
}

/** The SQL twin of isActive: what the stores' guards state (the status a literal, as the partial indexes state it). */
export function activeAt(now: number): SQL {
  return and(sql`${reservations.status} = ${literal("active" satisfies ReservationStatus)}`, gt(reservations.expiresAt, now))!;
}

/**
 * The guard of a change to an active reservation (extend, cancel, order), stated against the batch as it runs: active
 * at the request's `now`, and still holding every one of its numbers. A request that read the reservation just before
 * its expiry can reach its batch after another holder took a lapsed number: the reservation then holds less than it
 * was made with, and is expired, whatever that request's `now` says.
 */
export function activeAndHoldingAt(now: number): SQL {
  const held = sql`(SELECT count(*) FROM ${stockNumbers} WHERE ${stockNumbers.reservationId} = ${reservations.id} AND ${stockNumbers.status} = ${literal("reserved" satisfies StockStatus)})`;
  return and(activeAt(now), sql`${held} = ${reservations.quantity}`)!;
}

/** Whether the reservation may be extended: active and not held through a profile (whose hold is never raised). */
export function mayExtend(row: Pick<ReservationRow, "status" | "expiresAt" | "holdForProfile">, now: number): boolean {
  return isActive(row, now) && row.holdForProfile === null;
}

/** A reservation's expiry once the profile it is held through ends its review (or is deleted) at `now`. */
export function expiryAfterReview(createdAt: number, now: number): number {
  return Math.min(createdAt + PROFILE_HOLD_MS, now + PROFILE_HOLD_AFTER_REVIEW_MS);
}

/** The SQL twin of expiryAfterReview, for the reservation in scope. */
export function expiryAfterReviewAt(now: number): SQL {
  return sql`min(${reservations.createdAt} + ${PROFILE_HOLD_MS}, ${now + PROFILE_HOLD_AFTER_REVIEW_MS})`;
}
