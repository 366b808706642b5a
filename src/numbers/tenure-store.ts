// A number's moves (release, restore, suspend, resume) over many numbers at once: the numbers are judged on one read,
// then moved in one D1 batch guarded by the same rules (src/numbers/lifecycle.ts) and by what the read found; a
// concurrent change fails the batch's assertions and the whole is done again from a fresh read (retryingRaces).
import { and, eq, type SQL, sql } from "drizzle-orm";
import type { SQLiteUpdateSetSource } from "drizzle-orm/sqlite-core";
import { type AuditContext, type AuditEntry, auditEachBeforeWrite } from "../db/audit.ts";
import { batchByName, writeInPhases } from "../db/batch.ts";
import type { Database } from "../db/client.ts";
import { eventStatements, inEventChunks, NUMBERS_PER_NUMBER_EVENT, type Outbox } from "../db/outbox.ts";
import { type Outcome, ok, refuse } from "../db/outcome.ts";
import { retryingRaces } from "../db/races.ts";
import {
  customers,
  kycProfileNumbers,
  kycVerifications,
  type NumberRow,
  type NumberStatus,
  numbers,
  OPEN_ORDER_STATUSES,
  type OrderStatus,
  orders,
  type ReleaseReason,
  type SuspensionReason,
} from "../db/schema.ts";
import { inJsonList, insertSelection, randomUuid } from "../db/sql.ts";
import { profileNumbersRecorded, wroteExactly } from "../kyc/profile-numbers.ts";
import { numbersData } from "../webhooks/payloads.ts";
import {
  type MoveRefusal,
  moveGuard,
  moveRefusal,
  NUMBER_MOVES,
  type NumberMove,
  type NumberMover,
  RESTORE_WINDOW_MS,
  RESTORED_STATUS,
} from "./lifecycle.ts";

/** Which numbers: these (bare ids, repeats counted once, in this order), or every number of an order (by phone number). */
export type TenureSelection = { numberIds: string[] } | { orderId: string };

/** The outcome of a number that moved (or, on a dry run, would). */
export const MOVED_OUTCOMES = {
  release: "released",
  restore: "restored",
  suspend: "suspended",
  resume: "resumed",
} as const satisfies Record<NumberMove, string>;
type MovedOutcome = (typeof MOVED_OUTCOMES)[NumberMove];
type MoveOutcome = MovedOutcome | "would_release" | "not_found" | MoveRefusal;

/** What else a move did to the number (or, on a dry run, would). */
export type MoveEffect =
  | { code: "detached_from_profile"; profileId: string }
  | { code: "own_verification_kept"; kycId: string }
  | { code: "order_still_open"; orderId: string }
  | { code: "reattached_to_profile"; profileId: string }
  | { code: "profile_gone" };

interface MoveResult {
  /** The number's id; the id as asked when no number was found. */
  numberId: string;
  phoneNumber: string | null;
  outcome: MoveOutcome;
  effects: MoveEffect[];
}

export interface MoveReport {
  /** How many numbers moved (would move, on a dry run). */
  moved: number;
  results: MoveResult[];
}

/** Who asks and what for: the account (its own numbers only) or the operator (any account's). */
export interface MoveRequest {
  move: NumberMove;
  mover: NumberMover;
  /** The account whose numbers these are; undefined for the operator. */
  customerId: string | undefined;
  selection: TenureSelection;
  dryRun?: boolean;
  force?: boolean;
  /** A suspension's reason. */
  reason?: SuspensionReason;
  /** The operator's note, kept in the audit only. */
  note?: string;
}

type Tenure = Pick<
  NumberRow,
  | "id"
  | "customerId"
  | "phoneNumber"
  | "orderId"
  | "status"
  | "releaseProtected"
  | "releaseReason"
  | "restorableUntil"
  | "closedAt"
  | "suspendedAt"
  | "kycProfileId"
  | "releasedProfileId"
  | "releasedProfileGone"
> & { requested: string; ownKycId: string | null; orderStatus: OrderStatus | null; releasedProfileExists: number };

