// The orders list's plans that derived counts make cheap: a deep page in a time's sort, whose first row is found by
// summing order_day_counts' days rather than skipping rows; a time or quantity range's counts from order_day_counts or
// order_quantity_counts; and a page in the default sort walked in order, tested row by row (a quantity range's, a
// search's), with what answers when the walk falls short.
import { and, eq, gte, lte, type SQL, sql } from "drizzle-orm";
import type { Database } from "../db/client.ts";
import { type PageWindow, stableOrder } from "../db/paging.ts";
import {
  DAY_MS,
  ORDERS_BY_CREATED_INDEX,
  ORDERS_BY_QUANTITY_INDEX,
  type OrderDayField,
  orderCounts,
  orderDayCounts,
  orderQuantityCounts,
  orders,
} from "../db/schema.ts";
import { inJsonList } from "../db/sql.ts";
import {
  enumerationFilters,
  type OrderListQuery,
  type OrderSortKey,
  orderedBy,
  quantityRange,
  SORT_KEYS,
  segmentFilter,
  sortOrder,
  statusFilter,
} from "./list-query.ts";

/** From this offset on, a page in a day-counted sort finds its first row by summing days rather than skipping rows. */
export const DEEP_PAGE_OFFSET = 1_000;

/** The sorts whose key order_day_counts counts per day (never null, so every order has a day). */
const DAY_COUNTED_SORTS = { created_at: "created", requested_at: "requested" } as const satisfies Partial<
  Record<OrderSortKey, OrderDayField>
>;

/** The day field a deep page can be found by: the sort's, when the filters are at most statuses. */
export function dayCountedSort(q: OrderListQuery): OrderDayField | undefined {
  if (!countedPerStatus(q) || !(q.sortBy in DAY_COUNTED_SORTS)) return undefined;
  return DAY_COUNTED_SORTS[q.sortBy as keyof typeof DAY_COUNTED_SORTS];
}

/** Whether the derived counts, kept per status only, can answer for the list's filters. */
function countedPerStatus(q: OrderListQuery): boolean {
  return q.numberTypes === undefined && q.countryCodes === undefined;
}

/** The day rows of one account and field, and of the status filter's statuses if `withStatus`. */
function dayRowsFilter(customerId: string, field: OrderDayField, q: OrderListQuery, withStatus: boolean): SQL | undefined {
  return and(
    eq(orderDayCounts.customerId, customerId),
    eq(orderDayCounts.field, field),
    withStatus && q.statuses ? inJsonList(orderDayCounts.status, q.statuses) : undefined,
  );
}

/**
 * The day that holds the page's first row, walked from the sort's start, as `day` or as `before` (the rows of the days
 * before it). A scalar subquery each, its CTEs NOT MATERIALIZED: so SQLite streams the window and stops at the day
 * (inside the page's statement it would otherwise materialize every day of the account first, 10 times the rows read
 * for page 121 of 15,000 orders). NULL when the offset is past the last row.
 */
