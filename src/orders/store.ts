// Queries for orders; the list is in list.ts.
import { and, eq, inArray, isNull, type SQL, sql } from "drizzle-orm";
import { type AuditContext, auditBeforeWrite } from "../db/audit.ts";
import { batchByName, writeInPhases } from "../db/batch.ts";
import type { Database } from "../db/client.ts";
import { isFailedBatchAssertion } from "../db/errors.ts";
import { eventIfWritten, type Outbox } from "../db/outbox.ts";
import { type Outcome, ok, refusalByState, refuse } from "../db/outcome.ts";
import {
  catalog,
  type EventType,
  kycVerifications,
  type OrderRow,
  type OrderStatus,
  orders,
  reservations,
} from "../db/schema.ts";
import { insertSelection } from "../db/sql.ts";
import { subjectVerification } from "../kyc/store.ts";
import { activeAndHoldingAt } from "../reservations/lifecycle.ts";
import { guardedReservationState, orderReservationStatements } from "../reservations/store.ts";
import { orderData } from "../webhooks/payloads.ts";
import { allocationStatements } from "./allocation-store.ts";
import { CUSTOMER_CHANGEABLE, changesReservedFields, customerMayChange, namesReservedFields, orderMove } from "./lifecycle.ts";

type OrderFields = Pick<typeof orders.$inferInsert, "numberType" | "countryCode" | "quantity" | "notes" | "kycProfileId">;
/** An order to create: of a pair, or from the reservation it names (its pair and count). */
export type NewOrder = OrderFields & { reservationId?: string | null | undefined };
/** What an account asks for: an order of a pair, or one from its reservation (kycProfileId: undefined takes its hold's). */
export type OrderRequest = OrderFields | (Pick<typeof orders.$inferInsert, "notes" | "kycProfileId"> & { reservationId: string });
/** The fields a change names; `notes: null` clears the notes. */
export type OrderChanges = Partial<OrderFields>;

export async function findOrder(db: Database, customerId: string, orderId: string): Promise<OrderRow | undefined> {
  return db
    .select()
    .from(orders)
    .where(and(eq(orders.id, orderId), eq(orders.customerId, customerId)))
    .get();
}

/** Any account's order: for the operator's routes. */
export async function findOrderById(db: Database, orderId: string): Promise<OrderRow | undefined> {
  return db.select().from(orders).where(eq(orders.id, orderId)).get();
}

function isOrderable(countryCode: SQL | string, numberType: SQL | string): SQL {
  return sql`EXISTS (SELECT 1 FROM ${catalog} WHERE ${catalog.countryCode} = ${countryCode} AND ${catalog.numberType} = ${numberType})`;
}

/**
 * Runs an insert of the order `id`. Should it fail, it may have committed all the same (D1 answered, the answer was
 * lost): the order is looked up, and if it is there the insert did happen, and says so, rather than have a retry
 * order the numbers twice.
 */
async function recognisingOwnCommit(db: Database, id: string, insert: () => Promise<OrderRow[]>): Promise<OrderRow[]> {
  try {
    return await insert();
  } catch (error) {
    const committed = await db
      .select()
      .from(orders)
      .where(eq(orders.id, id))
      .get()
      .catch(() => undefined);
    if (committed) return [committed];
    throw error;
  }
}

/** The order event of a write of the `orders` row `orderId`, recorded only if it wrote (writeInPhases' record, after). */
function orderEventIfWritten(db: Database, type: EventType, orderId: string, now: number) {
  return eventIfWritten(
    db,
    { type, customerId: orders.customerId, data: orderData(), from: orders, where: eq(orders.id, orderId) },
    now,
  );
}

/**
 * One INSERT … SELECT from the catalog: the order exists only if its pair is orderable (and, from a reservation, while
 * that is active), and its sequence number is the next of the global sequence, taken in the same statement so
 * concurrent creates can neither collide nor leave gaps. Its `order.created` event is written in the same batch, and
 * from a reservation, the reservation's move to ordered with its event. With `fulfil` (instant fulfilment: the use
 * case found the stock covers it), the same batch allocates the whole quantity from stock, the order's reserved numbers
 * first, and fulfils it (the allocation's own statements, audited as `fulfil`'s actor); should the stock be short
 * when the batch runs (taken meanwhile), the batch fails whole and the order is created pending instead.
 */
