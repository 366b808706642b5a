// The operator's routes for the orderable catalog.
import { createRoute } from "@hono/zod-openapi";
import type { Context } from "hono";
import { pageWindow } from "../db/paging.ts";
import { DEFAULT_QUARANTINE_DAYS } from "../db/schema.ts";
import type { OperatorEnv } from "../env.ts";
import { errorResponses, jsonBody, jsonResponse, locationHeader } from "../http/openapi.ts";
import { pageMeta, pageOnlyQuery } from "../http/pagination.ts";
import { declaredLengthOf } from "../http/request-body.ts";
import { workOf } from "../http/request-context.ts";
import { createRouter } from "../http/router.ts";
import { describedOnly, validJsonBody } from "../http/validation.ts";
import { mediaTypeOf } from "../lib/content.ts";
import { Problem, valueOrProblem } from "../lib/problem.ts";
import { operatorOperation, operatorRead } from "../staff/roles.ts";
import {
  catalogPageSchema,
  catalogPairParams,
  catalogPairSchema,
  catalogSettingsBody,
  newCatalogPairParams,
  pairRequirementsSchema,
  removedCatalogPairSchema,
  requirementsBody,
  toCatalogPair,
  toPairRequirements,
  toRequirements,
  toSettingsChange,
} from "./schemas.ts";
import { listCatalog, type SettingsChange } from "./store.ts";
import { addCatalogPairAction, removeCatalogPairAction, removeRequirementsAction, setRequirementsAction } from "./use-cases.ts";

/**
 * The settings a PUT names: none without a body (none at all, or an empty one as an HTTP client sends with
 * Content-Length: 0), else its JSON judged (a body of {} names none and is a 400). Read here rather than by a
 * validator, which would take a request without a Content-Type for a body of {}.
 */
async function settingsOf(c: Context<OperatorEnv>): Promise<SettingsChange> {
  const contentType = c.req.header("Content-Type");
  const empty = c.req.raw.body === null || declaredLengthOf(c.req.raw) === 0;
  if (contentType === undefined && empty) return {};
  if (contentType === undefined || mediaTypeOf(contentType) !== "application/json") {
    throw new Problem("unsupported_media_type", "Content-Type must be application/json, or the request have no body");
  }
  return toSettingsChange(await validJsonBody(c, catalogSettingsBody));
}

export const catalogAdminRoutes = createRouter<OperatorEnv>()
  .openapi(
    createRoute({
      ...operatorRead("listCatalog"),
      method: "get",
      path: "/catalog",
      summary: "List the orderable catalog",
      request: { query: pageOnlyQuery },
      responses: {
        200: jsonResponse(catalogPageSchema, "Orderable pairs by country_code, then number_type."),
      },
    }),
    async (c) => {
      const { page, limit } = c.req.valid("query");
      const window = pageWindow(page, limit);
      const { rows, total } = await listCatalog(c.var.db, window);
      return c.json({ data: rows.map(toCatalogPair), meta: pageMeta(window, total) }, 200);
    },
  )
  .openapi(
    createRoute({
      ...operatorOperation(addCatalogPairAction),
      method: "put",
      path: "/catalog/{country_code}/{number_type}",
      summary: "Make a pair orderable, and set its settings",
      description:
        "Idempotent: 201 when the pair is new, 200 when it was already orderable. The country must be one ISO 3166-1 " +
        "assigns (not XX or ZZ), as for the stock. Without a body the pair's settings stay as they are; a body sets " +
        "only the settings it names (an empty object is a 400). Settings outlive the pair's removal; a pair never " +
        `given any has quarantine_days ${DEFAULT_QUARANTINE_DAYS} and auto_fulfil false.`,
      request: {
        params: newCatalogPairParams,
        body: {
          required: false,
          description: "The settings to set; no body sets none.",
          content: { "application/json": { schema: describedOnly(catalogSettingsBody) } },
        },
      },
      responses: {
        200: jsonResponse(catalogPairSchema, "The pair was already orderable."),
        201: {
          ...jsonResponse(catalogPairSchema, "The pair is now orderable."),
          headers: locationHeader,
        },
        ...errorResponses(addCatalogPairAction.refusals),
      },
    }),
    async (c) => {
      const { country_code, number_type } = c.req.valid("param");
      const { row, created } = valueOrProblem(
        await addCatalogPairAction.run(workOf(c), { countryCode: country_code, numberType: number_type }, await settingsOf(c)),
      );
      if (!created) return c.json(toCatalogPair(row), 200);
      c.header("Location", `/admin/catalog/${country_code}/${number_type}`);
      return c.json(toCatalogPair(row), 201);
    },
  )
  .openapi(
    createRoute({
      ...operatorOperation(removeCatalogPairAction),
      method: "delete",
      path: "/catalog/{country_code}/{number_type}",
      summary: "Make a pair not orderable",
      description: "Existing orders keep their pair; new orders and changes to it answer 400 not_orderable.",
      request: { params: catalogPairParams },
      responses: {
        200: jsonResponse(removedCatalogPairSchema, "Removed."),
        ...errorResponses(removeCatalogPairAction.refusals),
      },
    }),
    async (c) => {
      const { country_code, number_type } = c.req.valid("param");
      valueOrProblem(await removeCatalogPairAction.run(workOf(c), { countryCode: country_code, numberType: number_type }));
      return c.json({ country_code, number_type, orderable: false as const }, 200);
    },
  )
  .openapi(
    createRoute({
      ...operatorOperation(setRequirementsAction),
      method: "put",
      path: "/catalog/{country_code}/{number_type}/requirements",
      summary: "Set a pair's requirements",
      description:
        "What a verification for a number of the pair must hold. Replaces the whole set; an unchanged set changes " +
        "nothing. 404 when the pair is not orderable.",
      request: { params: catalogPairParams, body: jsonBody(requirementsBody) },
      responses: {
        200: jsonResponse(pairRequirementsSchema, "The pair with its requirements."),
        ...errorResponses(setRequirementsAction.refusals),
      },
    }),
    async (c) => {
      const { country_code, number_type } = c.req.valid("param");
      const row = valueOrProblem(
        await setRequirementsAction.run(
          workOf(c),
          { countryCode: country_code, numberType: number_type },
          toRequirements(c.req.valid("json")),
        ),
      );
      return c.json(toPairRequirements(row), 200);
    },
  )
  .openapi(
    createRoute({
      ...operatorOperation(removeRequirementsAction),
      method: "delete",
      path: "/catalog/{country_code}/{number_type}/requirements",
      summary: "Remove a pair's requirements",
      description:
        "Numbers of the pair then need no verification. Removing none changes nothing. 404 when the pair is not orderable.",
      request: { params: catalogPairParams },
      responses: {
        200: jsonResponse(pairRequirementsSchema, "The pair, its requirements null."),
        ...errorResponses(removeRequirementsAction.refusals),
      },
    }),
    async (c) => {
      const { country_code, number_type } = c.req.valid("param");
      const row = valueOrProblem(
        await removeRequirementsAction.run(workOf(c), { countryCode: country_code, numberType: number_type }),
      );
      return c.json(toPairRequirements(row), 200);
    },
  );
