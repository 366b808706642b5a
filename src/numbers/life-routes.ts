// Customer API routes of a number's moves: release (and its preview) and restore.
import { createRoute, z } from "@hono/zod-openapi";
import { customerSlugParam } from "../customers/schemas.ts";
import type { CustomerEnv } from "../env.ts";
import { API_KEY_SECURITY, errorResponses, jsonBody, jsonResponse } from "../http/openapi.ts";
import { workOf } from "../http/request-context.ts";
import { createRouter } from "../http/router.ts";
import { valueOrProblem } from "../lib/problem.ts";
import {
  MAX_ORDER_RELEASE,
  releaseNumbersBody,
  releaseReportSchema,
  restoreNumbersBody,
  restoreReportSchema,
  toMoveReport,
  toTenureSelection,
} from "./life-schemas.ts";
import { releaseNumbersAction, restoreNumbersAction } from "./life-use-cases.ts";
import { RESTORE_WINDOW_MS } from "./lifecycle.ts";

const slugParams = z.object({ customer_slug: customerSlugParam });
const operation = { tags: ["Numbers"], security: API_KEY_SECURITY };
const RESTORE_DAYS = RESTORE_WINDOW_MS / 86_400_000;

export const numberLifeRoutes = createRouter<CustomerEnv>()
  .openapi(
    createRoute({
      ...operation,
      operationId: "releaseNumbers",
      method: "post",
      path: "/customers/{customer_slug}/numbers/release",
      summary: "Release numbers",
      description:
        "Gives numbers back: by ids, or every number of an order (at most " +
        `${MAX_ORDER_RELEASE.toLocaleString("en-US")}; an unknown order is 404). Each active or suspended number ` +
        `becomes released, restorable for ${RESTORE_DAYS} days (restorable_until), and leaves its profile ` +
        "(kyc_profile.numbers_detached); its own verification and documents stay with it. A protected number " +
        "(release_protected) is refused. dry_run answers the same report and changes nothing (the release " +
        "preview). Orders are not changed. One number.released event per 250 numbers.",
      request: { params: slugParams, body: jsonBody(releaseNumbersBody) },
      responses: {
        200: jsonResponse(releaseReportSchema, "What happened (would happen) to each number."),
        ...errorResponses(releaseNumbersAction.refusals),
      },
    }),
    async (c) => {
      const body = c.req.valid("json");
      const dryRun = body.dry_run ?? false;
      const report = valueOrProblem(
        await releaseNumbersAction.run(workOf(c), c.var.principal.customerId, toTenureSelection(body), dryRun),
      );
      return c.json({ dry_run: dryRun, ...toMoveReport(report, "released") }, 200);
    },
  )
  .openapi(
    createRoute({
      ...operation,
      operationId: "restoreNumbers",
      method: "post",
      path: "/customers/{customer_slug}/numbers/restore",
      summary: "Restore released numbers",
      description:
        "Undoes the account's own releases until restorable_until: each number returns to the state it had, and " +
        "joins again the profile it left while that profile exists (kyc_profile.numbers_attached). A number " +
        "released by the operator is refused (released_by_operator). One number.restored event per 250 numbers.",
      request: { params: slugParams, body: jsonBody(restoreNumbersBody) },
      responses: {
        200: jsonResponse(restoreReportSchema, "What happened to each number."),
        ...errorResponses(restoreNumbersAction.refusals),
      },
    }),
    async (c) => {
      const { number_ids } = c.req.valid("json");
      const report = valueOrProblem(await restoreNumbersAction.run(workOf(c), c.var.principal.customerId, number_ids));
      return c.json(toMoveReport(report, "restored"), 200);
    },
  );