export async function createOrder(
  db: Database,
  outbox: Outbox,
  customerId: string,
  order: NewOrder,
  now: number,
  fulfil?: AuditContext,
): Promise<Outcome<OrderRow, "not_orderable" | "unknown_profile" | "wrong_state">> {
  const id = crypto.randomUUID();
  const reservationId = order.reservationId ?? null;
  const kycProfileId = order.kycProfileId ?? null;
  const create = (instant: AuditContext | undefined) =>
    recognisingOwnCommit(db, id, async () => {
      const allocation = instant
        ? allocationStatements(db, instant, { id, ...order, kycProfileId, reservationId }, { fromStock: order.quantity }, now)
        : undefined;
      const written = await batchByName(db, {
        created: writeInPhases({
          write: db
            .insert(orders)
            .select(
              db
                .select(
                  insertSelection({
                    id,
                    customerId,
                    orderSeq: sql`(SELECT coalesce(max(${orders.orderSeq}), 0) + 1 FROM ${orders})`,
                    numberType: catalog.numberType,
                    countryCode: catalog.countryCode,
                    quantity: order.quantity,
                    status: "pending" satisfies OrderStatus,
                    fulfilledQuantity: 0,
                    notes: order.notes ?? null,
                    requestedAt: now,
                    fulfilledAt: null,
                    createdAt: now,
                    updatedAt: now,
                    kycProfileId,
                    reservationId,
                  }),
                )
                .from(catalog)
                .where(
                  and(
                    eq(catalog.countryCode, order.countryCode),
                    eq(catalog.numberType, order.numberType),
                    profileOfAccount(customerId, kycProfileId),
                    reservationId === null ? undefined : reservationOrderable(customerId, reservationId, now),
                  ),
                ),
            )
            .returning(),
          ...orderEventIfWritten(db, "order.created", id, now),
        }),
        reservation: reservationId === null ? undefined : orderReservationStatements(db, reservationId, id, now),
        allocation: allocation?.statements,
      });
      const allocated = allocation && written.allocation ? allocation.settled(written.allocation) : undefined;
      outbox.add([
        ...written.created.after.deliveries,
        ...(written.reservation?.after.deliveries ?? []),
        ...(allocated?.deliveries ?? []),
      ]);
      return allocated?.moved ? [allocated.moved] : written.created.write;
    });
  let rows: OrderRow[];
  try {
    rows = await create(fulfil);
  } catch (error) {
    if (!(fulfil && isFailedBatchAssertion(error))) throw error;
    rows = await create(undefined);
  }
  const [row] = rows;
  if (row) return ok(row);
  if (reservationId !== null) {
    const state = await guardedReservationState(db, customerId, reservationId, now);
    if (state !== undefined && state !== "active") return refuse("wrong_state", { state });
  }
  if (kycProfileId && !(await profileExists(db, customerId, kycProfileId))) return refuse("unknown_profile");
  return refuse("not_orderable", { countryCode: order.countryCode, numberType: order.numberType });
}

/** The account's reservation, active now and holding all its numbers: an order may be placed from it. */
function reservationOrderable(customerId: string, reservationId: string, now: number): SQL {
  return sql`EXISTS (SELECT 1 FROM ${reservations} WHERE ${and(eq(reservations.id, reservationId), eq(reservations.customerId, customerId), activeAndHoldingAt(now))})`;
}

/** The profile, if one is named, is the account's (deleted meanwhile, it is not). */
function profileOfAccount(customerId: string, profileId: string | null | undefined): SQL | undefined {
  if (profileId === null || profileId === undefined) return undefined;
  return sql`EXISTS (SELECT 1 FROM ${kycVerifications} WHERE ${subjectVerification(customerId, { kind: "profile", profileId })})`;
}

async function profileExists(db: Database, customerId: string, profileId: string): Promise<boolean> {
  const row = await db
    .select({ id: kycVerifications.id })
    .from(kycVerifications)
    .where(subjectVerification(customerId, { kind: "profile", profileId }))
    .get();
  return row !== undefined;
}

