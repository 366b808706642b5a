// Customer API routes for the catalog, so a customer can see each pair's requirements before ordering.
import { createRoute, z } from "@hono/zod-openapi";
import { customerSlugParam } from "../customers/schemas.ts";
import { pageWindow } from "../db/paging.ts";
import type { CustomerEnv } from "../env.ts";
import { API_KEY_SECURITY, errorResponses, jsonResponse } from "../http/openapi.ts";
import { pageMeta } from "../http/pagination.ts";
import { createRouter } from "../http/router.ts";
import { notFound } from "../lib/problem.ts";
import {
  catalogEntriesQuery,
  catalogEntryPageSchema,
  catalogEntrySchema,
  customerCatalogPairParams,
  toCatalogEntry,
} from "./schemas.ts";
import { findCatalogPair, listCatalogEntries } from "./store.ts";

const slugParams = z.object({ customer_slug: customerSlugParam });
const operation = { tags: ["Catalog"], security: API_KEY_SECURITY };

export const catalogRoutes = createRouter<CustomerEnv>()
  .openapi(
    createRoute({
      ...operation,
      operationId: "listCatalogEntries",
      method: "get",
      path: "/customers/{customer_slug}/catalog",
      summary: "List the orderable pairs",
      description:
        "The (country_code, number_type) pairs an order may name, by country_code then number_type, each with what a " +
        "verification for a number of it must hold (requirements, null when none).",
      request: { params: slugParams, query: catalogEntriesQuery },
      responses: {
        200: jsonResponse(catalogEntryPageSchema, "A page of orderable pairs."),
      },
    }),
    async (c) => {
      const query = c.req.valid("query");
      const window = pageWindow(query.page, query.limit);
      const { rows, total } = await listCatalogEntries(
        c.var.db,
        { countryCodes: query.country_code, numberTypes: query.number_type },
        window,
      );
      return c.json({ data: rows.map(toCatalogEntry), meta: pageMeta(window, total) }, 200);
    },
  )
  .openapi(
    createRoute({
      ...operation,
      operationId: "getCatalogEntry",
      method: "get",
      path: "/customers/{customer_slug}/catalog/{country_code}/{number_type}",
      summary: "Retrieve an orderable pair",
      description: "The pair with what a verification for a number of it must hold; 404 when the pair is not orderable.",
      request: { params: customerCatalogPairParams },
      responses: {
        200: jsonResponse(catalogEntrySchema, "The orderable pair."),
        ...errorResponses(["not_found"]),
      },
    }),
    async (c) => {
      const { country_code, number_type } = c.req.valid("param");
      const row = await findCatalogPair(c.var.db, { countryCode: country_code, numberType: number_type });
      if (!row) throw notFound("Catalog pair");
      return c.json(toCatalogEntry(row), 200);
    },
  );
