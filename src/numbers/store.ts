// Queries for numbers: the account's list (with each number's verification status) and allocation to an order, of
// listed numbers or from the stock.
import { and, asc, count, eq, inArray, isNull, lt, type SQL, sql } from "drizzle-orm";
import { alias, type SQLiteColumn } from "drizzle-orm/sqlite-core";
import { auditStatement } from "../audit/store.ts";
import { batchByName, ifWritten } from "../db/batch.ts";
import type { Database } from "../db/client.ts";
import { isFailedBatchAssertion } from "../db/errors.ts";
import { type Outcome, ok, type Refusal, refusalByState, refuse } from "../db/outcome.ts";
import { type PageWindow, type SortDirection, stableOrder } from "../db/paging.ts";
import {
  batchAssertions,
  customers,
  type KycStatus,
  kycProfileNumbers,
  kycVerifications,
  type NumberRow,
  type NumberStatus,
  numberCounts,
  numbers,
  type OrderRow,
  type OrderStatus,
  orders,
  stockCounts,
  stockNumbers,
} from "../db/schema.ts";
import { inJsonList, insertSelection } from "../db/sql.ts";
import type { AuditContext } from "../env.ts";
import { profileNumbersEvents } from "../kyc/profile-numbers.ts";
import { ALLOCATABLE } from "../orders/lifecycle.ts";
import { findOrderById } from "../orders/store.ts";
import { DATA_FILLED_LATER, eventStatements, fillEventData, inEventChunks, type Outbox } from "../webhooks/outbox.ts";
import { allocationData, orderData } from "../webhooks/payloads.ts";

export const NUMBER_SORT_KEYS = ["phone_number", "country_code", "number_type", "status", "created_at"] as const;
type NumberSortKey = (typeof NUMBER_SORT_KEYS)[number];

const SORT_COLUMNS: Record<NumberSortKey, { key: SQLiteColumn; nullable: boolean }> = {
  phone_number: { key: numbers.phoneNumber, nullable: false },
  country_code: { key: numbers.countryCode, nullable: false },
  number_type: { key: numbers.numberType, nullable: false },
  status: { key: numbers.status, nullable: false },
  created_at: { key: numbers.createdAt, nullable: false },
};

export interface NumberListQuery {
  /** A substring of the phone number. */
  search?: string | undefined;
  statuses?: readonly NumberStatus[] | undefined;
  countryCodes?: readonly string[] | undefined;
  numberTypes?: readonly string[] | undefined;
  /** Numbers attached to this profile (bare id). */
  kycProfileId?: string | undefined;
  /** Numbers allocated to this order. */
  orderId?: string | undefined;
  /** Numbers whose verification (own or their profile's) expires before this instant (ms). */
  kycExpiresBefore?: number | undefined;
  sortBy: NumberSortKey;
  sortOrder: SortDirection;
}

/** A number's profile's verification, beside its own (the list joins both; webhooks/payloads.ts: numberKycData). */
const profileKyc = alias(kycVerifications, "profile_kyc");

function listConditions(customerId: string, q: NumberListQuery): SQL | undefined {
  return and(
    eq(numbers.customerId, customerId),
    q.search === undefined ? undefined : sql`instr(${numbers.phoneNumber}, ${q.search}) > 0`,
    q.statuses && inArray(numbers.status, q.statuses),
    q.countryCodes && inArray(numbers.countryCode, q.countryCodes),
    q.numberTypes && inArray(numbers.numberType, q.numberTypes),
    q.kycProfileId === undefined ? undefined : eq(numbers.kycProfileId, q.kycProfileId),
    q.orderId === undefined ? undefined : eq(numbers.orderId, q.orderId),
    q.kycExpiresBefore === undefined ? undefined : lt(numbers.kycExpiresAt, q.kycExpiresBefore),
  );
}

/** Filters the counts by enumeration cannot answer. */
function countedOverNumbers(q: NumberListQuery): boolean {
  return q.search !== undefined || q.kycProfileId !== undefined || q.orderId !== undefined || q.kycExpiresBefore !== undefined;
}

/** The list's total: from number_counts when only enumerations filter it, else counted over the matching numbers. */
function totalQuery(db: Database, customerId: string, q: NumberListQuery) {
  if (countedOverNumbers(q)) return db.select({ total: count() }).from(numbers).where(listConditions(customerId, q));
  return db
    .select({ total: sql<number>`total(${numberCounts.count})`.mapWith(Number) })
    .from(numberCounts)
    .where(
      and(
        eq(numberCounts.customerId, customerId),
        q.statuses && inArray(numberCounts.status, q.statuses),
        q.countryCodes && inArray(numberCounts.countryCode, q.countryCodes),
        q.numberTypes && inArray(numberCounts.numberType, q.numberTypes),
      ),
    );
}

