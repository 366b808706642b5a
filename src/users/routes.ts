// Customer API route for listing users.
import { createRoute, z } from "@hono/zod-openapi";
import { customerSlugParam } from "../customers/schemas.ts";
import { pageWindow } from "../db/paging.ts";
import type { CustomerEnv } from "../env.ts";
import { API_KEY_SECURITY, jsonResponse } from "../http/openapi.ts";
import { pageMeta } from "../http/pagination.ts";
import { createRouter } from "../http/router.ts";
import { listUsersQuery, toUser, toUserListQuery, userPageSchema } from "./schemas.ts";
import { listUsers } from "./store.ts";

export const userRoutes = createRouter<CustomerEnv>().openapi(
  createRoute({
    tags: ["Users"],
    security: API_KEY_SECURITY,
    operationId: "listUsers",
    method: "get",
    path: "/customers/{customer_slug}/users",
    summary: "List users",
    description: "A page of the account's users. meta.status_counts counts every status over the other filters.",
    request: {
      params: z.object({ customer_slug: customerSlugParam }),
      query: listUsersQuery,
    },
    responses: {
      200: jsonResponse(userPageSchema, "A page of users."),
    },
  }),
  async (c) => {
    const query = c.req.valid("query");
    const window = pageWindow(query.page, query.limit);
    const list = await listUsers(c.var.db, c.var.principal.customerId, toUserListQuery(query), window);
    return c.json(
      {
        data: list.rows.map(toUser),
        meta: {
          ...pageMeta(window, list.total),
          status_counts: list.statusCounts,
        },
      },
      200,
    );
  },
);
