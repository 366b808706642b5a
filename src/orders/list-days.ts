// The orders list's plans that order_day_counts makes cheap: a deep page in a time's sort, whose first row is found by
// summing days rather than skipping rows, and a time range's counts from its days' rows.
import { and, eq, gte, lte, type SQL, sql } from "drizzle-orm";
import type { Database } from "../db/client.ts";
import type { PageWindow } from "../db/paging.ts";
import { DAY_MS, type OrderDayField, orderDayCounts, orders } from "../db/schema.ts";
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
  // Past the last row there is no start day: a bound no order meets, so the page is empty.
  const fromStart =
    q.sortOrder === "desc"
      ? sql`${key} < (coalesce(${day}, -1) + 1) * ${DAY_MS}`
      : sql`${key} >= coalesce(${day}, ${Number.MAX_SAFE_INTEGER}) * ${DAY_MS}`;
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

// ---- Time ranges ---------------------------------------------------------------------------------------------------

/** The one time range of a list whose other filters are enumerations, in whole UTC days: what order_day_counts counts. */
interface DayRange {
  field: OrderDayField;
  firstDay: number | undefined;
  lastDay: number | undefined;
}

/** A whole UTC day's bound (the API takes dates only: its first and last millisecond); undefined if not one. */
const isDayStart = (time: number | undefined) => time === undefined || time % DAY_MS === 0;
const isDayEnd = (time: number | undefined) => time === undefined || (time + 1) % DAY_MS === 0;

export function dayCountedRange(q: OrderListQuery): DayRange | undefined {
  const requested = q.requestedFrom !== undefined || q.requestedTo !== undefined;
  const fulfilled = q.fulfilledFrom !== undefined || q.fulfilledTo !== undefined;
  if (q.quantityMin !== undefined || q.quantityMax !== undefined || requested === fulfilled) return undefined;
  const [field, from, to] = requested
    ? (["requested", q.requestedFrom, q.requestedTo] as const)
    : (["fulfilled", q.fulfilledFrom, q.fulfilledTo] as const);
  if (!isDayStart(from) || !isDayEnd(to)) return undefined;
  return {
    field,
    firstDay: from === undefined ? undefined : from / DAY_MS,
    lastDay: to === undefined ? undefined : (to + 1) / DAY_MS - 1,
  };
}

/**
 * A range of whole days' counts per status, from order_day_counts: what it reads grows with the range's days and the
 * account's segments, never with how many orders the days hold.
 */
export function dayRangeCounts(db: Database, customerId: string, q: OrderListQuery, range: DayRange) {
  return db
    .select({ status: orderDayCounts.status, count: sql<number>`sum(${orderDayCounts.count})`.mapWith(Number) })
    .from(orderDayCounts)
    .where(
      and(
        dayRowsFilter(customerId, range.field, q, false),
        range.firstDay === undefined ? undefined : gte(orderDayCounts.day, range.firstDay),
        range.lastDay === undefined ? undefined : lte(orderDayCounts.day, range.lastDay),
      ),
    )
    .groupBy(orderDayCounts.status);
}
