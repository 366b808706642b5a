// The orders list's plans that derived counts make cheap: a deep page in a time's sort, whose first row is found by
// summing order_day_counts' days rather than skipping rows; a time or quantity range's counts from order_day_counts or
// order_quantity_counts; and a quantity range's page in the default sort, walked in order.
import { and, eq, gte, lte, type SQL, sql } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import type { Database } from "../db/client.ts";
import { type PageWindow, stableOrder } from "../db/paging.ts";
import {
  DAY_MS,
  ORDERS_BY_CREATED_INDEX,
  type OrderDayField,
  orderDayCounts,
  orderQuantityCounts,
  orders,
} from "../db/schema.ts";
import { inJsonList } from "../db/sql.ts";
import { type OrderListQuery, type OrderSortKey, orderedBy, SORT_KEYS, sortOrder } from "./list-query.ts";

/** From this offset on, a page in a day-counted sort finds its first row by summing days rather than skipping rows. */
export const DEEP_PAGE_OFFSET = 1_000;

/** The sorts whose key order_day_counts counts per day (never null, so every order has a day). */
const DAY_COUNTED_SORTS = { created_at: "created", requested_at: "requested" } as const satisfies Partial<
  Record<OrderSortKey, OrderDayField>
>;

export function dayCountedSort(q: OrderListQuery): OrderDayField | undefined {
  return q.sortBy in DAY_COUNTED_SORTS ? DAY_COUNTED_SORTS[q.sortBy as keyof typeof DAY_COUNTED_SORTS] : undefined;
}

/** The day rows of one account and field that the enumeration filters keep. */
function dayRowsFilter(customerId: string, field: OrderDayField, q: OrderListQuery, withStatus: boolean): SQL | undefined {
  return and(
    eq(orderDayCounts.customerId, customerId),
    eq(orderDayCounts.field, field),
    q.numberTypes && inJsonList(orderDayCounts.numberType, q.numberTypes),
    q.countryCodes && inJsonList(orderDayCounts.countryCode, q.countryCodes),
    withStatus && q.statuses ? inJsonList(orderDayCounts.status, q.statuses) : undefined,
  );
}

/**
 * The day that holds the page's first row, walked from the sort's start, as `day` or as `before` (the rows of the days
 * before it). A scalar subquery each: SQLite streams the window and stops at the day, where a CTE read twice would be
 * computed whole. NULL when the offset is past the last row.
 */
function pageStartDay(customerId: string, field: OrderDayField, q: OrderListQuery, offset: number, value: "day" | "before"): SQL {
  const direction = q.sortOrder === "desc" ? sql`DESC` : sql`ASC`;
  return sql`(
    WITH days AS (
      SELECT ${orderDayCounts.day} AS day, sum(${orderDayCounts.count}) AS n FROM ${orderDayCounts}
      WHERE ${dayRowsFilter(customerId, field, q, true)} GROUP BY ${orderDayCounts.day} ORDER BY ${orderDayCounts.day} ${direction}
    ),
    running AS (SELECT day, n, sum(n) OVER (ORDER BY day ${direction} ROWS UNBOUNDED PRECEDING) AS through FROM days)
    SELECT ${value === "day" ? sql`day` : sql`through - n`} FROM running WHERE through > ${offset} LIMIT 1
  )`;
}

/**
 * A deep page's rowids: from the first day holding the page (found from order_day_counts), the sort index in order,
 * skipping only the rows of that day that come before the page. The same rows as LIMIT/OFFSET over the whole list.
 */
export function deepPageRowids(customerId: string, field: OrderDayField, q: OrderListQuery, window: PageWindow): SQL {
  const key = orders[SORT_KEYS[q.sortBy].column];
  const day = pageStartDay(customerId, field, q, window.offset, "day");
  // Past the last row there is no start day, and a NULL bound makes the page empty without reading a row.
  const fromStart = q.sortOrder === "desc" ? sql`${key} < (${day} + 1) * ${DAY_MS}` : sql`${key} >= ${day} * ${DAY_MS}`;
  const conditions = and(
    eq(orders.customerId, customerId),
    q.numberTypes && inJsonList(orders.numberType, q.numberTypes),
    q.countryCodes && inJsonList(orders.countryCode, q.countryCodes),
    q.statuses && inJsonList(orders.status, q.statuses),
    fromStart,
  );
  const skipped = sql`${window.offset} - coalesce(${pageStartDay(customerId, field, q, window.offset, "before")}, 0)`;
  return sql`(SELECT rowid FROM ${orders} WHERE ${conditions} ORDER BY ${orderedBy(sortOrder(orders, q))}
    LIMIT ${window.limit} OFFSET ${skipped})`;
}

// ---- Ranges --------------------------------------------------------------------------------------------------------

/**
 * The one range of a list whose other filters are enumerations, as derived counts count it: a time's whole UTC days
 * (the API takes dates only, so its bounds are a day's first and last millisecond) or a span of quantities.
 */
type CountedRange =
  | { kind: "days"; field: OrderDayField; firstDay: number | undefined; lastDay: number | undefined }
  | { kind: "quantities"; min: number | undefined; max: number | undefined };

