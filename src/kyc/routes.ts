// Number verification (KYC) under /v1: address submit and update, status, file upload, download and delete;
// and the operator's review.
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { KycStatus } from "../db/schema.ts";
import type { AppEnv } from "../env.ts";
import { ADMIN_SECURITY, API_KEY_SECURITY, errorResponses, jsonBody, jsonResponse } from "../http/openapi.ts";
import { ApiError, notFound } from "../http/problem.ts";
import { validationHook } from "../http/validation.ts";
import { prefixedIdParam, withPrefix } from "../lib/ids.ts";
import { contentDisposition } from "../lib/content-disposition.ts";
import { toIso } from "../lib/time.ts";
import { findOwnedNumber } from "../numbers/store.ts";
import { removeDocument, storeDocument } from "./documents.ts";
import {
  deletedDocumentSchema,
  documentSchema,
  downloadPath,
  MAX_DOCUMENTS,
  reviewBody,
  submitAddressBody,
  toDocument,
  toVerification,
  updateAddressBody,
  verificationSchema,
} from "./schemas.ts";
import {
  findOwnedDocument,
  findVerification,
  findVerificationWithDocuments,
  listDocuments,
  reviewVerification,
  submitVerification,
  updateAddress,
  UPLOAD_ALLOWED,
} from "./store.ts";
import { readUpload } from "./upload.ts";

const numberParams = z.object({ number_id: prefixedIdParam("num", "number_id") });
const documentParams = z.object({ document_id: prefixedIdParam("doc", "document_id") });
const kyc = { tags: ["KYC"], security: API_KEY_SECURITY };
const verificationPath = (numberId: string) => `/v1/numbers/${withPrefix("num", numberId)}/KYC`;

async function requireOwnedNumber(c: Context<AppEnv>, numberId: string): Promise<void> {
  if (!(await findOwnedNumber(c.var.db, c.var.principal.customerId, numberId))) throw notFound("Number");
}

function noVerification(): ApiError {
  return notFound("Verification");
}

function locked(status: KycStatus, action: string): ApiError {
  return new ApiError("verification_locked", `The verification is ${status}; ${action} is not possible now`);
}

/** If-None-Match against an ETag, compared weakly (RFC 9110 §13.1.2); a malformed header simply does not match. */
function etagMatches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  if (ifNoneMatch.trim() === "*") return true;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, "");
  return ifNoneMatch.split(",").some((candidate) => opaque(candidate) === opaque(etag));
}

const uploadContent = {
  "multipart/form-data": {
    schema: {
      type: "object" as const,
      required: ["file", "document_type"],
      properties: {
        file: { type: "string" as const, format: "binary", description: "PDF, JPG/JPEG or PNG, at most 10 MiB (10,485,760 bytes); images at least 300 DPI when they state a resolution." },
        document_type: {
          type: "string" as const,
          enum: ["identity", "address_proof", "business_registration", "tax_certificate", "utility_bill", "bank_statement", "other"],
        },
        description: { type: "string" as const, maxLength: 500 },
        expiration_date: { type: "string" as const, format: "date", description: "YYYY-MM-DD, not in the past." },
      },
    },
  },
};

