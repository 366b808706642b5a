// The four Orders endpoints of the customer API: list, get, create, update while pending.
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "../env.ts";
import { API_KEY_SECURITY, errorResponses, jsonBody, jsonResponse } from "../http/openapi.ts";
import { pageMeta, pageWindow } from "../http/pagination.ts";
import { ApiError, notFound } from "../http/problem.ts";
import { validationHook } from "../http/validation.ts";
import {
  createOrderBody,
  customerSlugParam,
  listOrdersQuery,
  orderIdParam,
  orderPageSchema,
  orderSchema,
  toOrder,
  updateOrderBody,
} from "./schemas.ts";
import { listOrders } from "./list.ts";
import { createOrder, findOrder, updatePendingOrder } from "./store.ts";

const ORDERS_PATH = "/api/customers/{customer_slug}/orders";
const ORDER_PATH = `${ORDERS_PATH}/{order_id}`;

const slugParams = z.object({ customer_slug: customerSlugParam });
const orderParams = z.object({ customer_slug: customerSlugParam, order_id: orderIdParam });

function notOrderable(countryCode: string, numberType: string): ApiError {
  return new ApiError(
    "not_orderable",
    `number_type "${numberType}" is not currently orderable in country_code "${countryCode}"`,
  );
}

const listRoute = createRoute({
  method: "get",
  path: ORDERS_PATH,
  tags: ["Orders"],
  summary: "List orders",
  description:
    "A page of the account's orders. meta.status_counts holds per-status totals over every order matching the " +
    "other filters (the status filter is ignored for it).",
  security: API_KEY_SECURITY,
  request: { params: slugParams, query: listOrdersQuery },
  responses: { 200: jsonResponse(orderPageSchema, "A page of orders."), ...errorResponses(400, 401, 404, 429) },
});

const getRoute = createRoute({
  method: "get",
  path: ORDER_PATH,
  tags: ["Orders"],
  summary: "Retrieve an order",
  security: API_KEY_SECURITY,
  request: { params: orderParams },
  responses: { 200: jsonResponse(orderSchema, "The order."), ...errorResponses(400, 401, 404, 429) },
});

const createOrderRoute = createRoute({
  method: "post",
  path: ORDERS_PATH,
  tags: ["Orders"],
  summary: "Create an order",
  description: "Places a pending order. The country_code and number_type pair must be currently orderable.",
  security: API_KEY_SECURITY,
  request: { params: slugParams, body: jsonBody(createOrderBody) },
  responses: {
    201: {
      ...jsonResponse(orderSchema, "The created order, status pending."),
      headers: { Location: { description: "Path of the new order.", schema: { type: "string" } } },
    },
    ...errorResponses(400, 401, 404, 413, 415, 429),
  },
});

const updateRoute = createRoute({
  method: "put",
  path: ORDER_PATH,
  tags: ["Orders"],
  summary: "Update a pending order",
  description:
    "Replaces the supplied fields only. Allowed while the order is pending; any other status answers 403 and " +
    "the order is unchanged.",
  security: API_KEY_SECURITY,
  request: { params: orderParams, body: jsonBody(updateOrderBody) },
  responses: {
    200: jsonResponse(orderSchema, "The updated order."),
    ...errorResponses(400, 401, 403, 404, 413, 415, 429),
  },
});

export const orderRoutes = new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
  .openapi(listRoute, async (c) => {
    const query = c.req.valid("query");
    const window = pageWindow(query);
    const list = await listOrders(c.var.db, c.var.principal.customerId, query, window);
    return c.json(
      { data: list.rows.map(toOrder), meta: { ...pageMeta(window, list.total), status_counts: list.statusCounts } },
      200,
    );
  })
  .openapi(getRoute, async (c) => {
    const { order_id } = c.req.valid("param");
    const row = await findOrder(c.var.db, c.var.principal.customerId, order_id);
    if (!row) throw notFound("Order");
    return c.json(toOrder(row), 200);
  })
  .openapi(createOrderRoute, async (c) => {
    const { customer_slug } = c.req.valid("param");
    const body = c.req.valid("json");
    const row = await createOrder(c.var.db, c.var.principal.customerId, body, Date.now());
    if (row === "not_orderable") throw notOrderable(body.country_code, body.number_type);
    c.header("Location", `/api/customers/${customer_slug}/orders/${row.id}`);
    return c.json(toOrder(row), 201);
  })
  .openapi(updateRoute, async (c) => {
    const { order_id } = c.req.valid("param");
    const patch = c.req.valid("json");
    const outcome = await updatePendingOrder(c.var.db, c.var.principal.customerId, order_id, patch, Date.now());
    if (outcome === "not_found") throw notFound("Order");
    if (outcome === "not_pending") {
      throw new ApiError("order_not_pending", "Only pending orders can be updated; this order is not pending");
    }
    if ("notOrderable" in outcome) {
      throw notOrderable(outcome.notOrderable.countryCode, outcome.notOrderable.numberType);
    }
    return c.json(toOrder(outcome), 200);
  });