/** The selected numbers as they stand, each with what the report's effects name, in the selection's order. */
function readTenures(db: Database, customerId: string | undefined, selection: TenureSelection) {
  const columns = {
    // Aliased: D1 answers rows by column name, and a second `id` would be lost.
    id: sql<string | null>`${numbers.id}`.as("number_id"),
    customerId: numbers.customerId,
    phoneNumber: numbers.phoneNumber,
    orderId: numbers.orderId,
    status: numbers.status,
    releaseProtected: numbers.releaseProtected,
    releaseReason: numbers.releaseReason,
    restorableUntil: numbers.restorableUntil,
    closedAt: numbers.closedAt,
    suspendedAt: numbers.suspendedAt,
    kycProfileId: numbers.kycProfileId,
    releasedProfileId: numbers.releasedProfileId,
    releasedProfileGone: numbers.releasedProfileGone,
    ownKycId: sql<
      string | null
    >`(SELECT ${kycVerifications.id} FROM ${kycVerifications} WHERE ${kycVerifications.numberId} = ${numbers.id})`.as(
      "own_kyc_id",
    ),
    orderStatus: sql<OrderStatus | null>`(SELECT ${orders.status} FROM ${orders} WHERE ${orders.id} = ${numbers.orderId})`.as(
      "order_status",
    ),
    releasedProfileExists:
      sql<number>`EXISTS (SELECT 1 FROM ${kycVerifications} WHERE ${kycVerifications.id} = ${numbers.releasedProfileId})`.as(
        "released_profile_exists",
      ),
  };
  const owned = customerId === undefined ? undefined : eq(numbers.customerId, customerId);
  if ("orderId" in selection) {
    return (
      db
        .select({ requested: sql<string>`${numbers.id}`.as("requested"), ...columns })
        .from(numbers)
        // Joined (nothing selected from it), so drizzle names every column with its table: the subqueries need it.
        .innerJoin(customers, eq(customers.id, numbers.customerId))
        .where(and(eq(numbers.orderId, selection.orderId), owned))
        .orderBy(numbers.phoneNumber)
    );
  }
  return db
    .select({ requested: sql<string>`requested.value`.as("requested"), ...columns })
    .from(sql`json_each(${JSON.stringify([...new Set(selection.numberIds)])}) AS requested`)
    .leftJoin(numbers, and(sql`${numbers.id} = requested.value`, owned))
    .orderBy(sql`requested.key`);
}

/** What the move does to the number beside its state (a refused move does nothing). */
function effectsOf(move: NumberMove, tenure: Tenure): MoveEffect[] {
  if (move === "release") {
    const effects: MoveEffect[] = [];
    if (tenure.kycProfileId !== null) effects.push({ code: "detached_from_profile", profileId: tenure.kycProfileId });
    if (tenure.ownKycId !== null) effects.push({ code: "own_verification_kept", kycId: tenure.ownKycId });
    if (tenure.orderStatus !== null && (OPEN_ORDER_STATUSES as readonly OrderStatus[]).includes(tenure.orderStatus)) {
      effects.push({ code: "order_still_open", orderId: tenure.orderId });
    }
    return effects;
  }
  if (move === "restore") {
    if (tenure.releasedProfileId !== null && tenure.releasedProfileExists) {
      return [{ code: "reattached_to_profile", profileId: tenure.releasedProfileId }];
    }
    if (tenure.releasedProfileGone || tenure.releasedProfileId !== null) return [{ code: "profile_gone" }];
  }
  return [];
}

/** Each selected number's outcome and effects, and the numbers that move. */
function judge(request: MoveRequest, tenures: Tenure[], now: number): { report: MoveReport; moving: Tenure[] } {
  const moving: Tenure[] = [];
  const results = tenures.map((tenure): MoveResult => {
    if (tenure.id === null) return { numberId: tenure.requested, phoneNumber: null, outcome: "not_found", effects: [] };
    const refusal = moveRefusal(tenure, request.move, request.mover, { now, force: request.force });
    const found = { numberId: tenure.id, phoneNumber: tenure.phoneNumber };
    if (refusal) return { ...found, outcome: refusal, effects: [] };
    moving.push(tenure);
    const outcome = request.dryRun ? "would_release" : MOVED_OUTCOMES[request.move];
    return { ...found, outcome, effects: effectsOf(request.move, tenure) };
  });
  return { report: { moved: moving.length, results }, moving };
}

/**
 * Moves the selected numbers that the move's rules allow now, and reports every one. Refused when the selection's
 * order is unknown (or another account's).
 */
