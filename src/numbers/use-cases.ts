// The numbers' actions (the operator's allocation to an order), ending in the allocation or one Problem.
import type { NumberRow, OrderRow } from "../db/schema.ts";
import type { Work } from "../env.ts";
import { done, notFound, Problem, type Result, refused, validationError } from "../lib/problem.ts";
import { allocateNumbers } from "./store.ts";

/** How many taken numbers a refusal names. */
const TAKEN_SHOWN = 10;

/** Allocates these numbers to the order, all or nothing, with the order's events. */
export async function allocateToOrder(
  work: Work,
  orderId: string,
  phoneNumbers: string[],
): Promise<Result<{ order: OrderRow; numbers: NumberRow[] }>> {
  const allocated = await allocateNumbers(work.db, work.outbox, orderId, phoneNumbers, work.now);
  if (allocated.ok) return done(allocated.value);
  switch (allocated.reason) {
    case "not_found":
      return refused(notFound("Order"));
    case "wrong_state":
      return refused(
        new Problem("conflict", `Numbers can be allocated only to pending or processing orders; this one is ${allocated.state}`),
      );
    case "over_quantity":
      return refused(
        validationError([
          {
            location: "body",
            pointer: "/phone_numbers",
            message: `must have at most ${allocated.remaining} items: the order has ${allocated.remaining} numbers left to allocate`,
          },
        ]),
      );
    case "numbers_taken": {
      const shown = allocated.phoneNumbers.slice(0, TAKEN_SHOWN).join(", ");
      const more = allocated.phoneNumbers.length > TAKEN_SHOWN ? ", …" : "";
      return refused(new Problem("conflict", `Already allocated: ${shown}${more}`));
    }
  }
}
