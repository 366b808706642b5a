// The operator's read-only view of the audit log.
import { createRoute } from "@hono/zod-openapi";
import { pageWindow } from "../db/paging.ts";
import type { OperatorEnv } from "../env.ts";
import { jsonResponse } from "../http/openapi.ts";
import { pageMeta } from "../http/pagination.ts";
import { createRouter } from "../http/router.ts";
import { operatorRead } from "../staff/roles.ts";
import { auditEventPageSchema, operatorAuditQuery, toAuditEvent, toAuditListQuery } from "./schemas.ts";
import { listAuditEvents } from "./store.ts";

export const auditAdminRoutes = createRouter<OperatorEnv>().openapi(
  createRoute({
    ...operatorRead("listAuditEvents"),
    method: "get",
    path: "/audit-events",
    summary: "List the audit log",
    description:
      "Who changed what: every operator change and every administrative change of a customer's, with each field's " +
      "value before and after. Never purged, never editable or deletable through any interface.",
    request: { query: operatorAuditQuery },
    responses: {
      200: jsonResponse(auditEventPageSchema, "A page of audit events, newest first."),
    },
  }),
  async (c) => {
    const q = c.req.valid("query");
    const window = pageWindow(q.page, q.limit);
    const { rows, total } = await listAuditEvents(c.var.db, toAuditListQuery(q), window);
    return c.json({ data: rows.map((row) => toAuditEvent(row)), meta: pageMeta(window, total) }, 200);
  },
);