/** One of the account's numbers; another account's number is none. */
export async function findOwnedNumber(db: Database, customerId: string, numberId: string): Promise<NumberRow | undefined> {
  return db
    .select()
    .from(numbers)
    .where(and(eq(numbers.id, numberId), eq(numbers.customerId, customerId)))
    .get();
}

/** The account's numbers among `ids` (another account's, or none, are left out): for a report that names them. */
export async function findOwnedNumbers(db: Database, customerId: string, ids: readonly string[]): Promise<NumberRow[]> {
  if (ids.length === 0) return [];
  return db
    .select()
    .from(numbers)
    .where(and(inJsonList(numbers.id, ids), eq(numbers.customerId, customerId)));
}

/** A number as the list shows it: its verification's status (its own, or its profile's) and its profile, if any. */
export type NumberWithKyc = { number: NumberRow; kycStatus: KycStatus | null };

export async function listNumbers(
  db: Database,
  customerId: string,
  q: NumberListQuery,
  window: PageWindow,
): Promise<{ rows: NumberWithKyc[]; total: number }> {
  const { rows, totals } = await batchByName(db, {
    rows: db
      // Aliased: the joined status column would otherwise collide with numbers.status in D1's row objects.
      .select({
        number: numbers,
        kycStatus: sql<KycStatus | null>`coalesce(${kycVerifications.status}, ${profileKyc.status})`.as("kyc_status"),
      })
      .from(numbers)
      .leftJoin(kycVerifications, eq(kycVerifications.numberId, numbers.id))
      .leftJoin(profileKyc, eq(profileKyc.id, numbers.kycProfileId))
      .where(listConditions(customerId, q))
      .orderBy(...stableOrder(SORT_COLUMNS[q.sortBy], numbers.id, q.sortOrder))
      .limit(window.limit)
      .offset(window.offset),
    totals: totalQuery(db, customerId, q),
  });
  return { rows, total: totals[0]!.total };
}

/** An order's account, the numbers in stock for its pair and a page of its numbers, in one D1 call (the console's order). */
export async function findOrderDetails(db: Database, order: OrderRow, window: PageWindow) {
  const { account, stock, listed } = await batchByName(db, {
    account: db.select({ slug: customers.slug }).from(customers).where(eq(customers.id, order.customerId)),
    stock: db
      .select({ count: stockCounts.count })
      .from(stockCounts)
      .where(and(eq(stockCounts.countryCode, order.countryCode), eq(stockCounts.numberType, order.numberType))),
    listed: db
      .select()
      .from(numbers)
      .where(eq(numbers.orderId, order.id))
      .orderBy(numbers.createdAt, numbers.phoneNumber)
      .limit(window.limit)
      .offset(window.offset),
  });
  return {
    slug: account[0]?.slug ?? "—",
    stockAvailable: stock[0]?.count ?? 0,
    numbers: listed,
  };
}

/** The numbers an allocation gives the order: these, or the N oldest of the stock of the order's pair. */
export type Allocation = { phoneNumbers: string[] } | { fromStock: number };

type AllocationRefusal =
  | "not_found"
  | "wrong_state"
  | "over_quantity"
  | "numbers_taken"
  | "stocked_elsewhere"
  | "insufficient_stock";

/**
 * How often an allocation from stock takes the stock afresh when a concurrent one took some of its numbers first:
 * each time it lost, another allocation won, so the stock moved on.
 */
const STOCK_ATTEMPTS = 10;

/**
 * Allocates numbers to an order, all or nothing. From stock, it reads the N oldest numbers of the order's pair and
 * allocates exactly those; should a concurrent allocation take any of them first, its batch fails on the stock and
 * it reads the stock again (a few times), so no number goes out twice.
 */
export async function allocateNumbers(
  db: Database,
  outbox: Outbox,
  audit: AuditContext,
  orderId: string,
  allocation: Allocation,
  now: number,
): Promise<Outcome<{ order: OrderRow; numbers: NumberWithKyc[] }, AllocationRefusal>> {
  if ("phoneNumbers" in allocation) return allocatePhoneNumbers(db, outbox, audit, orderId, allocation.phoneNumbers, false, now);
  for (let attempt = 1; ; attempt++) {
    const order = await findOrderById(db, orderId);
    const refusal = orderRefusal(order, allocation.fromStock);
    if (refusal || !order) return refusal ?? refuse("not_found");
    const stocked = await oldestInStock(db, order, allocation.fromStock);
    if (stocked.length < allocation.fromStock) return refuse("insufficient_stock", { available: stocked.length });
    const allocated = await allocatePhoneNumbers(db, outbox, audit, orderId, stocked, true, now);
    if (allocated.ok || allocated.reason !== "insufficient_stock") return allocated;
    if (attempt === STOCK_ATTEMPTS) {
      return refuse("insufficient_stock", { available: (await oldestInStock(db, order, allocation.fromStock)).length });
    }
  }
}

