// A customer's view of their account's audit log; the operator's staff appear only as "operator".
import { createRoute, z } from "@hono/zod-openapi";
import { customerSlugParam } from "../customers/schemas.ts";
import { pageWindow } from "../db/paging.ts";
import type { CustomerEnv } from "../env.ts";
import { API_KEY_SECURITY, jsonResponse } from "../http/openapi.ts";
import { pageMeta } from "../http/pagination.ts";
import { createRouter } from "../http/router.ts";
import { auditEventPageSchema, customerAuditQuery, toAuditEvent, toAuditListQuery } from "./schemas.ts";
import { listAuditEvents } from "./store.ts";

export const auditRoutes = createRouter<CustomerEnv>().openapi(
  createRoute({
    tags: ["Audit"],
    security: API_KEY_SECURITY,
    operationId: "listAccountAuditEvents",
    method: "get",
    path: "/customers/{customer_slug}/audit-events",
    summary: "List the account's audit log",
    description:
      "Who changed what in the account: API keys, the team, webhook endpoints, and the operator's changes (shown as " +
      "operator). Never purged, never editable.",
    request: {
      params: z.object({ customer_slug: customerSlugParam }),
      query: customerAuditQuery,
    },
    responses: {
      200: jsonResponse(auditEventPageSchema, "A page of the account's audit events, newest first."),
    },
  }),
  async (c) => {
    const q = c.req.valid("query");
    const window = pageWindow(q.page, q.limit);
    const { rows, total } = await listAuditEvents(c.var.db, toAuditListQuery(q), window, c.var.principal.customerId);
    return c.json({ data: rows.map((row) => toAuditEvent(row, true)), meta: pageMeta(window, total) }, 200);
  },
);
