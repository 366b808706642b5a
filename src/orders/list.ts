// The orders list, planned per query shape so that no query reads an account's orders one by one unless its answer
// depends on each of them:
// - enumerations only (number_type, country_code, status, or none): counts from order_counts, the page from the cheaper
//   of the segments and a scan of the sort index;
// - a range (quantity, requested, fulfilled): counts from order_day_counts or order_quantity_counts when it is the only
//   range and the other filters are at most statuses, else per segment from index entries alone; the page from
//   SQLite's own plan over covering indexes (a quantity range's page walked in the default sort first);
// - a deep page in a time's sort: its first row found by summing order_day_counts' days, not by skipping rows
//   (list-derived.ts);
// - a search: from the grams index, which finds a needle's orders as one key range (list-search.ts).
import { and, eq, gte, lte, type SQL, sql } from "drizzle-orm";
import { batchByName, type Results, type Statements } from "../db/batch.ts";
import type { Database } from "../db/client.ts";
import { countByStatus, type PageWindow } from "../db/paging.ts";
import { ORDER_STATUSES, type OrderRow, type OrderStatus, orderCounts, orders, orderTimeLags } from "../db/schema.ts";
import {
  countedRange,
  countedRangeCounts,
  DEEP_PAGE_OFFSET,
  dayCountedSort,
  deepPageRowids,
  quantityWalkRowids,
} from "./list-derived.ts";
import {
  countedFilters,
  hasRangeFilter,
  type OrderListQuery,
  orderedBy,
  rangeFilters,
  segmentFilter,
  segmentOrders,
  sortOrder,
  statusFilter,
} from "./list-query.ts";
import { searchAnswer, searchStatement } from "./list-search.ts";

interface OrderList {
  rows: OrderRow[];
  total: number;
  statusCounts: Record<OrderStatus, number>;
}

/** The page's rowids read in order from the sort index (or whichever index SQLite prefers for the conditions). */
function scannedPageRowids(db: Database, conditions: (SQL | undefined)[], q: OrderListQuery, window: PageWindow): SQL {
  return sql`${db
    .select({ rowid: sql`${orders}.rowid` })
    .from(orders)
    .where(and(...conditions))
    .orderBy(...sortOrder(orders, q))
    .limit(window.limit)
    .offset(window.offset)}`;
}

/** The page's rows, fetched by rowid once `rowids` (a parenthesised SELECT of rowids) has picked them. */
function pageOf(db: Database, rowids: SQL, q: OrderListQuery) {
  return db
    .select()
    .from(orders)
    .where(sql`${orders}.rowid IN ${rowids}`)
    .orderBy(...sortOrder(orders, q));
}

// ---- Enumerations only ------------------------------------------------------------------------------------------

/** One (number_type, country_code, status) segment of an account and how many orders it holds: a row of order_counts. */
export interface Segment {
  numberType: string;
  countryCode: string;
  status: OrderStatus;
  count: number;
}

/** Every segment of the account: status_counts and the choice of plan both follow from them. */
function segmentsQuery(db: Database, customerId: string) {
  return db
    .select({
      numberType: orderCounts.numberType,
      countryCode: orderCounts.countryCode,
      status: orderCounts.status,
      count: orderCounts.count,
    })
    .from(orderCounts)
    .where(eq(orderCounts.customerId, customerId));
}

function isEnumerationFiltered(q: OrderListQuery): boolean {
  return q.numberTypes !== undefined || q.countryCodes !== undefined || q.statuses !== undefined;
}

function segmentMatches(segment: Segment, q: OrderListQuery, withStatus: boolean): boolean {
  return (
    (q.numberTypes === undefined || q.numberTypes.includes(segment.numberType)) &&
    (q.countryCodes === undefined || q.countryCodes.includes(segment.countryCode)) &&
    (!withStatus || q.statuses === undefined || q.statuses.includes(segment.status))
  );
}

/**
 * Rows read per row taken from a segment (the index entry, the row, the two sides of the IN list), against one per
 * index entry for a scan of the sort index.
 */
const SEGMENT_ROW_COST = 4;

/**
 * Whether to take the page from the segments rather than from a scan of the sort index, by what each would read:
 * - segments: each matching segment gives its first offset + limit rows, from the segment index when it is in the
 *   sort's order (created_at), else by reading the segment whole; the page is taken from their union. However rare
 *   the filter, this reads about offset + limit rows per segment.
 * - scan: the sort index in order until the page is full: about (offset + limit) × account / matches rows, so it
 *   wins for broad filters and loses for rare ones.
 * Either plan returns the same rows; the choice only decides the cost.
 */
