// What an orders list asks for, its filters and its sort as SQL: shared by the list's plans (list.ts, list-derived.ts,
// list-search.ts).
import { and, eq, gte, lte, type SQL, sql } from "drizzle-orm";
import { alias, type SQLiteColumn } from "drizzle-orm/sqlite-core";
import { type SortDirection, stableOrder } from "../db/paging.ts";
import { type OrderStatus, orderCounts, orders } from "../db/schema.ts";
import { inJsonList } from "../db/sql.ts";

export const ORDER_SORT_KEYS = [
  "order_number",
  "number_type",
  "country_code",
  "quantity",
  "status",
  "requested_at",
  "fulfilled_at",
  "created_at",
] as const;
export type OrderSortKey = (typeof ORDER_SORT_KEYS)[number];

/** What a list asks for. Lists filter by any of their members, times are inclusive millisecond bounds. */
export interface OrderListQuery {
  search?: string | undefined;
  numberTypes?: readonly string[] | undefined;
  countryCodes?: readonly string[] | undefined;
  statuses?: readonly OrderStatus[] | undefined;
  quantityMin?: number | undefined;
  quantityMax?: number | undefined;
  requestedFrom?: number | undefined;
  requestedTo?: number | undefined;
  fulfilledFrom?: number | undefined;
  fulfilledTo?: number | undefined;
  sortBy: OrderSortKey;
  sortOrder: SortDirection;
}

/** The orders of one segment inside the segment plan, named apart from the orders being listed. */
export const segmentOrders = alias(orders, "segment_orders");

export const SORT_KEYS = {
  order_number: { column: "orderSeq", nullable: false },
  number_type: { column: "numberType", nullable: false },
  country_code: { column: "countryCode", nullable: false },
  quantity: { column: "quantity", nullable: false },
  status: { column: "status", nullable: false },
  requested_at: { column: "requestedAt", nullable: false },
  fulfilled_at: { column: "fulfilledAt", nullable: true },
  created_at: { column: "createdAt", nullable: false },
} as const satisfies Record<OrderSortKey, { column: keyof typeof orders._.columns; nullable: boolean }>;

export function sortOrder(table: typeof orders | typeof segmentOrders, q: OrderListQuery): SQL[] {
  const { column, nullable } = SORT_KEYS[q.sortBy];
  return stableOrder({ key: table[column], nullable }, table.id, q.sortOrder);
}

export function orderedBy(terms: SQL[]): SQL {
  return sql.join(terms, sql`, `);
}

export function hasRangeFilter(q: OrderListQuery): boolean {
  return [q.quantityMin, q.quantityMax, q.requestedFrom, q.requestedTo, q.fulfilledFrom, q.fulfilledTo].some(
    (bound) => bound !== undefined,
  );
}

/** The quantity filter's bounds on `quantity`: orders', a derived table's, or a walk's name for it. */
export function quantityRange(q: OrderListQuery, quantity: SQL | SQLiteColumn): SQL[] {
  const bounds = [
    q.quantityMin === undefined ? undefined : sql`${quantity} >= ${q.quantityMin}`,
    q.quantityMax === undefined ? undefined : sql`${quantity} <= ${q.quantityMax}`,
  ];
  return bounds.filter((c): c is SQL => c !== undefined);
}

/** The range filters, on `orders`. */
export function rangeFilters(q: OrderListQuery): SQL[] {
  const conditions: (SQL | undefined)[] = [
    ...quantityRange(q, orders.quantity),
    q.requestedFrom === undefined ? undefined : gte(orders.requestedAt, q.requestedFrom),
    q.requestedTo === undefined ? undefined : lte(orders.requestedAt, q.requestedTo),
    q.fulfilledFrom === undefined ? undefined : gte(orders.fulfilledAt, q.fulfilledFrom),
    q.fulfilledTo === undefined ? undefined : lte(orders.fulfilledAt, q.fulfilledTo),
  ];
  return conditions.filter((c): c is SQL => c !== undefined);
}

/** The account and the number type and country filters, on `orders`. */
function accountFilters(customerId: string, q: OrderListQuery): (SQL | undefined)[] {
  return [
    eq(orders.customerId, customerId),
    q.numberTypes && inJsonList(orders.numberType, q.numberTypes),
    q.countryCodes && inJsonList(orders.countryCode, q.countryCodes),
  ];
}

/** The status filter, on `orders`; undefined without one. */
export function statusFilter(q: OrderListQuery): SQL | undefined {
  return q.statuses && inJsonList(orders.status, q.statuses);
}

/** Every filter but the search and the status, on `orders`: with the search, what status_counts count. */
export function countedFilters(customerId: string, q: OrderListQuery): SQL[] {
  return [...accountFilters(customerId, q), ...rangeFilters(q)].filter((c): c is SQL => c !== undefined);
}

/**
 * The account's segments (order_counts rows) of the number type and country filters, and of the status filter's
 * statuses if `withStatus`.
 */
export function segmentFilter(customerId: string, q: OrderListQuery, withStatus: boolean): SQL | undefined {
  return and(
    eq(orderCounts.customerId, customerId),
    q.numberTypes && inJsonList(orderCounts.numberType, q.numberTypes),
    q.countryCodes && inJsonList(orderCounts.countryCode, q.countryCodes),
    withStatus && q.statuses ? inJsonList(orderCounts.status, q.statuses) : undefined,
  );
}

/** The account and the enumeration filters (statuses too), on `orders`: what the sort indexes carry. */
export function enumerationFilters(customerId: string, q: OrderListQuery): SQL | undefined {
  return and(...accountFilters(customerId, q), statusFilter(q));
}
