// Queries for numbers: the account's list (with each number's verification status) and allocation from an order.
import { and, count, eq, inArray, type SQL, sql } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import { batchByName } from "../db/batch.ts";
import type { Database } from "../db/client.ts";
import { type Outcome, ok, refusalByState, refuse } from "../db/outcome.ts";
import { type PageWindow, type SortDirection, stableOrder } from "../db/paging.ts";
import {
  type KycStatus,
  kycVerifications,
  type NumberRow,
  type NumberStatus,
  numberCounts,
  numbers,
  type OrderRow,
  type OrderStatus,
  orders,
} from "../db/schema.ts";
import { inJsonList, insertSelection } from "../db/sql.ts";
import { findOrderById } from "../orders/store.ts";
import { DATA_FILLED_LATER, eventStatements, fillEventData, type Outbox } from "../webhooks/outbox.ts";
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
  sortBy: NumberSortKey;
  sortOrder: SortDirection;
}

function listConditions(customerId: string, q: NumberListQuery): SQL | undefined {
  return and(
    eq(numbers.customerId, customerId),
    q.search === undefined ? undefined : sql`instr(${numbers.phoneNumber}, ${q.search}) > 0`,
    q.statuses && inArray(numbers.status, q.statuses),
    q.countryCodes && inArray(numbers.countryCode, q.countryCodes),
    q.numberTypes && inArray(numbers.numberType, q.numberTypes),
  );
}

/** The list's total: from number_counts when only enumerations filter it, else counted over the matching numbers. */
function totalQuery(db: Database, customerId: string, q: NumberListQuery) {
  if (q.search !== undefined) return db.select({ total: count() }).from(numbers).where(listConditions(customerId, q));
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

export async function listNumbers(
  db: Database,
  customerId: string,
  q: NumberListQuery,
  window: PageWindow,
): Promise<{ rows: { number: NumberRow; kycStatus: KycStatus | null }[]; total: number }> {
  const { rows, totals } = await batchByName(db, {
    rows: db
      // Aliased: the joined status column would otherwise collide with numbers.status in D1's row objects.
      .select({ number: numbers, kycStatus: sql<KycStatus | null>`${kycVerifications.status}`.as("kyc_status") })
      .from(numbers)
      .leftJoin(kycVerifications, eq(kycVerifications.numberId, numbers.id))
      .where(listConditions(customerId, q))
      .orderBy(...stableOrder(SORT_COLUMNS[q.sortBy], numbers.id, q.sortOrder))
      .limit(window.limit)
      .offset(window.offset),
    totals: totalQuery(db, customerId, q),
  });
  return { rows, total: totals[0]!.total };
}

/** The statuses an order takes numbers in; allocating to a pending order moves it to processing. */
const ALLOCATABLE: OrderStatus[] = ["pending", "processing"];

/**
 * All or nothing, in one D1 batch (one transaction): insert the numbers from the order's row and move the order's
 * counters. Both statements re-check the order's status, the CHECK on fulfilled_quantity refuses an allocation past
 * the quantity, and the unique phone number refuses a taken one; any failure rolls back both. The reads before the
 * batch only find the reason for the common refusals. The batch is the last D1 call and the answer is built from its
 * rows: a failure after the commit would answer 500 for numbers already allocated, and the client's retry a 409.
 *
 * Its events, in the same batch: `order.processing` when it moves a pending order to processing (decided on the state
 * before the move, its data filled in after), `order.numbers_allocated`, and `order.fulfilled` when it reaches the
 * quantity (a pending order fulfilled at once never was processing). The last two hold only if this batch's numbers
 * exist, which they do exactly when the allocation applied.
 */
export async function allocateNumbers(
  db: Database,
  outbox: Outbox,
  orderId: string,
  phoneNumbers: string[],
  now: number,
): Promise<Outcome<{ order: OrderRow; numbers: NumberRow[] }, "not_found" | "wrong_state" | "over_quantity" | "numbers_taken">> {
  const order = await findOrderById(db, orderId);
  if (!order) return refuse("not_found");
  if (!ALLOCATABLE.includes(order.status)) return refuse("wrong_state", { state: order.status });
  const remaining = order.quantity - order.fulfilledQuantity;
  if (phoneNumbers.length > remaining) return refuse("over_quantity", { remaining });
  const taken = await findTakenPhoneNumbers(db, phoneNumbers);
  if (taken.length > 0) return refuse("numbers_taken", { phoneNumbers: taken });

  const added = phoneNumbers.length;
  const ids = phoneNumbers.map(() => crypto.randomUUID());
  // One JSON parameter carries every [id, phone] pair: D1 binds at most 100 parameters a statement.
  const pairs = JSON.stringify(phoneNumbers.map((phone, i) => [ids[i], phone]));
  const allocatable = inArray(orders.status, ALLOCATABLE);
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
  const numbersAllocated = eventStatements(
    db,
    { ...orderEvent, type: "order.numbers_allocated", data: allocationData(ids), where: and(thisOrder, applied)! },
    now,
  );
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
              }),
            )
            .from(sql`json_each(${pairs}) AS pair`)
            .innerJoin(orders, thisOrder)
            .where(allocatable),
        )
        .returning(),
      processing: movedToProcessing.statements,
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
      allocated: numbersAllocated.statements,
      fulfilled: fulfilled.statements,
    });
    outbox.add([...allocation.processing.deliveries, ...allocation.allocated.deliveries, ...allocation.fulfilled.deliveries]);
    const [moved] = allocation.order;
    if (!moved) return refusalByState(await findOrderById(db, orderId));
    return ok({ order: moved, numbers: allocation.numbers.sort((a, b) => (a.phoneNumber < b.phoneNumber ? -1 : 1)) });
  } catch (error) {
    // The batch may have committed and lost only its answer: numbers with this request's ids are its own, neither
    // taken nor over the quantity, and the request fails as it stands.
    const own = await db.select({ id: numbers.id }).from(numbers).where(inJsonList(numbers.id, ids)).limit(1);
    if (own.length > 0) throw error;
    // A concurrent allocation got there first: answer as the reads above would have.
    const retaken = await findTakenPhoneNumbers(db, phoneNumbers);
    if (retaken.length > 0) return refuse("numbers_taken", { phoneNumbers: retaken });
    const current = await findOrderById(db, orderId);
    if (current && phoneNumbers.length > current.quantity - current.fulfilledQuantity) {
      return refuse("over_quantity", { remaining: current.quantity - current.fulfilledQuantity });
    }
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
