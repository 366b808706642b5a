// Customer API route for listing the account's numbers.
import { createRoute, z } from "@hono/zod-openapi";
import { customerSlugParam } from "../customers/schemas.ts";
import { pageWindow } from "../db/paging.ts";
import type { CustomerEnv } from "../env.ts";
import { API_KEY_SECURITY, jsonResponse } from "../http/openapi.ts";
import { pageMeta } from "../http/pagination.ts";
import { createRouter } from "../http/router.ts";
import { listNumbersQuery, numberPageSchema, toNumber, toNumberListQuery } from "./schemas.ts";
import { listNumbers } from "./store.ts";

export const numberRoutes = createRouter<CustomerEnv>().openapi(
  createRoute({
    tags: ["Numbers"],
    security: API_KEY_SECURITY,
    operationId: "listNumbers",
    method: "get",
    path: "/customers/{customer_slug}/numbers",
    summary: "List numbers",
    description: "A page of the account's numbers, each with the status of its verification (kyc_status).",
    request: {
      params: z.object({ customer_slug: customerSlugParam }),
      query: listNumbersQuery,
    },
    responses: {
      200: jsonResponse(numberPageSchema, "A page of numbers."),
    },
  }),
  async (c) => {
    const query = c.req.valid("query");
    const window = pageWindow(query.page, query.limit);
    const { rows, total } = await listNumbers(c.var.db, c.var.principal.customerId, toNumberListQuery(query), window);
    return c.json(
      {
        data: rows.map(toNumber),
        meta: pageMeta(window, total),
      },
      200,
    );
  },
);