function pageStartDay(customerId: string, field: OrderDayField, q: OrderListQuery, offset: number, value: "day" | "before"): SQL {
  const direction = q.sortOrder === "desc" ? sql`DESC` : sql`ASC`;
  return sql`(
    WITH days AS NOT MATERIALIZED (
      SELECT ${orderDayCounts.day} AS day, sum(${orderDayCounts.count}) AS n FROM ${orderDayCounts}
      WHERE ${dayRowsFilter(customerId, field, q, true)} GROUP BY ${orderDayCounts.day} ORDER BY ${orderDayCounts.day} ${direction}
    ),
    running AS NOT MATERIALIZED (SELECT day, n, sum(n) OVER (ORDER BY day ${direction} ROWS UNBOUNDED PRECEDING) AS through FROM days)
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
  const conditions = and(eq(orders.customerId, customerId), statusFilter(q), fromStart);
  const skipped = sql`${window.offset} - coalesce(${pageStartDay(customerId, field, q, window.offset, "before")}, 0)`;
  return sql`(SELECT rowid FROM ${orders} WHERE ${conditions} ORDER BY ${orderedBy(sortOrder(orders, q))}
    LIMIT ${window.limit} OFFSET ${skipped})`;
}

// ---- Ranges --------------------------------------------------------------------------------------------------------

/**
 * The one range of a list whose other filters are at most statuses, as derived counts count it: a time's whole UTC
 * days (the API takes dates only, so its bounds are a day's first and last millisecond) or a span of quantities.
 */
type CountedRange =
  | { kind: "days"; field: OrderDayField; firstDay: number | undefined; lastDay: number | undefined }
  | { kind: "quantities" };

const isDayStart = (time: number | undefined) => time === undefined || time % DAY_MS === 0;
const isDayEnd = (time: number | undefined) => time === undefined || (time + 1) % DAY_MS === 0;

export function countedRange(q: OrderListQuery): CountedRange | undefined {
  const bounded = {
    quantity: q.quantityMin !== undefined || q.quantityMax !== undefined,
    requested: q.requestedFrom !== undefined || q.requestedTo !== undefined,
    fulfilled: q.fulfilledFrom !== undefined || q.fulfilledTo !== undefined,
  };
  if (!countedPerStatus(q) || Object.values(bounded).filter(Boolean).length !== 1) return undefined;
  if (bounded.quantity) return { kind: "quantities" };
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
 * A range's counts per status from the derived counts: one row per day (or quantity) and status in the range, so what
 * it reads grows with the range, never with how many orders the account holds.
 */
export function countedRangeCounts(db: Database, customerId: string, q: OrderListQuery, range: CountedRange) {
  if (range.kind === "days") {
    const days = and(
      range.firstDay === undefined ? undefined : gte(orderDayCounts.day, range.firstDay),
      range.lastDay === undefined ? undefined : lte(orderDayCounts.day, range.lastDay),
    );
    return db
      .select({ status: orderDayCounts.status, count: sql<number>`sum(${orderDayCounts.count})`.mapWith(Number) })
      .from(orderDayCounts)
      .where(and(dayRowsFilter(customerId, range.field, q, false), days))
      .groupBy(orderDayCounts.status);
  }
  return db
    .select({ status: orderQuantityCounts.status, count: sql<number>`sum(${orderQuantityCounts.count})`.mapWith(Number) })
    .from(orderQuantityCounts)
    .where(quantityRowsFilter(customerId, q, false))
    .groupBy(orderQuantityCounts.status);
}

/**
 * The account's order_quantity_counts rows in the quantity filter's range, and of the status filter's statuses if
 * `withStatus`.
 */
function quantityRowsFilter(customerId: string, q: OrderListQuery, withStatus: boolean): SQL | undefined {
  return and(
    eq(orderQuantityCounts.customerId, customerId),
    ...quantityRange(q, orderQuantityCounts.quantity),
    withStatus && q.statuses ? inJsonList(orderQuantityCounts.status, q.statuses) : undefined,
  );
}

/** A page walked in the default sort's index, tested row by row, and what answers when the walk falls short. */
export interface PageWalk {
  /** The columns the test reads, selected by the walk under their own names. */
  columns: SQL;
  /** The test of one walked row, on those names. */
  test: SQL;
  /** The most index entries walked. */
  entries: number;
  /** A condition, evaluated first, without which the walk is not tried (by default it always is). */
  worthIt?: SQL;
  /** The page's rowids in page order when the walk fell short (or was not tried): a SELECT of rowids. */
  fallback: SQL;
}

/**
 * The most entries a walk reads when it is expected to be the cheaper plan (walkIsCheaper): a search's, and a quantity
 * range's second.
 */
export const LONG_WALK_ENTRIES = 10_000;

/**
 * Whether a walk of up to LONG_WALK_ENTRIES is expected to cost less than its fallback: it reads about
 * (offset + limit) × kept / matches entries (the orders the filters keep, and of those the ones it looks for), the
 * fallback `matchCost` rows per match. So a page walked or not costs at most about
 * √((offset + limit) × kept × matchCost) rows when the matches are spread evenly in time; however they lie, a walk
 * reads at most LONG_WALK_ENTRIES before its fallback. `kept` and `matches` are SQL numbers.
 */
export function walkIsCheaper(window: PageWindow, kept: SQL, matches: SQL, matchCost: number): SQL {
  return sql`${window.offset + window.limit} * ${kept} <= ${matches} * min(${LONG_WALK_ENTRIES}, ${matchCost} * ${matches})`;
}

/** The account's orders the enumeration filters keep (a walk's rows), from order_counts: an SQL number. */
export function keptOrders(customerId: string, q: OrderListQuery): SQL {
  return sql`(SELECT coalesce(sum(${orderCounts.count}), 0) FROM ${orderCounts} WHERE ${segmentFilter(customerId, q, true)})`;
}

/**
 * A page in the created_at sort, walked: the sort's index read in order (it carries the enumerations, filtered there)
 * for up to `walk.entries` entries, each tested, until the page's last row. A common match fills the page within a few
 * entries per row, however large the account; a match too rare for that is answered by the fallback. Walk and
 * fallback sit in the branches of one CASE, and the walk's rows are first read in its condition, after `worthIt`:
 * SQLite runs a branch only when it is taken, where a condition beside a subquery in a WHERE would not keep SQLite
 * from reading it. Both give the same rows. Undefined in another sort, or when the page is too deep to walk.
 */
export function walkedPageRowids(customerId: string, q: OrderListQuery, window: PageWindow, walk: PageWalk): SQL | undefined {
  const wanted = window.offset + window.limit;
  if (q.sortBy !== "created_at" || wanted > walk.entries / 2) return undefined;
  const filters = enumerationFilters(customerId, q);
  const walked = sql`SELECT rowid AS walked, ${orders.createdAt} AS created_at, ${orders.id} AS id, ${walk.columns}
    FROM ${orders} INDEXED BY ${sql.identifier(ORDERS_BY_CREATED_INDEX)} WHERE ${filters}
    ORDER BY ${orderedBy(sortOrder(orders, q))} LIMIT ${walk.entries}`;
  const walkedOrder = orderedBy(stableOrder({ key: sql`created_at`, nullable: false }, sql`id`, q.sortOrder));
  const filled = sql`${walk.worthIt ?? sql`true`} AND (SELECT count(*) FROM hits) = ${wanted}`;
  return sql`(
    WITH hits AS MATERIALIZED (SELECT walked, created_at, id FROM (${walked}) WHERE ${walk.test} LIMIT ${wanted})
    SELECT value FROM json_each(CASE WHEN ${filled}
      THEN (SELECT json_group_array(walked) FROM (SELECT walked FROM hits ORDER BY ${walkedOrder} LIMIT ${window.limit} OFFSET ${window.offset}))
      ELSE (SELECT json_group_array(rowid) FROM (${walk.fallback})) END)
  )`;
}

/** The entries a quantity range's page walks first, unconditionally: enough for a range of a few per cent. */
const QUANTITY_FIRST_WALK_ENTRIES = 1_000;

/**
 * A quantity range's page in the created_at sort, walked (walkedPageRowids) in two steps. First QUANTITY_FIRST_WALK_ENTRIES
 * entries, which fill the page of a common range without reading a count. Short of that, the range's size from
 * order_quantity_counts decides: the walk goes on up to LONG_WALK_ENTRIES when that is the cheaper (the range is common
 * but not among the newest orders), else the page comes from the quantity index (the range's orders, sorted: one
 * entry per match, the index carrying what the page needs). The quantity index is named: with quantity in the created
 * index, SQLite would otherwise scan that one to skip the sort.
 */
export function quantityWalkRowids(customerId: string, q: OrderListQuery, window: PageWindow): SQL | undefined {
  const filters = enumerationFilters(customerId, q);
  const byQuantity = sql`SELECT rowid FROM ${orders} INDEXED BY ${sql.identifier(ORDERS_BY_QUANTITY_INDEX)}
    WHERE ${and(filters, ...quantityRange(q, orders.quantity))} ORDER BY ${orderedBy(sortOrder(orders, q))} LIMIT ${window.limit} OFFSET ${window.offset}`;
  const matches = sql`(SELECT coalesce(sum(${orderQuantityCounts.count}), 0) FROM ${orderQuantityCounts} WHERE ${quantityRowsFilter(customerId, q, true)})`;
  const walk = { columns: sql`${orders.quantity} AS quantity`, test: and(...quantityRange(q, sql`quantity`)) ?? sql`true` };
  const longWalk = walkedPageRowids(customerId, q, window, {
    ...walk,
    entries: LONG_WALK_ENTRIES,
    worthIt: walkIsCheaper(window, keptOrders(customerId, q), matches, 1),
    fallback: byQuantity,
  });
  return walkedPageRowids(customerId, q, window, {
    ...walk,
    entries: QUANTITY_FIRST_WALK_ENTRIES,
    fallback: longWalk ? sql`SELECT value AS rowid FROM ${longWalk}` : byQuantity,
  });
}
