// The operator's view of one number with its history. Here rather than in numbers/ because it reads the audit log,
// and audit/ may read every feature (none reads audit/).
import { createRoute, z } from "@hono/zod-openapi";
import { pageWindow } from "../db/paging.ts";
import type { OperatorEnv } from "../env.ts";
import { prefixedIdParam } from "../http/fields.ts";
import { errorResponses, jsonResponse } from "../http/openapi.ts";
import { createRouter } from "../http/router.ts";
import { toVerification, verificationSchema } from "../kyc/schemas.ts";
import { withPrefix } from "../lib/ids.ts";
import { notFound } from "../lib/problem.ts";
import { findNumberForOperator } from "../numbers/admin-list.ts";
import { numberSchema, toNumber } from "../numbers/schemas.ts";
import { orderSchema, toOrder } from "../orders/schemas.ts";
import { operatorRead } from "../staff/roles.ts";
import { auditEventSchema, toAuditEvent } from "./schemas.ts";
import { listAuditEvents } from "./store.ts";

/** A number's page shows its newest audit events, this many. */
const HISTORY = pageWindow(1, 50);

const operatorNumberSchema = z
  .object({
    number: numberSchema,
    customer_slug: z.string(),
    order: orderSchema,
    verification: z.union([verificationSchema, z.null()]),
    history: z.array(auditEventSchema).openapi({ description: `Its ${HISTORY.limit} newest audit events, newest first.` }),
  })
  .openapi("OperatorNumber");

export const numberHistoryRoutes = createRouter<OperatorEnv>().openapi(
  createRoute({
    ...operatorRead("getAnyNumber"),
    method: "get",
    path: "/numbers/{number_id}",
    summary: "Get any account's number",
    description: `The number with its account's slug, its order, its verification (its own, or its profile's; null when none) and its ${HISTORY.limit} newest audit events.`,
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
    const { row, order, verification } = found;
    const history = await listAuditEvents(c.var.db, { targetType: "number", targetId: withPrefix("num", number_id) }, HISTORY);
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
        history: history.rows.map((event) => toAuditEvent(event)),
      },
      200,
    );
  },
);
