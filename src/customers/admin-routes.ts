// The operator's routes for customer accounts and their API keys.
import { createRoute, z } from "@hono/zod-openapi";
import { pageWindow } from "../db/paging.ts";
import type { OperatorEnv } from "../env.ts";
import { uuidParam } from "../http/fields.ts";
import { errorResponses, jsonBody, jsonResponse, locationHeader } from "../http/openapi.ts";
import { pageMeta, pageOnlyQuery } from "../http/pagination.ts";
import { workOf } from "../http/request-context.ts";
import { createRouter } from "../http/router.ts";
import { notFound, valueOrProblem } from "../lib/problem.ts";
import { operatorOperation, operatorRead } from "../staff/roles.ts";
import {
  apiKeyPageSchema,
  apiKeySchema,
  createApiKeyBody,
  createCustomerBody,
  createdApiKeySchema,
  customerPageSchema,
  customerSchema,
  slugParams,
  toApiKey,
  toCreatedApiKey,
  toCustomer,
} from "./schemas.ts";
import { findApiKey, findCustomerBySlug, listApiKeys, listCustomers } from "./store.ts";
import { issueApiKeyAction, openAccountAction, revokeApiKeyAction } from "./use-cases.ts";

const apiKeyParams = z.object({ id: uuidParam("id") });

export const customerAdminRoutes = createRouter<OperatorEnv>()
  .openapi(
    createRoute({
      ...operatorOperation(openAccountAction),
      method: "post",
      path: "/customers",
      summary: "Create a customer account",
      request: { body: jsonBody(createCustomerBody) },
      responses: {
        201: {
          ...jsonResponse(customerSchema, "The new account."),
          headers: locationHeader,
        },
        ...errorResponses(openAccountAction.refusals),
      },
    }),
    async (c) => {
      const created = valueOrProblem(await openAccountAction.run(workOf(c), c.req.valid("json")));
      c.header("Location", `/admin/customers/${created.slug}`);
      return c.json(toCustomer(created), 201);
    },
  )
  .openapi(
    createRoute({
      ...operatorRead("listCustomers"),
      method: "get",
      path: "/customers",
      summary: "List customer accounts",
      request: { query: pageOnlyQuery },
      responses: {
        200: jsonResponse(customerPageSchema, "A page of accounts, newest first."),
      },
    }),
    async (c) => {
      const { page, limit } = c.req.valid("query");
      const window = pageWindow(page, limit);
      const { rows, total } = await listCustomers(c.var.db, window);
      return c.json({ data: rows.map(toCustomer), meta: pageMeta(window, total) }, 200);
    },
  )
  .openapi(
    createRoute({
      ...operatorRead("getCustomer"),
      method: "get",
      path: "/customers/{slug}",
      summary: "Retrieve a customer account",
      request: { params: slugParams },
      responses: {
        200: jsonResponse(customerSchema, "The account."),
        ...errorResponses(["not_found"]),
      },
    }),
    async (c) => {
      const row = await findCustomerBySlug(c.var.db, c.req.valid("param").slug);
      if (!row) throw notFound("Customer");
      return c.json(toCustomer(row), 200);
    },
  )
  .openapi(
    createRoute({
      ...operatorOperation(issueApiKeyAction),
      method: "post",
      path: "/customers/{slug}/api-keys",
      summary: "Create an API key",
      description: "The response is the only place the key itself ever appears.",
      request: { params: slugParams, body: jsonBody(createApiKeyBody) },
      responses: {
        201: {
          ...jsonResponse(createdApiKeySchema, "The new key, with its secret."),
          headers: locationHeader,
        },
        ...errorResponses(issueApiKeyAction.refusals),
      },
    }),
    async (c) => {
      const { row, key } = valueOrProblem(
        await issueApiKeyAction.run(workOf(c), c.req.valid("param").slug, c.req.valid("json").name),
      );
      c.header("Location", `/admin/api-keys/${row.id}`);
      return c.json(toCreatedApiKey(row, key), 201);
    },
  )
  .openapi(
    createRoute({
      ...operatorRead("listApiKeys"),
      method: "get",
      path: "/customers/{slug}/api-keys",
      summary: "List an account's API keys",
      request: { params: slugParams, query: pageOnlyQuery },
      responses: {
        200: jsonResponse(apiKeyPageSchema, "Keys without their secrets, newest first."),
        ...errorResponses(["not_found"]),
      },
    }),
    async (c) => {
      const { page, limit } = c.req.valid("query");
      const window = pageWindow(page, limit);
      const listed = await listApiKeys(c.var.db, c.req.valid("param").slug, window);
      if (!listed.ok) throw notFound("Customer");
      return c.json(
        {
          data: listed.value.rows.map(toApiKey),
          meta: pageMeta(window, listed.value.total),
        },
        200,
      );
    },
  )
  .openapi(
    createRoute({
      ...operatorRead("getApiKey"),
      method: "get",
      path: "/api-keys/{id}",
      summary: "Retrieve an API key (without its secret)",
      request: { params: apiKeyParams },
      responses: {
        200: jsonResponse(apiKeySchema, "The key."),
        ...errorResponses(["not_found"]),
      },
    }),
    async (c) => {
      const row = await findApiKey(c.var.db, c.req.valid("param").id);
      if (!row) throw notFound("API key");
      return c.json(toApiKey(row), 200);
    },
  )
  .openapi(
    createRoute({
      ...operatorOperation(revokeApiKeyAction),
      method: "delete",
      path: "/api-keys/{id}",
      summary: "Revoke an API key",
      description: "From now on the key answers 401. Revoking twice keeps the first revocation time.",
      request: { params: apiKeyParams },
      responses: {
        200: jsonResponse(apiKeySchema, "The revoked key."),
        ...errorResponses(revokeApiKeyAction.refusals),
      },
    }),
    async (c) => {
      const revoked = valueOrProblem(await revokeApiKeyAction.run(workOf(c), c.req.valid("param").id));
      return c.json(toApiKey(revoked), 200);
    },
  );
