// Customer API routes for webhook endpoints and their deliveries.
import { createRoute, z } from "@hono/zod-openapi";
import { customerSlugParam } from "../customers/schemas.ts";
import { pageWindow } from "../db/paging.ts";
import type { CustomerEnv } from "../env.ts";
import { API_KEY_SECURITY, errorResponses, jsonBody, jsonResponse, locationHeader } from "../http/openapi.ts";
import { pageMeta, pageOnlyQuery } from "../http/pagination.ts";
import { workOf } from "../http/request-context.ts";
import { createRouter } from "../http/router.ts";
import { withPrefix } from "../lib/ids.ts";
import { notFound, valueOrProblem } from "../lib/problem.ts";
import { toIso } from "../lib/time.ts";
import {
  createdWebhookEndpointSchema,
  createWebhookEndpointBody,
  deletedWebhookEndpointSchema,
  deliveryIdParam,
  deliveryPageSchema,
  deliverySchema,
  endpointIdParam,
  listDeliveriesQuery,
  rotatedSecretSchema,
  toDelivery,
  toEndpointChanges,
  toNewEndpoint,
  toWebhookEndpoint,
  updateWebhookEndpointBody,
  webhookEndpointPageSchema,
  webhookEndpointSchema,
  webhookUrlHook,
} from "./schemas.ts";
import { findEndpoint, listDeliveries, listEndpoints, MAX_ENDPOINTS } from "./store.ts";
import {
  ADD_ENDPOINT_REFUSALS,
  addEndpoint,
  CHANGE_ENDPOINT_REFUSALS,
  changeEndpoint,
  ENDPOINT_REFUSALS,
  redeliver,
  removeEndpoint,
  rotateEndpointSecret,
  SEND_REFUSALS,
  sendTest,
} from "./use-cases.ts";

const slugParams = z.object({ customer_slug: customerSlugParam });
const endpointParams = slugParams.extend({ endpoint_id: endpointIdParam });
const deliveryParams = endpointParams.extend({ delivery_id: deliveryIdParam });
const operation = { tags: ["Webhooks"], security: API_KEY_SECURITY };

const endpointPath = (slug: string, endpointId: string) =>
  `/api/customers/${slug}/webhook-endpoints/${withPrefix("we", endpointId)}`;

