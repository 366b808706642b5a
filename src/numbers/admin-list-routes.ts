// The operator's list of numbers across accounts (one number with its history: src/audit/number-routes.ts).
import { createRoute, z } from "@hono/zod-openapi";
import { customerSlugFilter } from "../customers/schemas.ts";
import { pageWindow } from "../db/paging.ts";
import { NUMBER_STATUSES } from "../db/schema.ts";
import type { OperatorEnv } from "../env.ts";
import { countryCodeSchema, numberTypeSchema } from "../http/fields.ts";
import { jsonResponse } from "../http/openapi.ts";
import { commaList, pageMeta, pageQuery, pageSchema } from "../http/pagination.ts";
import { createRouter } from "../http/router.ts";
import { operatorRead } from "../staff/roles.ts";
import { listNumbersOfAllAccounts, type NumberOfAccount, type OperatorNumberQuery } from "./admin-list.ts";
import { numberSchema, toNumber } from "./schemas.ts";

const numberOfAccountSchema = numberSchema.extend({ customer_slug: z.string() }).openapi("NumberOfAccount");

function toNumberOfAccount(row: NumberOfAccount): z.infer<typeof numberOfAccountSchema> {
  return { ...toNumber(row), customer_slug: row.customerSlug };
}

export const operatorNumbersQuery = z.object({
  page: pageQuery.page,
  limit: pageQuery.limit,
  customer_slug: customerSlugFilter,
  status: commaList(z.enum(NUMBER_STATUSES), "status", "Number statuses."),
  country_code: commaList(countryCodeSchema, "country_code", "Country codes."),
  number_type: commaList(numberTypeSchema, "number_type", "Number types."),
  search: z
    .string()
    // A + left unencoded in a query string reads as a space.
    .regex(/^[+ ]?\d{1,15}$/, { error: "must be the start of an E.164 number: 1 to 15 digits, with or without +" })
    .optional()
    .openapi({
      param: { name: "search", in: "query" },
      description: "The start of the E.164 number, with or without its +.",
      example: "+4420",
    }),
});

/** The list's query as the store takes it: the search as the start of the E.164 number, with its +. */
export function toOperatorNumberQuery(q: z.output<typeof operatorNumbersQuery>): OperatorNumberQuery {
  return {
    customerSlug: q.customer_slug,
    statuses: q.status,
    countryCodes: q.country_code,
    numberTypes: q.number_type,
    phonePrefix: q.search === undefined ? undefined : `+${q.search.replace(/^[+ ]/, "")}`,
  };
}

export const numberAdminListRoutes = createRouter<OperatorEnv>().openapi(
  createRoute({
    ...operatorRead("listAllNumbers"),
    method: "get",
    path: "/numbers",
    summary: "List numbers across accounts",
    description: "Every account's numbers (every tenure, closed ones too), each with its account's slug; newest first.",
    request: { query: operatorNumbersQuery },
    responses: {
      200: jsonResponse(pageSchema(numberOfAccountSchema, "NumberOfAccount"), "A page of numbers, newest first."),
    },
  }),
  async (c) => {
    const q = c.req.valid("query");
    const window = pageWindow(q.page, q.limit);
    const { rows, total } = await listNumbersOfAllAccounts(c.var.db, toOperatorNumberQuery(q), window);
    return c.json({ data: rows.map(toNumberOfAccount), meta: pageMeta(window, total) }, 200);
  },
);