/**
 * One conditional UPDATE: it applies only while the order is its account's to change (pending) and, when the pair
 * changes, orderable. When it changes nothing, a read of the order says which condition failed; the order is never
 * half-changed.
 */
export async function updatePendingOrder(
  db: Database,
  outbox: Outbox,
  customerId: string,
  orderId: string,
  changes: OrderChanges,
  now: number,
): Promise<Outcome<OrderRow, "not_found" | "wrong_state" | "from_reservation" | "not_orderable" | "unknown_profile">> {
  const nextCountry = changes.countryCode === undefined ? sql`${orders.countryCode}` : sql`${changes.countryCode}`;
  const nextType = changes.numberType === undefined ? sql`${orders.numberType}` : sql`${changes.numberType}`;
  const pairChecked = changes.countryCode !== undefined || changes.numberType !== undefined;
  const { updated } = await batchByName(db, {
    updated: writeInPhases({
      write: db
        .update(orders)
        .set({ ...changes, updatedAt: now })
        .where(
          and(
            eq(orders.id, orderId),
            eq(orders.customerId, customerId),
            inArray(orders.status, CUSTOMER_CHANGEABLE),
            pairChecked
              ? sql`((${nextCountry} = ${orders.countryCode} AND ${nextType} = ${orders.numberType}) OR ${isOrderable(nextCountry, nextType)})`
              : undefined,
            profileOfAccount(customerId, changes.kycProfileId),
            namesReservedFields(changes) ? isNull(orders.reservationId) : undefined,
          ),
        )
        .returning(),
      ...orderEventIfWritten(db, "order.updated", orderId, now),
    }),
  });
  outbox.add(updated.after.deliveries);
  const [row] = updated.write;
  if (row) return ok(row);
  const current = await findOrder(db, customerId, orderId);
  if (!current) return refuse("not_found");
  if (!customerMayChange(current.status)) return refuse("wrong_state", { state: current.status });
  if (changesReservedFields(current, changes)) return refuse("from_reservation");
  if (changes.kycProfileId && !(await profileExists(db, customerId, changes.kycProfileId))) return refuse("unknown_profile");
  return refuse("not_orderable", {
    countryCode: changes.countryCode ?? current.countryCode,
    numberType: changes.numberType ?? current.numberType,
  });
}

/** Who moves an order: the operator (any account's order; the move is audited) or the order's own account. */
export type OrderMoveBy = { mover: "operator"; audit: AuditContext } | { mover: "customer"; customerId: string };

/**
 * A move of an order to `to` (src/orders/lifecycle.ts: from which statuses `by` may make it), with its event in one
 * batch: one conditional UPDATE, so an order that moved meanwhile is refused, never half-moved. The operator's move
 * also writes its audit event, before the move (under the move's own guard), so it records the status moved from.
 */
export async function transitionOrderStatus(
  db: Database,
  outbox: Outbox,
  by: OrderMoveBy,
  orderId: string,
  to: OrderStatus,
  now: number,
): Promise<Outcome<OrderRow, "not_found" | "wrong_state">> {
  const move = orderMove(to, by.mover);
  const ofMover = by.mover === "customer" ? eq(orders.customerId, by.customerId) : undefined;
  if (move) {
    const movable = and(eq(orders.id, orderId), ofMover, inArray(orders.status, move.from));
    const { moved } = await batchByName(db, {
      moved: writeInPhases({
        before: {
          audit:
            by.mover === "operator"
              ? auditBeforeWrite(
                  db,
                  { ...by.audit, now },
                  {
                    action: "order.status_changed",
                    target: { type: "order", id: orderId },
                    customerId: orders.customerId,
                    changes: { status: [orders.status, to] },
                  },
                  { from: orders, guard: movable },
                )
              : undefined,
        },
        write: db.update(orders).set({ status: to, updatedAt: now }).where(movable).returning(),
        ...orderEventIfWritten(db, move.event, orderId, now),
      }),
    });
    outbox.add(moved.after.deliveries);
    const [row] = moved.write;
    if (row) return ok(row);
  }
  const current = await db
    .select()
    .from(orders)
    .where(and(eq(orders.id, orderId), ofMover))
    .get();
  return refusalByState(current);
}
