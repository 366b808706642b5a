// Queries for reservations. Every move of a reservation is one guarded statement (activeAndHoldingAt(now)); its stock
// rows follow by the triggers of migrations/0019.
import { and, asc, desc, eq, inArray, or, type SQL, sql } from "drizzle-orm";
import { batchByName, pageAndTotal, writeInPhases } from "../db/batch.ts";
import type { Database } from "../db/client.ts";
import { eventIfWritten, eventStatements, type Outbox } from "../db/outbox.ts";
import { type Outcome, ok, refuse } from "../db/outcome.ts";
import type { PageWindow } from "../db/paging.ts";
import {
  batchAssertions,
  catalog,
  type EventType,
  kycVerifications,
  orders,
  type ReservationRow,
  type ReservationStatus,
  reservationNumbers,
  reservations,
  type StockStatus,
  stockNumbers,
} from "../db/schema.ts";
import { inJsonList, insertSelection } from "../db/sql.ts";
import { firstTakeable, type StockPair, takeableNow } from "../stock/holds.ts";
import { reservationData } from "../webhooks/payloads.ts";
import {
  activeAndHoldingAt,
  activeAt,
  expiryAfterReviewAt,
  MAX_ACTIVE_RESERVED_NUMBERS,
  PROFILE_STATUSES_HELD_THROUGH,
  statusAt,
} from "./lifecycle.ts";

/** A reservation with the numbers it was made with, in phone-number order. */
export interface ReservationWithNumbers {
  reservation: ReservationRow;
  phoneNumbers: string[];
}

/** The event of a reservation's write, recorded only if it wrote (writeInPhases' record and after). */
export function reservationEventIfWritten(db: Database, type: EventType, reservationId: string, now: number) {
  return eventIfWritten(
    db,
    {
      type,
      customerId: reservations.customerId,
      data: reservationData(),
      from: reservations,
      where: eq(reservations.id, reservationId),
    },
    now,
  );
}

/**
 * The statements that mark an active reservation ordered by `orderId`, with its reservation.ordered event, for the
 * order's own batch: they apply only while the reservation is active at `now` and once the order placed from it exists
 * (earlier in the same batch), so both happen or neither (its numbers then stay held for the order, held_until NULL,
 * by trigger). `write` returns the reservation's row when it moved.
 */
export function orderReservationStatements(db: Database, reservationId: string, orderId: string, now: number) {
  const orderPlaced = sql`EXISTS (SELECT 1 FROM ${orders} WHERE ${orders.id} = ${orderId} AND ${orders.reservationId} = ${reservationId})`;
  return writeInPhases({
    write: db
      .update(reservations)
      .set({ status: "ordered" satisfies ReservationStatus, orderId, updatedAt: now })
      .where(and(eq(reservations.id, reservationId), activeAndHoldingAt(now), orderPlaced))
      .returning(),
    ...reservationEventIfWritten(db, "reservation.ordered", reservationId, now),
  });
}

function reservationOfAccount(db: Database, customerId: string, reservationId: string) {
  return db
    .select()
    .from(reservations)
    .where(and(eq(reservations.id, reservationId), eq(reservations.customerId, customerId)));
}

/** The account's reservation row without its numbers (what a judgement of it reads), or undefined. */
export async function findReservationRow(
  db: Database,
  customerId: string,
  reservationId: string,
): Promise<ReservationRow | undefined> {
  const [row] = await reservationOfAccount(db, customerId, reservationId);
  return row;
}

/** The account's reservation, or undefined (another account's too). */
export async function findReservation(
  db: Database,
  customerId: string,
  reservationId: string,
): Promise<ReservationWithNumbers | undefined> {
  const { reservation, phoneNumbers } = await batchByName(db, {
    reservation: reservationOfAccount(db, customerId, reservationId),
    phoneNumbers: numbersOf(db, [reservationId], customerId),
  });
  const [row] = reservation;
  return row && { reservation: row, phoneNumbers: phoneNumbers.map((n) => n.phoneNumber) };
}

/**
 * The state of the account's reservation as a change's guard (activeAndHoldingAt) judges it: its status at `now`, but
 * `expired` when it reads active at `now` yet no longer holds all its numbers (another took them once its hold
 * lapsed); undefined when it is not the account's.
 */
