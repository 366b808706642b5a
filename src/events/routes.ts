// Customer API route for listing the account's events, for reconciliation alongside webhooks.
import { createRoute, z } from "@hono/zod-openapi";
import { customerSlugParam } from "../customers/schemas.ts";
import { pageWindow } from "../db/paging.ts";
import type { CustomerEnv } from "../env.ts";
import { prefixedIdParam } from "../http/fields.ts";
import { API_KEY_SECURITY, errorResponses, jsonResponse } from "../http/openapi.ts";
import { pageMeta } from "../http/pagination.ts";
import { createRouter } from "../http/router.ts";
import { notFound } from "../lib/problem.ts";
import { eventPageSchema, eventSchema, listEventsQuery, toEvent } from "./schemas.ts";
import { findEvent, listEvents } from "./store.ts";

const operation = { tags: ["Events"], security: API_KEY_SECURITY };
const slugParams = z.object({ customer_slug: customerSlugParam });

export const eventRoutes = createRouter<CustomerEnv>()
  .openapi(
    createRoute({
      ...operation,
      operationId: "listEvents",
      method: "get",
      path: "/customers/{customer_slug}/events",
      summary: "List events",
      description:
        "A page of the account's events of the last 30 days, newest first: every change of its orders and verifications, " +
        "each with the resource as it stood after the change. The same objects webhooks deliver.",
      request: { params: slugParams, query: listEventsQuery },
      responses: {
        200: jsonResponse(eventPageSchema, "A page of events."),
      },
    }),
    async (c) => {
      const query = c.req.valid("query");
      const window = pageWindow(query.page, query.limit);
      const list = await listEvents(c.var.db, c.var.principal.customerId, query.type, window);
      return c.json({ data: list.rows.map(toEvent), meta: pageMeta(window, list.total) }, 200);
    },
  )
  .openapi(
    createRoute({
      ...operation,
      operationId: "getEvent",
      method: "get",
      path: "/customers/{customer_slug}/events/{event_id}",
      summary: "Retrieve an event",
      request: { params: slugParams.extend({ event_id: prefixedIdParam("evt", "event_id") }) },
      responses: {
        200: jsonResponse(eventSchema, "The event."),
        ...errorResponses(["not_found"]),
      },
    }),
    async (c) => {
      const event = await findEvent(c.var.db, c.var.principal.customerId, c.req.valid("param").event_id);
      if (!event) throw notFound("Event");
      return c.json(toEvent(event), 200);
    },
  );
