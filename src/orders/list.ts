// The orders list at the size of a large account: the statement that finds a page and the one that counts statuses,
// chosen by the shape of the query so that the common ones never read an account's orders one by one.
import { and, count, eq, gte, lte, sql, type SQL } from "drizzle-orm";
import { alias, integer, sqliteTable } from "drizzle-orm/sqlite-core";
import type { Database } from "../db/client.ts";
import { customerNumbers, orderCounts, ORDER_STATUSES, orders, ORDERS_BY_SEQUENCE_INDEX, type OrderRow, type OrderStatus } from "../db/schema.ts";
import { trigramQuery } from "../db/search.ts";
import { containsText, inJsonList } from "../db/sql.ts";
import { countByStatus, stableOrder, type PageWindow } from "../http/pagination.ts";
import { endOfDay, startOfDay } from "../lib/time.ts";
import type { ListOrdersQuery, OrderSortKey } from "./schemas.ts";

/**
 * The trigram index of migrations/0003 (a virtual table, so it is declared here for queries and never migrated by
 * drizzle-kit). Its rowid is (account number << 32) | order_seq: one account's entries form one rowid range.
 */
const orderTrigrams = sqliteTable("order_trigrams", { rowid: integer("rowid").notNull() });
const ORDER_SEQ_BITS = sql.raw("4294967295");

/** The orders of one segment inside the segment plan, named apart from the orders being listed. */
const segmentOrders = alias(orders, "segment_orders");

type OrdersTable = typeof orders | typeof segmentOrders;

const SORT_KEYS = {
  order_number: { column: "orderSeq", nullable: false },
  number_type: { column: "numberType", nullable: false },
  country_code: { column: "countryCode", nullable: false },
  quantity: { column: "quantity", nullable: false },
  status: { column: "status", nullable: false },
  requested_at: { column: "requestedAt", nullable: false },
  fulfilled_at: { column: "fulfilledAt", nullable: true },
  created_at: { column: "createdAt", nullable: false },
} as const satisfies Record<OrderSortKey, { column: keyof typeof orders._.columns; nullable: boolean }>;

function sortOrder(table: OrdersTable, q: ListOrdersQuery): SQL[] {
  const { column, nullable } = SORT_KEYS[q.sort_by];
  return stableOrder({ key: table[column], nullable }, table.id, q.sort_order);
}

/** The order number as clients see it ("#000042"), so search matches it with or without the "#". */
const orderNumberText = sql`'#' || printf('%06d', ${orders.orderSeq})`;

/** The contract's search: a case-insensitive substring of the order number or the notes. */
function matchesSearch(needle: string): SQL {
  return sql`(${containsText(orderNumberText, needle)} OR ${containsText(sql`coalesce(${orders.notes}, '')`, needle)})`;
}

function hasRangeFilter(q: ListOrdersQuery): boolean {
  return [q.quantity_min, q.quantity_max, q.requested_from, q.requested_to, q.fulfilled_from, q.fulfilled_to].some(
    (bound) => bound !== undefined,
  );
}

/** Every filter but the account, the search and the status: with the first two, what status_counts count. */
function countedFilters(q: ListOrdersQuery): SQL[] {
  const conditions: (SQL | undefined)[] = [
    q.number_type && inJsonList(orders.numberType, q.number_type),
    q.country_code && inJsonList(orders.countryCode, q.country_code),
    q.quantity_min === undefined ? undefined : gte(orders.quantity, q.quantity_min),
    q.quantity_max === undefined ? undefined : lte(orders.quantity, q.quantity_max),
    q.requested_from === undefined ? undefined : gte(orders.requestedAt, startOfDay(q.requested_from)),
    q.requested_to === undefined ? undefined : lte(orders.requestedAt, endOfDay(q.requested_to)),
    q.fulfilled_from === undefined ? undefined : gte(orders.fulfilledAt, startOfDay(q.fulfilled_from)),
    q.fulfilled_to === undefined ? undefined : lte(orders.fulfilledAt, endOfDay(q.fulfilled_to)),
  ];
  return conditions.filter((c): c is SQL => c !== undefined);
}

function statusFilter(q: ListOrdersQuery): SQL | undefined {
  return q.status && inJsonList(orders.status, q.status);
}

