// Order actions shared by the API, the portal and the operator's routes.

import { notOrderable } from "../catalog/refusals.ts";
import type { Pair } from "../compliance/evaluation.ts";
import { requirementsNotMet } from "../compliance/refusals.ts";
import type { OrderRow, OrderStatus } from "../db/schema.ts";
import type { Work } from "../env.ts";
import { evaluateProfile } from "../kyc/evaluations.ts";
import { action } from "../lib/action.ts";
import { done, fieldProblem, notFound, Problem, type Result, refusals, refused } from "../lib/problem.ts";
import { isActive, statusAt } from "../reservations/lifecycle.ts";
import { findReservationRow } from "../reservations/store.ts";
import { FULFILMENT, operatorAction } from "../staff/roles.ts";
import { fulfilsAtOnce } from "./allocation-store.ts";
import { changesReservedFields, customerMayChange, mayMove, movesFrom } from "./lifecycle.ts";
import {
  createOrder,
  findOrder,
  type NewOrder,
  type OrderChanges,
  type OrderRequest,
  transitionOrderStatus,
  updatePendingOrder,
} from "./store.ts";

/** The profile named is not the account's. */
const unknownProfile = fieldProblem(
  "validation_error",
  "kyc_profile_id is not a profile of this account",
  "/kyc_profile_id",
  "is not a profile of this account",
);

/**
 * Why the profile cannot serve an order of the pair: not the account's, or not compliant for it (one error per unmet
 * requirement, naming it); undefined when it can, or when the pair is not orderable (the store says so).
 */
async function profileRefusal(
  work: Work,
  customerId: string,
  profileId: string,
  pair: Pair,
): Promise<Problem<"validation_error" | "requirements_not_met"> | undefined> {
  const evaluation = await evaluateProfile(work.db, customerId, profileId, pair, work.now);
  if (evaluation === undefined) return unknownProfile;
  if (evaluation === null || evaluation.compliant) return undefined;
  return requirementsNotMet(evaluation, "/kyc_profile_id");
}

export const PLACE_ORDER_REFUSALS = refusals(
  "validation_error",
  "not_found",
  "not_orderable",
  "requirements_not_met",
  "reservation_not_active",
);

/** Only an active reservation is ordered (extend and cancel answer it alike). */
function reservationNotActive(state: string): Problem<"reservation_not_active"> {
  return new Problem("reservation_not_active", `Only an active reservation can be ordered; this one is ${state}`);
}

/**
 * A new order of the account, with its order.created event; a profile it names must be compliant for its pair. From
 * a reservation, it takes the reservation's pair and count (and, unless it names one, the profile the reservation is
 * held for), and the reservation becomes ordered in the same batch. For a pair with auto_fulfil whose stock (or the
 * reservation) covers the quantity, it is allocated and fulfilled in that batch too.
 */
export async function placeOrder(
  work: Work,
  customerId: string,
  request: OrderRequest,
): Promise<Result<OrderRow, typeof PLACE_ORDER_REFUSALS>> {
  let order: NewOrder;
  if ("reservationId" in request) {
    const reservation = await findReservationRow(work.db, customerId, request.reservationId);
    if (!reservation) return refused(notFound("Reservation"));
    if (!isActive(reservation, work.now)) return refused(reservationNotActive(statusAt(reservation, work.now)));
    order = {
      countryCode: reservation.countryCode,
      numberType: reservation.numberType,
      quantity: reservation.quantity,
      notes: request.notes,
      kycProfileId: request.kycProfileId === undefined ? reservation.holdForProfile : request.kycProfileId,
      reservationId: reservation.id,
    };
  } else {
    order = request;
  }
  if (order.kycProfileId) {
    const refusal = await profileRefusal(work, customerId, order.kycProfileId, order);
    if (refusal) return refused(refusal);
  }
  const instant = await fulfilsAtOnce(work.db, { ...order, reservationId: order.reservationId ?? null }, work.now);
  const created = await createOrder(work.db, work.outbox, customerId, order, work.now, instant ? work : undefined);
  if (created.ok) return done(created.value);
  switch (created.reason) {
    case "unknown_profile":
      return refused(unknownProfile);
    case "wrong_state":
      return refused(reservationNotActive(created.state));
    case "not_orderable":
      return refused(notOrderable(created, "body", "/number_type"));
  }
}

const CHANGE_ORDER_REFUSALS = refusals(
  "validation_error",
  "conflict",
  "not_orderable",
  "requirements_not_met",
  "order_not_pending",
  "not_found",
);

