// The operator's routes for orders: any account's order, and its status moves.
import { createRoute, z } from "@hono/zod-openapi";
import type { OperatorEnv } from "../env.ts";
import { errorResponses, jsonBody, jsonResponse, OPERATOR_OPERATION } from "../http/openapi.ts";
import { ApiError, notFound } from "../http/problem.ts";
import { createRouter } from "../http/router.ts";
import { orderIdParam, orderSchema, orderStatusChangeBody, toOrder } from "./schemas.ts";
import { findOrderById, transitionOrderStatus } from "./store.ts";

const orderParams = z.object({ order_id: orderIdParam });

export const orderAdminRoutes = createRouter<OperatorEnv>()
  .openapi(
    createRoute({
      ...OPERATOR_OPERATION,
      operationId: "getAnyOrder",
      method: "get",
      path: "/orders/{order_id}",
      summary: "Retrieve any account's order",
      request: { params: orderParams },
      responses: {
        200: jsonResponse(orderSchema, "The order."),
        ...errorResponses(400, 401, 404),
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
      ...OPERATOR_OPERATION,
      operationId: "changeOrderStatus",
      method: "post",
      path: "/orders/{order_id}/status",
      summary: "Move an order to processing or cancelled",
      description: "pending→processing, pending→cancelled, processing→cancelled; anything else is a 409.",
      request: { params: orderParams, body: jsonBody(orderStatusChangeBody) },
      responses: {
        200: jsonResponse(orderSchema, "The order after the move."),
        ...errorResponses(400, 401, 404, 409, 413, 415),
      },
    }),
    async (c) => {
      const { status } = c.req.valid("json");
      const moved = await transitionOrderStatus(c.var.db, c.var.outbox, c.req.valid("param").order_id, status, Date.now());
      if (moved.ok) return c.json(toOrder(moved.value), 200);
      if (moved.reason === "not_found") throw notFound("Order");
      throw new ApiError("conflict", `An order cannot move from ${moved.state} to ${status}`);
    },
  );
