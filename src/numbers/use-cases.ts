// The operator's allocation of numbers to an order.
import type { OrderRow } from "../db/schema.ts";
import type { Work } from "../env.ts";
import { done, notFound, Problem, type Result, refusals, refused, validationError } from "../lib/problem.ts";
import { type Allocation, allocateNumbers } from "../orders/allocation-store.ts";
import { ALLOCATABLE } from "../orders/lifecycle.ts";
import { ADMIN, FULFILMENT, operatorAction } from "../staff/roles.ts";
import type { NumberWithKyc } from "./store.ts";

/** How many taken numbers a refusal names. */
const TAKEN_SHOWN = 10;

/** Numbers listed in a refusal, at most TAKEN_SHOWN of them. */
function listed(phoneNumbers: string[]): string {
  const more = phoneNumbers.length > TAKEN_SHOWN ? ", …" : "";
  return `${phoneNumbers.slice(0, TAKEN_SHOWN).join(", ")}${more}`;
}

const ALLOCATE_REFUSALS = refusals("validation_error", "not_found", "conflict", "number_quarantined", "insufficient_stock");

/**
 * Allocates numbers to the order, all or nothing, with the order's events: those listed, or the oldest of the stock
 * of the order's pair.
 */
async function allocateToOrder(
  work: Work,
  orderId: string,
  allocation: Allocation,
): Promise<Result<{ order: OrderRow; numbers: NumberWithKyc[] }, typeof ALLOCATE_REFUSALS>> {
  const allocated = await allocateNumbers(work.db, work.outbox, work, orderId, allocation, work.now);
  if (allocated.ok) return done(allocated.value);
  const pointer = "fromStock" in allocation ? "/from_stock" : "/phone_numbers";
  switch (allocated.reason) {
    case "not_found":
      return refused(notFound("Order"));
    case "wrong_state":
      return refused(
        new Problem("conflict", `Numbers can be allocated only to pending or processing orders; this one is ${allocated.state}`),
      );
    case "changed_meanwhile":
      return refused(
        new Problem(
          "conflict",
          "The order's KYC profile changed twice while its numbers were being allocated; nothing was allocated: try again",
        ),
      );
    case "over_quantity":
      return refused(
        validationError([
          {
            location: "body",
            pointer,
            message:
              "fromStock" in allocation
                ? `must be at most ${allocated.remaining}: the order has ${allocated.remaining} numbers left to allocate`
                : `must have at most ${allocated.remaining} items: the order has ${allocated.remaining} numbers left to allocate`,
          },
        ]),
      );
    case "numbers_taken":
      return refused(
        new Problem(
          "conflict",
          `Already allocated (a released number stays its account's until its restore window ends): ${listed(allocated.phoneNumbers)}`,
        ),
      );
    case "stocked_elsewhere":
      return refused(new Problem("conflict", `In stock for another country or number type: ${listed(allocated.phoneNumbers)}`));
    case "held":
      return refused(
        new Problem(
          "conflict",
          `Held by a reservation for another order or account until its hold ends: ${listed(allocated.phoneNumbers)}`,
        ),
      );
    case "quarantined":
      return refused(
        new Problem(
          "number_quarantined",
          `Quarantined in stock, not to be allocated before its quarantine ends: ${listed(allocated.phoneNumbers)}`,
        ),
      );
    case "insufficient_stock":
      return refused(
        new Problem(
          "insufficient_stock",
          `The stock holds ${allocated.available} numbers of this order's country and type; ${"fromStock" in allocation ? allocation.fromStock : 0} were asked for`,
        ),
      );
  }
}

/** The operator's allocation of numbers to an order, offered while the order takes numbers. */
export const allocateAction = operatorAction({
  operationId: "allocateNumbers",
  roles: FULFILMENT,
  // Allocating quarantined numbers is the admin's call.
  elevated: { flag: "ignore_quarantine", roles: ADMIN },
  refusals: ALLOCATE_REFUSALS,
  available: (order: Pick<OrderRow, "status">) => ALLOCATABLE.includes(order.status),
  run: allocateToOrder,
});
