// The operator's routes for the number stock. Allocation from stock is in src/numbers/admin-routes.ts.
import { createRoute } from "@hono/zod-openapi";
import { pageWindow } from "../db/paging.ts";
import type { OperatorEnv } from "../env.ts";
import { errorResponses, jsonResponse, locationHeader } from "../http/openapi.ts";
import { pageMeta } from "../http/pagination.ts";
import { requestBody, takesLargeBody } from "../http/request-body.ts";
import { workOf } from "../http/request-context.ts";
import { createRouter } from "../http/router.ts";
import { describedOnly, validJsonBody } from "../http/validation.ts";
import { mediaTypeOf } from "../lib/content.ts";
import { Problem, valueOrProblem } from "../lib/problem.ts";
import { toIso } from "../lib/time.ts";
import { operatorOperation, operatorRead } from "../staff/roles.ts";
import {
  CSV_IMPORT_BYTES,
  importReportSchema,
  JSON_IMPORT_BYTES,
  listStockQuery,
  removedStockNumberSchema,
  rowsOfCsv,
  stockCsvBody,
  stockImportBody,
  stockPageSchema,
  stockPhoneParams,
  stockSummarySchema,
  toStockListQuery,
  toStockNumber,
} from "./schemas.ts";
import { listStock, stockSummary } from "./store.ts";
import { importStockAction, removeStockNumberAction } from "./use-cases.ts";

const CSV = "text/csv";

/** The import reads its own body: JSON or CSV, each judged here (a validator would judge every body as JSON). */
export const stockAdminRoutes = createRouter<OperatorEnv>()
  .openapi(
    createRoute({
      // Larger bodies than 64 KiB, read by this route itself: JSON up to 1 MiB, CSV up to 10 MiB.
      ...operatorOperation(importStockAction, takesLargeBody({ "application/json": JSON_IMPORT_BYTES, [CSV]: CSV_IMPORT_BYTES })),
      method: "post",
      path: "/stock",
      summary: "Import numbers into the stock",
      description:
        "Numbers the operator holds for any country and type, before any order. Every row is checked first (an " +
        "E.164 number, a country code ISO 3166-1 assigns, a number type as the catalog's: a lowercase identifier); " +
        "valid rows are imported in one transaction, numbers in stock already, allocated, or repeated in the request " +
        "are skipped (duplicates), and the report names each skipped and each refused row (at most 1,000 of each, " +
        "with their counts), and the pairs of imported numbers that are not in the catalog (unlisted_pairs, at most " +
        "1,000, with unlisted_pair_count). The Location lists the numbers this import brought.",
      request: {
        body: {
          required: true,
          content: { "application/json": { schema: describedOnly(stockImportBody) }, [CSV]: { schema: stockCsvBody } },
        },
      },
      responses: {
        201: { ...jsonResponse(importReportSchema, "What the import did with each row."), headers: locationHeader },
        ...errorResponses(importStockAction.refusals),
      },
    }),
    async (c) => {
      const mediaType = mediaTypeOf(c.req.header("Content-Type"));
      let rows: readonly unknown[];
      if (mediaType === CSV) rows = valueOrProblem(rowsOfCsv(await requestBody(c.req.raw)));
      else if (mediaType === "application/json") rows = (await validJsonBody(c, stockImportBody)).numbers;
      else throw new Problem("unsupported_media_type", "Content-Type must be application/json or text/csv");
      const report = valueOrProblem(await importStockAction.run(workOf(c), rows));
      c.header("Location", `/admin/stock?import_id=${report.importId}`);
      return c.json(
        {
          import_id: report.importId,
          imported: report.imported,
          duplicates: report.duplicates,
          duplicate_count: report.duplicateCount,
          invalid: report.invalid,
          invalid_count: report.invalidCount,
          unlisted_pairs: report.unlistedPairs.map((pair) => ({
            country_code: pair.countryCode,
            number_type: pair.numberType,
            count: pair.count,
          })),
          unlisted_pair_count: report.unlistedPairCount,
        },
        201,
      );
    },
  )
  .openapi(
    createRoute({
      ...operatorRead("listStock"),
      method: "get",
      path: "/stock",
      summary: "List the stock",
      request: { query: listStockQuery },
      responses: {
        200: jsonResponse(stockPageSchema, "A page of stocked numbers, newest import first, then by number."),
      },
    }),
    async (c) => {
      const q = c.req.valid("query");
      const window = pageWindow(q.page, q.limit);
      const { rows, total } = await listStock(c.var.db, toStockListQuery(q), window);
      return c.json({ data: rows.map(toStockNumber), meta: pageMeta(window, total) }, 200);
    },
  )
  .openapi(
    createRoute({
      ...operatorRead("getStockSummary"),
      method: "get",
      path: "/stock/summary",
      summary: "Count the stock per country and type",
      responses: {
        200: jsonResponse(
          stockSummarySchema,
          "The numbers in stock per (country_code, number_type), in all and per status, and the total of every pair.",
        ),
      },
    }),
    async (c) => {
      const pairs = await stockSummary(c.var.db);
      return c.json(
        {
          data: pairs.map((pair) => ({
            country_code: pair.countryCode,
            number_type: pair.numberType,
            count: pair.count,
            available: pair.available,
            quarantined: pair.quarantined,
            reserved: pair.reserved,
          })),
          total: pairs.reduce((sum, pair) => sum + pair.count, 0),
        },
        200,
      );
    },
  )
  .openapi(
    createRoute({
      ...operatorOperation(removeStockNumberAction),
      method: "delete",
      path: "/stock/{phone_number}",
      summary: "Take a number out of the stock",
      description:
        "Only a number in stock, which is never an allocated one (404 otherwise), and not one a reservation holds " +
        "now (409 conflict naming it).",
      request: { params: stockPhoneParams },
      responses: {
        200: jsonResponse(removedStockNumberSchema, "The number that left the stock."),
        ...errorResponses(removeStockNumberAction.refusals),
      },
    }),
    async (c) => {
      const work = workOf(c);
      const removed = valueOrProblem(await removeStockNumberAction.run(work, c.req.valid("param").phone_number));
      return c.json({ ...toStockNumber(removed), removed_at: toIso(work.now) }, 200);
    },
  );
