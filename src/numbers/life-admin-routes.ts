// The operator's routes of a number's moves across accounts: suspend, resume, release and restore.
import { createRoute } from "@hono/zod-openapi";
import type { OperatorEnv } from "../env.ts";
import { errorResponses, jsonBody, jsonResponse } from "../http/openapi.ts";
import { workOf } from "../http/request-context.ts";
import { createRouter } from "../http/router.ts";
import { valueOrProblem } from "../lib/problem.ts";
import { operatorOperation } from "../staff/roles.ts";
import {
  operatorReleaseNumbersBody,
  operatorReleaseReportSchema,
  operatorRestoreNumbersBody,
  operatorRestoreReportSchema,
  resumeNumbersBody,
  resumeReportSchema,
  suspendNumbersBody,
  suspendReportSchema,
  toMoveReport,
} from "./life-schemas.ts";
import {
  releaseNumbersByOperatorAction,
  restoreNumbersByOperatorAction,
  resumeNumbersAction,
  suspendNumbersAction,
} from "./life-use-cases.ts";

const REPORT_WORDS =
  "One report per distinct id, in the request's order; one event per account and 250 numbers, one audit event per number.";

export const numberLifeAdminRoutes = createRouter<OperatorEnv>()
  .openapi(
    createRoute({
      ...operatorOperation(suspendNumbersAction),
      method: "post",
      path: "/numbers/suspend",
      summary: "Suspend numbers",
      description: `Active numbers of any account become suspended with the reason (number.suspended). ${REPORT_WORDS}`,
      request: { body: jsonBody(suspendNumbersBody) },
      responses: {
        200: jsonResponse(suspendReportSchema, "What happened to each number."),
        ...errorResponses(suspendNumbersAction.refusals),
      },
    }),
    async (c) => {
      const { number_ids, reason, note } = c.req.valid("json");
      const report = valueOrProblem(await suspendNumbersAction.run(workOf(c), number_ids, reason, { note }));
      return c.json(toMoveReport(report, "suspended"), 200);
    },
  )
  .openapi(
    createRoute({
      ...operatorOperation(resumeNumbersAction),
      method: "post",
      path: "/numbers/resume",
      summary: "Resume suspended numbers",
      description: `Suspended numbers become active again (number.resumed). ${REPORT_WORDS}`,
      request: { body: jsonBody(resumeNumbersBody) },
      responses: {
        200: jsonResponse(resumeReportSchema, "What happened to each number."),
        ...errorResponses(resumeNumbersAction.refusals),
      },
    }),
    async (c) => {
      const { number_ids, note } = c.req.valid("json");
      const report = valueOrProblem(await resumeNumbersAction.run(workOf(c), number_ids, { note }));
      return c.json(toMoveReport(report, "resumed"), 200);
    },
  )
  .openapi(
    createRoute({
      ...operatorOperation(releaseNumbersByOperatorAction),
      method: "post",
      path: "/numbers/release",
      summary: "Release numbers",
      description:
        "As the account's release, with release_reason operator (the account cannot restore it); a protected number " +
        `is refused unless force (admin only). ${REPORT_WORDS}`,
      request: { body: jsonBody(operatorReleaseNumbersBody) },
      responses: {
        200: jsonResponse(operatorReleaseReportSchema, "What happened to each number."),
        ...errorResponses(releaseNumbersByOperatorAction.refusals),
      },
    }),
    async (c) => {
      const { number_ids, note, force } = c.req.valid("json");
      const report = valueOrProblem(await releaseNumbersByOperatorAction.run(workOf(c), number_ids, { note, force }));
      return c.json(toMoveReport(report, "released"), 200);
    },
  )
  .openapi(
    createRoute({
      ...operatorOperation(restoreNumbersByOperatorAction),
      method: "post",
      path: "/numbers/restore",
      summary: "Restore released numbers",
      description: `Undoes any release (the account's or the operator's) until restorable_until. ${REPORT_WORDS}`,
      request: { body: jsonBody(operatorRestoreNumbersBody) },
      responses: {
        200: jsonResponse(operatorRestoreReportSchema, "What happened to each number."),
        ...errorResponses(restoreNumbersByOperatorAction.refusals),
      },
    }),
    async (c) => {
      const { number_ids, note } = c.req.valid("json");
      const report = valueOrProblem(await restoreNumbersByOperatorAction.run(workOf(c), number_ids, { note }));
      return c.json(toMoveReport(report, "restored"), 200);
    },
  );
