// The operator's routes for orders across accounts and their status moves.
import { createRoute, z } from "@hono/zod-openapi";
import { pageWindow } from "../db/paging.ts";
import type { OperatorEnv } from "../env.ts";
import { errorResponses, jsonBody, jsonResponse } from "../http/openapi.ts";
import { pageMeta } from "../http/pagination.ts";
import { workOf } from "../http/request-context.ts";
import { createRouter } from "../http/router.ts";
import { notFound, valueOrProblem } from "../lib/problem.ts";
import { operatorOperation, operatorRead } from "../staff/roles.ts";
import { listOrderQueue } from "./queue.ts";
import {
  orderIdParam,
  orderQueuePageSchema,
  orderQueueQuery,
  orderSchema,
  orderStatusChangeBody,
  toOrder,
  toOrderQueueQuery,
  toQueuedOrder,
} from "./schemas.ts";
import { findOrderById } from "./store.ts";
import { moveOrderAction } from "./use-cases.ts";

const orderParams = z.object({ order_id: orderIdParam });

export const orderAdminRoutes = createRouter<OperatorEnv>()
  .openapi(
    createRoute({
      ...operatorRead("listOrderQueue"),
      method: "get",
      path: "/orders",
      summary: "List every account's orders: the queue",
      description:
        "Open orders (pending, processing) unless asked for other statuses, oldest request first; each with its " +
        "account, its age in hours, and the numbers in stock for its country and type.",
      request: { query: orderQueueQuery },
      responses: {
        200: jsonResponse(orderQueuePageSchema, "A page of the queue, with the counts of every status."),
      },
    }),
    async (c) => {
      const q = c.req.valid("query");
      const window = pageWindow(q.page, q.limit);
      const { rows, total, statusCounts } = await listOrderQueue(c.var.db, toOrderQueueQuery(q), window);
      return c.json(
        {
          data: rows.map((row) => toQueuedOrder(row, c.var.now)),
          meta: { ...pageMeta(window, total), status_counts: statusCounts },
        },
        200,
      );
    },
  )
  .openapi(
    createRoute({
      ...operatorRead("getAnyOrder"),
      method: "get",
      path: "/orders/{order_id}",
      summary: "Retrieve any account's order",
      request: { params: orderParams },
      responses: {
        200: jsonResponse(orderSchema, "The order."),
        ...errorResponses(["not_found"]),
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
      ...operatorOperation(moveOrderAction),
      method: "post",
      path: "/orders/{order_id}/status",
      summary: "Move an order to processing or cancelled",
      description: "pending→processing, pending→cancelled, processing→cancelled; anything else is a 409.",
      request: { params: orderParams, body: jsonBody(orderStatusChangeBody) },
      responses: {
        200: jsonResponse(orderSchema, "The order after the move."),
        ...errorResponses(moveOrderAction.refusals),
      },
    }),
    async (c) => {
      const { status } = c.req.valid("json");
      const moved = valueOrProblem(await moveOrderAction.run(workOf(c), c.req.valid("param").order_id, status));
      return c.json(toOrder(moved), 200);
    },
  );