export async function guardedReservationState(
  db: Database,
  customerId: string,
  reservationId: string,
  now: number,
): Promise<ReservationStatus | undefined> {
  const [row] = await db
    .select({ status: reservations.status, expiresAt: reservations.expiresAt, holding: sql<number>`${activeAndHoldingAt(now)}` })
    .from(reservations)
    .where(and(eq(reservations.id, reservationId), eq(reservations.customerId, customerId)));
  if (!row) return undefined;
  const status = statusAt(row, now);
  return status === "active" && !row.holding ? "expired" : status;
}

/** The numbers of these reservations of the account, in phone-number order. */
function numbersOf(db: Database, reservationIds: readonly string[], customerId: string) {
  return db
    .select({ reservationId: reservationNumbers.reservationId, phoneNumber: reservationNumbers.phoneNumber })
    .from(reservationNumbers)
    .innerJoin(reservations, eq(reservations.id, reservationNumbers.reservationId))
    .where(and(inJsonList(reservationNumbers.reservationId, reservationIds), eq(reservations.customerId, customerId)))
    .orderBy(asc(reservationNumbers.phoneNumber));
}

/** The reservations in this status at `now` (lifecycle.ts statusAt: an active one past its time is expired). */
function inStatusAt(status: ReservationStatus, now: number): SQL {
  switch (status) {
    case "active":
      return activeAt(now);
    case "expired":
      return or(
        eq(reservations.status, "expired"),
        and(eq(reservations.status, "active"), sql`${reservations.expiresAt} <= ${now}`),
      )!;
    default:
      return eq(reservations.status, status);
  }
}

/** A page of the account's reservations, newest first, of these statuses (as at `now`) when given. */
export async function listReservations(
  db: Database,
  customerId: string,
  statuses: readonly ReservationStatus[] | undefined,
  window: PageWindow,
  now: number,
  withNumbers = true,
): Promise<{ rows: ReservationWithNumbers[]; total: number }> {
  const matching = and(eq(reservations.customerId, customerId), statuses && or(...statuses.map((s) => inStatusAt(s, now))));
  const { rows, total } = await pageAndTotal(
    db,
    db
      .select()
      .from(reservations)
      .where(matching)
      .orderBy(desc(reservations.createdAt), asc(reservations.id))
      .limit(window.limit)
      .offset(window.offset),
    db
      .select({ total: sql<number>`count(*)`.mapWith(Number) })
      .from(reservations)
      .where(matching),
  );
  // A page that shows only each reservation's count (its quantity) reads none of its numbers.
  if (rows.length === 0 || !withNumbers) return { rows: rows.map((reservation) => ({ reservation, phoneNumbers: [] })), total };
  const numbers = await numbersOf(
    db,
    rows.map((row) => row.id),
    customerId,
  );
  return {
    rows: rows.map((reservation) => ({
      reservation,
      phoneNumbers: numbers.filter((n) => n.reservationId === reservation.id).map((n) => n.phoneNumber),
    })),
    total,
  };
}

/** What a new reservation takes: these numbers (of the pair), or the first `quantity` takeable ones of it. */
export type Taking = { phoneNumbers: string[] } | { quantity: number; startsWith: string | undefined };

export interface NewReservation {
  customerId: string;
  pair: StockPair;
  taking: Taking;
  expiresAt: number;
  /** The profile (bare id) whose review it is held through, or null. */
  holdForProfile: string | null;
}

/** The stock rows of these numbers: their pair and whether they may be taken now. */
export async function stockOfNumbers(db: Database, phoneNumbers: readonly string[], now: number) {
  return db
    .select({
      phoneNumber: stockNumbers.phoneNumber,
      countryCode: stockNumbers.countryCode,
      numberType: stockNumbers.numberType,
      takeable: sql<number>`${takeableNow(now)}`.mapWith(Boolean),
    })
    .from(stockNumbers)
    .where(inJsonList(stockNumbers.phoneNumber, phoneNumbers));
}

/** How many numbers of the pair (starting with the digits, when given) may be taken now, counting up to `limit`. */
export async function takeableCount(db: Database, pair: StockPair, startsWith: string | undefined, limit: number, now: number) {
  const [row] = await db.all<{ count: number }>(
    sql`SELECT count(*) AS count FROM (${firstTakeable(pair, startsWith, limit, now)})`,
  );
  return row?.count ?? 0;
}