export const webhookEndpointRoutes = createRouter<CustomerEnv>()
  .openapi(
    createRoute({
      ...operation,
      operationId: "createWebhookEndpoint",
      method: "post",
      path: "/customers/{customer_slug}/webhook-endpoints",
      summary: "Create a webhook endpoint",
      description:
        `Events of the types named in event_types (every type, present and future, when absent) are delivered to url, signed with the ` +
        `endpoint's secret (Standard Webhooks). The secret is in this answer only, and in a rotation's. At most ` +
        `${MAX_ENDPOINTS} endpoints per account.`,
      request: { params: slugParams, body: jsonBody(createWebhookEndpointBody) },
      responses: {
        201: {
          ...jsonResponse(createdWebhookEndpointSchema, "The new endpoint, enabled, with its secret."),
          headers: locationHeader,
        },
        ...errorResponses(ADD_ENDPOINT_REFUSALS),
      },
    }),
    async (c) => {
      const created = valueOrProblem(
        await addEndpoint(workOf(c), c.var.principal.customerId, toNewEndpoint(c.req.valid("json"))),
      );
      c.header("Location", endpointPath(c.req.valid("param").customer_slug, created.id));
      return c.json({ ...toWebhookEndpoint(created), secret: created.secret }, 201);
    },
    webhookUrlHook,
  )
  .openapi(
    createRoute({
      ...operation,
      operationId: "listWebhookEndpoints",
      method: "get",
      path: "/customers/{customer_slug}/webhook-endpoints",
      summary: "List webhook endpoints",
      description: "The account's endpoints, newest first, without their secrets.",
      request: { params: slugParams, query: pageOnlyQuery },
      responses: {
        200: jsonResponse(webhookEndpointPageSchema, "A page of endpoints."),
      },
    }),
    async (c) => {
      const query = c.req.valid("query");
      const window = pageWindow(query.page, query.limit);
      const { rows, total } = await listEndpoints(c.var.db, c.var.principal.customerId, window);
      return c.json({ data: rows.map(toWebhookEndpoint), meta: pageMeta(window, total) }, 200);
    },
  )
  .openapi(
    createRoute({
      ...operation,
      operationId: "getWebhookEndpoint",
      method: "get",
      path: "/customers/{customer_slug}/webhook-endpoints/{endpoint_id}",
      summary: "Retrieve a webhook endpoint",
      description: "The endpoint, without its secret.",
      request: { params: endpointParams },
      responses: {
        200: jsonResponse(webhookEndpointSchema, "The endpoint."),
        ...errorResponses(["not_found"]),
      },
    }),
    async (c) => {
      const row = await findEndpoint(c.var.db, c.var.principal.customerId, c.req.valid("param").endpoint_id);
      if (!row) throw notFound("Webhook endpoint");
      return c.json(toWebhookEndpoint(row), 200);
    },
  )
  .openapi(
    createRoute({
      ...operation,
      operationId: "updateWebhookEndpoint",
      method: "patch",
      path: "/customers/{customer_slug}/webhook-endpoints/{endpoint_id}",
      summary: "Update a webhook endpoint",
      description: "Changes the supplied fields only. A disabled endpoint is sent nothing until it is enabled again.",
      request: { params: endpointParams, body: jsonBody(updateWebhookEndpointBody) },
      responses: {
        200: jsonResponse(webhookEndpointSchema, "The updated endpoint."),
        ...errorResponses(CHANGE_ENDPOINT_REFUSALS),
      },
    }),
    async (c) => {
      const changes = toEndpointChanges(c.req.valid("json"));
      const updated = valueOrProblem(
        await changeEndpoint(workOf(c), c.var.principal.customerId, c.req.valid("param").endpoint_id, changes),
      );
      return c.json(toWebhookEndpoint(updated), 200);
    },
    webhookUrlHook,
  )
  .openapi(
    createRoute({
      ...operation,
      operationId: "deleteWebhookEndpoint",
      method: "delete",
      path: "/customers/{customer_slug}/webhook-endpoints/{endpoint_id}",
      summary: "Delete a webhook endpoint",
      description: "Removes the endpoint and its delivery log; deliveries still pending are cancelled. Events are kept.",
      request: { params: endpointParams },
      responses: {
        200: jsonResponse(deletedWebhookEndpointSchema, "Deleted."),
        ...errorResponses(ENDPOINT_REFUSALS),
      },
    }),
    async (c) => {
      const { endpoint_id } = c.req.valid("param");
      valueOrProblem(await removeEndpoint(workOf(c), c.var.principal.customerId, endpoint_id));
      return c.json({ message: `Webhook endpoint ${withPrefix("we", endpoint_id)} deleted`, deleted_at: toIso(c.var.now) }, 200);
    },
  )
  .openapi(
    createRoute({
      ...operation,
      operationId: "rotateWebhookEndpointSecret",
      method: "post",
      path: "/customers/{customer_slug}/webhook-endpoints/{endpoint_id}/rotate-secret",
      summary: "Rotate an endpoint's signing secret",
      description:
        "A new secret, shown only here. For the next 24 hours deliveries carry two signatures, by the old secret and " +
        "by the new one, so a receiver can switch without missing a delivery.",
      request: { params: endpointParams },
      responses: {
        200: jsonResponse(rotatedSecretSchema, "The new secret."),
        ...errorResponses(ENDPOINT_REFUSALS),
      },
    }),
    async (c) => {
      const rotated = valueOrProblem(
        await rotateEndpointSecret(workOf(c), c.var.principal.customerId, c.req.valid("param").endpoint_id),
      );
      return c.json({ secret: rotated.secret }, 200);
    },
  )
  .openapi(
    createRoute({
      ...operation,
      operationId: "testWebhookEndpoint",
      method: "post",
      path: "/customers/{customer_slug}/webhook-endpoints/{endpoint_id}/test",
      summary: "Send a test event",
      description:
        "Records a webhook.test event and delivers it to this endpoint only, whatever its event_types. A disabled " +
        "endpoint is sent nothing (409). The answer is the new delivery; follow it in the deliveries list.",
      request: { params: endpointParams },
      responses: {
        202: jsonResponse(deliverySchema, "The test event's delivery, pending."),
        ...errorResponses(SEND_REFUSALS),
      },
    }),
    async (c) => {
      const { endpoint_id } = c.req.valid("param");
      const sent = valueOrProblem(await sendTest(workOf(c), c.var.principal.customerId, endpoint_id));
      return c.json(toDelivery(sent), 202);
    },
  )
  .openapi(
    createRoute({
      ...operation,
      operationId: "listWebhookDeliveries",
      method: "get",
      path: "/customers/{customer_slug}/webhook-endpoints/{endpoint_id}/deliveries",
      summary: "List an endpoint's deliveries",
      description: "The endpoint's delivery log, newest first: each event sent to it, its attempts and their outcome.",
      request: { params: endpointParams, query: listDeliveriesQuery },
      responses: {
        200: jsonResponse(deliveryPageSchema, "A page of deliveries."),
        ...errorResponses(["not_found"]),
      },
    }),
    async (c) => {
      const query = c.req.valid("query");
      const window = pageWindow(query.page, query.limit);
      const { customerId } = c.var.principal;
      const list = await listDeliveries(
        c.var.db,
        customerId,
        c.req.valid("param").endpoint_id,
        { statuses: query.status },
        window,
      );
      if (!list.ok) throw notFound("Webhook endpoint");
      return c.json({ data: list.value.rows.map(toDelivery), meta: pageMeta(window, list.value.total) }, 200);
    },
  )
  .openapi(
    createRoute({
      ...operation,
      operationId: "retryWebhookDelivery",
      method: "post",
      path: "/customers/{customer_slug}/webhook-endpoints/{endpoint_id}/deliveries/{delivery_id}/retry",
      summary: "Retry a delivery",
      description:
        "Sends a succeeded or failed delivery again, now; its attempt count goes on. A pending delivery is on its way " +
        "already, and a disabled endpoint is sent nothing: both 409.",
      request: { params: deliveryParams },
      responses: {
        202: jsonResponse(deliverySchema, "The delivery, pending and due now."),
        ...errorResponses(SEND_REFUSALS),
      },
    }),
    async (c) => {
      const { endpoint_id, delivery_id } = c.req.valid("param");
      const retried = valueOrProblem(await redeliver(workOf(c), c.var.principal.customerId, endpoint_id, delivery_id));
      return c.json(toDelivery(retried), 202);
    },
  );
