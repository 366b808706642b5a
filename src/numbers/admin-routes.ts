// The operator's allocation of numbers to an order.
import { createRoute, z } from "@hono/zod-openapi";
import type { OperatorEnv } from "../env.ts";
import { errorResponses, jsonBody, jsonResponse, locationHeader, OPERATOR_OPERATION } from "../http/openapi.ts";
import { createRouter } from "../http/router.ts";
import { notFound, Problem, validationError } from "../lib/problem.ts";
import { orderIdParam, toOrder } from "../orders/schemas.ts";
import { allocationBody, allocationSchema, toNumber } from "./schemas.ts";
import { allocateNumbers } from "./store.ts";

/** How many taken numbers a 409 names. */
const TAKEN_SHOWN = 10;

export const numberAdminRoutes = createRouter<OperatorEnv>().openapi(
  createRoute({
    ...OPERATOR_OPERATION,
    operationId: "allocateNumbers",
    method: "post",
    path: "/orders/{order_id}/numbers",
    summary: "Allocate numbers to an order",
    description:
      "All or nothing. The order must be pending (it moves to processing) or processing; fulfilled_quantity grows " +
      "and reaching quantity fulfils the order. More numbers than remain is a 400; a number already allocated " +
      "anywhere is a 409.",
    request: {
      params: z.object({ order_id: orderIdParam }),
      body: jsonBody(allocationBody),
    },
    responses: {
      201: {
        ...jsonResponse(allocationSchema, "The order and its new numbers."),
        headers: locationHeader,
      },
      ...errorResponses(400, 401, 404, 409, 413, 415),
    },
  }),
  async (c) => {
    const { order_id } = c.req.valid("param");
    const allocated = await allocateNumbers(c.var.db, c.var.outbox, order_id, c.req.valid("json").phone_numbers, Date.now());
    if (allocated.ok) {
      c.header("Location", `/admin/orders/${order_id}`);
      return c.json(
        {
          order: toOrder(allocated.value.order),
          numbers: allocated.value.numbers.map((n) => toNumber(n, null)),
        },
        201,
      );
    }
    switch (allocated.reason) {
      case "not_found":
        throw notFound("Order");
      case "wrong_state":
        throw new Problem(
          "conflict",
          `Numbers can be allocated only to pending or processing orders; this one is ${allocated.state}`,
        );
      case "over_quantity":
        throw validationError([
          {
            location: "body",
            pointer: "/phone_numbers",
            message: `must have at most ${allocated.remaining} items: the order has ${allocated.remaining} numbers left to allocate`,
          },
        ]);
      case "numbers_taken": {
        const shown = allocated.phoneNumbers.slice(0, TAKEN_SHOWN).join(", ");
        throw new Problem("conflict", `Already allocated: ${shown}${allocated.phoneNumbers.length > TAKEN_SHOWN ? ", …" : ""}`);
      }
    }
  },
);
