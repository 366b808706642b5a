// Customer API routes of one number (read, PATCH of its details) and of tags on many numbers.
import { createRoute, z } from "@hono/zod-openapi";
import { customerSlugParam } from "../customers/schemas.ts";
import type { CustomerEnv } from "../env.ts";
import { prefixedIdParam } from "../http/fields.ts";
import { API_KEY_SECURITY, errorResponses, jsonBody, jsonResponse } from "../http/openapi.ts";
import { workOf } from "../http/request-context.ts";
import { createRouter } from "../http/router.ts";
import { notFound, valueOrProblem } from "../lib/problem.ts";
import { tagNumbersBody, tagReportSchema, updateNumberBody } from "./details-schemas.ts";
import { tagNumbersAction, updateNumberAction } from "./details-use-cases.ts";
import { numberSchema, toNumber } from "./schemas.ts";
import { findOwnedNumberWithKyc } from "./store.ts";

const slugParams = z.object({ customer_slug: customerSlugParam });
const numberParams = slugParams.extend({ number_id: prefixedIdParam("num", "number_id") });
const operation = { tags: ["Numbers"], security: API_KEY_SECURITY };

export const numberDetailRoutes = createRouter<CustomerEnv>()
  .openapi(
    createRoute({
      ...operation,
      operationId: "getNumber",
      method: "get",
      path: "/customers/{customer_slug}/numbers/{number_id}",
      summary: "Get a number",
      description: "One of the account's numbers, in any status (another account's number is 404).",
      request: { params: numberParams },
      responses: {
        200: jsonResponse(numberSchema, "The number."),
        ...errorResponses(["not_found"]),
      },
    }),
    async (c) => {
      const { number_id } = c.req.valid("param");
      const found = await findOwnedNumberWithKyc(c.var.db, c.var.principal.customerId, number_id);
      if (!found) throw notFound("Number");
      return c.json(toNumber(found), 200);
    },
  )
  .openapi(
    createRoute({
      ...operation,
      operationId: "updateNumber",
      method: "patch",
      path: "/customers/{customer_slug}/numbers/{number_id}",
      summary: "Change a number's tags, reference or protection",
      description:
        "Sets only the fields given: tags (replaces the list), customer_reference (null clears it), " +
        "release_protected. Emits number.updated when something changed; a change of release_protected is audited " +
        "(number.protection_changed). A released number is 409 number_released.",
      request: { params: numberParams, body: jsonBody(updateNumberBody) },
      responses: {
        200: jsonResponse(numberSchema, "The number as it now stands."),
        ...errorResponses(updateNumberAction.refusals),
      },
    }),
    async (c) => {
      const { number_id } = c.req.valid("param");
      const body = c.req.valid("json");
      const updated = valueOrProblem(
        await updateNumberAction.run(workOf(c), c.var.principal.customerId, number_id, {
          tags: body.tags,
          customerReference: body.customer_reference,
          releaseProtected: body.release_protected,
        }),
      );
      return c.json(toNumber(updated), 200);
    },
  )
  .openapi(
    createRoute({
      ...operation,
      operationId: "tagNumbers",
      method: "post",
      path: "/customers/{customer_slug}/numbers/tags",
      summary: "Add or remove tags on many numbers",
      description:
        "Tags compare ignoring case: adding one already there changes nothing, removing one takes it away whatever " +
        "its case, added tags go after the kept ones in the order given. Each number's outcome is in results; a " +
        "released number, or one that would have more than 20 tags, is left as it is. One D1 batch; number.updated " +
        "names the changed numbers, at most 250 an event.",
      request: { params: slugParams, body: jsonBody(tagNumbersBody) },
      responses: {
        200: jsonResponse(tagReportSchema, "Each number's outcome, in request order."),
        ...errorResponses(tagNumbersAction.refusals),
      },
    }),
    async (c) => {
      const body = c.req.valid("json");
      const report = valueOrProblem(
        await tagNumbersAction.run(workOf(c), c.var.principal.customerId, body.number_ids, {
          add: body.add ?? [],
          remove: body.remove ?? [],
        }),
      );
      return c.json(
        {
          updated: report.updated,
          results: report.results.map((r) => ({ number_id: r.numberId, phone_number: r.phoneNumber, outcome: r.outcome })),
        },
        200,
      );
    },
  );
