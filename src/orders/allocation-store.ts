// Allocation of numbers to an order, of given numbers or from the stock. A phone number is taken while an unclosed
// tenure (a numbers row without closed_at) holds it.
import { and, asc, eq, inArray, isNull, or, type SQL, sql } from "drizzle-orm";
import { type AuditContext, auditBeforeWrite, auditStatement } from "../db/audit.ts";
import { batchByName, type Results, writeInPhases } from "../db/batch.ts";
import type { Database } from "../db/client.ts";
import { isFailedBatchAssertion } from "../db/errors.ts";
import { DATA_FILLED_LATER, eventStatements, fillEventData, inEventChunks, type Outbox } from "../db/outbox.ts";
import { type Outcome, ok, type Refusal, refusalByState, refuse } from "../db/outcome.ts";
import {
  batchAssertions,
  type KycStatus,
  kycProfileNumbers,
  kycVerifications,
  type NumberRow,
  type NumberStatus,
  numbers,
  type OrderRow,
  type OrderStatus,
  orders,
  type StockStatus,
  stockCounts,
  stockNumbers,
} from "../db/schema.ts";
import { inJsonList, insertSelection, literal } from "../db/sql.ts";
import { profileNumbersEvents } from "../kyc/profile-numbers.ts";
import { availableStock, heldFor, heldNow, holdLapsed, reservedStock } from "../stock/holds.ts";
import { allocationData, orderData } from "../webhooks/payloads.ts";
import { ALLOCATABLE } from "./lifecycle.ts";
import { findOrderById } from "./store.ts";

/**
 * The numbers an allocation gives the order: these (quarantined ones only when `ignoreQuarantine`), or the N oldest
 * available ones of the stock of the order's pair.
 */
export type Allocation = { phoneNumbers: string[]; ignoreQuarantine?: boolean } | { fromStock: number };

/** An allocated number with its verification's status (its profile's), as the numbers list shows it. */
type AllocatedNumber = { number: NumberRow; kycStatus: KycStatus | null };

type AllocationRefusal =
  | "not_found"
  | "wrong_state"
  | "changed_meanwhile"
  | "over_quantity"
  | "numbers_taken"
  | "stocked_elsewhere"
  | "held"
  | "quarantined"
  | "insufficient_stock";

/**
 * Allocates numbers to an order, all or nothing. From stock, the batch itself takes the N oldest numbers of the
 * order's pair: D1 runs batches one at a time, so two allocations at once never pick the same numbers, and the one
 * that runs second takes the next ones; it fails only when the stock holds fewer than N then. An order its customer
 * changed between the read and the batch (a pending order's profile) is read again and allocated once more, as it
 * now stands; changed again, the allocation is refused as changed meanwhile.
 */
export async function allocateNumbers(
  db: Database,
  outbox: Outbox,
  audit: AuditContext,
  orderId: string,
  allocation: Allocation,
  now: number,
): Promise<Outcome<{ order: OrderRow; numbers: AllocatedNumber[] }, AllocationRefusal>> {
  for (let attempt = 1; ; attempt++) {
    const allocated = await readAndAllocate(db, outbox, audit, orderId, allocation, now);
    if (allocated.ok || allocated.reason !== "changed_meanwhile" || attempt === 2) return allocated;
  }
}

/** One allocation: the order read and judged, then its batch. */
async function readAndAllocate(
  ...[db, outbox, audit, orderId, allocation, now]: Parameters<typeof allocateNumbers>
): Promise<Outcome<{ order: OrderRow; numbers: AllocatedNumber[] }, AllocationRefusal>> {
  const order = await findOrderById(db, orderId);
  const asked = "fromStock" in allocation ? allocation.fromStock : allocation.phoneNumbers.length;
  const refusal = orderRefusal(order, asked);
  if (refusal || !order) return refusal ?? refuse("not_found");
  if ("fromStock" in allocation) {
    // Short already: no batch to try (the batch itself decides when the stock suffices now).
    const available = await takeableForOrder(db, order, now);
    if (available < allocation.fromStock) return refuse("insufficient_stock", { available });
  } else {
    const taken = await findTakenPhoneNumbers(db, allocation.phoneNumbers);
    if (taken.length > 0) return refuse("numbers_taken", { phoneNumbers: taken });
    const unfit = await unfitStockRefusal(db, order, allocation.phoneNumbers, allocation.ignoreQuarantine === true, now);
    if (unfit) return unfit;
  }
  return allocateInBatch(db, outbox, audit, order, allocation, now);
}