export async function moveNumbers(
  db: Database,
  outbox: Outbox,
  audit: AuditContext,
  request: MoveRequest,
  now: number,
): Promise<Outcome<MoveReport, "unknown_order">> {
  return retryingRaces(async () => {
    const { selection, customerId } = request;
    const read = await batchByName(db, {
      order:
        "orderId" in selection
          ? db
              .select({ id: orders.id })
              .from(orders)
              .where(
                and(eq(orders.id, selection.orderId), customerId === undefined ? undefined : eq(orders.customerId, customerId)),
              )
          : undefined,
      tenures: readTenures(db, customerId, selection),
    });
    if (read.order !== undefined && read.order.length === 0) return refuse("unknown_order");
    const { report, moving } = judge(request, read.tenures as Tenure[], now);
    if (request.dryRun || moving.length === 0) return ok(report);
    await writeMove(db, outbox, audit, request, moving, now);
    return ok(report);
  });
}

/** The values a move sets. */
function movedValues(request: MoveRequest, now: number): SQLiteUpdateSetSource<typeof numbers> {
  switch (request.move) {
    case "release":
      return {
        status: "released" satisfies NumberStatus,
        releasedAt: now,
        restorableUntil: now + RESTORE_WINDOW_MS,
        releaseReason: request.mover satisfies ReleaseReason,
        // Kept for a restore, which joins the number to it again while it exists.
        releasedProfileId: sql`${numbers.kycProfileId}`,
        releasedProfileGone: false,
        updatedAt: now,
      };
    case "restore":
      return {
        status: RESTORED_STATUS,
        releasedAt: null,
        restorableUntil: null,
        releaseReason: null,
        releasedProfileId: null,
        releasedProfileGone: false,
        updatedAt: now,
      };
    case "suspend":
      return { status: "suspended" satisfies NumberStatus, suspendedAt: now, suspensionReason: request.reason, updatedAt: now };
    case "resume":
      return { status: "active" satisfies NumberStatus, suspendedAt: null, suspensionReason: null, updatedAt: now };
  }
}

/** What each number's audit event records. */
function auditChanges(request: MoveRequest): NonNullable<AuditEntry["changes"]> {
  const status = numbers.status;
  const note: NonNullable<AuditEntry["changes"]> = request.note === undefined ? {} : { note: [null, request.note] };
  switch (request.move) {
    case "release":
      return {
        status: [status, "released"],
        release_reason: [numbers.releaseReason, request.mover],
        ...(request.force ? { force: [sql`json('false')`, sql`json('true')`] as const } : {}),
        ...note,
      };
    case "restore":
      return { status: [status, RESTORED_STATUS], ...note };
    case "suspend":
      return { status: [status, "suspended"], suspension_reason: [numbers.suspensionReason, request.reason ?? null], ...note };
    case "resume":
      return { status: [status, "active"], suspension_reason: [numbers.suspensionReason, null], ...note };
  }
}

/** The ids of the numbers by the profile `profileOf` names (numbers without one left out). */
function byProfile(tenures: Tenure[], profileOf: (t: Tenure) => string | null): Map<string, string[]> {
  const grouped = new Map<string, string[]>();
  for (const tenure of tenures) {
    const profileId = profileOf(tenure);
    if (profileId !== null) grouped.set(profileId, [...(grouped.get(profileId) ?? []), tenure.id]);
  }
  return grouped;
}

/** The profile events and audit event of each profile the numbers left or joined. */
function profileRecords(
  db: Database,
  audit: AuditContext,
  change: "attached" | "detached",
  grouped: Map<string, string[]>,
  now: number,
): Record<string, ReturnType<typeof profileNumbersRecorded>> {
  return Object.fromEntries(
    [...grouped].map(([profileId, ids], i) => [
      `profile${i + 1}`,
      profileNumbersRecorded(db, audit, change, profileId, ids, now),
    ]),
  );
}

/** The move's number.* events: per account, one per NUMBERS_PER_NUMBER_EVENT numbers, each read as the move left them. */
function numberEvents(db: Database, request: MoveRequest, moving: Tenure[], now: number) {
  const byAccount = new Map<string, string[]>();
  for (const tenure of moving) byAccount.set(tenure.customerId, [...(byAccount.get(tenure.customerId) ?? []), tenure.id]);
  const type = NUMBER_MOVES[request.move].event;
  return [...byAccount].flatMap(([customerId, ids]) =>
    inEventChunks(ids, NUMBERS_PER_NUMBER_EVENT).map(
      (chunk) =>
        // From the account's one row: one event each, whatever the numbers.
        eventStatements(
          db,
          { type, customerId: customers.id, data: numbersData(chunk), from: customers, where: eq(customers.id, customerId) },
          now,
        ).statements,
    ),
  );
}