/** Why the order takes no `count` numbers now (unknown, not allocatable, fewer left), or undefined. */
function orderRefusal(order: OrderRow | undefined, count: number): Refusal<AllocationRefusal> | undefined {
  if (!order) return refuse("not_found");
  if (!ALLOCATABLE.includes(order.status)) return refuse("wrong_state", { state: order.status });
  const remaining = order.quantity - order.fulfilledQuantity;
  return count > remaining ? refuse("over_quantity", { remaining }) : undefined;
}

/** The `count` oldest numbers in stock for the order's pair (by import time, then number). */
async function oldestInStock(db: Database, order: OrderRow, count: number): Promise<string[]> {
  const rows = await db
    .select({ phoneNumber: stockNumbers.phoneNumber })
    .from(stockNumbers)
    .where(and(eq(stockNumbers.countryCode, order.countryCode), eq(stockNumbers.numberType, order.numberType)))
    .orderBy(asc(stockNumbers.importedAt), asc(stockNumbers.phoneNumber))
    .limit(count);
  return rows.map((row) => row.phoneNumber);
}

/** Listed numbers the stock holds for another pair than the order's. */
async function findStockedElsewhere(db: Database, order: OrderRow, phoneNumbers: string[]): Promise<string[]> {
  const rows = await db
    .select({ phoneNumber: stockNumbers.phoneNumber })
    .from(stockNumbers)
    .where(
      and(
        inJsonList(stockNumbers.phoneNumber, phoneNumbers),
        sql`NOT (${stockNumbers.countryCode} = ${order.countryCode} AND ${stockNumbers.numberType} = ${order.numberType})`,
      ),
    );
  return rows.map((r) => r.phoneNumber).sort();
}

/**
 * All or nothing, in one D1 batch (one transaction): insert the numbers from the order's row, take them out of the
 * stock, and move the order's counters. The numbers' and the order's statements re-check the order's status, the
 * CHECK on fulfilled_quantity refuses an allocation past the quantity, the unique phone number refuses a taken one,
 * an assertion refuses a number the stock holds for another pair, and (`fromStock`) one that is no longer in stock;
 * any failure rolls back everything. The reads before the batch only find the reason for the common refusals. The
 * batch is the last D1 call and the answer is built from its rows: a failure after the commit would answer 500 for
 * numbers already allocated, and the client's retry a 409.
 *
 * Its events, in the same batch: `order.processing` when it moves a pending order to processing (decided on the state
 * before the move, its data filled in after), `order.numbers_allocated` (one per 1,000 numbers: inEventChunks),
 * `kyc_profile.numbers_attached` when the order names a profile (the numbers join it in the same batch), and
 * `order.fulfilled` when it reaches the quantity (a pending order fulfilled at once never was processing). All but the
 * first hold only if this batch's numbers exist, which they do exactly when the allocation applied. Its audit event
 * stands in front of the order's move, under the same guard, so it records the values moved from.
 */