/** Why the order takes no `count` numbers now (unknown, not allocatable, fewer left), or undefined. */
function orderRefusal(order: OrderRow | undefined, count: number): Refusal<AllocationRefusal> | undefined {
  if (!order) return refuse("not_found");
  if (!ALLOCATABLE.includes(order.status)) return refuse("wrong_state", { state: order.status });
  const remaining = order.quantity - order.fulfilledQuantity;
  return count > remaining ? refuse("over_quantity", { remaining }) : undefined;
}

/** The order an allocation's statements serve: read before the batch, or inserted earlier in the same batch. */
export type AllocationTarget = Pick<OrderRow, "id" | "countryCode" | "numberType" | "kycProfileId" | "reservationId">;

/**
 * How many numbers of the stock an allocation from stock to the order may take now: the pair's available ones, its
 * reserved ones whose hold lapsed, and those held for the order's own reservation.
 */
export async function takeableForOrder(
  db: Database,
  order: Pick<AllocationTarget, "countryCode" | "numberType" | "reservationId">,
  now: number,
): Promise<number> {
  const ofPair = and(eq(stockNumbers.countryCode, order.countryCode), eq(stockNumbers.numberType, order.numberType));
  const available = db
    .select({ count: stockCounts.available })
    .from(stockCounts)
    .where(and(eq(stockCounts.countryCode, order.countryCode), eq(stockCounts.numberType, order.numberType)));
  const [row] = await db
    .select({
      count: sql<number>`coalesce((${available}), 0)
        + (SELECT count(*) FROM ${stockNumbers} WHERE ${and(ofPair, holdLapsed(now))})
        + ${order.reservationId === null ? sql`0` : sql`(SELECT count(*) FROM ${stockNumbers} WHERE ${heldFor(order.reservationId, now)})`}`.mapWith(
        Number,
      ),
    })
    .from(sql`(SELECT 1)`);
  return row?.count ?? 0;
}

/**
 * The stock rows of these numbers that an allocation to `order` may not take: another pair's, ones a reservation holds
 * for another holder (not the order's own reservation; a lapsed hold holds nothing), or quarantined ones.
 */
function unfitStock(order: AllocationTarget, phoneNumbers: string[], ignoreQuarantine: boolean, now: number): SQL {
  const elsewhere = sql`NOT (${stockNumbers.countryCode} = ${order.countryCode} AND ${stockNumbers.numberType} = ${order.numberType})`;
  const held = and(heldNow(now), sql`${stockNumbers.reservationId} IS NOT ${order.reservationId}`)!;
  const quarantined = sql`${stockNumbers.status} = ${literal("quarantined" satisfies StockStatus)}`;
  return and(
    inJsonList(stockNumbers.phoneNumber, phoneNumbers),
    or(elsewhere, held, ignoreQuarantine ? undefined : quarantined),
  )!;
}

/**
 * Why the stock keeps listed numbers from the order, in one read: some are stocked for another pair, held by a
 * reservation for another holder, or (unless ignored) quarantined; undefined when none.
 */
async function unfitStockRefusal(
  db: Database,
  order: AllocationTarget,
  phoneNumbers: string[],
  ignoreQuarantine: boolean,
  now: number,
): Promise<Refusal<"stocked_elsewhere" | "held" | "quarantined"> | undefined> {
  const rows = await db
    .select({
      phoneNumber: stockNumbers.phoneNumber,
      countryCode: stockNumbers.countryCode,
      numberType: stockNumbers.numberType,
      status: stockNumbers.status,
    })
    .from(stockNumbers)
    .where(unfitStock(order, phoneNumbers, ignoreQuarantine, now))
    .orderBy(asc(stockNumbers.phoneNumber));
  const phones = (which: typeof rows) => which.map((row) => row.phoneNumber);
  const elsewhere = rows.filter((row) => row.countryCode !== order.countryCode || row.numberType !== order.numberType);
  if (elsewhere.length > 0) return refuse("stocked_elsewhere", { phoneNumbers: phones(elsewhere) });
  const held = rows.filter((row) => row.status === "reserved");
  if (held.length > 0) return refuse("held", { phoneNumbers: phones(held) });
  return rows.length > 0 ? refuse("quarantined", { phoneNumbers: phones(rows) }) : undefined;
}

