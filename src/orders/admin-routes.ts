// The operator's routes for orders: any account's order, and its status moves.
import { createRoute, z } from "@hono/zod-openapi";
import type { OperatorEnv } from "../env.ts";
import { errorResponses, jsonBody, jsonResponse } from "../http/openapi.ts";
import { workOf } from "../http/request-context.ts";
import { createRouter } from "../http/router.ts";
import { notFound, valueOrProblem } from "../lib/problem.ts";
import { EVERY_ROLE, FULFILMENT, operatorOperation } from "../staff/roles.ts";
import { orderIdParam, orderSchema, orderStatusChangeBody, toOrder } from "./schemas.ts";
import { findOrderById } from "./store.ts";
import { moveOrder } from "./use-cases.ts";

const orderParams = z.object({ order_id: orderIdParam });

export const orderAdminRoutes = createRouter<OperatorEnv>()
  .openapi(
    createRoute({
      ...operatorOperation(EVERY_ROLE),
      operationId: "getAnyOrder",
      method: "get",
      path: "/orders/{order_id}",
      summary: "Retrieve any account's order",
      request: { params: orderParams },
      responses: {
        200: jsonResponse(orderSchema, "The order."),
        ...errorResponses(400, 401, 403, 404),
      },
    }),
    async (c) => {
      const row = await findOrderById(c.var.db, c.req.valid("param").order_id);
      if (!row) throw notFound("Order");
      return c.json(toOrder(row), 200);
    },
  )
  .openapi(
    createRoute({
      ...operatorOperation(FULFILMENT),
      operationId: "changeOrderStatus",
      method: "post",
      path: "/orders/{order_id}/status",
      summary: "Move an order to processing or cancelled",
      description: "pending→processing, pending→cancelled, processing→cancelled; anything else is a 409.",
      request: { params: orderParams, body: jsonBody(orderStatusChangeBody) },
      responses: {
        200: jsonResponse(orderSchema, "The order after the move."),
        ...errorResponses(400, 401, 403, 404, 409, 413, 415),
      },
    }),
    async (c) => {
      const { status } = c.req.valid("json");
      const moved = valueOrProblem(await moveOrder(workOf(c), c.req.valid("param").order_id, status));
      return c.json(toOrder(moved), 200);
    },
  );
