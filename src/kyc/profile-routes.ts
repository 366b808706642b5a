// Customer API routes for KYC profiles: a verification made once and used for many numbers.
import { createRoute, z } from "@hono/zod-openapi";
import { evaluationSchema } from "../compliance/schemas.ts";
import { customerSlugParam } from "../customers/schemas.ts";
import { pageWindow } from "../db/paging.ts";
import type { CustomerEnv } from "../env.ts";
import { prefixedIdParam } from "../http/fields.ts";
import { readsOwnMultipartBody } from "../http/multipart.ts";
import { API_KEY_SECURITY, errorResponses, jsonBody, jsonResponse, locationHeader } from "../http/openapi.ts";
import { pageMeta } from "../http/pagination.ts";
import { publicOrigin } from "../http/public-origin.ts";
import { takesLargeBody } from "../http/request-body.ts";
import { workOf } from "../http/request-context.ts";
import { createRouter } from "../http/router.ts";
import { withPrefix } from "../lib/ids.ts";
import { notFound, valueOrProblem } from "../lib/problem.ts";
import { toIso } from "../lib/time.ts";
import { evaluateProfile } from "./evaluations.ts";
import { MAX_ATTACH } from "./profile-numbers.ts";
import { findProfile, listProfiles } from "./profiles-store.ts";
import {
  attachReportSchema,
  createProfileBody,
  deletedVerificationSchema,
  detachReportSchema,
  documentSchema,
  evaluationPairQuery,
  listProfilesQuery,
  profileNumbersBody,
  profilePageSchema,
  profileSchema,
  toAddressChanges,
  toAttachReport,
  toDetachReport,
  toDocument,
  toNewVerification,
  toNumberSelection,
  toProfile,
  toProfileListQuery,
  updateProfileBody,
  uploadFormSchema,
} from "./schemas.ts";
import { MAX_DOCUMENTS } from "./store.ts";
import { apiUploadReader, UPLOAD_FILE_REFUSALS } from "./upload.ts";
import {
  AMEND_ADDRESS_REFUSALS,
  amendAddress,
  attachToProfile,
  createProfile,
  DELETE_VERIFICATION_REFUSALS,
  deleteVerification,
  detachFromProfile,
  PROFILE_NUMBERS_REFUSALS,
  RESUBMIT_REFUSALS,
  resubmit,
  UPLOAD_REFUSALS,
  uploadDocument,
} from "./use-cases.ts";

/** An attach or detach body of 10,000 ids is about 400 KiB. */
const ATTACH_BODY_BYTES = 512 * 1024;

const slugParams = z.object({ customer_slug: customerSlugParam });
const profileParams = slugParams.extend({ profile_id: prefixedIdParam("kyp", "profile_id") });
const operation = { tags: ["KYC profiles"], security: API_KEY_SECURITY };
const profilePath = (slug: string, profileId: string) => `/api/customers/${slug}/kyc-profiles/${withPrefix("kyp", profileId)}`;

