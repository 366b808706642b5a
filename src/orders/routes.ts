// Customer API routes for orders.
import { createRoute, z } from "@hono/zod-openapi";
import { customerSlugParam } from "../customers/schemas.ts";
import { pageWindow } from "../db/paging.ts";
import type { CustomerEnv } from "../env.ts";
import { API_KEY_SECURITY, errorResponses, jsonBody, jsonResponse, locationHeader } from "../http/openapi.ts";
import { pageMeta } from "../http/pagination.ts";
import { workOf } from "../http/request-context.ts";
import { createRouter } from "../http/router.ts";
import { notFound, valueOrProblem } from "../lib/problem.ts";
import { listOrders } from "./list.ts";
import {
  createOrderBody,
  listOrdersQuery,
  orderIdParam,
  orderPageSchema,
  orderSchema,
  toOrder,
  toOrderChanges,
  toOrderListQuery,
  toOrderRequest,
  updateOrderBody,
} from "./schemas.ts";
import { findOrder } from "./store.ts";
import { cancelOrderAction, changeOrderAction, PLACE_ORDER_REFUSALS, placeOrder } from "./use-cases.ts";

const slugParams = z.object({ customer_slug: customerSlugParam });
const orderParams = z.object({
  customer_slug: customerSlugParam,
  order_id: orderIdParam,
});
const operation = { tags: ["Orders"], security: API_KEY_SECURITY };

export const orderRoutes = createRouter<CustomerEnv>()
  .openapi(
    createRoute({
      ...operation,
      operationId: "listOrders",
      method: "get",
      path: "/customers/{customer_slug}/orders",
      summary: "List orders",
      description:
        "A page of the account's orders. meta.status_counts holds per-status totals over every order matching the " +
        "other filters (the status filter is ignored for it).",
      request: { params: slugParams, query: listOrdersQuery },
      responses: {
        200: jsonResponse(orderPageSchema, "A page of orders."),
      },
    }),
    async (c) => {
      const query = c.req.valid("query");
      const window = pageWindow(query.page, query.limit);
      const list = await listOrders(c.var.db, c.var.principal.customerId, toOrderListQuery(query), window);
      return c.json(
        {
          data: list.rows.map(toOrder),
          meta: {
            ...pageMeta(window, list.total),
            status_counts: list.statusCounts,
          },
        },
        200,
      );
    },
  )
  .openapi(
    createRoute({
      ...operation,
      operationId: "getOrder",
      method: "get",
      path: "/customers/{customer_slug}/orders/{order_id}",
      summary: "Retrieve an order",
      request: { params: orderParams },
      responses: {
        200: jsonResponse(orderSchema, "The order."),
        ...errorResponses(["not_found"]),
      },
    }),
    async (c) => {
      const row = await findOrder(c.var.db, c.var.principal.customerId, c.req.valid("param").order_id);
      if (!row) throw notFound("Order");
      return c.json(toOrder(row), 200);
    },
  )
  .openapi(
    createRoute({
      ...operation,
      operationId: "createOrder",
      method: "post",
      path: "/customers/{customer_slug}/orders",
      summary: "Create an order",
      description:
        "Places a pending order of a pair (number_type, country_code, quantity), or from an active reservation " +
        "(reservation_id: the order takes its pair and count, the reservation becomes ordered and its numbers stay " +
        "held for the order). The pair must be currently orderable. For a pair with auto_fulfil whose stock (or the " +
        "reservation) covers the quantity, the order is allocated and fulfilled at once: 201 with status fulfilled.",
      request: { params: slugParams, body: jsonBody(createOrderBody) },
      responses: {
        201: {
          ...jsonResponse(orderSchema, "The created order: pending, or fulfilled at once (auto_fulfil)."),
          headers: locationHeader,
        },
        ...errorResponses(PLACE_ORDER_REFUSALS),
      },
    }),
    async (c) => {
      const created = valueOrProblem(
        await placeOrder(workOf(c), c.var.principal.customerId, toOrderRequest(c.req.valid("json"))),
      );
      c.header("Location", `/api/customers/${c.req.valid("param").customer_slug}/orders/${created.id}`);
      return c.json(toOrder(created), 201);
    },
  )
  .openapi(
    createRoute({
      ...operation,
      operationId: "updateOrder",
      method: "put",
      path: "/customers/{customer_slug}/orders/{order_id}",
      summary: "Update a pending order",
      description:
        "Replaces the supplied fields only. Allowed while the order is pending; any other status answers 403 and " +
        "the order is unchanged.",
      request: { params: orderParams, body: jsonBody(updateOrderBody) },
      responses: {
        200: jsonResponse(orderSchema, "The updated order."),
        ...errorResponses(changeOrderAction.refusals),
      },
    }),
    async (c) => {
      const { order_id } = c.req.valid("param");
      const changes = toOrderChanges(c.req.valid("json"));
      const updated = valueOrProblem(await changeOrderAction.run(workOf(c), c.var.principal.customerId, order_id, changes));
      return c.json(toOrder(updated), 200);
    },
  )
  .openapi(
    createRoute({
      ...operation,
      operationId: "cancelOrder",
      method: "post",
      path: "/customers/{customer_slug}/orders/{order_id}/cancel",
      summary: "Cancel a pending order",
      description:
        "Cancels an order placed by mistake, while it is pending (no body); emits order.cancelled. Any other status " +
        "answers 403 order_not_pending and the order is unchanged.",
      request: { params: orderParams },
      responses: {
        200: jsonResponse(orderSchema, "The order, cancelled."),
        ...errorResponses(cancelOrderAction.refusals),
      },
    }),
    async (c) => {
      const cancelled = valueOrProblem(
        await cancelOrderAction.run(workOf(c), c.var.principal.customerId, c.req.valid("param").order_id),
      );
      return c.json(toOrder(cancelled), 200);
    },
  );
