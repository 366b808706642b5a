// The numbers list of the customer API, and the operator's allocation of numbers to an order.
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "../env.ts";
import { ADMIN_SECURITY, API_KEY_SECURITY, errorResponses, jsonBody, jsonResponse } from "../http/openapi.ts";
import { pageMeta, pageWindow } from "../http/pagination.ts";
import { ApiError, notFound, validationError } from "../http/problem.ts";
import { validationHook } from "../http/validation.ts";
import { customerSlugParam, orderIdParam, orderSchema, toOrder } from "../orders/schemas.ts";
import { allocationBody, listNumbersQuery, numberPageSchema, numberSchema, toNumber } from "./schemas.ts";
import { allocateNumbers, listNumbers } from "./store.ts";

const listRoute = createRoute({
  method: "get",
  path: "/api/customers/{customer_slug}/numbers",
  tags: ["Numbers"],
  summary: "List numbers",
  description: "A page of the account's numbers, each with the status of its verification (kyc_status).",
  security: API_KEY_SECURITY,
  request: { params: z.object({ customer_slug: customerSlugParam }), query: listNumbersQuery },
  responses: { 200: jsonResponse(numberPageSchema, "A page of numbers."), ...errorResponses(400, 401, 404, 429) },
});

const allocateRoute = createRoute({
  method: "post",
  path: "/admin/orders/{order_id}/numbers",
  tags: ["Admin"],
  summary: "Allocate numbers to an order",
  description:
    "All or nothing. The order must be pending (it moves to processing) or processing; fulfilled_quantity grows " +
    "and reaching quantity fulfils the order. More numbers than remain is a 400; a number already allocated " +
    "anywhere is a 409.",
  security: ADMIN_SECURITY,
  request: { params: z.object({ order_id: orderIdParam }), body: jsonBody(allocationBody) },
  responses: {
    201: jsonResponse(z.object({ order: orderSchema, numbers: z.array(numberSchema) }), "The order and its new numbers."),
    ...errorResponses(400, 401, 404, 409, 413, 415),
  },
});

export const numberRoutes = new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
  .openapi(listRoute, async (c) => {
    const query = c.req.valid("query");
    const window = pageWindow(query);
    const { rows, total } = await listNumbers(c.var.db, c.var.principal.customerId, query, window);
    return c.json({ data: rows.map((r) => toNumber(r.number, r.kycStatus)), meta: pageMeta(window, total) }, 200);
  })
  .openapi(allocateRoute, async (c) => {
    const { order_id } = c.req.valid("param");
    const { phone_numbers } = c.req.valid("json");
    const outcome = await allocateNumbers(c.var.db, order_id, phone_numbers, Date.now());
    if (outcome === "not_found") throw notFound("Order");
    if ("notAllocatable" in outcome) {
      throw new ApiError("conflict", `Numbers can be allocated only to pending or processing orders; this one is ${outcome.notAllocatable}`);
    }
    if ("exceeds" in outcome) {
      throw validationError([
        {
          location: "body",
          pointer: "/phone_numbers",
          message: `must have at most ${outcome.exceeds.remaining} items: the order has ${outcome.exceeds.remaining} numbers left to allocate`,
        },
      ]);
    }
    if ("taken" in outcome) {
      throw new ApiError("conflict", `Already allocated: ${outcome.taken.slice(0, 10).join(", ")}${outcome.taken.length > 10 ? ", …" : ""}`);
    }
    c.header("Location", `/admin/orders/${order_id}`);
    return c.json({ order: toOrder(outcome.order), numbers: outcome.numbers.map((n) => toNumber(n, null)) }, 201);
  });