/**
 * All or nothing, in one D1 batch (one transaction): insert the numbers from the order's row (those listed, or the N
 * first of the stock of the order's pair as the batch finds it), take exactly the numbers inserted out of the stock,
 * and move the order's counters. The numbers' and the order's statements re-check the order's status, the CHECK on
 * fulfilled_quantity refuses an allocation past the quantity, the unique phone number refuses a taken one, an
 * assertion refuses a listed number the stock holds for another pair, and one (from stock) a stock short of N; any
 * failure rolls back everything. The reads before the batch only find the reason for the common refusals. The batch
 * is the last D1 call and the answer is built from its rows: a failure after the commit would answer 500 for numbers
 * already allocated, and the client's retry a 409.
 *
 * Its events, in the same batch: `order.processing` when it moves a pending order to processing (decided on the state
 * before the move, its data filled in after), `order.numbers_allocated` (one per 1,000 numbers: inEventChunks),
 * `kyc_profile.numbers_attached` when the order names a profile (the numbers join it in the same batch), and
 * `order.fulfilled` when it reaches the quantity (a pending order fulfilled at once never was processing). Each holds
 * only if this batch's numbers exist, which they do exactly when the allocation applied. Its audit event stands before
 * the order's move, under the same guard, so it records the values moved from.
 */
