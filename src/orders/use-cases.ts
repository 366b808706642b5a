// The orders' actions, once for every front end (the API, the portal, the operator's routes): each takes its validated
// input, calls the store, and ends in the order or the one problem that refuses it, in the words a person reads.
import type { Refusal } from "../db/outcome.ts";
import type { OrderRow, OrderStatus } from "../db/schema.ts";
import type { Work } from "../env.ts";
import { done, fieldProblem, notFound, Problem, type Result, refused } from "../lib/problem.ts";
import { createOrder, type NewOrder, type OrderChanges, transitionOrderStatus, updatePendingOrder } from "./store.ts";

/** The pair is not in the orderable catalog: said of the whole request, and of number_type (the choice to change). */
function notOrderable({ countryCode, numberType }: Refusal<"not_orderable">): Problem {
  return fieldProblem(
    "not_orderable",
    `${numberType} numbers cannot be ordered in ${countryCode} right now; choose another number_type or country_code`,
    "/number_type",
    `cannot be ordered in ${countryCode} right now`,
  );
}

/** A new order of the account, with its order.created event. */
export async function placeOrder(work: Work, customerId: string, order: NewOrder): Promise<Result<OrderRow>> {
  const created = await createOrder(work.db, work.outbox, customerId, order, work.now);
  return created.ok ? done(created.value) : refused(notOrderable(created));
}

/** Changes a pending order of the account, with its order.updated event. */
export async function changeOrder(
  work: Work,
  customerId: string,
  orderId: string,
  changes: OrderChanges,
): Promise<Result<OrderRow>> {
  const updated = await updatePendingOrder(work.db, work.outbox, customerId, orderId, changes, work.now);
  if (updated.ok) return done(updated.value);
  switch (updated.reason) {
    case "not_found":
      return refused(notFound("Order"));
    case "wrong_state":
      return refused(new Problem("order_not_pending", `Only pending orders can be changed; this order is ${updated.state}`));
    case "not_orderable":
      return refused(notOrderable(updated));
  }
}

/** The operator moves an order to processing or cancelled. */
export async function moveOrder(work: Work, orderId: string, status: OrderStatus): Promise<Result<OrderRow>> {
  const moved = await transitionOrderStatus(work.db, work.outbox, work, orderId, status, work.now);
  if (moved.ok) return done(moved.value);
  if (moved.reason === "not_found") return refused(notFound("Order"));
  return refused(new Problem("conflict", `An order cannot move from ${moved.state} to ${status}`));
}