/** The page's rows, fetched by rowid once `rowids` (a parenthesised SELECT of rowids) has picked them. */
function pageOf(db: Database, rowids: SQL, q: ListOrdersQuery) {
  return db
    .select()
    .from(orders)
    .where(sql`${orders}.rowid IN ${rowids}`)
    .orderBy(...sortOrder(orders, q));
}

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

function isEnumerationFiltered(q: ListOrdersQuery): boolean {
  return q.number_type !== undefined || q.country_code !== undefined || q.status !== undefined;
}

function segmentMatches(segment: Segment, q: ListOrdersQuery, withStatus: boolean): boolean {
  return (
    (q.number_type === undefined || q.number_type.includes(segment.numberType)) &&
    (q.country_code === undefined || q.country_code.includes(segment.countryCode)) &&
    (!withStatus || q.status === undefined || q.status.includes(segment.status))
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
function takesSegments(segments: readonly Segment[], q: ListOrdersQuery, window: PageWindow): boolean {
  const firstRows = window.offset + window.limit;
  const matching = segments.filter((segment) => segmentMatches(segment, q, true));
  const matched = matching.reduce((sum, s) => sum + s.count, 0);
  const total = segments.reduce((sum, s) => sum + s.count, 0);
  const segmentRows = matching.reduce((sum, s) => sum + (q.sort_by === "created_at" ? Math.min(s.count, firstRows) : s.count), 0);
  return SEGMENT_ROW_COST * segmentRows * matched <= firstRows * total;
}

/** The page's rowids from the matching segments (as read now from order_counts): each one's first rows, then merged. */
function segmentPageRowids(customerId: string, q: ListOrdersQuery, window: PageWindow): SQL {
  const segmentFilter = and(
    eq(orderCounts.customerId, customerId),
    q.number_type && inJsonList(orderCounts.numberType, q.number_type),
    q.country_code && inJsonList(orderCounts.countryCode, q.country_code),
    q.status && inJsonList(orderCounts.status, q.status),
  );
  return sql`(
    WITH segments AS (SELECT number_type, country_code, status FROM ${orderCounts} WHERE ${segmentFilter})
    SELECT ${segmentOrders}.rowid FROM segments JOIN ${orders} ${segmentOrders} ON ${segmentOrders}.rowid IN (
      SELECT rowid FROM ${orders}
      WHERE ${eq(orders.customerId, customerId)} AND ${orders.numberType} = segments.number_type
        AND ${orders.countryCode} = segments.country_code AND ${orders.status} = segments.status
      ORDER BY ${sql.join(sortOrder(orders, q), sql`, `)} LIMIT ${window.offset + window.limit}
    )
    ORDER BY ${sql.join(sortOrder(segmentOrders, q), sql`, `)} LIMIT ${window.limit} OFFSET ${window.offset}
  )`;
}

/** The page's rowids read in order from the sort index (or whichever index SQLite prefers for the conditions). */
function scannedPageRowids(db: Database, conditions: (SQL | undefined)[], q: ListOrdersQuery, window: PageWindow): SQL {
  return sql`${db
    .select({ rowid: sql`${orders}.rowid` })
    .from(orders)
    .where(and(...conditions))
    .orderBy(...sortOrder(orders, q))
    .limit(window.limit)
    .offset(window.offset)}`;
}

/**
 * Lists filtered by enumerations (or not at all): the page by the cheaper plan for the account's segments, and the
 * segments themselves, from which status_counts follow without reading a single order. `segments` may be a little
 * stale (it only picks the plan); without it a filtered page takes the segments, whose cost is bounded.
 */
function enumerationList(db: Database, customerId: string, q: ListOrdersQuery, window: PageWindow, segments?: readonly Segment[]) {
  const conditions = [eq(orders.customerId, customerId), ...countedFilters(q), statusFilter(q)];
  const bySegments = isEnumerationFiltered(q) && (segments === undefined || takesSegments(segments, q, window));
  const rowids = bySegments ? segmentPageRowids(customerId, q, window) : scannedPageRowids(db, conditions, q, window);
  return { page: pageOf(db, rowids, q), segments: segmentsQuery(db, customerId) };
}

/** What a list reads: a table (possibly with an index to use) and the conditions that scope it. */
interface Scope {
  source: typeof orders | SQL;
  conditions: SQL[];
}

/**
 * Lists with a range filter or a search: SQLite's own plan over the scope and every filter but status. The range
 * indexes carry what the counts and the default sort read, so those stay inside an index.
 */
function plannedList(db: Database, q: ListOrdersQuery, window: PageWindow, scope: Scope) {
  const counted = [...scope.conditions, ...countedFilters(q)];
  const rowids = db
    .select({ rowid: sql`${orders}.rowid` })
    .from(scope.source)
    .where(and(...counted, statusFilter(q)))
    .orderBy(...sortOrder(orders, q))
    .limit(window.limit)
    .offset(window.offset);
  return {
    page: pageOf(db, sql`${rowids}`, q),
    counts: db
      // Wrapped in sql: Drizzle cannot see that a source given as SQL (with its index hint) is the orders table.
      .select({ status: sql<OrderStatus>`${orders.status}`, count: count() })
      .from(scope.source)
      .where(and(...counted))
      .groupBy(orders.status),
  };
}

/**
 * The orders a search has to test. A needle of three characters or more is looked up in the trigram index, within
 * the account's rowid range, and only those candidates are read, through the (customer_id, order_seq) index: SQLite
 * is told to use it, since an index in sort order would otherwise look cheaper and read the whole account. A
 * shorter needle is tested on every order of the account, as the index cannot narrow it down.
 */
function searchScope(customerId: string, needle: string): Scope {
  const account = eq(orders.customerId, customerId);
  const indexQuery = trigramQuery(needle);
  if (indexQuery === undefined) return { source: orders, conditions: [account, matchesSearch(needle)] };
  const accountRowids = sql`(SELECT ${customerNumbers.number} << 32 FROM ${customerNumbers} WHERE ${eq(customerNumbers.customerId, customerId)})`;
  return {
    source: sql`${orders} INDEXED BY ${sql.identifier(ORDERS_BY_SEQUENCE_INDEX)}`,
    conditions: [
      account,
      sql`${orders.orderSeq} IN (
        SELECT rowid & ${ORDER_SEQ_BITS} FROM ${orderTrigrams}
        WHERE ${orderTrigrams} MATCH ${indexQuery} AND rowid BETWEEN ${accountRowids} AND ${accountRowids} + ${ORDER_SEQ_BITS}
      )`,
      matchesSearch(needle),
    ],
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

/** The statements of one list request (for tests and the benchmark's storage floor; listOrders runs them). */
export function orderListQueries(
  db: Database,
  customerId: string,
  q: ListOrdersQuery,
  window: PageWindow,
  segments?: readonly Segment[],
) {
  if (q.search !== undefined) return plannedList(db, q, window, searchScope(customerId, q.search));
  if (hasRangeFilter(q)) return plannedList(db, q, window, { source: orders, conditions: [eq(orders.customerId, customerId)] });
  const { page, segments: segmentRows } = enumerationList(db, customerId, q, window, segments);
  return { page, counts: segmentRows };
}

export interface OrderList {
  rows: OrderRow[];
  total: number;
  statusCounts: Record<OrderStatus, number>;
}

/**
 * One round trip for the page and the counts. A list filtered by enumerations picks its plan from the account's
 * segments as this isolate last read them (every such list reads them again, for its counts); the first one in an
 * isolate reads them first.
 */
export async function listOrders(db: Database, customerId: string, q: ListOrdersQuery, window: PageWindow): Promise<OrderList> {
  if (q.search !== undefined || hasRangeFilter(q)) {
    const scope = q.search !== undefined ? searchScope(customerId, q.search) : { source: orders, conditions: [eq(orders.customerId, customerId)] };
    const { page, counts } = plannedList(db, q, window, scope);
    const [rows, countRows] = await db.batch([page, counts]);
    return { rows, ...countByStatus(ORDER_STATUSES, countRows, q.status) };
  }
  const known = isEnumerationFiltered(q) ? (lastSegments.get(customerId) ?? (await segmentsQuery(db, customerId))) : undefined;
  const { page, segments } = enumerationList(db, customerId, q, window, known);
  const [rows, segmentRows] = await db.batch([page, segments]);
  rememberSegments(customerId, segmentRows);
  const counted = segmentRows.filter((segment) => segmentMatches(segment, q, false));
  return { rows, ...countByStatus(ORDER_STATUSES, counted, q.status) };
}