export function allocationStatements(
  db: Database,
  audit: AuditContext,
  order: AllocationTarget,
  allocation: Allocation,
  now: number,
) {
  const orderId = order.id;
  const listedNumbers = "phoneNumbers" in allocation ? allocation.phoneNumbers : undefined;
  const ignoreQuarantine = "phoneNumbers" in allocation && allocation.ignoreQuarantine === true;
  const added = "fromStock" in allocation ? allocation.fromStock : allocation.phoneNumbers.length;
  const ids = Array.from({ length: added }, () => crypto.randomUUID());
  // The profile the order names, as read: the batch applies only while it still names that one (a pending order's
  // profile may change meanwhile), so the numbers join exactly the profile this allocation attaches them to.
  const profileId = order.kycProfileId;
  // Each number's verification id, where the order names a profile the numbers join.
  const attachments = profileId === null ? "[]" : JSON.stringify(ids.map((id) => [id, crypto.randomUUID()]));
  const allocatable = and(
    inArray(orders.status, ALLOCATABLE),
    profileId === null ? isNull(orders.kycProfileId) : eq(orders.kycProfileId, profileId),
  )!;
  const fulfils = sql`${orders.fulfilledQuantity} + ${added} = ${orders.quantity}`;
  const thisOrder = eq(orders.id, orderId);
  const picked = listedNumbers ? listedWithIds(listedNumbers, ids) : firstInStockWithIds(ids, and(thisOrder, allocatable)!, now);
  // This batch's numbers, once inserted (and so what leaves the stock).
  const inserted = db.select({ phoneNumber: numbers.phoneNumber }).from(numbers).where(inJsonList(numbers.id, ids));
  const applied = sql`EXISTS (SELECT 1 FROM ${numbers} WHERE ${numbers.id} = ${ids[0]})`;
  const orderEvent = { customerId: orders.customerId, from: orders } as const;
  const movedToProcessing = eventStatements(
    db,
    {
      ...orderEvent,
      type: "order.processing",
      data: DATA_FILLED_LATER,
      where: and(thisOrder, applied, eq(orders.status, "pending"), sql`NOT (${fulfils})`)!,
    },
    now,
  );
  const numbersAllocated = inEventChunks(ids).map((chunk) =>
    eventStatements(
      db,
      { ...orderEvent, type: "order.numbers_allocated", data: allocationData(chunk), where: and(thisOrder, applied)! },
      now,
    ),
  );
  const numbersAttached =
    profileId === null
      ? {}
      : profileNumbersEvents(db, "attached", profileId, ids, { ...orderEvent, where: and(thisOrder, applied)! }, now);
  const fulfilled = eventStatements(
    db,
    {
      ...orderEvent,
      type: "order.fulfilled",
      data: orderData(),
      where: and(thisOrder, applied, eq(orders.status, "fulfilled"))!,
    },
    now,
  );
  const statements = {
    // A listed number the stock holds for another pair, holds for another holder, or quarantined unless the admin
    // overrides it (any since the read above), refuses the batch.
    fitStock: listedNumbers
      ? db
          .insert(batchAssertions)
          .select(
            sql`SELECT 'stocked for another pair, held, or quarantined' WHERE EXISTS (SELECT 1 FROM ${stockNumbers} WHERE ${unfitStock(order, listedNumbers, ignoreQuarantine, now)})`,
          )
      : undefined,
    numbers: db
      .insert(numbers)
      .select(
        db
          .select(
            insertSelection({
              id: sql`picked.new_id`,
              customerId: orders.customerId,
              orderId: orders.id,
              phoneNumber: sql`picked.phone_number`,
              countryCode: orders.countryCode,
              numberType: orders.numberType,
              status: "active" satisfies NumberStatus,
              createdAt: now,
              updatedAt: now,
              // Set by the triggers of the attachment below, when the order names a profile.
              kycProfileId: null,
              kycExpiresAt: null,
              releasedAt: null,
              restorableUntil: null,
              releaseReason: null,
              suspendedAt: null,
              suspensionReason: null,
              releaseProtected: sql`0`,
              tags: sql`'[]'`,
              customerReference: null,
              releasedProfileId: null,
              releasedProfileGone: sql`0`,
              closedAt: null,
            }),
          )
          .from(picked)
          .innerJoin(orders, thisOrder)
          .where(allocatable),
      )
      .returning(),
    // The numbers join the profile the order names, whatever its compliance now (the staff decide that at review).
    attached:
      profileId === null
        ? undefined
        : db.insert(kycProfileNumbers).select(
            db
              .select(
                insertSelection({
                  numberId: sql`json_extract(attachment.value, '$[0]')`,
                  kycId: sql`json_extract(attachment.value, '$[1]')`,
                  profileId: sql`${profileId}`,
                  customerId: orders.customerId,
                  attachedAt: now,
                }),
              )
              .from(sql`json_each(${attachments}) AS attachment`)
              .innerJoin(orders, thisOrder)
              .where(applied),
          ),
    profile:
      profileId === null
        ? undefined
        : db
            .select({ id: kycVerifications.id, status: kycVerifications.status })
            .from(kycVerifications)
            .where(eq(kycVerifications.id, profileId)),
    // The override, once per allocation that took quarantined numbers: read before they leave the stock.
    quarantineOverridden:
      listedNumbers && ignoreQuarantine
        ? auditStatement(
            db,
            { ...audit, now },
            {
              action: "stock.quarantine_overridden",
              target: { type: "order", id: orderId },
              customerId: sql`(SELECT ${orders.customerId} FROM ${orders} WHERE ${thisOrder})`,
              changes: { quarantined_numbers: [null, sql`overridden.count`] },
            },
            {
              from: sql`(SELECT count(*) AS count FROM ${stockNumbers} WHERE ${inJsonList(stockNumbers.phoneNumber, listedNumbers)} AND ${stockNumbers.status} = ${literal("quarantined" satisfies StockStatus)}) AS overridden`,
              where: and(applied, sql`overridden.count > 0`),
            },
          )
        : undefined,
    // An allocated number is in stock no longer; from stock, an order still allocatable must have had all N.
    unstocked: writeInPhases({
      write: db.delete(stockNumbers).where(inArray(stockNumbers.phoneNumber, inserted)),
      record: listedNumbers
        ? undefined
        : (_, rowsWritten) =>
            db
              .insert(batchAssertions)
              .select(
                sql`SELECT 'the stock is short' WHERE ${rowsWritten} <> ${added} AND EXISTS (SELECT 1 FROM ${orders} WHERE ${and(thisOrder, allocatable)})`,
              ),
    }),
    order: writeInPhases({
      before: {
        processing: movedToProcessing.statements,
        audit: auditBeforeWrite(
          db,
          { ...audit, now },
          {
            action: "order.numbers_allocated",
            target: { type: "order", id: orderId },
            customerId: orders.customerId,
            changes: {
              fulfilled_quantity: [orders.fulfilledQuantity, sql`${orders.fulfilledQuantity} + ${added}`],
              status: [orders.status, sql`CASE WHEN ${fulfils} THEN 'fulfilled' ELSE 'processing' END`],
            },
          },
          { from: orders, guard: and(thisOrder, allocatable, applied) },
        ),
      },
      write: db
        .update(orders)
        .set({
          fulfilledQuantity: sql`${orders.fulfilledQuantity} + ${added}`,
          status: sql`CASE WHEN ${fulfils} THEN ${"fulfilled" satisfies OrderStatus} ELSE ${"processing" satisfies OrderStatus} END`,
          fulfilledAt: sql`CASE WHEN ${fulfils} THEN ${now} ELSE NULL END`,
          updatedAt: now,
        })
        .where(and(thisOrder, allocatable))
        .returning(),
      after: {
        processingData: fillEventData(db, movedToProcessing.eventId, orderData(), orders, thisOrder),
        allocated: Object.fromEntries(numbersAllocated.map((event, i) => [`chunk${i + 1}`, event.statements])),
        numbersAttached,
        fulfilled: fulfilled.statements,
      },
    }),
  };
  /** What the batch did: its events' deliveries, the order as it moved (none when nothing applied), its numbers. */
  function settled(written: Results<typeof statements>) {
    const { before, after } = written.order;
    const deliveries = [
      ...before.processing.deliveries,
      ...Object.values(after.allocated).flatMap((event) => event.deliveries),
      ...Object.values(after.numbersAttached).flatMap((event) => event.deliveries),
      ...after.fulfilled.deliveries,
    ];
    const [moved] = written.order.write;
    const [profile] = written.profile ?? [];
    const allocated: AllocatedNumber[] = written.numbers
      .sort((a, b) => (a.phoneNumber < b.phoneNumber ? -1 : 1))
      // Their rows as inserted, before the attachment's trigger gave them the profile.
      .map((number) => ({ number: { ...number, kycProfileId: profile?.id ?? null }, kycStatus: profile?.status ?? null }));
    return { deliveries, moved, numbers: allocated };
  }
  return { ids, statements, settled };
}