export const profileRoutes = createRouter<CustomerEnv>()
  .openapi(
    createRoute({
      ...operation,
      operationId: "createKycProfile",
      method: "post",
      path: "/customers/{customer_slug}/kyc-profiles",
      summary: "Create a profile",
      description:
        "A name and exactly the body of a number's address submission (company_name required for business): a " +
        "verification that numbers join, status pending, no documents (kyc_profile.submitted).",
      request: { params: slugParams, body: jsonBody(createProfileBody) },
      responses: {
        201: { ...jsonResponse(profileSchema, "The profile."), headers: locationHeader },
      },
    }),
    async (c) => {
      const { name, ...address } = c.req.valid("json");
      const profile = await createProfile(workOf(c), c.var.principal.customerId, name, toNewVerification(address));
      c.header("Location", profilePath(c.req.valid("param").customer_slug, profile.id));
      return c.json(toProfile(profile, [], 0), 201);
    },
  )
  .openapi(
    createRoute({
      ...operation,
      operationId: "listKycProfiles",
      method: "get",
      path: "/customers/{customer_slug}/kyc-profiles",
      summary: "List profiles",
      request: { params: slugParams, query: listProfilesQuery },
      responses: {
        200: jsonResponse(profilePageSchema, "A page of profiles."),
      },
    }),
    async (c) => {
      const query = c.req.valid("query");
      const window = pageWindow(query.page, query.limit);
      const { rows, total } = await listProfiles(c.var.db, c.var.principal.customerId, toProfileListQuery(query), window);
      return c.json(
        { data: rows.map((r) => toProfile(r.verification, r.documents, r.numberCount)), meta: pageMeta(window, total) },
        200,
      );
    },
  )
  .openapi(
    createRoute({
      ...operation,
      operationId: "getKycProfile",
      method: "get",
      path: "/customers/{customer_slug}/kyc-profiles/{profile_id}",
      summary: "Read a profile",
      request: { params: profileParams },
      responses: {
        200: jsonResponse(profileSchema, "The profile with its documents."),
        ...errorResponses(["not_found"]),
      },
    }),
    async (c) => {
      const found = await findProfile(c.var.db, c.var.principal.customerId, c.req.valid("param").profile_id);
      if (!found) throw notFound("Profile");
      return c.json(toProfile(found.verification, found.documents, found.numberCount), 200);
    },
  )
  .openapi(
    createRoute({
      ...operation,
      operationId: "updateKycProfile",
      method: "patch",
      path: "/customers/{customer_slug}/kyc-profiles/{profile_id}",
      summary: "Amend a profile",
      description:
        "The rules of a number's address PATCH (pending or rejected, or approved from 60 days before expires_at; each " +
        "re-opens it, kyc_profile.updated). A PATCH of name alone is allowed in any state and re-opens nothing.",
      request: { params: profileParams, body: jsonBody(updateProfileBody) },
      responses: {
        200: jsonResponse(profileSchema, "The amended profile."),
        ...errorResponses(AMEND_ADDRESS_REFUSALS),
      },
    }),
    async (c) => {
      const { profile_id } = c.req.valid("param");
      const { name, ...address } = c.req.valid("json");
      const changes = { ...toAddressChanges(address), name };
      const subject = { kind: "profile", profileId: profile_id } as const;
      const amended = valueOrProblem(await amendAddress(workOf(c), c.var.principal.customerId, subject, changes));
      return c.json(toProfile(amended.verification, amended.documents, amended.numberCount), 200);
    },
  )
  .openapi(
    createRoute({
      ...operation,
      operationId: "deleteKycProfile",
      method: "delete",
      path: "/customers/{customer_slug}/kyc-profiles/{profile_id}",
      summary: "Delete a profile",
      description:
        "Only with no number attached and no pending or processing order naming it (else 409 conflict); its documents " +
        "go with it (kyc_profile.deleted).",
      request: { params: profileParams },
      responses: {
        200: jsonResponse(deletedVerificationSchema, "Deleted."),
        ...errorResponses(DELETE_VERIFICATION_REFUSALS),
      },
    }),
    async (c) => {
      const { profile_id } = c.req.valid("param");
      valueOrProblem(await deleteVerification(workOf(c), c.var.principal.customerId, { kind: "profile", profileId: profile_id }));
      return c.json({ message: `Profile ${withPrefix("kyp", profile_id)} deleted`, deleted_at: toIso(c.var.now) }, 200);
    },
  )
  .openapi(
    createRoute({
      ...operation,
      operationId: "uploadKycProfileDocument",
      middleware: [readsOwnMultipartBody] as const,
      method: "post",
      path: "/customers/{customer_slug}/kyc-profiles/{profile_id}/files",
      summary: "Upload a supporting file to a profile",
      description:
        `Every rule of a number's upload; at most ${MAX_DOCUMENTS} documents. The document's kyc_id is the profile's ` +
        "kyp_ id; it is downloaded and deleted through /v1/kyc/documents/{document_id} (kyc_profile.document_uploaded).",
      request: {
        params: profileParams,
        body: { required: true, content: { "multipart/form-data": { schema: uploadFormSchema } } },
      },
      responses: {
        201: { ...jsonResponse(documentSchema, "The stored document."), headers: locationHeader },
        ...errorResponses([...UPLOAD_REFUSALS, ...UPLOAD_FILE_REFUSALS]),
      },
    }),
    async (c) => {
      const work = workOf(c);
      const subject = { kind: "profile", profileId: c.req.valid("param").profile_id } as const;
      const reader = apiUploadReader(c.req.raw, work.now);
      const stored = valueOrProblem(await uploadDocument(work, c.var.principal.customerId, subject, reader));
      c.header("Location", `/v1/kyc/documents/${withPrefix("doc", stored.id)}/download`);
      return c.json(toDocument(stored, publicOrigin(c), true), 201);
    },
  )
  .openapi(
    createRoute({
      ...operation,
      operationId: "resubmitKycProfile",
      method: "post",
      path: "/customers/{customer_slug}/kyc-profiles/{profile_id}/resubmit",
      summary: "Resubmit a rejected profile unchanged",
      description: "Status pending, rejection_reason and rejection_reasons cleared, reviewed_at null (kyc_profile.updated).",
      request: { params: profileParams },
      responses: {
        200: jsonResponse(profileSchema, "The re-opened profile."),
        ...errorResponses(RESUBMIT_REFUSALS),
      },
    }),
    async (c) => {
      const { profile_id } = c.req.valid("param");
      const subject = { kind: "profile", profileId: profile_id } as const;
      const reopened = valueOrProblem(await resubmit(workOf(c), c.var.principal.customerId, subject));
      return c.json(toProfile(reopened.verification, reopened.documents, reopened.numberCount), 200);
    },
  )
  .openapi(
    createRoute({
      ...operation,
      operationId: "evaluateKycProfile",
      method: "get",
      path: "/customers/{customer_slug}/kyc-profiles/{profile_id}/evaluation",
      summary: "Evaluate a profile against an orderable pair",
      description: "The profile against the requirements of any orderable (country_code, number_type); 404 when not orderable.",
      request: { params: profileParams, query: evaluationPairQuery },
      responses: {
        200: jsonResponse(evaluationSchema, "The evaluation."),
        ...errorResponses(["not_found"]),
      },
    }),
    async (c) => {
      const { country_code, number_type } = c.req.valid("query");
      const pair = { countryCode: country_code, numberType: number_type };
      const evaluation = await evaluateProfile(
        c.var.db,
        c.var.principal.customerId,
        c.req.valid("param").profile_id,
        pair,
        c.var.now,
      );
      if (evaluation === undefined) throw notFound("Profile");
      if (evaluation === null) throw notFound("Catalog pair");
      return c.json(evaluation, 200);
    },
  )
  .openapi(
    createRoute({
      ...operation,
      operationId: "attachKycProfileNumbers",
      middleware: [takesLargeBody({ "application/json": ATTACH_BODY_BYTES })] as const,
      method: "post",
      path: "/customers/{customer_slug}/kyc-profiles/{profile_id}/numbers",
      summary: "Attach numbers to a profile",
      description:
        `By ids (1 to ${MAX_ATTACH.toLocaleString("en-US")}, repeats counted once) or every number of an order; ` +
        "each all or nothing. A number is refused when unknown (not_found), when released (number_released: restore it " +
        "first), when it has a verification of its own " +
        "(has_own_verification: delete it first), when attached to another profile, or when the profile does not " +
        "meet its pair's requirements (requirements_not_met). Attached numbers' verification is the profile's, " +
        `under an id of their own. One kyc_profile.numbers_attached event per 1,000 numbers. Body up to ${ATTACH_BODY_BYTES / 1024} KiB.`,
      request: { params: profileParams, body: jsonBody(profileNumbersBody) },
      responses: {
        200: jsonResponse(attachReportSchema, "What happened to each number."),
        ...errorResponses(PROFILE_NUMBERS_REFUSALS),
      },
    }),
    async (c) => {
      const { profile_id } = c.req.valid("param");
      const selection = toNumberSelection(c.req.valid("json"));
      const report = valueOrProblem(await attachToProfile(workOf(c), c.var.principal.customerId, profile_id, selection));
      return c.json(toAttachReport(report), 200);
    },
  )
  .openapi(
    createRoute({
      ...operation,
      operationId: "detachKycProfileNumbers",
      middleware: [takesLargeBody({ "application/json": ATTACH_BODY_BYTES })] as const,
      method: "post",
      path: "/customers/{customer_slug}/kyc-profiles/{profile_id}/numbers/detach",
      summary: "Detach numbers from a profile",
      description:
        "The same body as the attach. Each detached number then has no verification (GET …/KYC is 404) and may submit " +
        "its own. One kyc_profile.numbers_detached event per 1,000 numbers.",
      request: { params: profileParams, body: jsonBody(profileNumbersBody) },
      responses: {
        200: jsonResponse(detachReportSchema, "What happened to each number."),
        ...errorResponses(PROFILE_NUMBERS_REFUSALS),
      },
    }),
    async (c) => {
      const { profile_id } = c.req.valid("param");
      const selection = toNumberSelection(c.req.valid("json"));
      const report = valueOrProblem(await detachFromProfile(workOf(c), c.var.principal.customerId, profile_id, selection));
      return c.json(toDetachReport(report), 200);
    },
  )
  .openapi(
    createRoute({
      ...operation,
      operationId: "detachKycProfileNumber",
      method: "delete",
      path: "/customers/{customer_slug}/kyc-profiles/{profile_id}/numbers/{number_id}",
      summary: "Detach one number from a profile",
      request: { params: profileParams.extend({ number_id: prefixedIdParam("num", "number_id") }) },
      responses: {
        200: jsonResponse(detachReportSchema, "What happened to the number."),
        ...errorResponses(PROFILE_NUMBERS_REFUSALS),
      },
    }),
    async (c) => {
      const { profile_id, number_id } = c.req.valid("param");
      const selection = { numberIds: [number_id] };
      const report = valueOrProblem(await detachFromProfile(workOf(c), c.var.principal.customerId, profile_id, selection));
      if (report.changed.length === 0) throw notFound("Number attached to this profile");
      return c.json(toDetachReport(report), 200);
    },
  );