function takesSegments(segments: readonly Segment[], q: OrderListQuery, window: PageWindow): boolean {
  const firstRows = window.offset + window.limit;
  const matching = segments.filter((segment) => segmentMatches(segment, q, true));
  const matched = matching.reduce((sum, s) => sum + s.count, 0);
  const total = segments.reduce((sum, s) => sum + s.count, 0);
  const segmentRows = matching.reduce((sum, s) => sum + (q.sortBy === "created_at" ? Math.min(s.count, firstRows) : s.count), 0);
  return SEGMENT_ROW_COST * segmentRows * matched <= firstRows * total;
}

/** The page's rowids from the matching segments (as read now from order_counts): each one's first rows, then merged. */
function segmentPageRowids(customerId: string, q: OrderListQuery, window: PageWindow): SQL {
  return sql`(
    WITH segments AS (SELECT number_type, country_code, status FROM ${orderCounts} WHERE ${segmentFilter(customerId, q, true)})
    SELECT ${segmentOrders}.rowid FROM segments JOIN ${orders} ${segmentOrders} ON ${segmentOrders}.rowid IN (
      SELECT rowid FROM ${orders}
      WHERE ${eq(orders.customerId, customerId)} AND ${orders.numberType} = segments.number_type
        AND ${orders.countryCode} = segments.country_code AND ${orders.status} = segments.status
      ORDER BY ${orderedBy(sortOrder(orders, q))} LIMIT ${window.offset + window.limit}
    )
    ORDER BY ${orderedBy(sortOrder(segmentOrders, q))} LIMIT ${window.limit} OFFSET ${window.offset}
  )`;
}

/**
 * The page by the cheaper plan for the account's segments, and the segments themselves, from which status_counts
 * follow without reading a single order. `segments` may be a little stale (it only picks the plan); without it a
 * filtered page takes the segments, whose cost is bounded.
 */
function enumerationStatements(
  db: Database,
  customerId: string,
  q: OrderListQuery,
  window: PageWindow,
  segments?: readonly Segment[],
) {
  const dayField = dayCountedSort(q);
  const bySegments = isEnumerationFiltered(q) && (segments === undefined || takesSegments(segments, q, window));
  const rowids =
    dayField !== undefined && window.offset >= DEEP_PAGE_OFFSET
      ? deepPageRowids(customerId, dayField, q, window)
      : bySegments
        ? segmentPageRowids(customerId, q, window)
        : scannedPageRowids(db, [...countedFilters(customerId, q), statusFilter(q)], q, window);
  return {
    page: pageOf(db, rowids, q),
    segments: segmentsQuery(db, customerId),
  };
}

/** The per-account segments this isolate read last, to pick plans with; a few hundred bytes per account. */
const lastSegments = new Map<string, readonly Segment[]>();
const LAST_SEGMENTS_CAPACITY = 10_000;

function rememberSegments(customerId: string, segments: readonly Segment[]): void {
  lastSegments.delete(customerId);
  lastSegments.set(customerId, segments);
  if (lastSegments.size > LAST_SEGMENTS_CAPACITY) lastSegments.delete(lastSegments.keys().next().value!);
}

// ---- Ranges --------------------------------------------------------------------------------------------------------

/**
 * The created_at range that a requested or fulfilled range implies, from the account's bounds of created_at minus
 * each (see orderTimeLags). Redundant, so the rows do not change; but in the default sort it lets the page walk the
 * created_at index from the range's end and stop at the page's last row, instead of sorting the whole range.
 */
function impliedCreatedRange(customerId: string, q: OrderListQuery): SQL[] {
  const lag = (bound: SQL) => sql`(SELECT ${bound} FROM ${orderTimeLags} WHERE ${eq(orderTimeLags.customerId, customerId)})`;
  const conditions: (SQL | undefined)[] = [
    q.requestedFrom === undefined
      ? undefined
      : gte(orders.createdAt, sql`${q.requestedFrom} + ${lag(sql`${orderTimeLags.requestedMin}`)}`),
    q.requestedTo === undefined
      ? undefined
      : lte(orders.createdAt, sql`${q.requestedTo} + ${lag(sql`${orderTimeLags.requestedMax}`)}`),
    q.fulfilledFrom === undefined
      ? undefined
      : gte(orders.createdAt, sql`${q.fulfilledFrom} + ${lag(sql`${orderTimeLags.fulfilledMin}`)}`),
    q.fulfilledTo === undefined
      ? undefined
      : lte(orders.createdAt, sql`${q.fulfilledTo} + ${lag(sql`${orderTimeLags.fulfilledMax}`)}`),
  ];
  return conditions.filter((c): c is SQL => c !== undefined);
}

