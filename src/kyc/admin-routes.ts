// The operator's routes for verifications: the review queue, a verification, its documents' bytes (audited reads) and
// the review decision.
import { createRoute, z } from "@hono/zod-openapi";
import { pageWindow } from "../db/paging.ts";
import type { OperatorEnv } from "../env.ts";
import { prefixedIdParam } from "../http/fields.ts";
import { errorResponses, jsonBody, jsonResponse } from "../http/openapi.ts";
import { pageMeta } from "../http/pagination.ts";
import { workOf } from "../http/request-context.ts";
import { createRouter } from "../http/router.ts";
import { notFound, valueOrProblem } from "../lib/problem.ts";
import { operatorOperation, operatorRead } from "../staff/roles.ts";
import { DOWNLOAD_CONTENT, DOWNLOAD_HEADERS } from "./download.ts";
import { findQueuedVerification, listReviewQueue } from "./queue.ts";
import {
  profileSchema,
  queuedVerificationSchema,
  reviewBody,
  reviewQueuePageSchema,
  reviewQueueQuery,
  toProfile,
  toQueuedVerification,
  toRejection,
  toReviewQueueQuery,
  toVerification,
  verificationSchema,
} from "./schemas.ts";
import { downloadDocumentAction, reviewProfileAction, reviewVerificationAction } from "./use-cases.ts";

const kycParams = z.object({ kyc_id: prefixedIdParam("kyc", "kyc_id") });
const profileParams = z.object({ profile_id: prefixedIdParam("kyp", "profile_id") });

const REVIEW_DESCRIPTION =
  "pending→under_review, under_review→approved or rejected (rejection_reason required; `reasons` optional, each " +
  "naming a document or a field of this verification); sets reviewed_at. Approval sets expires_at one year ahead; a " +
  "rejection clears it. Documents follow: pending_review, verified, or rejected (with reasons, only the documents a " +
  "reason names, which stay rejected until deleted; without, every one). Else 409.";

export const kycAdminRoutes = createRouter<OperatorEnv>()
  .openapi(
    createRoute({
      ...operatorRead("listReviewQueue"),
      method: "get",
      path: "/kyc",
      summary: "List every account's verifications: the review queue",
      description:
        "Verifications awaiting staff (pending, under_review) unless asked for other statuses, oldest submission " +
        "first; each with its account and its subject (the number it verifies, with its country and type).",
      request: { query: reviewQueueQuery },
      responses: {
        200: jsonResponse(reviewQueuePageSchema, "A page of the queue, with the counts of every status."),
      },
    }),
    async (c) => {
      const q = c.req.valid("query");
      const window = pageWindow(q.page, q.limit);
      const { rows, total, statusCounts } = await listReviewQueue(c.var.db, toReviewQueueQuery(q), window);
      return c.json(
        { data: rows.map(toQueuedVerification), meta: { ...pageMeta(window, total), status_counts: statusCounts } },
        200,
      );
    },
  )
  .openapi(
    createRoute({
      ...operatorRead("getAnyKycVerification"),
      method: "get",
      path: "/kyc/{kyc_id}",
      summary: "Retrieve any account's verification",
      request: { params: kycParams },
      responses: {
        200: jsonResponse(queuedVerificationSchema, "The verification, its documents, its account and its subject."),
        ...errorResponses(["not_found"]),
      },
    }),
    async (c) => {
      const found = await findQueuedVerification(c.var.db, c.req.valid("param").kyc_id);
      if (!found) throw notFound("Verification");
      return c.json(toQueuedVerification(found), 200);
    },
  )
  .openapi(
    createRoute({
      ...operatorOperation(downloadDocumentAction),
      method: "get",
      path: "/kyc/documents/{document_id}/download",
      summary: "Download any account's document",
      description:
        "The file with its sniffed Content-Type, as an attachment, for compliance and admin only; every GET is " +
        "recorded in the audit log (kyc.document_viewed) before the bytes are sent. A HEAD reads no bytes and records nothing.",
      request: { params: z.object({ document_id: prefixedIdParam("doc", "document_id") }) },
      responses: {
        200: {
          description: "The file.",
          headers: DOWNLOAD_HEADERS,
          content: DOWNLOAD_CONTENT,
        },
        304: { description: "Not modified (If-None-Match matched the ETag).", headers: DOWNLOAD_HEADERS },
        ...errorResponses(["not_found"]),
      },
    }),
    async (c) => {
      const download = await downloadDocumentAction.run(workOf(c), c.req.valid("param").document_id, c.req.raw);
      if (!download) throw notFound("Document");
      return download.answer;
    },
  )
  .openapi(
    createRoute({
      ...operatorOperation(reviewVerificationAction),
      method: "post",
      path: "/kyc/{kyc_id}/review",
      summary: "Review a verification",
      description: REVIEW_DESCRIPTION,
      request: {
        params: kycParams,
        body: jsonBody(reviewBody),
      },
      responses: {
        200: jsonResponse(verificationSchema, "The verification after the move."),
        ...errorResponses(reviewVerificationAction.refusals),
      },
    }),
    async (c) => {
      const body = c.req.valid("json");
      const reviewed = valueOrProblem(
        await reviewVerificationAction.run(workOf(c), c.req.valid("param").kyc_id, body.status, toRejection(body)),
      );
      return c.json(toVerification(reviewed.verification, reviewed.documents), 200);
    },
  )
  .openapi(
    createRoute({
      ...operatorRead("getAnyKycProfile"),
      method: "get",
      path: "/kyc-profiles/{profile_id}",
      summary: "Retrieve any account's profile",
      request: { params: profileParams },
      responses: {
        200: jsonResponse(profileSchema, "The profile with its documents."),
        ...errorResponses(["not_found"]),
      },
    }),
    async (c) => {
      // Any account's: the review queue's read of one verification, a profile's (with its count of numbers).
      const found = await findQueuedVerification(c.var.db, c.req.valid("param").profile_id);
      if (!found || found.number !== null) throw notFound("Profile");
      return c.json(toProfile(found.verification, found.documents, found.numberCount), 200);
    },
  )
  .openapi(
    createRoute({
      ...operatorOperation(reviewProfileAction),
      method: "post",
      path: "/kyc-profiles/{profile_id}/review",
      summary: "Review a profile",
      description: `The same moves and rules as a number's review, with kyc_profile.* events. ${REVIEW_DESCRIPTION}`,
      request: {
        params: profileParams,
        body: jsonBody(reviewBody),
      },
      responses: {
        200: jsonResponse(profileSchema, "The profile after the move."),
        ...errorResponses(reviewProfileAction.refusals),
      },
    }),
    async (c) => {
      const body = c.req.valid("json");
      const reviewed = valueOrProblem(
        await reviewProfileAction.run(workOf(c), c.req.valid("param").profile_id, body.status, toRejection(body)),
      );
      return c.json(toProfile(reviewed.verification, reviewed.documents, reviewed.numberCount), 200);
    },
  );
