// Reservation actions shared by the API and the portal (LIFECYCLE.md "Reservations").

import { notOrderable } from "../catalog/refusals.ts";
import { findCatalogPair } from "../catalog/store.ts";
import { isFailedBatchAssertion } from "../db/errors.ts";
import type { ReservationRow } from "../db/schema.ts";
import type { Work } from "../env.ts";
import { action } from "../lib/action.ts";
import { done, type FieldError, fieldProblem, notFound, Problem, type Result, refusals, refused } from "../lib/problem.ts";
import { toIso } from "../lib/time.ts";
import type { StockPair } from "../stock/holds.ts";
import {
  isActive,
  MAX_ACTIVE_RESERVED_NUMBERS,
  MAX_EXTENDED_LIFE_MS,
  mayExtend,
  PROFILE_HOLD_MS,
  PROFILE_STATUSES_HELD_THROUGH,
  statusAt,
  TTL_MINUTES,
  ttlMs,
} from "./lifecycle.ts";
import {
  activeReservedCount,
  cancelReservation,
  createReservation,
  extendReservation,
  findProfileStatus,
  findReservationRow,
  type ReservationWithNumbers,
  stockOfNumbers,
  type Taking,
  takeableCount,
} from "./store.ts";

/** How long the numbers are held: minutes from now, or through the review of a profile (bare id). */
type Hold = { ttlMinutes: number } | { holdForProfile: string };

/** A reservation asked for: named numbers (all of one pair), or how many of a pair. */
export type ReservationRequest = Hold &
  ({ phoneNumbers: string[] } | { pair: StockPair; quantity: number; startsWith: string | undefined });

const CREATE_RESERVATION_REFUSALS = refusals(
  "validation_error",
  "not_orderable",
  "numbers_unavailable",
  "insufficient_stock",
  "conflict",
);

type CreateRefusal = Problem<(typeof CREATE_RESERVATION_REFUSALS)[number]>;

/** What the request takes, judged on the stock as it stands: the pair and the numbers, or why it is refused. */
type Judged = { pair: StockPair; taking: Taking } | { problem: CreateRefusal };

/** Named numbers: one pair among them, each takeable now (one errors[] entry per number that is not). */
async function judgeNamed(work: Work, asked: string[]): Promise<Judged> {
  const phoneNumbers = [...new Set(asked)];
  const stock = await stockOfNumbers(work.db, phoneNumbers, work.now);
  const pairs = new Map(stock.map((row) => [`${row.countryCode}/${row.numberType}`, row]));
  if (pairs.size > 1) {
    return {
      problem: fieldProblem(
        "validation_error",
        `phone_numbers must all be of one country and type; these are of ${[...pairs.keys()].join(", ")}`,
        "/phone_numbers",
        "must all be of one country_code and number_type",
      ),
    };
  }
  const takeable = new Set(stock.filter((row) => row.takeable).map((row) => row.phoneNumber));
  const unavailable: FieldError[] = phoneNumbers
    .filter((phone) => !takeable.has(phone))
    .map((phone) => ({ location: "body", pointer: `/phone_numbers/${asked.indexOf(phone)}`, message: "is not available" }));
  const [first] = stock;
  if (first && unavailable.length === 0) {
    return { pair: { countryCode: first.countryCode, numberType: first.numberType }, taking: { phoneNumbers } };
  }
  const detail = `${unavailable.length} of the numbers named ${unavailable.length === 1 ? "is" : "are"} not available to reserve`;
  return { problem: new Problem("numbers_unavailable", detail, { errors: unavailable }) };
}

/** A quantity of a pair: the stock holds that many takeable now (starting with the digits, when given). */
async function judgeQuantity(work: Work, pair: StockPair, quantity: number, startsWith: string | undefined): Promise<Judged> {
  const available = await takeableCount(work.db, pair, startsWith, quantity, work.now);
  if (available >= quantity) return { pair, taking: { quantity, startsWith } };
  const which = startsWith === undefined ? "" : ` starting with ${startsWith}`;
  return {
    problem: new Problem(
      "insufficient_stock",
      `${available} ${pair.numberType} numbers of ${pair.countryCode}${which} are available; ${quantity} were asked for`,
      { errors: [{ location: "body", pointer: "/quantity", message: `must be at most ${available}, the numbers available` }] },
    ),
  };
}

/** Why the account may not hold the numbers through this profile: not its own, or its review is not open. */
async function profileRefusal(work: Work, customerId: string, profileId: string): Promise<CreateRefusal | undefined> {
  const profile = await findProfileStatus(work.db, customerId, profileId);
  const open = profile && (PROFILE_STATUSES_HELD_THROUGH as readonly string[]).includes(profile.status);
  if (open) return undefined;
  const why = profile ? `is ${profile.status}` : "is not a profile of this account";
  return fieldProblem(
    "conflict",
    `Numbers are held only through the review of a pending or under_review profile of the account; hold_for_profile ${why}`,
    "/hold_for_profile",
    profile ? `is ${profile.status}, its review is not open` : "is not a profile of this account",
  );
}

