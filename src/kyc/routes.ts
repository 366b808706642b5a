// Customer API routes for a number's own verification (KYC) and its documents.
import { createRoute, z } from "@hono/zod-openapi";
import { evaluationSchema } from "../compliance/schemas.ts";
import type { CustomerEnv } from "../env.ts";
import { prefixedIdParam } from "../http/fields.ts";
import { readsOwnMultipartBody } from "../http/multipart.ts";
import { API_KEY_SECURITY, errorResponses, jsonBody, jsonResponse, locationHeader } from "../http/openapi.ts";
import { publicOrigin } from "../http/public-origin.ts";
import { strictJsonBody } from "../http/request-body.ts";
import { workOf } from "../http/request-context.ts";
import { createRouter } from "../http/router.ts";
import { withPrefix } from "../lib/ids.ts";
import { notFound, valueOrProblem } from "../lib/problem.ts";
import { toIso } from "../lib/time.ts";
import { findOwnedDocument } from "./documents-store.ts";
import { DOWNLOAD_CONTENT, DOWNLOAD_HEADERS, downloadResponse } from "./download.ts";
import { evaluateNumber } from "./evaluations.ts";
import {
  deletedDocumentSchema,
  deletedVerificationSchema,
  documentSchema,
  downloadPath,
  submitAddressBody,
  toAddressChanges,
  toDocument,
  toNewVerification,
  toVerification,
  updateAddressBody,
  uploadFormSchema,
  verificationSchema,
} from "./schemas.ts";
import { findVerificationWithDocuments, MAX_DOCUMENTS } from "./store.ts";
import { apiUploadReader, UPLOAD_FILE_REFUSALS } from "./upload.ts";
import {
  AMEND_ADDRESS_REFUSALS,
  amendAddress,
  DELETE_DOCUMENT_REFUSALS,
  DELETE_VERIFICATION_REFUSALS,
  deleteDocument,
  deleteVerification,
  RESUBMIT_REFUSALS,
  resubmit,
  SUBMIT_ADDRESS_REFUSALS,
  submitAddress,
  UPLOAD_REFUSALS,
  uploadDocument,
} from "./use-cases.ts";

const numberParams = z.object({
  number_id: prefixedIdParam("num", "number_id"),
});
const documentParams = z.object({
  document_id: prefixedIdParam("doc", "document_id"),
});
const operation = { tags: ["KYC"], security: API_KEY_SECURITY };
const verificationPath = (numberId: string) => `/v1/numbers/${withPrefix("num", numberId)}/KYC`;

