// The operator's reads of numbers across accounts.
import { createRoute, z } from "@hono/zod-openapi";
import { auditEventSchema, toAuditEvent } from "../audit/schemas.ts";
import { customerSlugFilter } from "../customers/schemas.ts";
import { pageWindow } from "../db/paging.ts";
import { NUMBER_STATUSES } from "../db/schema.ts";
import type { OperatorEnv } from "../env.ts";
import { countryCodeSchema, numberTypeSchema, prefixedIdParam } from "../http/fields.ts";
import { errorResponses, jsonResponse } from "../http/openapi.ts";
import { commaList, pageMeta, pageQuery, pageSchema } from "../http/pagination.ts";
import { createRouter } from "../http/router.ts";
import { toVerification, verificationSchema } from "../kyc/schemas.ts";
import { notFound } from "../lib/problem.ts";
import { orderSchema, toOrder } from "../orders/schemas.ts";
import { operatorRead } from "../staff/roles.ts";
import { findNumberForOperator, listNumbersOfAllAccounts, type NumberOfAccount } from "./admin-list.ts";
import { numberSchema, toNumber } from "./schemas.ts";

const numberOfAccountSchema = numberSchema.extend({ customer_slug: z.string() }).openapi("NumberOfAccount");

function toNumberOfAccount(row: NumberOfAccount): z.infer<typeof numberOfAccountSchema> {
  return { ...toNumber(row), customer_slug: row.customerSlug };
}

const operatorNumbersQuery = z.object({
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

const operatorNumberSchema = z
  .object({
    number: numberSchema,
    customer_slug: z.string(),
    order: orderSchema,
    verification: verificationSchema
      .nullable()
      .openapi({ description: "Its own verification, or its profile's; null when none." }),
    history: z.array(auditEventSchema).openapi({ description: "Its 50 newest audit events, newest first." }),
  })
  .openapi("OperatorNumber");

export const numberAdminListRoutes = createRouter<OperatorEnv>()
  .openapi(
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
      const { rows, total } = await listNumbersOfAllAccounts(
        c.var.db,
        {
          customerSlug: q.customer_slug,
          statuses: q.status,
          countryCodes: q.country_code,
          numberTypes: q.number_type,
          phonePrefix: q.search === undefined ? undefined : `+${q.search.replace(/^[+ ]/, "")}`,
        },
        window,
      );
      return c.json({ data: rows.map(toNumberOfAccount), meta: pageMeta(window, total) }, 200);
    },
  )
  .openapi(
    createRoute({
      ...operatorRead("getAnyNumber"),
      method: "get",
      path: "/numbers/{number_id}",
      summary: "Get any account's number",
      description: "The number with its account's slug, its order, its verification and its 50 newest audit events.",
      request: { params: z.object({ number_id: prefixedIdParam("num", "number_id") }) },
      responses: {
        200: jsonResponse(operatorNumberSchema, "The number and what surrounds it."),
        ...errorResponses(["not_found"]),
      },
    }),
    async (c) => {
      const { number_id } = c.req.valid("param");
      const found = await findNumberForOperator(c.var.db, number_id);
      if (!found) throw notFound("Number");
      const { row, order, verification, history } = found;
      return c.json(
        {
          number: toNumber(row),
          customer_slug: row.customerSlug,
          order: toOrder(order),
          verification:
            verification === undefined
              ? null
              : toVerification(
                  verification.verification,
                  verification.documents,
                  verification.attachment && { numberId: number_id, attachment: verification.attachment },
                ),
          history: history.map((event) => toAuditEvent(event)),
        },
        200,
      );
    },
  );