/**
 * One batch: each number's audit event, the move of exactly the numbers judged movable (asserted: a concurrent change
 * makes it write fewer, and the batch is refused), a release's detach from their profile (as read: the move's guard
 * holds each number to the profile the read found) or a restore's re-attach (before the move clears the profile it
 * was released from), each with the profile's events and audit event, then the number.* events.
 */
async function writeMove(db: Database, outbox: Outbox, audit: AuditContext, request: MoveRequest, moving: Tenure[], now: number) {
  const ids = moving.map((t) => t.id);
  // A number moves only while attached as read: "<id>/<profile id or nothing>".
  const asRead = moving.map((t) => `${t.id}/${t.kycProfileId ?? ""}`);
  const guard = and(
    inJsonList(numbers.id, ids),
    request.customerId === undefined ? undefined : eq(numbers.customerId, request.customerId),
    moveGuard(request.move, request.mover, { now, force: request.force }),
    inJsonList(sql`${numbers.id} || '/' || coalesce(${numbers.kycProfileId}, '')`, asRead),
  )!;
  const detaching = request.move === "release" ? byProfile(moving, (t) => t.kycProfileId) : new Map<string, string[]>();
  const reattaching =
    request.move === "restore"
      ? byProfile(moving, (t) => (t.releasedProfileExists ? t.releasedProfileId : null))
      : new Map<string, string[]>();
  const detachedIds = [...detaching.values()].flat();
  const reattachedIds = [...reattaching.values()].flat();
  const events = numberEvents(db, request, moving, now);
  // Re-attached numbers are attached now, no longer as read.
  const moveGuardNow = request.move === "restore" ? restoreGuard(request, ids, now) : guard;
  const written = await batchByName(db, {
    reattach:
      reattachedIds.length === 0
        ? undefined
        : writeInPhases({
            write: db.insert(kycProfileNumbers).select(
              db
                .select(
                  insertSelection({
                    numberId: numbers.id,
                    kycId: randomUuid(),
                    profileId: kycVerifications.id,
                    customerId: numbers.customerId,
                    attachedAt: now,
                  }),
                )
                .from(numbers)
                .innerJoin(kycVerifications, eq(kycVerifications.id, numbers.releasedProfileId))
                .where(and(guard, inJsonList(numbers.id, reattachedIds))),
            ),
            record: wroteExactly(db, reattachedIds.length, "reattach"),
            after: profileRecords(db, audit, "attached", reattaching, now),
          }),
    moved: writeInPhases({
      before: {
        audit: auditEachBeforeWrite(
          db,
          { ...audit, now },
          {
            action: NUMBER_MOVES[request.move].audit,
            target: { type: "number", id: sql`'num_' || ${numbers.id}` },
            customerId: numbers.customerId,
            changes: auditChanges(request),
          },
          { from: numbers, guard: moveGuardNow },
        ),
      },
      write: db.update(numbers).set(movedValues(request, now)).where(moveGuardNow),
      record: wroteExactly(db, ids.length, request.move),
    }),
    detach:
      detachedIds.length === 0
        ? undefined
        : writeInPhases({
            write: db.delete(kycProfileNumbers).where(inJsonList(kycProfileNumbers.numberId, detachedIds)),
            record: wroteExactly(db, detachedIds.length, "detach"),
            after: profileRecords(db, audit, "detached", detaching, now),
          }),
    events: Object.fromEntries(events.map((event, i) => [`chunk${i + 1}`, event])),
  });
  const profileDeliveries = (after: Record<string, { events: Record<string, { deliveries: { id: string }[] }> }> = {}) =>
    Object.values(after).flatMap((profile) => Object.values(profile.events).flatMap((event) => event.deliveries));
  outbox.add([
    ...profileDeliveries(written.reattach?.after),
    ...profileDeliveries(written.detach?.after),
    ...Object.values(written.events).flatMap((event) => event.deliveries),
  ]);
}

/**
 * A restore's guard once the re-attach has run: the rules and the ids, not the attachment as read (the numbers being
 * restored had none, and those re-attached now have their profile's).
 */
function restoreGuard(request: MoveRequest, ids: string[], now: number): SQL {
  return and(
    inJsonList(numbers.id, ids),
    request.customerId === undefined ? undefined : eq(numbers.customerId, request.customerId),
    moveGuard("restore", request.mover, { now }),
  )!;
}
