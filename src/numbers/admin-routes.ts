// The operator's allocation of numbers to an order.
import { createRoute, z } from "@hono/zod-openapi";
import type { OperatorEnv } from "../env.ts";
import { errorResponses, jsonBody, jsonResponse, locationHeader, OPERATOR_OPERATION } from "../http/openapi.ts";
import { workOf } from "../http/request-context.ts";
import { createRouter } from "../http/router.ts";
import { valueOrProblem } from "../lib/problem.ts";
import { orderIdParam, toOrder } from "../orders/schemas.ts";
import { allocationBody, allocationSchema, toNumber } from "./schemas.ts";
import { allocateToOrder } from "./use-cases.ts";

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
    const allocated = valueOrProblem(await allocateToOrder(workOf(c), order_id, c.req.valid("json").phone_numbers));
    c.header("Location", `/admin/orders/${order_id}`);
    return c.json({ order: toOrder(allocated.order), numbers: allocated.numbers.map((n) => toNumber(n, null)) }, 201);
  },
);
