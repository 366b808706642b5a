// Queries for orders: find, create with the global sequence, guarded updates (the list is in list.ts).
import { and, eq, inArray, sql, type SQL } from "drizzle-orm";
import { insertIf } from "../db/conditional-insert.ts";
import type { Database } from "../db/client.ts";
import { catalog, orders, type OrderRow, type OrderStatus } from "../db/schema.ts";
import type { CreateOrderInput, UpdateOrderInput } from "./schemas.ts";

export async function findOrder(db: Database, customerId: string, orderId: string): Promise<OrderRow | undefined> {
  return db.select().from(orders).where(and(eq(orders.id, orderId), eq(orders.customerId, customerId))).get();
}

/** Any account's order: for the operator's routes. */
export async function findOrderById(db: Database, orderId: string): Promise<OrderRow | undefined> {
  return db.select().from(orders).where(eq(orders.id, orderId)).get();
}

function isOrderable(countryCode: SQL | string, numberType: SQL | string): SQL {
  return sql`EXISTS (SELECT 1 FROM ${catalog} WHERE ${catalog.countryCode} = ${countryCode} AND ${catalog.numberType} = ${numberType})`;
}

/**
 * One INSERT … SELECT: the row exists only if the pair is orderable, and its sequence number is the next one
 * of the global sequence, taken in the same statement so concurrent creates can neither collide nor leave gaps.
 */
export async function createOrder(
  db: Database,
  customerId: string,
  input: CreateOrderInput,
  now: number,
): Promise<OrderRow | "not_orderable"> {
  const row = await insertIf(
    db,
    orders,
    {
      id: sql`${crypto.randomUUID()}`,
      customerId: sql`${customerId}`,
      orderSeq: sql`(SELECT coalesce(max(${orders.orderSeq}), 0) + 1 FROM ${orders})`,
      numberType: sql`${input.number_type}`,
      countryCode: sql`${input.country_code}`,
      quantity: sql`${input.quantity}`,
      status: sql`'pending'`,
      fulfilledQuantity: sql`0`,
      notes: sql`${input.notes ?? null}`,
      requestedAt: sql`${now}`,
      fulfilledAt: sql`NULL`,
      createdAt: sql`${now}`,
      updatedAt: sql`${now}`,
    },
    isOrderable(input.country_code, input.number_type),
  );
  return row ?? "not_orderable";
}

export type UpdateOutcome =
  | OrderRow
  | "not_found"
  | "not_pending"
  | { notOrderable: { countryCode: string; numberType: string } };

/**
 * One conditional UPDATE: it applies only while the order is pending and, when the pair changes, orderable.
 * When it changes nothing, a read of the order says which condition failed; the order is never half-updated.
 */
export async function updatePendingOrder(
  db: Database,
  customerId: string,
  orderId: string,
  patch: UpdateOrderInput,
  now: number,
): Promise<UpdateOutcome> {
  const nextCountry = patch.country_code === undefined ? sql`${orders.countryCode}` : sql`${patch.country_code}`;
  const nextType = patch.number_type === undefined ? sql`${orders.numberType}` : sql`${patch.number_type}`;
  const pairChecked = patch.country_code !== undefined || patch.number_type !== undefined;
  const [row] = await db
    .update(orders)
    .set({
      numberType: patch.number_type,
      countryCode: patch.country_code,
      quantity: patch.quantity,
      notes: patch.notes,
      updatedAt: now,
    })
    .where(
      and(
        eq(orders.id, orderId),
        eq(orders.customerId, customerId),
        eq(orders.status, "pending"),
        pairChecked
          ? sql`((${nextCountry} = ${orders.countryCode} AND ${nextType} = ${orders.numberType}) OR ${isOrderable(nextCountry, nextType)})`
          : undefined,
      ),
    )
    .returning();
  if (row) return row;
  const current = await findOrder(db, customerId, orderId);
  if (!current) return "not_found";
  if (current.status !== "pending") return "not_pending";
  return {
    notOrderable: {
      countryCode: patch.country_code ?? current.countryCode,
      numberType: patch.number_type ?? current.numberType,
    },
  };
}

/** The operator's moves; fulfilment happens through number allocation, not here. */
const ALLOWED_FROM: Record<OrderStatus, OrderStatus[]> = {
  pending: [],
  processing: ["pending"],
  fulfilled: [],
  cancelled: ["pending", "processing"],
};

export async function transitionOrderStatus(
  db: Database,
  orderId: string,
  to: OrderStatus,
  now: number,
): Promise<OrderRow | "not_found" | { illegalFrom: OrderStatus }> {
  const from = ALLOWED_FROM[to];
  const [row] =
    from.length === 0
      ? []
      : await db
          .update(orders)
          .set({ status: to, updatedAt: now })
          .where(and(eq(orders.id, orderId), inArray(orders.status, from)))
          .returning();
  if (row) return row;
  const current = await findOrderById(db, orderId);
  return current ? { illegalFrom: current.status } : "not_found";
}