/** Every rule of a new reservation, judged on the state as read (the batch re-checks what a race can change). */
async function judge(work: Work, customerId: string, request: ReservationRequest): Promise<Judged> {
  const judged =
    "phoneNumbers" in request
      ? await judgeNamed(work, request.phoneNumbers)
      : await judgeQuantity(work, request.pair, request.quantity, request.startsWith);
  if ("problem" in judged) return judged;
  if (!(await findCatalogPair(work.db, judged.pair))) {
    return { problem: notOrderable(judged.pair, "body", "phoneNumbers" in request ? "/phone_numbers" : "/number_type") };
  }
  if ("holdForProfile" in request) {
    const refusal = await profileRefusal(work, customerId, request.holdForProfile);
    if (refusal) return { problem: refusal };
  }
  const count = "phoneNumbers" in judged.taking ? judged.taking.phoneNumbers.length : judged.taking.quantity;
  const held = await activeReservedCount(work.db, customerId, work.now);
  if (held + count > MAX_ACTIVE_RESERVED_NUMBERS) {
    return {
      problem: new Problem(
        "conflict",
        `The account's active reservations would hold ${held + count} numbers; at most ${MAX_ACTIVE_RESERVED_NUMBERS} may be held at once`,
      ),
    };
  }
  return judged;
}

/** Batches tried per request; after that many refusals the request is judged once more and never written. */
const CREATE_ATTEMPTS = 2;

/**
 * A reservation of the account, all or nothing, with its reservation.created event. The reads judge the request; the
 * batch takes the numbers as it finds them and refuses itself when a concurrent change took any: the request is then
 * judged again, as it now stands. Refused by the batch twice, it answers what the reads then find, else 409.
 */
async function reserve(
  work: Work,
  customerId: string,
  request: ReservationRequest,
): Promise<Result<ReservationWithNumbers, typeof CREATE_RESERVATION_REFUSALS>> {
  for (let attempt = 1; ; attempt++) {
    const judged = await judge(work, customerId, request);
    if ("problem" in judged) return refused(judged.problem);
    if (attempt > CREATE_ATTEMPTS) {
      return refused(
        new Problem("conflict", "The stock or the profile changed while the numbers were being reserved; try again"),
      );
    }
    const hold =
      "holdForProfile" in request
        ? { holdForProfile: request.holdForProfile, expiresAt: work.now + PROFILE_HOLD_MS }
        : { holdForProfile: null, expiresAt: work.now + ttlMs(request.ttlMinutes) };
    try {
      const created = await createReservation(work.db, work.outbox, { customerId, ...judged, ...hold }, work.now);
      if (created) return done(created);
    } catch (error) {
      // A concurrent change took numbers, or filled the ceiling, between the reads and the batch.
      if (!isFailedBatchAssertion(error)) throw error;
    }
    // Refused by the batch (the pair left the catalog, the profile's review ended, numbers taken): judged again.
  }
}

export const reserveNumbers = action({ refusals: CREATE_RESERVATION_REFUSALS, run: reserve });

/** An action's refusal of a reservation that is not active. */
function notActive(what: string, state: string): Problem<"reservation_not_active"> {
  return new Problem("reservation_not_active", `Only active reservations can be ${what}; this reservation is ${state}`);
}

const EXTEND_REFUSALS = refusals("validation_error", "reservation_not_active", "conflict", "not_found");

/** Why this reservation may not be extended by `ttlMinutes` now, or undefined. */
function extendRefusal(
  row: ReservationRow,
  ttlMinutes: number,
  now: number,
): Problem<(typeof EXTEND_REFUSALS)[number]> | undefined {
  if (!isActive(row, now)) return notActive("extended", statusAt(row, now));
  if (!mayExtend(row, now)) {
    return new Problem(
      "conflict",
      "A reservation held through a profile's review is not extended: it lasts until 24 hours after the review ends",
    );
  }
  const latest = row.createdAt + MAX_EXTENDED_LIFE_MS;
  if (now + ttlMs(ttlMinutes) > latest) {
    const left = Math.floor((latest - now) / 60_000);
    return fieldProblem(
      "validation_error",
      `ttl_minutes would hold the numbers past 24 hours after the reservation's creation (${toIso(latest)})`,
      "/ttl_minutes",
      left >= TTL_MINUTES.min
        ? `must be at most ${left}: a reservation lasts at most 24 hours from its creation`
        : "cannot extend it any more: a reservation lasts at most 24 hours from its creation",
    );
  }
  return undefined;
}

/** Holds the account's active reservation's numbers for `ttlMinutes` from now (at most 24 hours after its creation). */
async function extend(
  work: Work,
  customerId: string,
  reservationId: string,
  ttlMinutes: number,
): Promise<Result<ReservationWithNumbers, typeof EXTEND_REFUSALS>> {
  const current = await findReservationRow(work.db, customerId, reservationId);
  if (!current) return refused(notFound("Reservation"));
  const refusal = extendRefusal(current, ttlMinutes, work.now);
  if (refusal) return refused(refusal);
  const moved = await extendReservation(work.db, work.outbox, customerId, reservationId, work.now + ttlMs(ttlMinutes), work.now);
  if (moved.ok) return done(moved.value);
  if (moved.reason === "not_found") return refused(notFound("Reservation"));
  return refused(notActive("extended", moved.state));
}

export const extendReservationAction = action({
  refusals: EXTEND_REFUSALS,
  available: (row: ReservationRow, now: number) => mayExtend(row, now),
  run: extend,
});

const CANCEL_REFUSALS = refusals("reservation_not_active", "not_found");

/** Cancels the account's active reservation: its numbers are available again; reservation.cancelled. */
async function cancel(
  work: Work,
  customerId: string,
  reservationId: string,
): Promise<Result<ReservationWithNumbers, typeof CANCEL_REFUSALS>> {
  const moved = await cancelReservation(work.db, work.outbox, customerId, reservationId, work.now);
  if (moved.ok) return done(moved.value);
  if (moved.reason === "not_found") return refused(notFound("Reservation"));
  return refused(notActive("cancelled", moved.state));
}

export const cancelReservationAction = action({
  refusals: CANCEL_REFUSALS,
  available: (row: ReservationRow, now: number) => isActive(row, now),
  run: cancel,
});