export const kycRoutes = createRouter<CustomerEnv>()
  .openapi(
    createRoute({
      ...operation,
      operationId: "submitKycAddress",
      middleware: [strictJsonBody] as const,
      method: "post",
      path: "/numbers/{number_id}/KYC/address",
      summary: "Submit address details",
      description: "Starts the number's verification (one per number). company_name is required for business verification.",
      request: { params: numberParams, body: jsonBody(submitAddressBody) },
      responses: {
        201: {
          ...jsonResponse(verificationSchema, "The verification, status pending, no documents."),
          headers: locationHeader,
        },
        ...errorResponses(SUBMIT_ADDRESS_REFUSALS),
      },
    }),
    async (c) => {
      const { number_id } = c.req.valid("param");
      const body = toNewVerification(c.req.valid("json"));
      const submitted = valueOrProblem(await submitAddress(workOf(c), c.var.principal.customerId, number_id, body));
      c.header("Location", verificationPath(number_id));
      return c.json(toVerification(submitted, []), 201);
    },
  )
  .openapi(
    createRoute({
      ...operation,
      operationId: "updateKycAddress",
      middleware: [strictJsonBody] as const,
      method: "patch",
      path: "/numbers/{number_id}/KYC/address",
      summary: "Update address details",
      description:
        "Allowed while pending or rejected, and on an approved verification from 60 days before its expires_at (a " +
        "renewal); on a rejected or approved verification it re-opens it (status pending, reasons and review time " +
        "cleared; an approved one keeps expires_at while the renewal is reviewed). Documents stay attached. " +
        "verification_type cannot change. 409 kyc_managed_by_profile when the number joined a profile.",
      request: { params: numberParams, body: jsonBody(updateAddressBody) },
      responses: {
        200: jsonResponse(verificationSchema, "The updated verification."),
        ...errorResponses(AMEND_ADDRESS_REFUSALS),
      },
    }),
    async (c) => {
      const { number_id } = c.req.valid("param");
      const changes = toAddressChanges(c.req.valid("json"));
      // Scoped to the key's account: another account's number has no verification here, so it is a 404 too.
      const updated = valueOrProblem(
        await amendAddress(workOf(c), c.var.principal.customerId, { kind: "number", numberId: number_id }, changes),
      );
      return c.json(toVerification(updated.verification, updated.documents), 200);
    },
  )
  .openapi(
    createRoute({
      ...operation,
      operationId: "getKycVerification",
      method: "get",
      path: "/numbers/{number_id}/KYC",
      summary: "Read the verification",
      description:
        "The number's own verification, or, when the number joined a profile, the profile's (status, fields, documents) " +
        "under the number's own kyc_ id, with profile_id set.",
      request: { params: numberParams },
      responses: {
        200: jsonResponse(verificationSchema, "The verification with its documents."),
        ...errorResponses(["not_found"]),
      },
    }),
    async (c) => {
      const { number_id } = c.req.valid("param");
      // Scoped to the key's account: another account's number has no verification here, so it is a 404 too.
      const found = await findVerificationWithDocuments(c.var.db, c.var.principal.customerId, number_id);
      if (!found) throw notFound("Verification");
      const attached = found.attachment && { numberId: number_id, attachment: found.attachment };
      return c.json(toVerification(found.verification, found.documents, attached), 200);
    },
  )
  .openapi(
    createRoute({
      ...operation,
      operationId: "uploadKycDocument",
      middleware: [readsOwnMultipartBody] as const,
      method: "post",
      path: "/numbers/{number_id}/KYC/files",
      summary: "Upload a supporting file",
      description:
        `One file per request, after the address is submitted; at most ${MAX_DOCUMENTS} per verification. The content ` +
        "decides the type (PDF, JPEG, PNG) and the name's extension must agree. Allowed while pending, under_review or rejected.",
      request: {
        params: numberParams,
        body: {
          required: true,
          content: { "multipart/form-data": { schema: uploadFormSchema } },
        },
      },
      responses: {
        201: {
          ...jsonResponse(documentSchema, "The stored document."),
          headers: locationHeader,
        },
        ...errorResponses([...UPLOAD_REFUSALS, ...UPLOAD_FILE_REFUSALS]),
      },
    }),
    async (c) => {
      const work = workOf(c);
      const subject = { kind: "number", numberId: c.req.valid("param").number_id } as const;
      const reader = apiUploadReader(c.req.raw, work.now);
      const stored = valueOrProblem(await uploadDocument(work, c.var.principal.customerId, subject, reader));
      c.header("Location", downloadPath(stored.id));
      return c.json(toDocument(stored, publicOrigin(c), false), 201);
    },
  )
  .openapi(
    createRoute({
      ...operation,
      operationId: "downloadKycDocument",
      method: "get",
      path: "/kyc/documents/{document_id}/download",
      summary: "Download a document",
      description: "Streams the file with its sniffed Content-Type, as an attachment.",
      request: { params: documentParams },
      responses: {
        200: { description: "The file.", headers: DOWNLOAD_HEADERS, content: DOWNLOAD_CONTENT },
        304: { description: "Not modified (If-None-Match matched the ETag).", headers: DOWNLOAD_HEADERS },
        ...errorResponses(["not_found"]),
      },
    }),
    async (c) => {
      const { document_id } = c.req.valid("param");
      const row = await findOwnedDocument(c.var.db, c.var.principal.customerId, document_id);
      if (!row) throw notFound("Document");
      const answer = await downloadResponse(c.env.DOCUMENTS, row, c.req.raw);
      if (!answer) throw notFound("Document");
      return answer;
    },
  )
  .openapi(
    createRoute({
      ...operation,
      operationId: "deleteKycDocument",
      method: "delete",
      path: "/kyc/documents/{document_id}",
      summary: "Delete a document",
      description:
        "Allowed while the verification is pending or under_review, and for a document a rejection reason named while " +
        "the verification is rejected; removes the file and its record. Profile documents are deleted here too.",
      request: { params: documentParams },
      responses: {
        200: jsonResponse(deletedDocumentSchema, "Deleted."),
        ...errorResponses(DELETE_DOCUMENT_REFUSALS),
      },
    }),
    async (c) => {
      const { document_id } = c.req.valid("param");
      valueOrProblem(await deleteDocument(workOf(c), c.var.principal.customerId, document_id));
      return c.json(
        {
          message: `Document ${withPrefix("doc", document_id)} deleted`,
          deleted_at: toIso(c.var.now),
        },
        200,
      );
    },
  )
  .openapi(
    createRoute({
      ...operation,
      operationId: "deleteKycVerification",
      method: "delete",
      path: "/numbers/{number_id}/KYC",
      summary: "Delete the verification",
      description:
        "Allowed while pending or rejected: the verification and its documents are deleted (kyc.deleted), so the number " +
        "may submit a new one or join a profile. 409 kyc_managed_by_profile when the number joined a profile (detach it).",
      request: { params: numberParams },
      responses: {
        200: jsonResponse(deletedVerificationSchema, "Deleted."),
        ...errorResponses(DELETE_VERIFICATION_REFUSALS),
      },
    }),
    async (c) => {
      const { number_id } = c.req.valid("param");
      valueOrProblem(await deleteVerification(workOf(c), c.var.principal.customerId, { kind: "number", numberId: number_id }));
      return c.json(
        { message: `The verification of ${withPrefix("num", number_id)} was deleted`, deleted_at: toIso(c.var.now) },
        200,
      );
    },
  )
  .openapi(
    createRoute({
      ...operation,
      operationId: "resubmitKycVerification",
      method: "post",
      path: "/numbers/{number_id}/KYC/resubmit",
      summary: "Resubmit a rejected verification unchanged",
      description:
        "Re-opens a rejected verification as it is (after replacing the documents a reason named, for example): status " +
        "pending, rejection_reason and rejection_reasons cleared, reviewed_at null (kyc.updated). 409 otherwise.",
      request: { params: numberParams },
      responses: {
        200: jsonResponse(verificationSchema, "The re-opened verification."),
        ...errorResponses(RESUBMIT_REFUSALS),
      },
    }),
    async (c) => {
      const { number_id } = c.req.valid("param");
      const reopened = valueOrProblem(
        await resubmit(workOf(c), c.var.principal.customerId, { kind: "number", numberId: number_id }),
      );
      return c.json(toVerification(reopened.verification, reopened.documents), 200);
    },
  )
  .openapi(
    createRoute({
      ...operation,
      operationId: "evaluateKycVerification",
      method: "get",
      path: "/numbers/{number_id}/KYC/evaluation",
      summary: "Evaluate the number's verification against its requirements",
      description:
        "The number's verification (its own or its profile's) against the requirements of the number's " +
        "(country_code, number_type): each requirement met, unmet (with reasons) or not applicable. Without a " +
        "verification every requirement is unmet with not_submitted. The review status is not a rule.",
      request: { params: numberParams },
      responses: {
        200: jsonResponse(evaluationSchema, "The evaluation."),
        ...errorResponses(["not_found"]),
      },
    }),
    async (c) => {
      const { number_id } = c.req.valid("param");
      const evaluation = await evaluateNumber(c.var.db, c.var.principal.customerId, number_id, c.var.now);
      if (!evaluation) throw notFound("Number");
      return c.json(evaluation, 200);
    },
  );
