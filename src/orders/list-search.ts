// The orders list's search, a case-insensitive substring of the order number or the notes, answered from the grams
// index (order_search_grams, migrations/0026): the orders whose text holds a needle are one key range of it, one entry
// per order, each with the order's status.
// - A needle of up to SEARCH_GRAM_LENGTH characters, alone or with a status filter: status_counts from the index
//   alone; the page walked in the default sort when the matches are common enough for that, else read from them.
// - With any other filter, or a longer needle: the index's entries (a longer needle's candidates, then tested) joined
//   to their orders, then counted and paged in one statement.
// - A needle the index cannot hold (a NUL, a lone surrogate): every order of the account tested.
import { type AnyColumn, and, eq, inArray, type SQL, sql } from "drizzle-orm";
import type { Database } from "../db/client.ts";
import { countByStatus, type PageWindow, stableOrder } from "../db/paging.ts";
import {
  customerNumbers,
  ORDER_STATUSES,
  ORDERS_BY_SEQUENCE_INDEX,
  type OrderRow,
  type OrderStatus,
  orderSearchGrams,
  orders,
  SEARCH_GRAM_LENGTH,
} from "../db/schema.ts";
import { containsText, inJsonList } from "../db/sql.ts";
import { keptOrders, LONG_WALK_ENTRIES, walkedPageRowids, walkIsCheaper } from "./list-derived.ts";
import { countedFilters, hasRangeFilter, type OrderListQuery, orderedBy, SORT_KEYS, sortOrder } from "./list-query.ts";

/**
 * What reading one match's order for a search's page costs (its gram, the sequence index, the order), in walked rows:
 * the page walks the default sort when that is the cheaper (walkIsCheaper).
 */
const MATCH_COST = 12;

/** The order number as clients see it ("#000042"), so search matches it with or without the "#". */
function orderNumberText(orderSeq: AnyColumn | SQL): SQL {
  return sql`'#' || printf('%06d', ${orderSeq})`;
}

/** The contract's search on an order's number and notes (columns of `orders`, or a walk's names for them). */
function matchesSearch(needle: string, orderSeq: AnyColumn | SQL = orders.orderSeq, notes: AnyColumn | SQL = orders.notes) {
  return sql`(${containsText(orderNumberText(orderSeq), needle)} OR ${containsText(sql`coalesce(${notes}, '')`, needle)})`;
}

/** How the index finds a needle: by `prefix`, which is the whole needle when `exact`. */
interface GramLookup {
  prefix: string;
  exact: boolean;
}

/** The last code point: a prefix ending in it has no successor that SQLite's char() can write (it writes U+FFFD). */
const LAST_CODE_POINT = 0x10ffff;

/**
 * How the index finds a needle: by its first SEARCH_GRAM_LENGTH characters (code points, as SQLite's substr counts),
 * the whole needle when `exact`. Undefined for one it cannot: a NUL (SQLite's length() stops at it), a lone surrogate
 * (not text), or a prefix ending in the last code point (its range has no upper bound, see gramsStartingWith).
 */
function gramLookup(needle: string): GramLookup | undefined {
  if (/[\0\p{Cs}]/u.test(needle)) return undefined;
  const chars = [...needle];
  const prefix = chars.slice(0, SEARCH_GRAM_LENGTH);
  if (prefix.at(-1)?.codePointAt(0) === LAST_CODE_POINT) return undefined;
  return { prefix: prefix.join(""), exact: chars.length <= SEARCH_GRAM_LENGTH };
}

/**
 * The account's entries for the orders whose text holds `prefix`: the grams that start with it (lowered, as the
 * grams are), up to the prefix with its last character's code point plus one in the index's binary order, that share
 * fewer characters than it with the order's gram before them.
 */
function gramsStartingWith(customerId: string, prefix: string): SQL {
  const low = sql`lower(${prefix})`;
  const account = sql`(SELECT ${customerNumbers.number} FROM ${customerNumbers} WHERE ${eq(customerNumbers.customerId, customerId)})`;
  return sql`${orderSearchGrams.account} = ${account}
    AND ${orderSearchGrams.gram} >= ${low}
    AND ${orderSearchGrams.gram} < substr(${low}, 1, length(${low}) - 1) || char(unicode(substr(${low}, -1)) + 1)
    AND ${orderSearchGrams.lcp} < length(${low})`;
}

/** A status's code in order_status_codes (and in the grams): its place in ORDER_STATUSES. */
function statusCode(status: OrderStatus): number {
  return ORDER_STATUSES.indexOf(status);
}

/** The matches' orders, joined by sequence number through the index SQLite is told to use. */
function matchedOrders(customerId: string, prefix: string, conditions: (SQL | undefined)[]) {
  return sql`${orderSearchGrams} JOIN ${orders} INDEXED BY ${sql.identifier(ORDERS_BY_SEQUENCE_INDEX)}
    ON ${orders.customerId} = ${customerId} AND ${orders.orderSeq} = ${orderSearchGrams.orderSeq}
    WHERE ${and(gramsStartingWith(customerId, prefix), ...conditions)}`;
}