async function allocatePhoneNumbers(
  db: Database,
  outbox: Outbox,
  audit: AuditContext,
  orderId: string,
  phoneNumbers: string[],
  fromStock: boolean,
  now: number,
): Promise<Outcome<{ order: OrderRow; numbers: NumberWithKyc[] }, AllocationRefusal>> {
  const order = await findOrderById(db, orderId);
  const refusal = orderRefusal(order, phoneNumbers.length);
  if (refusal || !order) return refusal ?? refuse("not_found");
  if (!fromStock) {
    const taken = await findTakenPhoneNumbers(db, phoneNumbers);
    if (taken.length > 0) return refuse("numbers_taken", { phoneNumbers: taken });
    const elsewhere = await findStockedElsewhere(db, order, phoneNumbers);
    if (elsewhere.length > 0) return refuse("stocked_elsewhere", { phoneNumbers: elsewhere });
  }

  const added = phoneNumbers.length;
  const ids = phoneNumbers.map(() => crypto.randomUUID());
  // One JSON parameter carries every [id, phone] pair, and one every phone number: D1 binds at most 100 parameters.
  const pairs = JSON.stringify(phoneNumbers.map((phone, i) => [ids[i], phone]));
  const listed = inJsonList(stockNumbers.phoneNumber, phoneNumbers);
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
  const applied = sql`EXISTS (SELECT 1 FROM ${numbers} WHERE ${numbers.id} = ${ids[0]})`;
  const orderEvent = { customerId: orders.customerId, from: orders } as const;
  const movedToProcessing = eventStatements(
    db,
    {
      ...orderEvent,
      type: "order.processing",
      data: DATA_FILLED_LATER,
      where: and(thisOrder, eq(orders.status, "pending"), sql`NOT (${fulfils})`)!,
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
  try {
    const allocation = await batchByName(db, {
      // A listed number the stock holds for another pair (imported since the read above) refuses the batch.
      notStockedElsewhere: fromStock
        ? undefined
        : db
            .insert(batchAssertions)
            .select(
              sql`SELECT 'stocked for another pair' WHERE EXISTS (SELECT 1 FROM ${stockNumbers} WHERE ${listed} AND NOT (${stockNumbers.countryCode} = ${order.countryCode} AND ${stockNumbers.numberType} = ${order.numberType}))`,
            ),
      numbers: db
        .insert(numbers)
        .select(
          db
            .select(
              insertSelection({
                id: sql`json_extract(pair.value, '$[0]')`,
                customerId: orders.customerId,
                orderId: orders.id,
                phoneNumber: sql`json_extract(pair.value, '$[1]')`,
                countryCode: orders.countryCode,
                numberType: orders.numberType,
                status: "active" satisfies NumberStatus,
                createdAt: now,
                updatedAt: now,
                // Set by the triggers of the attachment below, when the order names a profile.
                kycProfileId: null,
                kycExpiresAt: null,
              }),
            )
            .from(sql`json_each(${pairs}) AS pair`)
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
      // An allocated number is in stock no longer; from stock, every one of them must have been there still.
      unstocked: ifWritten(db.delete(stockNumbers).where(listed), (_, rowsWritten) => ({
        stockHeld: fromStock
          ? db.insert(batchAssertions).select(sql`SELECT 'taken from the stock meanwhile' WHERE ${rowsWritten} <> ${added}`)
          : undefined,
      })),
      processing: movedToProcessing.statements,
      audit: auditStatement(
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
        { from: orders, where: and(thisOrder, allocatable, applied) },
      ),
      order: db
        .update(orders)
        .set({
          fulfilledQuantity: sql`${orders.fulfilledQuantity} + ${added}`,
          status: sql`CASE WHEN ${fulfils} THEN ${"fulfilled" satisfies OrderStatus} ELSE ${"processing" satisfies OrderStatus} END`,
          fulfilledAt: sql`CASE WHEN ${fulfils} THEN ${now} ELSE NULL END`,
          updatedAt: now,
        })
        .where(and(thisOrder, allocatable))
        .returning(),
      processingData: fillEventData(db, movedToProcessing.eventId, orderData(), orders, thisOrder),
      allocated: Object.fromEntries(numbersAllocated.map((event, i) => [`chunk${i + 1}`, event.statements])),
      numbersAttached,
      fulfilled: fulfilled.statements,
    });
    outbox.add([
      ...allocation.processing.deliveries,
      ...Object.values(allocation.allocated).flatMap((event) => event.deliveries),
      ...Object.values(allocation.numbersAttached).flatMap((event) => event.deliveries),
      ...allocation.fulfilled.deliveries,
    ]);
    const [moved] = allocation.order;
    if (!moved) return refusalByState(await findOrderById(db, orderId));
    const [profile] = allocation.profile ?? [];
    const allocated = allocation.numbers
      .sort((a, b) => (a.phoneNumber < b.phoneNumber ? -1 : 1))
      // Their rows as inserted, before the attachment's trigger gave them the profile.
      .map((number) => ({ number: { ...number, kycProfileId: profile?.id ?? null }, kycStatus: profile?.status ?? null }));
    return ok({ order: moved, numbers: allocated });
  } catch (error) {
    // The batch may have committed and lost only its answer: numbers with this request's ids are its own, neither
    // taken nor over the quantity, and the request fails as it stands.
    const own = await db.select({ id: numbers.id }).from(numbers).where(inJsonList(numbers.id, ids)).limit(1);
    if (own.length > 0) throw error;
    // A concurrent change got there first: answer as the reads above would have.
    if (fromStock && isFailedBatchAssertion(error)) return refuse("insufficient_stock", { available: 0 });
    const retaken = await findTakenPhoneNumbers(db, phoneNumbers);
    if (retaken.length > 0) return refuse("numbers_taken", { phoneNumbers: retaken });
    const elsewhere = fromStock ? [] : await findStockedElsewhere(db, order, phoneNumbers);
    if (elsewhere.length > 0) return refuse("stocked_elsewhere", { phoneNumbers: elsewhere });
    const current = await findOrderById(db, orderId);
    const again = orderRefusal(current, phoneNumbers.length);
    if (again) return again;
    throw error;
  }
}

async function findTakenPhoneNumbers(db: Database, phoneNumbers: string[]): Promise<string[]> {
  const rows = await db
    .select({ phoneNumber: numbers.phoneNumber })
    .from(numbers)
    .where(inJsonList(numbers.phoneNumber, phoneNumbers));
  return rows.map((r) => r.phoneNumber).sort();
}