/** Changes a pending order of the account, with its order.updated event. */
async function changeOrder(
  work: Work,
  customerId: string,
  orderId: string,
  changes: OrderChanges,
): Promise<Result<OrderRow, typeof CHANGE_ORDER_REFUSALS>> {
  // The profile the order will name, checked against the pair it will have (re-checked when only the pair changes).
  const pairChanges = changes.countryCode !== undefined || changes.numberType !== undefined;
  if (changes.kycProfileId || (pairChanges && changes.kycProfileId === undefined)) {
    const current = await findOrder(work.db, customerId, orderId);
    const profileId = changes.kycProfileId ?? current?.kycProfileId;
    // Only a pending order changes: another is refused for that (order_not_pending), whatever its profile; one from a
    // reservation is refused for its pair (conflict), whatever the profile (the store says so).
    if (current && customerMayChange(current.status) && !changesReservedFields(current, changes) && profileId) {
      const pair = {
        countryCode: changes.countryCode ?? current.countryCode,
        numberType: changes.numberType ?? current.numberType,
      };
      const refusal = await profileRefusal(work, customerId, profileId, pair);
      if (refusal) return refused(refusal);
    }
  }
  const updated = await updatePendingOrder(work.db, work.outbox, customerId, orderId, changes, work.now);
  if (updated.ok) return done(updated.value);
  switch (updated.reason) {
    case "not_found":
      return refused(notFound("Order"));
    case "wrong_state":
      return refused(notPending("changed", updated.state));
    case "from_reservation":
      return refused(
        new Problem(
          "conflict",
          "This order was placed from a reservation: its number_type, country_code and quantity are the reservation's and cannot change",
        ),
      );
    case "not_orderable":
      return refused(notOrderable(updated, "body", "/number_type"));
    case "unknown_profile":
      return refused(unknownProfile);
  }
}

/** The account's order is no longer its to change or cancel: 403, as PUT and cancel both answer it. */
function notPending(what: "changed" | "cancelled", state: string): Problem<"order_not_pending"> {
  return new Problem("order_not_pending", `Only pending orders can be ${what}; this order is ${state}`);
}

const CANCEL_ORDER_REFUSALS = refusals("order_not_pending", "not_found");

/** The account cancels its own order while it is pending, with its order.cancelled event. */
async function cancelOrder(
  work: Work,
  customerId: string,
  orderId: string,
): Promise<Result<OrderRow, typeof CANCEL_ORDER_REFUSALS>> {
  const moved = await transitionOrderStatus(
    work.db,
    work.outbox,
    { mover: "customer", customerId },
    orderId,
    "cancelled",
    work.now,
  );
  if (moved.ok) return done(moved.value);
  if (moved.reason === "not_found") return refused(notFound("Order"));
  return refused(notPending("cancelled", moved.state));
}

const MOVE_ORDER_REFUSALS = refusals("not_found", "conflict");

/** The operator moves an order to processing or cancelled. */
async function moveOrder(
  work: Work,
  orderId: string,
  status: OrderStatus,
): Promise<Result<OrderRow, typeof MOVE_ORDER_REFUSALS>> {
  const moved = await transitionOrderStatus(work.db, work.outbox, { mover: "operator", audit: work }, orderId, status, work.now);
  if (moved.ok) return done(moved.value);
  if (moved.reason === "not_found") return refused(notFound("Order"));
  return refused(new Problem("conflict", `An order cannot move from ${moved.state} to ${status}`));
}

/** The operator's move of an order (pending → processing, an open order → cancelled), offered while one is allowed. */
export const moveOrderAction = operatorAction({
  operationId: "changeOrderStatus",
  roles: FULFILMENT,
  refusals: MOVE_ORDER_REFUSALS,
  available: (order: Pick<OrderRow, "status">) => movesFrom(order.status, "operator").length > 0,
  run: moveOrder,
});

/** The account's change of its order (PUT), offered while the order is its to change. */
export const changeOrderAction = action({
  refusals: CHANGE_ORDER_REFUSALS,
  available: (order: Pick<OrderRow, "status">) => customerMayChange(order.status),
  run: changeOrder,
});

/** The account's cancel of its order, offered while the life cycle lets it. */
export const cancelOrderAction = action({
  refusals: CANCEL_ORDER_REFUSALS,
  available: (order: Pick<OrderRow, "status">) => mayMove(order.status, "cancelled", "customer"),
  run: cancelOrder,
});