/** How many numbers are in the account's active reservations at `now` (the ceiling's sum, from its index). */
function activeReservedNumbers(customerId: string, now: number): SQL {
  return sql`(SELECT coalesce(sum(${reservations.quantity}), 0) FROM ${reservations} WHERE ${and(eq(reservations.customerId, customerId), activeAt(now))})`;
}

export async function activeReservedCount(db: Database, customerId: string, now: number): Promise<number> {
  const [row] = await db.all<{ count: number }>(sql`SELECT ${activeReservedNumbers(customerId, now)} AS count`);
  return row?.count ?? 0;
}

/** The profile (kind profile) of the account, with its status, or undefined. */
export async function findProfileStatus(db: Database, customerId: string, profileId: string) {
  return db
    .select({ status: kycVerifications.status })
    .from(kycVerifications)
    .where(profileOfAccount(customerId, profileId))
    .get();
}

function profileOfAccount(customerId: string, profileId: string): SQL {
  return and(
    eq(kycVerifications.id, profileId),
    eq(kycVerifications.customerId, customerId),
    sql`${kycVerifications.numberId} IS NULL`,
  )!;
}

/**
 * A reservation, all or nothing, in one batch: its row (only while its pair is orderable and the profile it is held
 * through, if any, is the account's with its review open), its numbers as the batch finds them takeable, their stock
 * rows moved to `reserved` for it. Assertions refuse the batch when it took fewer numbers than asked (taken
 * meanwhile, or the stock short) or when the account's active reservations would hold more than the ceiling. Answers
 * undefined when the row was not written (the pair or the profile); a failed assertion throws (the caller reads why).
 */
export async function createReservation(
  db: Database,
  outbox: Outbox,
  reservation: NewReservation,
  now: number,
): Promise<ReservationWithNumbers | undefined> {
  const id = crypto.randomUUID();
  const { customerId, pair, taking, holdForProfile } = reservation;
  const quantity = "phoneNumbers" in taking ? taking.phoneNumbers.length : taking.quantity;
  const exists = sql`EXISTS (SELECT 1 FROM ${reservations} WHERE ${eq(reservations.id, id)})`;
  const profileOpen =
    holdForProfile === null
      ? undefined
      : sql`EXISTS (SELECT 1 FROM ${kycVerifications} WHERE ${and(profileOfAccount(customerId, holdForProfile), inArray(kycVerifications.status, PROFILE_STATUSES_HELD_THROUGH))})`;
  const picked =
    "phoneNumbers" in taking
      ? sql`SELECT ${stockNumbers.phoneNumber} FROM ${stockNumbers} WHERE ${and(
          inJsonList(stockNumbers.phoneNumber, taking.phoneNumbers),
          eq(stockNumbers.countryCode, pair.countryCode),
          eq(stockNumbers.numberType, pair.numberType),
          takeableNow(now),
        )}`
      : firstTakeable(pair, taking.startsWith, taking.quantity, now);
  const created = eventStatements(
    db,
    {
      type: "reservation.created",
      customerId: reservations.customerId,
      data: reservationData(),
      from: reservations,
      where: eq(reservations.id, id),
    },
    now,
  );
  const written = await batchByName(db, {
    reservation: db
      .insert(reservations)
      .select(
        db
          .select(
            insertSelection({
              id,
              customerId,
              countryCode: catalog.countryCode,
              numberType: catalog.numberType,
              status: "active" satisfies ReservationStatus,
              quantity,
              expiresAt: reservation.expiresAt,
              holdForProfile,
              orderId: null,
              createdAt: now,
              updatedAt: now,
            }),
          )
          .from(catalog)
          .where(and(eq(catalog.countryCode, pair.countryCode), eq(catalog.numberType, pair.numberType), profileOpen)),
      )
      .returning(),
    numbers: db
      .insert(reservationNumbers)
      .select(sql`SELECT ${id}, phone_number FROM (${picked}) WHERE ${exists}`)
      .returning({ phoneNumber: reservationNumbers.phoneNumber }),
    held: writeInPhases({
      write: db
        .update(stockNumbers)
        .set({ status: "reserved" satisfies StockStatus, reservationId: id, heldUntil: reservation.expiresAt })
        .where(
          and(
            inArray(
              stockNumbers.phoneNumber,
              db
                .select({ phoneNumber: reservationNumbers.phoneNumber })
                .from(reservationNumbers)
                .where(eq(reservationNumbers.reservationId, id)),
            ),
            takeableNow(now),
          ),
        ),
      // Every number asked for, or nothing: taken meanwhile, or the stock short.
      record: (_, rowsWritten) =>
        db
          .insert(batchAssertions)
          .select(sql`SELECT 'fewer numbers taken than asked' WHERE ${exists} AND ${rowsWritten} <> ${quantity}`),
    }),
    ceiling: db
      .insert(batchAssertions)
      .select(
        sql`SELECT 'over the active reservations ceiling' WHERE ${exists} AND ${activeReservedNumbers(customerId, now)} > ${MAX_ACTIVE_RESERVED_NUMBERS}`,
      ),
    created: created.statements,
  });
  outbox.add(written.created.deliveries);
  const [row] = written.reservation;
  if (!row) return undefined;
  return { reservation: row, phoneNumbers: written.numbers.map((n) => n.phoneNumber).sort() };
}

