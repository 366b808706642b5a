// The operator's route for allocating numbers to an order.
import { createRoute, z } from "@hono/zod-openapi";
import type { OperatorEnv } from "../env.ts";
import { errorResponses, jsonBody, jsonResponse, locationHeader } from "../http/openapi.ts";
import { workOf } from "../http/request-context.ts";
import { createRouter } from "../http/router.ts";
import { valueOrProblem } from "../lib/problem.ts";
import { orderIdParam, toOrder } from "../orders/schemas.ts";
import { operatorOperation } from "../staff/roles.ts";
import { allocationBody, allocationSchema, toAllocation, toNumber } from "./schemas.ts";
import { allocateAction } from "./use-cases.ts";

export const numberAdminRoutes = createRouter<OperatorEnv>().openapi(
  createRoute({
    ...operatorOperation(allocateAction),
    method: "post",
    path: "/orders/{order_id}/numbers",
    summary: "Allocate numbers to an order",
    description:
      "All or nothing: the numbers listed in phone_numbers, or from_stock numbers of the stock of the order's " +
      "country and type (never both): first those its reservation holds for it, then the oldest available ones (or " +
      "whose hold lapsed). The order must be pending (it moves to processing) or processing; fulfilled_quantity grows " +
      "and reaching quantity fulfils the order. More numbers than remain is a 400; a number already allocated " +
      "anywhere, stocked for another country or type, or held by a reservation for another order or account, is a " +
      "409; more than the stock holds for the order is a 409 insufficient_stock. A listed number that is in stock leaves it. A pending order whose KYC profile its " +
      "customer changes during the allocation is read again and allocated as it then stands; changed again, a 409 " +
      "(nothing allocated). One order.numbers_allocated event is sent per 1,000 numbers.",
    request: {
      params: z.object({ order_id: orderIdParam }),
      body: jsonBody(allocationBody),
    },
    responses: {
      201: {
        ...jsonResponse(allocationSchema, "The order and its new numbers."),
        headers: locationHeader,
      },
      ...errorResponses(allocateAction.refusals),
    },
  }),
  async (c) => {
    const { order_id } = c.req.valid("param");
    const allocated = valueOrProblem(await allocateAction.run(workOf(c), order_id, toAllocation(c.req.valid("json"))));
    c.header("Location", `/admin/orders/${order_id}`);
    return c.json({ order: toOrder(allocated.order), numbers: allocated.numbers.map(toNumber) }, 201);
  },
);
