// The operator's routes for staff members and their roles.
import { createRoute } from "@hono/zod-openapi";
import { pageWindow } from "../db/paging.ts";
import type { OperatorEnv } from "../env.ts";
import { errorResponses, jsonBody, jsonResponse, locationHeader } from "../http/openapi.ts";
import { pageMeta, pageOnlyQuery } from "../http/pagination.ts";
import { workOf } from "../http/request-context.ts";
import { createRouter } from "../http/router.ts";
import { notFound, valueOrProblem } from "../lib/problem.ts";
import { operatorOperation, operatorRead } from "./roles.ts";
import { putStaffBody, staffEmailParams, staffPageSchema, staffSchema, toStaff } from "./schemas.ts";
import { findStaff, listStaff } from "./store.ts";
import { setStaffAction } from "./use-cases.ts";

const staffPath = (email: string) => `/admin/staff/${encodeURIComponent(email)}`;

export const staffAdminRoutes = createRouter<OperatorEnv>()
  .openapi(
    createRoute({
      ...operatorRead("listStaff"),
      method: "get",
      path: "/staff",
      summary: "List the staff",
      request: { query: pageOnlyQuery },
      responses: {
        200: jsonResponse(staffPageSchema, "A page of the staff, by e-mail."),
      },
    }),
    async (c) => {
      const { page, limit } = c.req.valid("query");
      const window = pageWindow(page, limit);
      const { rows, total } = await listStaff(c.var.db, window);
      return c.json({ data: rows.map(toStaff), meta: pageMeta(window, total) }, 200);
    },
  )
  .openapi(
    createRoute({
      ...operatorRead("getStaff"),
      method: "get",
      path: "/staff/{email}",
      summary: "Retrieve a staff member",
      request: { params: staffEmailParams },
      responses: {
        200: jsonResponse(staffSchema, "The staff member."),
        ...errorResponses(["not_found"]),
      },
    }),
    async (c) => {
      const row = await findStaff(c.var.db, c.req.valid("param").email);
      if (!row) throw notFound("Staff member");
      return c.json(toStaff(row), 200);
    },
  )
  .openapi(
    createRoute({
      ...operatorOperation(setStaffAction),
      method: "put",
      path: "/staff/{email}",
      summary: "Add or change a staff member",
      description:
        "Names the person behind a Cloudflare Access e-mail, with one role (viewer, fulfilment, compliance, admin) and " +
        "a status; disabled, the person is refused (403). Nobody is deleted, so the audit log keeps its people. The " +
        "last enabled admin cannot be demoted or disabled (409).",
      request: { params: staffEmailParams, body: jsonBody(putStaffBody) },
      responses: {
        200: jsonResponse(staffSchema, "The changed staff member."),
        201: { ...jsonResponse(staffSchema, "The new staff member."), headers: locationHeader },
        ...errorResponses(setStaffAction.refusals),
      },
    }),
    async (c) => {
      const { email } = c.req.valid("param");
      const { row, created } = valueOrProblem(await setStaffAction.run(workOf(c), email, c.req.valid("json")));
      if (!created) return c.json(toStaff(row), 200);
      c.header("Location", staffPath(row.email));
      return c.json(toStaff(row), 201);
    },
  );