export const kycRoutes = new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
  .openapi(
    createRoute({
      ...kyc,
      method: "post",
      path: "/v1/numbers/{number_id}/KYC/address",
      summary: "Submit address details",
      description: "Starts the number's verification (one per number). company_name is required for business verification.",
      request: { params: numberParams, body: jsonBody(submitAddressBody) },
      responses: {
        201: jsonResponse(verificationSchema, "The verification, status pending, no documents."),
        ...errorResponses(400, 401, 404, 409, 413, 415, 429),
      },
    }),
    async (c) => {
      const { number_id } = c.req.valid("param");
      await requireOwnedNumber(c, number_id);
      const row = await submitVerification(c.var.db, c.var.principal.customerId, number_id, c.req.valid("json"), Date.now());
      if (row === "exists") throw new ApiError("kyc_exists", "This number already has a verification; amend it with PATCH");
      c.header("Location", verificationPath(number_id));
      return c.json(toVerification(row, []), 201);
    },
  )
  .openapi(
    createRoute({
      ...kyc,
      method: "patch",
      path: "/v1/numbers/{number_id}/KYC/address",
      summary: "Update address details",
      description:
        "Allowed while pending or rejected; on a rejected verification it re-opens it (status pending, reason and " +
        "review time cleared). Documents stay attached. verification_type cannot change.",
      request: { params: numberParams, body: jsonBody(updateAddressBody) },
      responses: {
        200: jsonResponse(verificationSchema, "The updated verification."),
        ...errorResponses(400, 401, 404, 409, 413, 415, 429),
      },
    }),
    async (c) => {
      const { number_id } = c.req.valid("param");
      // Scoped to the key's account: another account's number has no verification here, so it is a 404 too.
      const outcome = await updateAddress(c.var.db, c.var.principal.customerId, number_id, c.req.valid("json"), Date.now());
      if (outcome === "not_found") throw noVerification();
      if ("locked" in outcome) throw locked(outcome.locked, "changing the address");
      return c.json(toVerification(outcome.verification, outcome.documents), 200);
    },
  )
  .openapi(
    createRoute({
      ...kyc,
      method: "get",
      path: "/v1/numbers/{number_id}/KYC",
      summary: "Read the verification",
      request: { params: numberParams },
      responses: {
        200: jsonResponse(verificationSchema, "The verification with its documents."),
        ...errorResponses(400, 401, 404, 429),
      },
    }),
    async (c) => {
      const { number_id } = c.req.valid("param");
      // Scoped to the key's account: another account's number has no verification here, so it is a 404 too.
      const found = await findVerificationWithDocuments(c.var.db, c.var.principal.customerId, number_id);
      if (!found) throw noVerification();
      return c.json(toVerification(found.verification, found.documents), 200);
    },
  )
  .openapi(
    createRoute({
      ...kyc,
      method: "post",
      path: "/v1/numbers/{number_id}/KYC/files",
      summary: "Upload a supporting file",
      description:
        `One file per request, after the address is submitted; at most ${MAX_DOCUMENTS} per verification. The content ` +
        "decides the type (PDF, JPEG, PNG) and the name's extension must agree. Allowed while pending, under_review or rejected.",
      request: { params: numberParams, body: { required: true, content: uploadContent } },
      responses: {
        201: jsonResponse(documentSchema, "The stored document."),
        ...errorResponses(400, 401, 404, 409, 413, 415, 429),
      },
    }),
    async (c) => {
      const { number_id } = c.req.valid("param");
      await requireOwnedNumber(c, number_id);
      const verification = await findVerification(c.var.db, c.var.principal.customerId, number_id);
      if (!verification) throw new ApiError("kyc_not_submitted", "Submit the address details before uploading files");
      if (!UPLOAD_ALLOWED.includes(verification.status)) throw locked(verification.status, "uploading files");
      const now = Date.now();
      const file = await readUpload(c.req.raw, now);
      const row = await storeDocument(c.var.db, c.env.DOCUMENTS, verification, file, now);
      if (!row) {
        const current = await findVerification(c.var.db, c.var.principal.customerId, number_id);
        if (current && !UPLOAD_ALLOWED.includes(current.status)) throw locked(current.status, "uploading files");
        throw new ApiError("conflict", `A verification holds at most ${MAX_DOCUMENTS} documents; delete one first`);
      }
      c.header("Location", downloadPath(row.id));
      return c.json(toDocument(row, new URL(c.req.url).origin), 201);
    },
  )
  .openapi(
    createRoute({
      ...kyc,
      method: "get",
      path: "/v1/kyc/documents/{document_id}/download",
      summary: "Download a document",
      description: "Streams the file with its sniffed Content-Type, as an attachment.",
      request: { params: documentParams },
      responses: {
        200: {
          description: "The file.",
          content: {
            "application/pdf": { schema: { type: "string", format: "binary" } },
            "image/jpeg": { schema: { type: "string", format: "binary" } },
            "image/png": { schema: { type: "string", format: "binary" } },
          },
        },
        304: { description: "Not modified (If-None-Match matched the ETag)." },
        ...errorResponses(400, 401, 404, 429),
      },
    }),
    async (c) => {
      const { document_id } = c.req.valid("param");
      const row = await findOwnedDocument(c.var.db, c.var.principal.customerId, document_id);
      if (!row) throw notFound("Document");
      const object = await c.env.DOCUMENTS.get(row.objectKey);
      if (!object) throw notFound("Document");
      const headers = new Headers({
        "Content-Type": row.mimeType,
        "Content-Disposition": contentDisposition(row.filename),
        "X-Content-Type-Options": "nosniff",
        "Cache-Control": "private, no-store",
        ETag: object.httpEtag,
      });
      if (etagMatches(c.req.header("If-None-Match"), object.httpEtag)) {
        await object.body.cancel();
        return new Response(null, { status: 304, headers });
      }
      headers.set("Content-Length", String(object.size));
      return new Response(object.body, { status: 200, headers });
    },
  )
  .openapi(
    createRoute({
      ...kyc,
      method: "delete",
      path: "/v1/kyc/documents/{document_id}",
      summary: "Delete a document",
      description: "Allowed while the verification is pending or under_review; removes the file and its record.",
      request: { params: documentParams },
      responses: {
        200: jsonResponse(deletedDocumentSchema, "Deleted."),
        ...errorResponses(400, 401, 404, 409, 429),
      },
    }),
    async (c) => {
      const { document_id } = c.req.valid("param");
      const outcome = await removeDocument(c.var.db, c.env.DOCUMENTS, c.var.principal.customerId, document_id);
      if (outcome === "not_found") throw notFound("Document");
      if ("completed" in outcome) {
        throw new ApiError("verification_completed", `The verification is ${outcome.completed}; its documents can no longer be deleted`);
      }
      return c.json({ message: `Document ${withPrefix("doc", document_id)} deleted`, deleted_at: toIso(Date.now()) }, 200);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/admin/kyc/{kyc_id}/review",
      tags: ["Admin"],
      security: ADMIN_SECURITY,
      summary: "Review a verification",
      description:
        "pending→under_review, under_review→approved or rejected (rejection_reason required); sets reviewed_at; " +
        "approval sets expires_at one year ahead. Documents follow: pending_review, verified or rejected. Else 409.",
      request: { params: z.object({ kyc_id: prefixedIdParam("kyc", "kyc_id") }), body: jsonBody(reviewBody) },
      responses: {
        200: jsonResponse(verificationSchema, "The verification after the move."),
        ...errorResponses(400, 401, 404, 409, 413, 415),
      },
    }),
    async (c) => {
      const { kyc_id } = c.req.valid("param");
      const { status, rejection_reason } = c.req.valid("json");
      const outcome = await reviewVerification(c.var.db, kyc_id, status, rejection_reason, Date.now());
      if (outcome === "not_found") throw noVerification();
      if ("illegalFrom" in outcome) throw new ApiError("conflict", `A verification cannot move from ${outcome.illegalFrom} to ${status}`);
      return c.json(toVerification(outcome, await listDocuments(c.var.db, outcome.id)), 200);
    },
  );