/**
 * A needle alone or with a status filter, found whole in the index: status_counts from its entries alone, and the
 * page walked in the default sort (walkedPageRowids) when that is the cheaper, else read from the matches' orders.
 */
function indexedResult(customerId: string, q: OrderListQuery, window: PageWindow, needle: string, prefix: string): SQL {
  const statusKept = q.statuses && inArray(orderSearchGrams.status, q.statuses.map(statusCode));
  const byStatus = sql.join(
    ORDER_STATUSES.map((status) => sql`${status}, coalesce(sum(${orderSearchGrams.status} = ${statusCode(status)}), 0)`),
    sql`, `,
  );
  const counts = sql`SELECT json_object(${byStatus}) AS by_status,
    ${statusKept ? sql`coalesce(sum(${statusKept}), 0)` : sql`count(*)`} AS matches
    FROM ${orderSearchGrams} WHERE ${gramsStartingWith(customerId, prefix)}`;
  const fromMatches = sql`SELECT ${orders}.rowid FROM ${matchedOrders(customerId, prefix, [statusKept])}
    ORDER BY ${orderedBy(sortOrder(orders, q))} LIMIT ${window.limit} OFFSET ${window.offset}`;
  const walked = walkedPageRowids(customerId, q, window, {
    columns: sql`${orders.orderSeq} AS order_seq, ${orders.notes} AS notes`,
    test: matchesSearch(needle, sql`order_seq`, sql`notes`),
    entries: LONG_WALK_ENTRIES,
    worthIt: walkIsCheaper(window, keptOrders(customerId, q), sql`(SELECT matches FROM counts)`, MATCH_COST),
    fallback: fromMatches,
  });
  return sql`(
    WITH counts AS MATERIALIZED (${counts})
    SELECT (SELECT by_status FROM counts) AS status_counts,
      (SELECT json_group_array(rowid) FROM ${orders} WHERE rowid IN ${walked ?? sql`(${fromMatches})`}) AS page
  )`;
}

/**
 * Any other search: its hits (the orders that match it and every filter but status, what status_counts count) found
 * once, then counted by status and paged (as JSON lists), in one row.
 */
function testedResult(
  customerId: string,
  q: OrderListQuery,
  window: PageWindow,
  needle: string,
  lookup: GramLookup | undefined,
): SQL {
  const { column, nullable } = SORT_KEYS[q.sortBy];
  const fields = sql`${orders}.rowid AS hit, ${orders.status} AS status, ${orders[column]} AS sort_key, ${orders.id} AS id`;
  const filters = countedFilters(customerId, q);
  const hits = lookup
    ? sql`SELECT ${fields} FROM ${matchedOrders(customerId, lookup.prefix, [...filters, lookup.exact ? undefined : matchesSearch(needle)])}`
    : sql`SELECT ${fields} FROM ${orders} WHERE ${and(...filters, matchesSearch(needle))}`;
  const hitOrder = orderedBy(stableOrder({ key: sql`sort_key`, nullable }, sql`id`, q.sortOrder));
  const statusFilter = q.statuses ? sql`WHERE ${inJsonList(sql`status`, q.statuses)}` : sql``;
  return sql`(
    WITH hits AS MATERIALIZED (${hits})
    SELECT
      (SELECT json_group_object(status, n) FROM (SELECT status, count(*) AS n FROM hits GROUP BY status)) AS status_counts,
      (SELECT json_group_array(hit) FROM (
        SELECT hit FROM hits ${statusFilter} ORDER BY ${hitOrder} LIMIT ${window.limit} OFFSET ${window.offset}
      )) AS page
  )`;
}

/**
 * A search in one statement: one result row (status_counts as a JSON object, the page as a JSON list of rowids) with
 * the page's orders joined to it, one row per order, or one row without an order when the page is empty.
 */
export function searchStatement(db: Database, customerId: string, q: OrderListQuery, window: PageWindow, needle: string) {
  const lookup = gramLookup(needle);
  const indexed = lookup?.exact && q.numberTypes === undefined && q.countryCodes === undefined && !hasRangeFilter(q);
  const result = indexed
    ? indexedResult(customerId, q, window, needle, lookup.prefix)
    : testedResult(customerId, q, window, needle, lookup);
  return db
    .select({ statusCounts: sql<string>`result.status_counts`, order: orders })
    .from(sql`${result} AS result`)
    .leftJoin(orders, sql`${orders}.rowid IN (SELECT value FROM json_each(result.page))`)
    .orderBy(...sortOrder(orders, q));
}

/** The list from the search statement's rows. */
export function searchAnswer(
  rows: readonly { statusCounts: string; order: OrderRow | null }[],
  q: OrderListQuery,
): { rows: OrderRow[]; total: number; statusCounts: Record<OrderStatus, number> } {
  const counts = JSON.parse(rows[0]?.statusCounts ?? "{}") as Record<OrderStatus, number>;
  return {
    rows: rows.flatMap((row) => (row.order ? [row.order] : [])),
    ...countByStatus(
      ORDER_STATUSES,
      Object.entries(counts).map(([status, count]) => ({ status: status as OrderStatus, count })),
      q.statuses,
    ),
  };
}