/**
 * A guarded move of the account's active reservation (not past its time), with its event: the UPDATE applies only
 * while it is active at `now` and `guard` holds. Answers the row moved, or why not (read after).
 */
async function moveReservation(
  db: Database,
  outbox: Outbox,
  customerId: string,
  reservationId: string,
  change: { set: Partial<typeof reservations.$inferInsert>; guard?: SQL; event?: EventType },
  now: number,
): Promise<Outcome<ReservationWithNumbers, "not_found" | "wrong_state">> {
  const event = change.event && reservationEventIfWritten(db, change.event, reservationId, now);
  const { moved } = await batchByName(db, {
    moved: writeInPhases({
      write: db
        .update(reservations)
        .set({ ...change.set, updatedAt: now })
        .where(
          and(eq(reservations.id, reservationId), eq(reservations.customerId, customerId), activeAndHoldingAt(now), change.guard),
        )
        .returning(),
      record: event?.record,
      after: { event: event?.after },
    }),
  });
  if (moved.after.event) outbox.add(moved.after.event.deliveries);
  if (moved.write.length === 0) {
    const state = await guardedReservationState(db, customerId, reservationId, now);
    return state === undefined ? refuse("not_found") : refuse("wrong_state", { state });
  }
  const current = await findReservation(db, customerId, reservationId);
  return current ? ok(current) : refuse("not_found");
}

/** Extends the account's active reservation to `expiresAt` (its stock rows' hold moves with it, by trigger). */
export function extendReservation(
  db: Database,
  outbox: Outbox,
  customerId: string,
  reservationId: string,
  expiresAt: number,
  now: number,
) {
  return moveReservation(
    db,
    outbox,
    customerId,
    reservationId,
    { set: { expiresAt }, guard: sql`${reservations.holdForProfile} IS NULL` },
    now,
  );
}

/** Cancels the account's active reservation, with its reservation.cancelled event (its numbers freed, by trigger). */
export function cancelReservation(db: Database, outbox: Outbox, customerId: string, reservationId: string, now: number) {
  return moveReservation(
    db,
    outbox,
    customerId,
    reservationId,
    { set: { status: "cancelled" }, event: "reservation.cancelled" },
    now,
  );
}

/**
 * The statement that ends the holds through a profile's review, for the batch where its review ends (approved or
 * rejected) or it is deleted: each active reservation held through it expires at expiryAfterReview, never later than
 * it did (its stock rows' hold follows, by trigger). `when` is the guard of that batch's write, so a refused review or
 * delete lowers nothing.
 */
export function endProfileHoldsStatement(db: Database, profileId: string, when: SQL, now: number) {
  const after = expiryAfterReviewAt(now);
  return db
    .update(reservations)
    .set({ expiresAt: after, updatedAt: now })
    .where(and(eq(reservations.holdForProfile, profileId), activeAt(now), sql`${reservations.expiresAt} > ${after}`, when));
}
