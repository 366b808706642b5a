// The operator's admin API (ADMIN_TOKEN): customer accounts, their API keys, the orderable catalog, order status.
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import {
  createApiKey,
  createCustomer,
  findApiKey,
  listApiKeys,
  listCustomers,
  revokeApiKey,
} from "../accounts/store.ts";
import { addCatalogPair, listCatalog, removeCatalogPair } from "../catalog/store.ts";
import type { AppEnv } from "../env.ts";
import { ADMIN_SECURITY, errorResponses, jsonBody, jsonResponse } from "../http/openapi.ts";
import { pageMeta, pageQuery, pageWindow } from "../http/pagination.ts";
import { ApiError, notFound } from "../http/problem.ts";
import { validationHook } from "../http/validation.ts";
import { uuidParam } from "../lib/ids.ts";
import { toIso } from "../lib/time.ts";
import { orderIdParam, orderSchema, toOrder } from "../orders/schemas.ts";
import { findOrderById, transitionOrderStatus } from "../orders/store.ts";
import { requireCustomer } from "./require-customer.ts";
import {
  apiKeyPageSchema,
  apiKeySchema,
  catalogPageSchema,
  catalogPairParams,
  catalogPairSchema,
  createApiKeyBody,
  createCustomerBody,
  createdApiKeySchema,
  customerPageSchema,
  customerSchema,
  orderStatusBody,
  slugSchema,
  toApiKey,
  toCatalogPair,
  toCustomer,
} from "./schemas.ts";

const pageOnlyQuery = z.object({ page: pageQuery.page, limit: pageQuery.limit });
const slugParams = z.object({ slug: slugSchema.openapi({ param: { name: "slug", in: "path" } }) });
const apiKeyParams = z.object({ id: uuidParam("id") });
const orderParams = z.object({ order_id: orderIdParam });
const locationHeader = { Location: { description: "Path of the new resource.", schema: { type: "string" as const } } };

const admin = { tags: ["Admin"], security: ADMIN_SECURITY };


