// The operator's routes for verifications: the review that moves a verification and its documents.
import { createRoute, z } from "@hono/zod-openapi";
import type { OperatorEnv } from "../env.ts";
import { prefixedIdParam } from "../http/fields.ts";
import { errorResponses, jsonBody, jsonResponse } from "../http/openapi.ts";
import { workOf } from "../http/request-context.ts";
import { createRouter } from "../http/router.ts";
import { valueOrProblem } from "../lib/problem.ts";
import { COMPLIANCE, operatorOperation } from "../staff/roles.ts";
import { reviewBody, toVerification, verificationSchema } from "./schemas.ts";
import { reviewKyc } from "./use-cases.ts";

export const kycAdminRoutes = createRouter<OperatorEnv>().openapi(
  createRoute({
    ...operatorOperation(COMPLIANCE),
    operationId: "reviewKycVerification",
    method: "post",
    path: "/kyc/{kyc_id}/review",
    summary: "Review a verification",
    description:
      "pending→under_review, under_review→approved or rejected (rejection_reason required); sets reviewed_at; " +
      "approval sets expires_at one year ahead. Documents follow: pending_review, verified or rejected. Else 409.",
    request: {
      params: z.object({ kyc_id: prefixedIdParam("kyc", "kyc_id") }),
      body: jsonBody(reviewBody),
    },
    responses: {
      200: jsonResponse(verificationSchema, "The verification after the move."),
      ...errorResponses(400, 401, 403, 404, 409, 413, 415),
    },
  }),
  async (c) => {
    const { status, rejection_reason } = c.req.valid("json");
    const reviewed = valueOrProblem(await reviewKyc(workOf(c), c.req.valid("param").kyc_id, status, rejection_reason));
    return c.json(toVerification(reviewed.verification, reviewed.documents), 200);
  },
);
