// The order state machine: which statuses the account may change, the allowed moves and who makes them, and which
// statuses take numbers. The stores' SQL guards and the pages' availability checks both read it.
import { type EventType, OPEN_ORDER_STATUSES, ORDER_STATUSES, type OrderStatus } from "../db/schema.ts";

/** Who moves an order: its account (the API, the portal) or the operator (the admin API, the console). */
export type OrderMover = "customer" | "operator";

/** While pending, an order is its account's to change (PUT) or to cancel. */
export const CUSTOMER_CHANGEABLE = ["pending"] as const satisfies readonly OrderStatus[];

/** The statuses an order takes numbers in: the open ones (an allocation moves a pending order to processing). */
export const ALLOCATABLE: readonly OrderStatus[] = OPEN_ORDER_STATUSES;

/**
 * Whether an order placed from a reservation holds that reservation's numbers: while open; once fulfilled or cancelled
 * the ones it did not take are free (migrations/0019's orders_reservation_hold_ended).
 */
export function holdsReservedNumbers(status: OrderStatus): boolean {
  return (OPEN_ORDER_STATUSES as readonly OrderStatus[]).includes(status);
}

interface Move {
  /** The statuses each mover may move an order from; a mover not named may not. */
  from: Readonly<Partial<Record<OrderMover, readonly OrderStatus[]>>>;
  event: EventType;
}

/** The moves to each status (fulfilment happens through number allocation) and the event each emits. */
const ORDER_MOVES: Readonly<Partial<Record<OrderStatus, Move>>> = {
  processing: { from: { operator: ["pending"] }, event: "order.processing" },
  cancelled: { from: { operator: OPEN_ORDER_STATUSES, customer: CUSTOMER_CHANGEABLE }, event: "order.cancelled" },
};

/** The move of `mover` to `to`: the statuses it is allowed from and its event; undefined when there is none. */
export function orderMove(to: OrderStatus, mover: OrderMover): { from: readonly OrderStatus[]; event: EventType } | undefined {
  const move = ORDER_MOVES[to];
  const from = move?.from[mover];
  return move && from ? { from, event: move.event } : undefined;
}

/** Whether `mover` may move an order that is `status` to `to` now. */
export function mayMove(status: OrderStatus, to: OrderStatus, mover: OrderMover): boolean {
  return orderMove(to, mover)?.from.includes(status) ?? false;
}

/** The statuses `mover` may move an order that is `status` to now, in the life cycle's order. */
export function movesFrom(status: OrderStatus, mover: OrderMover): OrderStatus[] {
  return ORDER_STATUSES.filter((to) => mayMove(status, to, mover));
}

/** Whether the account may still change its order (PUT) that is `status`. */
export function customerMayChange(status: OrderStatus): boolean {
  return (CUSTOMER_CHANGEABLE as readonly OrderStatus[]).includes(status);
}

/** What an order placed from a reservation takes from it: never changed afterwards (its numbers are held for these). */
const FIXED_BY_RESERVATION = ["countryCode", "numberType", "quantity"] as const;

type ReservedFieldChanges = Partial<Record<(typeof FIXED_BY_RESERVATION)[number], unknown>>;

/** Whether a change names a field a reservation fixes: allowed only on an order not placed from one. */
export function namesReservedFields(changes: ReservedFieldChanges): boolean {
  return FIXED_BY_RESERVATION.some((field) => changes[field] !== undefined);
}

/** Whether the order's pair and quantity may change: only when it was not placed from a reservation. */
export function mayChangeReservedFields(order: { reservationId: string | null }): boolean {
  return order.reservationId === null;
}

/** Whether the change is refused for changing what the order's reservation fixed. */
export function changesReservedFields(order: { reservationId: string | null }, changes: ReservedFieldChanges): boolean {
  return !mayChangeReservedFields(order) && namesReservedFields(changes);
}
