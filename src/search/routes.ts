// Customer API route of the stock's search, to choose numbers before reserving or ordering them.
import { createRoute, z } from "@hono/zod-openapi";
import { customerSlugParam } from "../customers/schemas.ts";
import type { CustomerEnv } from "../env.ts";
import { API_KEY_SECURITY, errorResponses, jsonResponse } from "../http/openapi.ts";
import { workOf } from "../http/request-context.ts";
import { createRouter } from "../http/router.ts";
import { valueOrProblem } from "../lib/problem.ts";
import { availableNumberListSchema, availableNumbersQuery, toAvailableNumberList, toStockSearch } from "./schemas.ts";
import { searchNumbersAction } from "./use-cases.ts";

export const searchRoutes = createRouter<CustomerEnv>().openapi(
  createRoute({
    tags: ["Numbers"],
    security: API_KEY_SECURITY,
    operationId: "searchAvailableNumbers",
    method: "get",
    path: "/customers/{customer_slug}/available-numbers",
    summary: "Search available numbers",
    description:
      "Numbers in stock of an orderable pair that may be reserved or ordered now (not quarantined, not held by a " +
      "reservation), in phone-number order, at most limit. starts_with, contains and ends_with narrow them; all " +
      "given must match. A search, not a list: it answers the first matches and never how many there are. A pair " +
      "that is not orderable is 400 not_orderable.",
    request: { params: z.object({ customer_slug: customerSlugParam }), query: availableNumbersQuery },
    responses: {
      200: jsonResponse(availableNumberListSchema, "The first matching numbers."),
      ...errorResponses(searchNumbersAction.refusals),
    },
  }),
  async (c) => {
    const search = toStockSearch(c.req.valid("query"));
    const phoneNumbers = valueOrProblem(await searchNumbersAction.run(workOf(c), search));
    return c.json(toAvailableNumberList(search, phoneNumbers), 200);
  },
);