/** The allocation's batch on its own, for an order read before it; a refusal found after a failure says why. */
async function allocateInBatch(
  db: Database,
  outbox: Outbox,
  audit: AuditContext,
  order: OrderRow,
  allocation: Allocation,
  now: number,
): Promise<Outcome<{ order: OrderRow; numbers: AllocatedNumber[] }, AllocationRefusal>> {
  const plan = allocationStatements(db, audit, order, allocation, now);
  try {
    const { deliveries, moved, numbers: allocated } = plan.settled(await batchByName(db, plan.statements));
    outbox.add(deliveries);
    if (!moved) {
      const current = await findOrderById(db, order.id);
      // Still allocatable, so its profile is no longer the one read: nothing was allocated, and nothing recorded.
      if (current && ALLOCATABLE.includes(current.status)) return refuse("changed_meanwhile");
      return refusalByState(current);
    }
    return ok({ order: moved, numbers: allocated });
  } catch (error) {
    // The batch may have committed and lost only its answer: numbers with this request's ids are its own, neither
    // taken nor over the quantity, and the request fails as it stands.
    const own = await db.select({ id: numbers.id }).from(numbers).where(inJsonList(numbers.id, plan.ids)).limit(1);
    if (own.length > 0) throw error;
    // The stock held fewer than N when the batch ran.
    if (!("phoneNumbers" in allocation) && isFailedBatchAssertion(error)) {
      return refuse("insufficient_stock", { available: await takeableForOrder(db, order, now) });
    }
    // A concurrent change got there first: answer as the reads before would have.
    if ("phoneNumbers" in allocation) {
      const listedNumbers = allocation.phoneNumbers;
      const retaken = await findTakenPhoneNumbers(db, listedNumbers);
      if (retaken.length > 0) return refuse("numbers_taken", { phoneNumbers: retaken });
      const unfit = await unfitStockRefusal(db, order, listedNumbers, allocation.ignoreQuarantine === true, now);
      if (unfit) return unfit;
    }
    const current = await findOrderById(db, order.id);
    const again = orderRefusal(current, plan.ids.length);
    if (again) return again;
    throw error;
  }
}

