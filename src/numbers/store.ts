// Queries for numbers: the account's list, its numbers by id or phone number, an order's numbers (allocation is in
// src/orders/allocation-store.ts).
import { and, count, eq, gt, gte, inArray, lt, lte, type SQL, sql } from "drizzle-orm";
import { alias, type SQLiteColumn } from "drizzle-orm/sqlite-core";
import { batchByName } from "../db/batch.ts";
import type { Database } from "../db/client.ts";
import { type PageWindow, type SortDirection, stableOrder } from "../db/paging.ts";
import {
  customers,
  type KycStatus,
  kycVerifications,
  type NumberRow,
  type NumberStatus,
  numberCounts,
  numberOrderCounts,
  numbers,
  numberTags,
  type OrderRow,
  stockCounts,
} from "../db/schema.ts";
import { inJsonList } from "../db/sql.ts";
import { NUMBER_NOT_RELEASED } from "../kyc/lifecycle.ts";
import { profileNamesOf } from "../kyc/profiles-store.ts";

export const NUMBER_SORT_KEYS = ["phone_number", "country_code", "number_type", "status", "created_at"] as const;
export type NumberSortKey = (typeof NUMBER_SORT_KEYS)[number];

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
  /** Numbers, not released, whose verification (own or their profile's) expires before this instant (ms). */
  kycExpiresBefore?: number | undefined;
  /** Numbers that have every one of these tags (tag keys: lower case). */
  tagKeys?: readonly string[] | undefined;
  customerReference?: string | undefined;
  /** Inclusive millisecond bounds of released_at. */
  releasedFrom?: number | undefined;
  releasedTo?: number | undefined;
  sortBy: NumberSortKey;
  sortOrder: SortDirection;
}

/** A number's profile's verification, beside its own (the list joins both; webhooks/payloads.ts: numberKycData). */
const profileKyc = alias(kycVerifications, "profile_kyc");

/** The numbers of the account that have every one of these tags: one index range of number_tags per tag. */
function withEveryTag(customerId: string, tagKeys: readonly string[]): SQL {
  return inArray(
    numbers.id,
    sql`(SELECT ${numberTags.numberId} FROM ${numberTags} WHERE ${and(eq(numberTags.customerId, customerId), inArray(numberTags.tagKey, tagKeys))} GROUP BY ${numberTags.numberId} HAVING count(*) = ${tagKeys.length})`,
  );
}

/** The list's filters, which the export's pages share. */
function listConditions(customerId: string, q: NumberListQuery): SQL | undefined {
  return and(
    eq(numbers.customerId, customerId),
    q.search === undefined ? undefined : sql`instr(${numbers.phoneNumber}, ${q.search}) > 0`,
    q.statuses && inArray(numbers.status, q.statuses),
    q.countryCodes && inArray(numbers.countryCode, q.countryCodes),
    q.numberTypes && inArray(numbers.numberType, q.numberTypes),
    q.kycProfileId === undefined ? undefined : and(eq(numbers.kycProfileId, q.kycProfileId), NUMBER_NOT_RELEASED),
    q.orderId === undefined ? undefined : eq(numbers.orderId, q.orderId),
    // A released number keeps its own verification's expires_at, but that verification no longer counts for it.
    q.kycExpiresBefore === undefined ? undefined : and(lt(numbers.kycExpiresAt, q.kycExpiresBefore), NUMBER_NOT_RELEASED),
    q.tagKeys === undefined ? undefined : withEveryTag(customerId, q.tagKeys),
    q.customerReference === undefined ? undefined : eq(numbers.customerReference, q.customerReference),
    q.releasedFrom === undefined ? undefined : gte(numbers.releasedAt, q.releasedFrom),
    q.releasedTo === undefined ? undefined : lte(numbers.releasedAt, q.releasedTo),
  );
}

