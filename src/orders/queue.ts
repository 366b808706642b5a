// The operator's queue of open orders across accounts, sized for 100,000 open orders over 1,000 accounts. No page reads
// orders one by one: each status (or status and pair segment) yields its first offset + limit rows from an index in
// sort order, the page is taken from their union, and counts come from the trigger-maintained tables.
import { and, eq, gte, lte, type SQL, sql } from "drizzle-orm";
import { alias } from "drizzle-orm/sqlite-core";
import { batchByName } from "../db/batch.ts";
import type { Database } from "../db/client.ts";
import { countByStatus, type PageWindow, type SortDirection } from "../db/paging.ts";
import {
  customers,
  OPEN_ORDER_STATUSES,
  ORDER_STATUSES,
  type OrderRow,
  type OrderStatus,
  orderCounts,
  orders,
  orderTotals,
  stockCounts,
} from "../db/schema.ts";
import { inJsonList } from "../db/sql.ts";

export const QUEUE_SORT_KEYS = ["requested_at", "quantity", "customer_slug"] as const;
type QueueSortKey = (typeof QUEUE_SORT_KEYS)[number];

export interface OrderQueueQuery {
  statuses: readonly OrderStatus[];
  customerSlug?: string | undefined;
  countryCodes?: readonly string[] | undefined;
  numberTypes?: readonly string[] | undefined;
  /** Inclusive millisecond bounds. */
  requestedFrom?: number | undefined;
  requestedTo?: number | undefined;
  sortBy: QueueSortKey;
  sortOrder: SortDirection;
}

export interface QueuedOrder {
  order: OrderRow;
  customerSlug: string;
  /** Numbers available in stock for the order's (country_code, number_type): quarantined and reserved ones are not. */
  stockAvailable: number;
}

/** The orders of one branch inside the union, named apart from the orders being listed. */
const branchOrders = alias(orders, "branch_orders");
const branchCustomers = alias(customers, "branch_customers");
const listedCustomers = alias(customers, "listed_customers");

function direction(q: OrderQueueQuery): SQL {
  return sql.raw(q.sortOrder === "asc" ? "ASC" : "DESC");
}

/** The sort's terms over one set of aliases: the key, then (for a tie) requested_at and the id. */
function sortTerms(table: typeof orders | typeof branchOrders, slug: SQL, q: OrderQueueQuery): SQL {
  const dir = direction(q);
  switch (q.sortBy) {
    case "requested_at":
      return sql`${table.requestedAt} ${dir}, ${table.id} ${dir}`;
    case "quantity":
      return sql`${table.quantity} ${dir}, ${table.id} ${dir}`;
    case "customer_slug":
      return sql`${slug} ${dir}, ${table.requestedAt} ${dir}, ${table.id} ${dir}`;
  }
}

function accountId(q: OrderQueueQuery): SQL | undefined {
  return q.customerSlug === undefined
    ? undefined
    : sql`(SELECT ${customers.id} FROM ${customers} WHERE ${eq(customers.slug, q.customerSlug)})`;
}

/** Every filter but status, over `table`. */
function filters(table: typeof orders | typeof branchOrders, q: OrderQueueQuery, withPair: boolean): SQL | undefined {
  const account = accountId(q);
  return and(
    account === undefined ? undefined : eq(table.customerId, account),
    withPair && q.countryCodes ? inJsonList(table.countryCode, q.countryCodes) : undefined,
    withPair && q.numberTypes ? inJsonList(table.numberType, q.numberTypes) : undefined,
    q.requestedFrom === undefined ? undefined : gte(table.requestedAt, q.requestedFrom),
    q.requestedTo === undefined ? undefined : lte(table.requestedAt, q.requestedTo),
  );
}

/**
 * The page's rowids. The branches are the statuses asked for; in the default sort, filtered by pair and not by
 * account, they are the (status, country, type) segments that hold orders, each served by its own index in order.
 * Each branch gives its first offset + limit rows; the union's order gives the page.
 */
function pageRowids(q: OrderQueueQuery, window: PageWindow): SQL {
  const firstRows = window.offset + window.limit;
  const bySegment = q.sortBy === "requested_at" && q.customerSlug === undefined && (q.countryCodes || q.numberTypes);
  const branches = bySegment
    ? sql`SELECT ${orderTotals.status} AS status, ${orderTotals.countryCode} AS country_code, ${orderTotals.numberType} AS number_type
          FROM ${orderTotals}
          WHERE ${and(
            inJsonList(orderTotals.status, q.statuses),
            q.countryCodes && inJsonList(orderTotals.countryCode, q.countryCodes),
            q.numberTypes && inJsonList(orderTotals.numberType, q.numberTypes),
          )}`
    : sql`SELECT value AS status FROM json_each(${JSON.stringify(q.statuses)})`;
  const segment = bySegment
    ? sql`AND ${branchOrders.countryCode} = branches.country_code AND ${branchOrders.numberType} = branches.number_type`
    : sql``;
  const branchFrom =
    q.sortBy === "customer_slug"
      ? sql`${customers} ${branchCustomers} JOIN ${orders} ${branchOrders} ON ${branchOrders.customerId} = ${branchCustomers.id}`
      : sql`${orders} ${branchOrders}`;
  // The account's slug is read only where the sort needs it.
  const slugJoin =
    q.sortBy === "customer_slug"
      ? sql`JOIN ${customers} ${listedCustomers} ON ${listedCustomers.id} = ${orders.customerId}`
      : sql``;
  return sql`(
    WITH branches AS (${branches})
    SELECT ${orders}.rowid FROM branches JOIN ${orders} ON ${orders}.rowid IN (
      SELECT ${branchOrders}.rowid FROM ${branchFrom}
      WHERE ${branchOrders.status} = branches.status ${segment} AND ${filters(branchOrders, q, !bySegment) ?? sql`1`}
      ORDER BY ${sortTerms(branchOrders, sql`${branchCustomers.slug}`, q)} LIMIT ${firstRows}
    )
    ${slugJoin}
    ORDER BY ${sortTerms(orders, sql`${listedCustomers.slug}`, q)} LIMIT ${window.limit} OFFSET ${window.offset}
  )`;
}

