// The orders list at the size of a large account: the statement that finds a page and the one that counts statuses,
// chosen by the shape of the query so that the common ones never read an account's orders one by one.
import { and, count, eq, gte, lte, sql, type SQL } from "drizzle-orm";
import { alias, integer, sqliteTable } from "drizzle-orm/sqlite-core";
import type { Database } from "../db/client.ts";
import { customerNumbers, orderCounts, orders, ORDERS_BY_SEQUENCE_INDEX, type OrderStatus } from "../db/schema.ts";
import { trigramQuery } from "../db/search.ts";
import { containsText, inJsonList } from "../db/sql.ts";
import { stableOrder, type PageWindow } from "../http/pagination.ts";
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

/**
 * Rows read per candidate when a segment's first rows are taken from the segment index (the index entry, the
 * candidate's row, and the two sides of the IN list), against one per index entry for a scan of the sort index.
 */
const SEGMENT_ROW_COST = 4;

/**
 * The page of a list filtered by enumerations only (number_type, country_code, status), in one statement that picks
 * the cheaper of two plans from the account's segment counts:
 * - segments: each matching (number_type, country_code, status) segment gives its first offset + limit rows (from
 *   the segment index, which is in created_at order; for other sorts the segment is read whole), and the page is
 *   taken from their union. It reads about offset + limit rows per segment, however rare the filter is.
 * - scan: the sort index, read in order until the page is full. It reads about (offset + limit) × account / matches
 *   rows, so it wins for broad filters and loses for rare ones.
 * The plan not taken gets LIMIT 0, which SQLite stops at before reading anything.
 */
function segmentPlanRowids(customerId: string, q: ListOrdersQuery, window: PageWindow): SQL {
  const firstRows = window.offset + window.limit;
  const segmentIndexOrdered = q.sort_by === "created_at";
  const segmentFilter = and(
    eq(orderCounts.customerId, customerId),
    q.number_type && inJsonList(orderCounts.numberType, q.number_type),
    q.country_code && inJsonList(orderCounts.countryCode, q.country_code),
    q.status && inJsonList(orderCounts.status, q.status),
  );
  const rowsPerSegment = segmentIndexOrdered ? sql`min(count, ${firstRows})` : sql`count`;
  return sql`(
    WITH segments AS MATERIALIZED (
      SELECT number_type, country_code, status, count FROM ${orderCounts} WHERE ${segmentFilter}
    ),
    plan AS MATERIALIZED (
      SELECT ${SEGMENT_ROW_COST} * total(${rowsPerSegment}) * total(count)
        <= ${firstRows} * (SELECT total(count) FROM ${orderCounts} WHERE ${eq(orderCounts.customerId, customerId)}) AS by_segment
      FROM segments
    )
    SELECT rowid FROM (
      SELECT ${segmentOrders}.rowid FROM segments JOIN ${orders} ${segmentOrders} ON ${segmentOrders}.rowid IN (
        SELECT rowid FROM ${orders}
        WHERE ${eq(orders.customerId, customerId)} AND ${orders.numberType} = segments.number_type
          AND ${orders.countryCode} = segments.country_code AND ${orders.status} = segments.status
        ORDER BY ${sql.join(sortOrder(orders, q), sql`, `)} LIMIT ${firstRows}
      )
      ORDER BY ${sql.join(sortOrder(segmentOrders, q), sql`, `)}
      LIMIT (SELECT iif(by_segment, ${window.limit}, 0) FROM plan) OFFSET ${window.offset}
    )
    UNION ALL
    SELECT rowid FROM (
      SELECT rowid FROM ${orders} WHERE ${and(eq(orders.customerId, customerId), ...countedFilters(q), statusFilter(q))}
      ORDER BY ${sql.join(sortOrder(orders, q), sql`, `)}
      LIMIT (SELECT iif(by_segment, 0, ${window.limit}) FROM plan) OFFSET ${window.offset}
    )
  )`;
}

/** Lists filtered by enumerations (or not at all): counted from order_counts, never from the orders. */
function enumerationList(db: Database, customerId: string, q: ListOrdersQuery, window: PageWindow) {
  const filtered = q.number_type !== undefined || q.country_code !== undefined || q.status !== undefined;
  const rowids = filtered
    ? segmentPlanRowids(customerId, q, window)
    : sql`${db
        .select({ rowid: sql`rowid` })
        .from(orders)
        .where(eq(orders.customerId, customerId))
        .orderBy(...sortOrder(orders, q))
        .limit(window.limit)
        .offset(window.offset)}`;
  return {
    page: pageOf(db, rowids, q),
    counts: db
      .select({ status: orderCounts.status, count: sql<number>`sum(${orderCounts.count})`.mapWith(Number) })
      .from(orderCounts)
      .where(
        and(
          eq(orderCounts.customerId, customerId),
          q.number_type && inJsonList(orderCounts.numberType, q.number_type),
          q.country_code && inJsonList(orderCounts.countryCode, q.country_code),
        ),
      )
      .groupBy(orderCounts.status),
  };
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

/** The statements of one list request: the page of rows, and per-status counts over every filter but status. */
export function orderListQueries(db: Database, customerId: string, q: ListOrdersQuery, window: PageWindow) {
  if (q.search !== undefined) return plannedList(db, q, window, searchScope(customerId, q.search));
  if (hasRangeFilter(q)) return plannedList(db, q, window, { source: orders, conditions: [eq(orders.customerId, customerId)] });
  return enumerationList(db, customerId, q, window);
}