const isDayStart = (time: number | undefined) => time === undefined || time % DAY_MS === 0;
const isDayEnd = (time: number | undefined) => time === undefined || (time + 1) % DAY_MS === 0;

export function countedRange(q: OrderListQuery): CountedRange | undefined {
  const bounded = {
    quantity: q.quantityMin !== undefined || q.quantityMax !== undefined,
    requested: q.requestedFrom !== undefined || q.requestedTo !== undefined,
    fulfilled: q.fulfilledFrom !== undefined || q.fulfilledTo !== undefined,
  };
  if (Object.values(bounded).filter(Boolean).length !== 1) return undefined;
  if (bounded.quantity) return { kind: "quantities", min: q.quantityMin, max: q.quantityMax };
  const [field, from, to] = bounded.requested
    ? (["requested", q.requestedFrom, q.requestedTo] as const)
    : (["fulfilled", q.fulfilledFrom, q.fulfilledTo] as const);
  if (!isDayStart(from) || !isDayEnd(to)) return undefined;
  return {
    kind: "days",
    field,
    firstDay: from === undefined ? undefined : from / DAY_MS,
    lastDay: to === undefined ? undefined : (to + 1) / DAY_MS - 1,
  };
}

/**
 * A range's counts per status from the derived counts: one row per day (or quantity) and segment in the range, so
 * what it reads grows with the range and the account's segments, never with how many orders they hold.
 */
export function countedRangeCounts(db: Database, customerId: string, q: OrderListQuery, range: CountedRange) {
  const inRange = (column: SQLiteColumn, min: number | undefined, max: number | undefined) => [
    min === undefined ? undefined : gte(column, min),
    max === undefined ? undefined : lte(column, max),
  ];
  if (range.kind === "days") {
    return db
      .select({ status: orderDayCounts.status, count: sql<number>`sum(${orderDayCounts.count})`.mapWith(Number) })
      .from(orderDayCounts)
      .where(and(dayRowsFilter(customerId, range.field, q, false), ...inRange(orderDayCounts.day, range.firstDay, range.lastDay)))
      .groupBy(orderDayCounts.status);
  }
  return db
    .select({ status: orderQuantityCounts.status, count: sql<number>`sum(${orderQuantityCounts.count})`.mapWith(Number) })
    .from(orderQuantityCounts)
    .where(
      and(
        eq(orderQuantityCounts.customerId, customerId),
        ...inRange(orderQuantityCounts.quantity, range.min, range.max),
        q.numberTypes && inJsonList(orderQuantityCounts.numberType, q.numberTypes),
        q.countryCodes && inJsonList(orderQuantityCounts.countryCode, q.countryCodes),
      ),
    )
    .groupBy(orderQuantityCounts.status);
}

/** Index entries a quantity range's page walks in the default sort before it leaves the page to SQLite's own plan. */
const QUANTITY_WALK_ENTRIES = 2_000;

/**
 * A quantity range's page in the created_at sort: the sort's index walked in order (it carries quantity and the
 * enumerations), up to QUANTITY_WALK_ENTRIES entries, until the page's last row. A range that common fills the page
 * within a few entries per row, however large the account; a rarer one falls back to `fallback` (SQLite's plan over
 * the quantity index, which reads the range's orders), which is cheap because the range is rare. Either gives the same
 * rows; undefined when the page is too deep for the walk.
 */
export function quantityWalkRowids(customerId: string, q: OrderListQuery, window: PageWindow, fallback: SQL): SQL | undefined {
  const wanted = window.offset + window.limit;
  if (q.sortBy !== "created_at" || wanted > QUANTITY_WALK_ENTRIES / 2) return undefined;
  const walk = sql`SELECT rowid AS walked, ${orders.createdAt} AS created_at, ${orders.id} AS id, ${orders.quantity} AS quantity
    FROM ${orders} INDEXED BY ${sql.identifier(ORDERS_BY_CREATED_INDEX)}
    WHERE ${and(
      eq(orders.customerId, customerId),
      q.numberTypes && inJsonList(orders.numberType, q.numberTypes),
      q.countryCodes && inJsonList(orders.countryCode, q.countryCodes),
      q.statuses && inJsonList(orders.status, q.statuses),
    )}
    ORDER BY ${orderedBy(sortOrder(orders, q))} LIMIT ${QUANTITY_WALK_ENTRIES}`;
  const inRange = and(
    q.quantityMin === undefined ? undefined : sql`quantity >= ${q.quantityMin}`,
    q.quantityMax === undefined ? undefined : sql`quantity <= ${q.quantityMax}`,
  );
  const walkedOrder = orderedBy(stableOrder({ key: sql`created_at`, nullable: false }, sql`id`, q.sortOrder));
  const filled = sql`(SELECT count(*) FROM hits) = ${wanted}`;
  return sql`(
    WITH hits AS MATERIALIZED (SELECT walked, created_at, id FROM (${walk}) WHERE ${inRange} LIMIT ${wanted})
    SELECT walked FROM (SELECT walked FROM hits ORDER BY ${walkedOrder} LIMIT ${window.limit} OFFSET ${window.offset}) WHERE ${filled}
    UNION ALL
    SELECT rowid FROM ${orders} WHERE rowid IN ${fallback} AND NOT ${filled}
  )`;
}