/** Filters the counts by enumeration cannot answer. */
function countedOverNumbers(q: NumberListQuery): boolean {
  return [
    q.search,
    q.kycProfileId,
    q.orderId,
    q.kycExpiresBefore,
    q.tagKeys,
    q.customerReference,
    q.releasedFrom,
    q.releasedTo,
  ].some((filter) => filter !== undefined);
}

/** How many numbers the counts by enumeration hold: of one account (or of every account when undefined). */
export function countedNumbersTotal(
  db: Database,
  customerId: string | SQL | undefined,
  q: Pick<NumberListQuery, "statuses" | "countryCodes" | "numberTypes">,
) {
  return db
    .select({ total: sql<number>`total(${numberCounts.count})`.mapWith(Number) })
    .from(numberCounts)
    .where(
      and(
        customerId === undefined ? undefined : eq(numberCounts.customerId, customerId),
        q.statuses && inArray(numberCounts.status, q.statuses),
        q.countryCodes && inArray(numberCounts.countryCode, q.countryCodes),
        q.numberTypes && inArray(numberCounts.numberType, q.numberTypes),
      ),
    );
}

/** Whether the list is one order's numbers, at most filtered by status: what number_order_counts counts. */
function countedByOrder(q: NumberListQuery): q is NumberListQuery & { orderId: string } {
  return q.orderId !== undefined && !countedOverNumbers({ ...q, orderId: undefined }) && !q.countryCodes && !q.numberTypes;
}

/**
 * The list's total: from number_counts when only enumerations filter it, from number_order_counts for one order's
 * numbers (however many the order holds), else counted over the matching numbers.
 */