/**
 * The counts by status over every filter but status: from order_totals (every account, per pair) or order_counts (one
 * account, per segment), a few rows either way; with a date range, counted over the orders in it.
 */
function statusCountsQuery(db: Database, q: OrderQueueQuery) {
  if (q.requestedFrom !== undefined || q.requestedTo !== undefined) {
    return db
      .select({ status: orders.status, count: sql<number>`count(*)`.mapWith(Number) })
      .from(orders)
      .where(filters(orders, q, true))
      .groupBy(orders.status);
  }
  if (q.customerSlug !== undefined) {
    return db
      .select({ status: orderCounts.status, count: orderCounts.count })
      .from(orderCounts)
      .where(
        and(
          eq(orderCounts.customerId, accountId(q)!),
          q.countryCodes && inJsonList(orderCounts.countryCode, q.countryCodes),
          q.numberTypes && inJsonList(orderCounts.numberType, q.numberTypes),
        ),
      );
  }
  return db
    .select({ status: orderTotals.status, count: orderTotals.count })
    .from(orderTotals)
    .where(
      and(
        q.countryCodes && inJsonList(orderTotals.countryCode, q.countryCodes),
        q.numberTypes && inJsonList(orderTotals.numberType, q.numberTypes),
      ),
    );
}

/** A page of the queue, its total and the counts by status, in one D1 call. */
export async function listOrderQueue(
  db: Database,
  q: OrderQueueQuery,
  window: PageWindow,
): Promise<{ rows: QueuedOrder[]; total: number; statusCounts: Record<OrderStatus, number> }> {
  const { page, counted } = await batchByName(db, {
    page: db
      .select({
        order: orders,
        customerSlug: customers.slug,
        stockAvailable: sql<number>`coalesce(${stockCounts.available}, 0)`.mapWith(Number).as("stock_available"),
      })
      .from(orders)
      .innerJoin(customers, eq(customers.id, orders.customerId))
      .leftJoin(stockCounts, and(eq(stockCounts.countryCode, orders.countryCode), eq(stockCounts.numberType, orders.numberType)))
      .where(sql`${orders}.rowid IN ${pageRowids(q, window)}`)
      .orderBy(sortTerms(orders, sql`${customers.slug}`, q)),
    counted: statusCountsQuery(db, q),
  });
  return { rows: page, ...countByStatus(ORDER_STATUSES, counted, q.statuses) };
}

/** A pair whose available stock is fewer than its open orders: even at one number each, stock cannot fulfil them all. */
export interface ShortPair {
  countryCode: string;
  numberType: string;
  openOrders: number;
  stock: number;
}

/** The most short pairs the glance names. */
const SHORT_PAIRS_SHOWN = 20;

/**
 * The queue at a glance, in one D1 call whose cost is the catalog's size, not the accounts': open orders by status
 * (order_totals), the oldest pending order's request time (the first entry of the status index), and the pairs whose
 * available stock (stock_counts) is fewer than their open orders, the shortest first. How many numbers the orders still need
 * would take reading them, so "short" is the certain part: an open order needs at least one.
 */
export async function orderQueueGlance(db: Database): Promise<{
  statusCounts: Record<(typeof OPEN_ORDER_STATUSES)[number], number>;
  oldestPendingAt: number | null;
  shortPairs: ShortPair[];
}> {
  const open = inJsonList(orderTotals.status, OPEN_ORDER_STATUSES);
  const openOrders = sql<number>`sum(${orderTotals.count})`.mapWith(Number);
  const stock = sql<number>`coalesce(max(${stockCounts.available}), 0)`.mapWith(Number);
  const { counted, oldest, short } = await batchByName(db, {
    counted: db
      .select({ status: orderTotals.status, count: openOrders })
      .from(orderTotals)
      .where(open)
      .groupBy(orderTotals.status),
    oldest: db
      .select({ requestedAt: orders.requestedAt })
      .from(orders)
      .where(eq(orders.status, "pending"))
      .orderBy(orders.requestedAt, orders.id)
      .limit(1),
    short: db
      .select({ countryCode: orderTotals.countryCode, numberType: orderTotals.numberType, openOrders, stock })
      .from(orderTotals)
      .leftJoin(
        stockCounts,
        and(eq(stockCounts.countryCode, orderTotals.countryCode), eq(stockCounts.numberType, orderTotals.numberType)),
      )
      .where(open)
      .groupBy(orderTotals.countryCode, orderTotals.numberType)
      .having(sql`${stock} < ${openOrders}`)
      .orderBy(sql`${stock} - ${openOrders}`, orderTotals.countryCode, orderTotals.numberType)
      .limit(SHORT_PAIRS_SHOWN),
  });
  const { statusCounts } = countByStatus(OPEN_ORDER_STATUSES, counted, undefined);
  return { statusCounts, oldestPendingAt: oldest[0]?.requestedAt ?? null, shortPairs: short };
}
