// Customer API route of the numbers' CSV export; mounted before the routes of one number, whose {number_id} would
// otherwise take "export".
import { createRoute, z } from "@hono/zod-openapi";
import { customerSlugParam } from "../customers/schemas.ts";
import type { CustomerEnv } from "../env.ts";
import { API_KEY_SECURITY, errorResponses } from "../http/openapi.ts";
import { workOf } from "../http/request-context.ts";
import { createRouter } from "../http/router.ts";
import { valueOrProblem } from "../lib/problem.ts";
import { EXPORT_COLUMNS, exportFilename, exportNumbers, MAX_EXPORT_ROWS } from "./export.ts";
import { exportNumbersQuery, toNumberListQuery } from "./schemas.ts";

export const numberExportRoutes = createRouter<CustomerEnv>().openapi(
  createRoute({
    tags: ["Numbers"],
    security: API_KEY_SECURITY,
    operationId: "exportNumbers",
    method: "get",
    path: "/customers/{customer_slug}/numbers/export",
    summary: "Export numbers as CSV",
    description:
      "The numbers the list's filters match, in its sort, as CSV (RFC 4180, CRLF lines): a header naming the Number " +
      "item's fields, then one row per number; null is an empty cell, booleans true/false, tags joined by `;`. A " +
      "cell other than phone_number that begins with = + - @, tab or CR gets a leading ' (spreadsheet formulas). " +
      `Streamed; at most ${MAX_EXPORT_ROWS.toLocaleString("en-US")} rows, a filter matching more is 400.`,
    request: { params: z.object({ customer_slug: customerSlugParam }), query: exportNumbersQuery },
    responses: {
      200: {
        description: "The CSV.",
        headers: {
          "Content-Disposition": {
            description: 'attachment; filename="numbers-<slug>-<YYYY-MM-DD>.csv" (the day of the export, UTC).',
            required: true,
            schema: { type: "string" },
          },
        },
        content: {
          // The media type; the answer names its charset (UTF-8) in Content-Type.
          "text/csv": {
            schema: z.string().openapi({ example: `${EXPORT_COLUMNS.join(",")}\r\n` }),
          },
        },
      },
      ...errorResponses(["validation_error"]),
    },
  }),
  async (c) => {
    const work = workOf(c);
    const csv = valueOrProblem(await exportNumbers(work, c.var.principal.customerId, toNumberListQuery(c.req.valid("query"))));
    // The slug and the date are ASCII without quotes: the name needs no RFC 5987 form.
    return c.body(csv, 200, {
      "Content-Type": "text/csv; charset=utf-8",
      "Content-Disposition": `attachment; filename="${exportFilename(c.var.principal.customerSlug, work.now)}"`,
    });
  },
);
