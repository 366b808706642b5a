// Queries for numbers: the account's list (with each number's verification status) and allocation from an order.
import { and, count, eq, inArray, sql, type SQL } from "drizzle-orm";
import type { Database } from "../db/client.ts";
import { inJsonList } from "../db/sql.ts";
import { kycVerifications, numberCounts, numbers, orders, type KycStatus, type NumberRow, type OrderRow } from "../db/schema.ts";
import { stableOrder, type PageWindow } from "../http/pagination.ts";
import { findOrderById } from "../orders/store.ts";
import type { ListNumbersQuery } from "./schemas.ts";

const SORT_COLUMNS = {
  phone_number: { key: numbers.phoneNumber, nullable: false },
  country_code: { key: numbers.countryCode, nullable: false },
  number_type: { key: numbers.numberType, nullable: false },
  status: { key: numbers.status, nullable: false },
  created_at: { key: numbers.createdAt, nullable: false },
} as const;

function listConditions(customerId: string, q: ListNumbersQuery): SQL | undefined {
  return and(
    eq(numbers.customerId, customerId),
    q.search === undefined ? undefined : sql`instr(${numbers.phoneNumber}, ${q.search}) > 0`,
    q.status && inArray(numbers.status, q.status),
    q.country_code && inArray(numbers.countryCode, q.country_code),
    q.number_type && inArray(numbers.numberType, q.number_type),
  );
}

/** The list's total: from number_counts when only enumerations filter it, else counted over the matching numbers. */
function totalQuery(db: Database, customerId: string, q: ListNumbersQuery) {
  if (q.search !== undefined) return db.select({ total: count() }).from(numbers).where(listConditions(customerId, q));
  return db
    .select({ total: sql<number>`total(${numberCounts.count})`.mapWith(Number) })
    .from(numberCounts)
    .where(
      and(
        eq(numberCounts.customerId, customerId),
        q.status && inArray(numberCounts.status, q.status),
        q.country_code && inArray(numberCounts.countryCode, q.country_code),
        q.number_type && inArray(numberCounts.numberType, q.number_type),
      ),
    );
}

export async function listNumbers(
  db: Database,
  customerId: string,
  q: ListNumbersQuery,
  window: PageWindow,
): Promise<{ rows: { number: NumberRow; kycStatus: KycStatus | null }[]; total: number }> {
  const [rows, [totals]] = await db.batch([
    db
      // Aliased: the joined status column would otherwise collide with numbers.status in D1's row objects.
      .select({ number: numbers, kycStatus: sql<KycStatus | null>`${kycVerifications.status}`.as("kyc_status") })
      .from(numbers)
      .leftJoin(kycVerifications, eq(kycVerifications.numberId, numbers.id))
      .where(listConditions(customerId, q))
      .orderBy(...stableOrder(SORT_COLUMNS[q.sort_by], numbers.id, q.sort_order))
      .limit(window.limit)
      .offset(window.offset),
    totalQuery(db, customerId, q),
  ]);
  return { rows, total: totals?.total ?? 0 };
}

/** A number of this account, or undefined: another account's number is as unknown as a missing one. */
export async function findOwnedNumber(db: Database, customerId: string, numberId: string): Promise<NumberRow | undefined> {
  return db.select().from(numbers).where(and(eq(numbers.id, numberId), eq(numbers.customerId, customerId))).get();
}

export type AllocationOutcome =
  | { order: OrderRow; numbers: NumberRow[] }
  | "not_found"
  | { notAllocatable: OrderRow["status"] }
  | { exceeds: { remaining: number } }
  | { taken: string[] };

/**
 * All or nothing, in one D1 batch (one transaction): insert the numbers from the order's row and move the
 * order's counters. Both statements re-check the order's status, the CHECK on fulfilled_quantity refuses an
 * allocation past the quantity, and the unique phone number refuses a taken one; any failure rolls back both.
 * The reads before the batch only shape the error message for the common cases.
 */
export async function allocateNumbers(
  db: Database,
  orderId: string,
  phoneNumbers: string[],
  now: number,
): Promise<AllocationOutcome> {
  const order = await findOrderById(db, orderId);
  if (!order) return "not_found";
  if (order.status !== "pending" && order.status !== "processing") return { notAllocatable: order.status };
  const remaining = order.quantity - order.fulfilledQuantity;
  if (phoneNumbers.length > remaining) return { exceeds: { remaining } };
  const taken = await findTakenPhoneNumbers(db, phoneNumbers);
  if (taken.length > 0) return { taken };

  const added = phoneNumbers.length;
  // One JSON parameter carries every [id, phone] pair: D1 binds at most 100 parameters a statement.
  const pairs = JSON.stringify(phoneNumbers.map((phone) => [crypto.randomUUID(), phone]));
  const allocatable = sql`${orders.status} IN ('pending', 'processing')`;
  try {
    const [, updated] = await db.batch([
      // The select list follows the numbers table's column order, as INSERT … SELECT requires.
      db.insert(numbers).select(sql`
        SELECT json_extract(pair.value, '$[0]'), ${orders.customerId}, ${orders.id}, json_extract(pair.value, '$[1]'),
               ${orders.countryCode}, ${orders.numberType}, 'active', ${now}, ${now}
        FROM json_each(${pairs}) AS pair JOIN ${orders} ON ${orders.id} = ${orderId}
        WHERE ${allocatable}`),
      db
        .update(orders)
        .set({
          fulfilledQuantity: sql`${orders.fulfilledQuantity} + ${added}`,
          status: sql`CASE WHEN ${orders.fulfilledQuantity} + ${added} = ${orders.quantity} THEN 'fulfilled' ELSE 'processing' END`,
          fulfilledAt: sql`CASE WHEN ${orders.fulfilledQuantity} + ${added} = ${orders.quantity} THEN ${now} ELSE NULL END`,
          updatedAt: now,
        })
        .where(and(eq(orders.id, orderId), allocatable))
        .returning(),
    ]);
    const [moved] = updated;
    if (!moved) {
      const current = await findOrderById(db, orderId);
      return current ? { notAllocatable: current.status } : "not_found";
    }
    const created = await db.select().from(numbers).where(inJsonList(numbers.phoneNumber, phoneNumbers)).orderBy(numbers.phoneNumber);
    return { order: moved, numbers: created };
  } catch (error) {
    // A concurrent allocation got there first: answer as the reads above would have.
    const retaken = await findTakenPhoneNumbers(db, phoneNumbers);
    if (retaken.length > 0) return { taken: retaken };
    const current = await findOrderById(db, orderId);
    if (current && phoneNumbers.length > current.quantity - current.fulfilledQuantity) {
      return { exceeds: { remaining: current.quantity - current.fulfilledQuantity } };
    }
    throw error;
  }
}

async function findTakenPhoneNumbers(db: Database, phoneNumbers: string[]): Promise<string[]> {
  const rows = await db.select({ phoneNumber: numbers.phoneNumber }).from(numbers).where(inJsonList(numbers.phoneNumber, phoneNumbers));
  return rows.map((r) => r.phoneNumber).sort();
}