function totalQuery(db: Database, customerId: string, q: NumberListQuery) {
  if (countedByOrder(q)) {
    return db
      .select({ total: sql<number>`total(${numberOrderCounts.count})`.mapWith(Number) })
      .from(numberOrderCounts)
      .where(
        and(
          eq(numberOrderCounts.customerId, customerId),
          eq(numberOrderCounts.orderId, q.orderId),
          q.statuses && inArray(numberOrderCounts.status, q.statuses),
        ),
      );
  }
  if (countedOverNumbers(q)) return db.select({ total: count() }).from(numbers).where(listConditions(customerId, q));
  return countedNumbersTotal(db, customerId, q);
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

/** The account's numbers among these phone numbers (another account's, or none, are left out): a form names them so. */
export async function findOwnedNumbersByPhone(
  db: Database,
  customerId: string,
  phoneNumbers: readonly string[],
): Promise<NumberRow[]> {
  if (phoneNumbers.length === 0) return [];
  return db
    .select()
    .from(numbers)
    .where(and(inJsonList(numbers.phoneNumber, phoneNumbers), eq(numbers.customerId, customerId)));
}

/** A number as the list shows it: its verification's status (its own, or its profile's) and its profile, if any. */
export type NumberWithKyc = { number: NumberRow; kycStatus: KycStatus | null };

/** Numbers with their verification's status, as the list shows them (and `extra` fields, the operator's list). */
export function numbersWithKyc<E extends Record<string, SQL.Aliased>>(db: Database, extra: E = {} as E) {
  return (
    db
      // Aliased: the joined status column would otherwise collide with numbers.status in D1's row objects.
      .select({
        number: numbers,
        kycStatus: sql<KycStatus | null>`coalesce(${kycVerifications.status}, ${profileKyc.status})`.as("kyc_status"),
        ...extra,
      })
      .from(numbers)
      .leftJoin(kycVerifications, eq(kycVerifications.numberId, numbers.id))
      .leftJoin(profileKyc, eq(profileKyc.id, numbers.kycProfileId))
  );
}

export async function listNumbers(
  db: Database,
  customerId: string,
  q: NumberListQuery,
  window: PageWindow,
): Promise<{ rows: NumberWithKyc[]; total: number }> {
  const { rows, totals } = await batchByName(db, {
    rows: numbersWithKyc(db)
      .where(listConditions(customerId, q))
      .orderBy(...stableOrder(SORT_COLUMNS[q.sortBy], numbers.id, q.sortOrder))
      .limit(window.limit)
      .offset(window.offset),
    totals: totalQuery(db, customerId, q),
  });
  return { rows, total: totals[0]!.total };
}

/** The query of one of the account's numbers as the list shows it (for a batch); another account's number is none. */
export function ownedNumberWithKyc(db: Database, customerId: string, numberId: string) {
  return numbersWithKyc(db).where(and(eq(numbers.id, numberId), eq(numbers.customerId, customerId)));
}

export async function findOwnedNumberWithKyc(
  db: Database,
  customerId: string,
  numberId: string,
): Promise<NumberWithKyc | undefined> {
  return ownedNumberWithKyc(db, customerId, numberId).get();
}

/** How many numbers the list's filters match, counting no further than `cap` + 1 (enough to say "more than cap"). */
export async function countNumbersUpTo(db: Database, customerId: string, q: NumberListQuery, cap: number): Promise<number> {
  const matching = db
    .select({ one: sql`1` })
    .from(numbers)
    .where(listConditions(customerId, q))
    .limit(cap + 1);
  const [row] = await db.select({ count: count() }).from(matching.as("matching"));
  return row?.count ?? 0;
}

/** Where a keyset page starts: after the row with this sort key and id. */
export interface NumberKey {
  key: string | number;
  id: string;
}

/** A number's place in the list's order (its sort key, then its id): where the next keyset page starts. */
export function keyOf(row: NumberRow, sortBy: NumberSortKey): NumberKey {
  const key = {
    phone_number: row.phoneNumber,
    country_code: row.countryCode,
    number_type: row.numberType,
    status: row.status,
    created_at: row.createdAt,
  }[sortBy];
  return { key, id: row.id };
}

/**
 * The numbers after `after` in the list's order, at most `limit`: a keyset page, whose cost does not grow with how far
 * into the list it is (every sort key is non-null, so (key, id) compares as a row value).
 */
export async function numbersAfter(
  db: Database,
  customerId: string,
  q: NumberListQuery,
  after: NumberKey | undefined,
  limit: number,
): Promise<NumberWithKyc[]> {
  const column = SORT_COLUMNS[q.sortBy].key;
  const beyond = q.sortOrder === "asc" ? gt : lt;
  return numbersWithKyc(db)
    .where(
      and(
        listConditions(customerId, q),
        after === undefined ? undefined : beyond(sql`(${column}, ${numbers.id})`, sql`(${after.key}, ${after.id})`),
      ),
    )
    .orderBy(...stableOrder(SORT_COLUMNS[q.sortBy], numbers.id, q.sortOrder))
    .limit(limit);
}

/**
 * An order's account, the numbers in stock for its pair, a page of its numbers and the name of its profile, in one D1
 * call (the console's order).
 */
export async function findOrderDetails(db: Database, order: OrderRow, window: PageWindow) {
  const { account, stock, listed, profile } = await batchByName(db, {
    account: db.select({ slug: customers.slug }).from(customers).where(eq(customers.id, order.customerId)),
    stock: db
      .select({ count: stockCounts.available })
      .from(stockCounts)
      .where(and(eq(stockCounts.countryCode, order.countryCode), eq(stockCounts.numberType, order.numberType))),
    listed: db
      .select()
      .from(numbers)
      .where(eq(numbers.orderId, order.id))
      .orderBy(numbers.createdAt, numbers.phoneNumber)
      .limit(window.limit)
      .offset(window.offset),
    profile: order.kycProfileId === null ? undefined : profileNamesOf(db, order.customerId, [order.kycProfileId]),
  });
  return {
    slug: account[0]?.slug ?? "—",
    stockAvailable: stock[0]?.count ?? 0,
    numbers: listed,
    /** The order's profile's name; undefined for none. */
    profileName: profile?.[0]?.name ?? undefined,
  };
}