export const adminRoutes = new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
  .openapi(
    createRoute({
      ...admin,
      method: "post",
      path: "/admin/customers",
      summary: "Create a customer account",
      request: { body: jsonBody(createCustomerBody) },
      responses: {
        201: { ...jsonResponse(customerSchema, "The new account."), headers: locationHeader },
        ...errorResponses(400, 401, 409, 413, 415),
      },
    }),
    async (c) => {
      const row = await createCustomer(c.var.db, c.req.valid("json"), Date.now());
      if (row === "duplicate") throw new ApiError("conflict", "A customer with this slug already exists");
      c.header("Location", `/admin/customers/${row.slug}`);
      return c.json(toCustomer(row), 201);
    },
  )
  .openapi(
    createRoute({
      ...admin,
      method: "get",
      path: "/admin/customers",
      summary: "List customer accounts",
      request: { query: pageOnlyQuery },
      responses: { 200: jsonResponse(customerPageSchema, "A page of accounts, newest first."), ...errorResponses(400, 401) },
    }),
    async (c) => {
      const window = pageWindow(c.req.valid("query"));
      const { rows, total } = await listCustomers(c.var.db, window);
      return c.json({ data: rows.map(toCustomer), meta: pageMeta(window, total) }, 200);
    },
  )
  .openapi(
    createRoute({
      ...admin,
      method: "get",
      path: "/admin/customers/{slug}",
      summary: "Retrieve a customer account",
      request: { params: slugParams },
      responses: { 200: jsonResponse(customerSchema, "The account."), ...errorResponses(400, 401, 404) },
    }),
    async (c) => {
      return c.json(toCustomer(await requireCustomer(c.var.db, c.req.valid("param").slug)), 200);
    },
  )
  .openapi(
    createRoute({
      ...admin,
      method: "post",
      path: "/admin/customers/{slug}/api-keys",
      summary: "Create an API key",
      description: "The response is the only place the key itself ever appears.",
      request: { params: slugParams, body: jsonBody(createApiKeyBody) },
      responses: {
        201: { ...jsonResponse(createdApiKeySchema, "The new key, with its secret."), headers: locationHeader },
        ...errorResponses(400, 401, 404, 413, 415),
      },
    }),
    async (c) => {
      const customer = await requireCustomer(c.var.db, c.req.valid("param").slug);
      const { row, key } = await createApiKey(c.var.db, customer.id, c.req.valid("json").name, Date.now());
      c.header("Location", `/admin/api-keys/${row.id}`);
      return c.json({ id: row.id, name: row.name, key, prefix: row.prefix, created_at: toIso(row.createdAt) }, 201);
    },
  )
  .openapi(
    createRoute({
      ...admin,
      method: "get",
      path: "/admin/customers/{slug}/api-keys",
      summary: "List an account's API keys",
      request: { params: slugParams, query: pageOnlyQuery },
      responses: { 200: jsonResponse(apiKeyPageSchema, "Keys without their secrets."), ...errorResponses(400, 401, 404) },
    }),
    async (c) => {
      const customer = await requireCustomer(c.var.db, c.req.valid("param").slug);
      const window = pageWindow(c.req.valid("query"));
      const { rows, total } = await listApiKeys(c.var.db, customer.id, window);
      return c.json({ data: rows.map(toApiKey), meta: pageMeta(window, total) }, 200);
    },
  )
  .openapi(
    createRoute({
      ...admin,
      method: "get",
      path: "/admin/api-keys/{id}",
      summary: "Retrieve an API key (without its secret)",
      request: { params: apiKeyParams },
      responses: { 200: jsonResponse(apiKeySchema, "The key."), ...errorResponses(400, 401, 404) },
    }),
    async (c) => {
      const row = await findApiKey(c.var.db, c.req.valid("param").id);
      if (!row) throw notFound("API key");
      return c.json(toApiKey(row), 200);
    },
  )
  .openapi(
    createRoute({
      ...admin,
      method: "delete",
      path: "/admin/api-keys/{id}",
      summary: "Revoke an API key",
      description: "From now on the key answers 401. Revoking twice keeps the first revocation time.",
      request: { params: apiKeyParams },
      responses: { 200: jsonResponse(apiKeySchema, "The revoked key."), ...errorResponses(400, 401, 404) },
    }),
    async (c) => {
      const row = await revokeApiKey(c.var.db, c.req.valid("param").id, Date.now());
      if (!row) throw notFound("API key");
      return c.json(toApiKey(row), 200);
    },
  )
  .openapi(
    createRoute({
      ...admin,
      method: "get",
      path: "/admin/catalog",
      summary: "List the orderable catalog",
      request: { query: pageOnlyQuery },
      responses: {
        200: jsonResponse(catalogPageSchema, "Orderable pairs by country_code, then number_type."),
        ...errorResponses(400, 401),
      },
    }),
    async (c) => {
      const window = pageWindow(c.req.valid("query"));
      const { rows, total } = await listCatalog(c.var.db, window);
      return c.json({ data: rows.map(toCatalogPair), meta: pageMeta(window, total) }, 200);
    },
  )
  .openapi(
    createRoute({
      ...admin,
      method: "put",
      path: "/admin/catalog/{country_code}/{number_type}",
      summary: "Make a pair orderable",
      description: "Idempotent: 201 when the pair is new, 200 when it was already orderable.",
      request: { params: catalogPairParams },
      responses: {
        200: jsonResponse(catalogPairSchema, "The pair was already orderable."),
        201: { ...jsonResponse(catalogPairSchema, "The pair is now orderable."), headers: locationHeader },
        ...errorResponses(400, 401),
      },
    }),
    async (c) => {
      const { country_code, number_type } = c.req.valid("param");
      const { row, created } = await addCatalogPair(c.var.db, { countryCode: country_code, numberType: number_type }, Date.now());
      if (!created) return c.json(toCatalogPair(row), 200);
      c.header("Location", `/admin/catalog/${country_code}/${number_type}`);
      return c.json(toCatalogPair(row), 201);
    },
  )
  .openapi(
    createRoute({
      ...admin,
      method: "delete",
      path: "/admin/catalog/{country_code}/{number_type}",
      summary: "Make a pair not orderable",
      description: "Existing orders keep their pair; new orders and changes to it answer 400 not_orderable.",
      request: { params: catalogPairParams },
      responses: {
        200: jsonResponse(z.object({ country_code: z.string(), number_type: z.string(), orderable: z.literal(false) }), "Removed."),
        ...errorResponses(400, 401, 404),
      },
    }),
    async (c) => {
      const { country_code, number_type } = c.req.valid("param");
      const removed = await removeCatalogPair(c.var.db, { countryCode: country_code, numberType: number_type });
      if (!removed) throw notFound("Catalog pair");
      return c.json({ country_code, number_type, orderable: false as const }, 200);
    },
  )
  .openapi(
    createRoute({
      ...admin,
      method: "get",
      path: "/admin/orders/{order_id}",
      summary: "Retrieve any account's order",
      request: { params: orderParams },
      responses: { 200: jsonResponse(orderSchema, "The order."), ...errorResponses(400, 401, 404) },
    }),
    async (c) => {
      const row = await findOrderById(c.var.db, c.req.valid("param").order_id);
      if (!row) throw notFound("Order");
      return c.json(toOrder(row), 200);
    },
  )
  .openapi(
    createRoute({
      ...admin,
      method: "post",
      path: "/admin/orders/{order_id}/status",
      summary: "Move an order to processing or cancelled",
      description: "pending→processing, pending→cancelled, processing→cancelled; anything else is a 409.",
      request: { params: orderParams, body: jsonBody(orderStatusBody) },
      responses: { 200: jsonResponse(orderSchema, "The order after the move."), ...errorResponses(400, 401, 404, 409, 413, 415) },
    }),
    async (c) => {
      const { status } = c.req.valid("json");
      const outcome = await transitionOrderStatus(c.var.db, c.req.valid("param").order_id, status, Date.now());
      if (outcome === "not_found") throw notFound("Order");
      if ("illegalFrom" in outcome) {
        throw new ApiError("conflict", `An order cannot move from ${outcome.illegalFrom} to ${status}`);
      }
      return c.json(toOrder(outcome), 200);
    },
  );