/**
 * The page from SQLite's own plan (in the default sort, bounded to the created_at range the filters imply; a quantity
 * range's page walked in that sort first, see quantityWalkRowids), and the counts: from derived counts when the range is
 * the only one (countedRangeCounts), else per matching segment, each a count over the segment's range index, which
 * walks index entries without decoding them.
 */
function rangeStatements(db: Database, customerId: string, q: OrderListQuery, window: PageWindow) {
  const implied = q.sortBy === "created_at" ? impliedCreatedRange(customerId, q) : [];
  const planned = scannedPageRowids(db, [...countedFilters(customerId, q), ...implied, statusFilter(q)], q, window);
  const range = countedRange(q);
  const walked = range?.kind === "quantities" ? quantityWalkRowids(customerId, q, window) : undefined;
  const page = pageOf(db, walked ?? planned, q);
  if (range !== undefined) return { page, counts: countedRangeCounts(db, customerId, q, range) };
  const inSegment = sql`(SELECT count(*) FROM ${orders} WHERE ${and(
    eq(orders.customerId, customerId),
    eq(orders.numberType, orderCounts.numberType),
    eq(orders.countryCode, orderCounts.countryCode),
    eq(orders.status, orderCounts.status),
    ...rangeFilters(q),
  )})`;
  const counts = db
    .select({ status: orderCounts.status, count: inSegment.mapWith(Number) })
    .from(orderCounts)
    .where(segmentFilter(customerId, q, false));
  return { page, counts };
}

// ---- The list ------------------------------------------------------------------------------------------------------

/** A plan: its statements, and its run (one D1 call) answering the list from their results. */
function plan<S extends Statements>(db: Database, statements: S, answer: (results: Results<S>) => OrderList) {
  return { statements, run: async () => answer(await batchByName(db, statements)) };
}

/**
 * The plan of one list request, chosen here and nowhere else: a search, a range filter, or enumeration filters, which
 * pick their plan from the account's segments (`segmentsOf`, asked only then).
 */
async function listPlan(
  db: Database,
  customerId: string,
  q: OrderListQuery,
  window: PageWindow,
  segmentsOf: () => readonly Segment[] | undefined | Promise<readonly Segment[] | undefined>,
) {
  if (q.search !== undefined) {
    return plan(db, { hits: searchStatement(db, customerId, q, window, q.search) }, ({ hits }) => searchAnswer(hits, q));
  }
  if (hasRangeFilter(q)) {
    return plan(db, rangeStatements(db, customerId, q, window), ({ page, counts }) => ({
      rows: page,
      ...countByStatus(ORDER_STATUSES, counts, q.statuses),
    }));
  }
  const segments = isEnumerationFiltered(q) ? await segmentsOf() : undefined;
  return plan(db, enumerationStatements(db, customerId, q, window, segments), ({ page, segments: read }) => {
    rememberSegments(customerId, read);
    const counted = read.filter((segment) => segmentMatches(segment, q, false));
    return { rows: page, ...countByStatus(ORDER_STATUSES, counted, q.statuses) };
  });
}

/**
 * The statements of one list request, as listOrders runs them (for tests and the benchmark's storage floor), given
 * the account's segments as the isolate would know them.
 */
export async function orderListStatements(
  db: Database,
  customerId: string,
  q: OrderListQuery,
  window: PageWindow,
  segments?: readonly Segment[],
) {
  return Object.values((await listPlan(db, customerId, q, window, () => segments)).statements);
}

/**
 * One D1 call for the page and the counts. A list filtered by enumerations picks its plan from the account's
 * segments as this isolate last read them (every such list reads them again, for its counts); the first one in an
 * isolate reads them first.
 */
export async function listOrders(db: Database, customerId: string, q: OrderListQuery, window: PageWindow): Promise<OrderList> {
  const known = () => lastSegments.get(customerId) ?? segmentsQuery(db, customerId);
  return (await listPlan(db, customerId, q, window, known)).run();
}