/**
 * The rows an allocation inserts, as the table `picked` (new_id, phone_number): the listed numbers, each with the id
 * at its place in `ids`.
 */
function listedWithIds(phoneNumbers: string[], ids: string[]): SQL {
  // One JSON parameter carries every [id, phone] pair: D1 binds at most 100 parameters.
  const pairs = JSON.stringify(phoneNumbers.map((phone, i) => [ids[i], phone]));
  return sql`(SELECT json_extract(value, '$[0]') AS new_id, json_extract(value, '$[1]') AS phone_number FROM json_each(${pairs})) AS picked`;
}

/**
 * The rows an allocation from stock inserts, as the table `picked` (new_id, phone_number): first the numbers held for
 * the order's own reservation, then those anyone may take (available, or a lapsed hold) of the order's pair, each in
 * the stock's order (oldest available_at first, then import time, then number), for the order `orderHolds` finds, as
 * many as `ids`, the i-th with the i-th id. Read inside the allocation's batch, so it is the stock as the batch finds
 * it, never numbers another allocation or reservation took. The ids and the numbers stand in one list ordered by
 * place, each id just before the number at its place, so a number's id is the row before it (lag): a join on the place
 * would be fast only when SQLite chose to index the numbered stock, which its estimates do not always make it do.
 */
function firstInStockWithIds(ids: string[], orderHolds: SQL, now: number): SQL {
  const ofPair = and(eq(stockNumbers.countryCode, orders.countryCode), eq(stockNumbers.numberType, orders.numberType))!;
  const stockOrder = sql`${stockNumbers.availableAt}, ${stockNumbers.importedAt}, ${stockNumbers.phoneNumber}`;
  // Each source stops at N on its own index: the reservation's rows, the pair's available ones, its lapsed holds.
  const source = (rank: number, taken: SQL) =>
    sql`SELECT * FROM (SELECT ${stockNumbers.phoneNumber} AS phone_number, ${stockNumbers.availableAt} AS available_at, ${stockNumbers.importedAt} AS imported_at, ${sql.raw(String(rank))} AS rank FROM ${orders} JOIN ${stockNumbers} ON ${taken} WHERE ${orderHolds} ORDER BY ${stockOrder} LIMIT ${ids.length})`;
  const first = sql`SELECT * FROM (${source(0, and(reservedStock, eq(stockNumbers.reservationId, orders.reservationId))!)}
    UNION ALL ${source(1, and(ofPair, availableStock)!)} UNION ALL ${source(2, and(ofPair, holdLapsed(now))!)})
    ORDER BY rank, available_at, imported_at, phone_number LIMIT ${ids.length}`;
  const byPlace = sql`SELECT key AS place, 0 AS side, value AS new_id, NULL AS phone_number FROM json_each(${JSON.stringify(ids)})
    UNION ALL SELECT row_number() OVER (ORDER BY rank, available_at, imported_at, phone_number) - 1, 1, NULL, phone_number FROM (${first})`;
  const zipped = sql`SELECT side, lag(new_id) OVER (ORDER BY place, side) AS new_id, phone_number FROM (${byPlace})`;
  return sql`(SELECT new_id, phone_number FROM (${zipped}) WHERE side = 1) AS picked`;
}

/** The listed phone numbers an unclosed tenure holds (any account's, in any status, released ones too). */
async function findTakenPhoneNumbers(db: Database, phoneNumbers: string[]): Promise<string[]> {
  const rows = await db
    .select({ phoneNumber: numbers.phoneNumber })
    .from(numbers)
    .where(and(inJsonList(numbers.phoneNumber, phoneNumbers), isNull(numbers.closedAt)));
  return rows.map((r) => r.phoneNumber).sort();
}
