// Wire format of verifications (KYC), their documents and review.
import { z } from "@hono/zod-openapi";
import { customerSlugFilter } from "../customers/schemas.ts";
import {
  DOCUMENT_MIME_TYPES,
  DOCUMENT_STATUSES,
  DOCUMENT_TYPES,
  type DocumentRow,
  KYC_STATUSES,
  KYC_TYPES,
  type KycRow,
  REJECTION_CODES,
  VERIFICATION_FIELDS,
  type VerificationField,
} from "../db/schema.ts";
import {
  assignedCountryCodeSchema,
  calendarDateSchema,
  countryCodeSchema,
  e164Schema,
  multiLineText,
  numberTypeSchema,
  oneSelection,
  prefixedId,
  singleLineText,
  timestampSchema,
} from "../http/fields.ts";
import {
  commaList,
  countedPageSchema,
  pageQuery,
  pageSchema,
  searchQuery,
  sortByQuery,
  sortOrderQuery,
  statusCountsSchema,
} from "../http/pagination.ts";
import { MAX_FILE_BYTES, MAX_FILE_SIZE } from "../http/request-body.ts";
import { describedOnly, whenFieldsValid } from "../http/validation.ts";
import { withPrefix } from "../lib/ids.ts";
import { toIso, toIsoOrNull } from "../lib/time.ts";
import { MIN_DPI } from "./file-checks.ts";
import { ATTACH_REFUSALS, MAX_ATTACH, type NumberSelection, type NumbersReport } from "./profile-numbers.ts";
import { PROFILE_SORT_KEYS, type ProfileListQuery } from "./profiles-store.ts";
import { AWAITING_STATUSES, type QueuedVerification, type ReviewQueueQuery, SUBJECT_TYPES } from "./queue.ts";
import { REVIEW_TARGETS, type Rejection } from "./review-store.ts";
import type { AddressChanges, Attachment, NewVerification } from "./store.ts";

/** One reason of a reviewer's rejection, as the verification and the documents it names show it. */
const rejectionReasonSchema = z
  .object({
    code: z.enum(REJECTION_CODES),
    document_id: z.string().optional().openapi({ example: "doc_5c0e1f9e-8f3a-4d0b-9d7e-2a6b1c3d4e5f" }),
    field: z.enum(VERIFICATION_FIELDS).optional(),
    note: z.string().optional().openapi({ example: "The scan is cut off at the bottom" }),
  })
  .openapi("RejectionReason");

const rejectionReasonsSchema = z.array(rejectionReasonSchema).openapi({
  description: "The reviewer's structured reasons for the last rejection; [] when none.",
});

export const documentSummarySchema = z
  .object({
    id: z.string().openapi({ example: "doc_5c0e1f9e-8f3a-4d0b-9d7e-2a6b1c3d4e5f" }),
    document_type: z.enum(DOCUMENT_TYPES),
    filename: z.string().openapi({ example: "passport.pdf" }),
    status: z.enum(DOCUMENT_STATUSES),
    rejection_reasons: z.array(rejectionReasonSchema).openapi({
      description: "The reasons of the last rejection that name this document (it stays rejected until deleted); [] when none.",
    }),
    uploaded_at: timestampSchema,
  })
  .openapi("KycDocumentSummary");

export const documentSchema = z
  .object({
    id: z.string(),
    kyc_id: z.string(),
    document_type: z.enum(DOCUMENT_TYPES),
    filename: z.string(),
    file_size: z.int().openapi({ example: 482133 }),
    mime_type: z.enum(DOCUMENT_MIME_TYPES),
    description: z.string().nullable(),
    expiration_date: z.string().nullable().openapi({ format: "date", example: "2030-06-30" }),
    status: z.enum(DOCUMENT_STATUSES),
    rejection_reasons: z.array(rejectionReasonSchema),
    uploaded_at: timestampSchema,
    download_url: z.string().openapi({
      example: "https://api.example.com/v1/kyc/documents/doc_…/download",
    }),
  })
  .openapi("KycDocument");

const addressSchema = z.object({
  address_line_1: z.string(),
  address_line_2: z.string().nullable(),
  city: z.string(),
  state_province: z.string(),
  postal_code: z.string(),
  country: z.string(),
});

/** What a number's verification and a profile share. */
const verificationFields = {
  status: z.enum(KYC_STATUSES),
  type: z.enum(KYC_TYPES),
  address: addressSchema,
  company_name: z.string().nullable(),
  tax_id: z.string().nullable(),
  contact_person: z.string().nullable(),
  phone_number: z.string().nullable(),
  email: z.string().nullable(),
  documents: z.array(documentSummarySchema),
  submitted_at: timestampSchema,
  updated_at: timestampSchema.nullable().openapi({
    description: "Time of the last address update; null before the first.",
  }),
  reviewed_at: timestampSchema.nullable(),
  rejection_reason: z.string().nullable(),
  rejection_reasons: rejectionReasonsSchema,
  expires_at: timestampSchema.nullable().openapi({
    description:
      "Set on approval: one year after it; kept while a renewal is reviewed, cleared by a rejection. Past it, the " +
      "status stays approved and the evaluation says verification_expired.",
  }),
};

const profileIdField = z
  .string()
  .nullable()
  .openapi({
    description:
      "The profile the number joined (its verification is the profile's, changed through the profile only); null " +
      "on a number's own verification.",
    example: null,
  });

export const verificationSchema = z
  .object({
    id: z.string().openapi({ example: "kyc_0b7e8f5e-4a8e-4b8c-9a51-3f1f7f9c2d11" }),
    number_id: z.string().openapi({ example: "num_3f1f7f9c-2d11-4b8c-9a51-0b7e8f5e4a8e" }),
    profile_id: profileIdField,
    ...verificationFields,
  })
  .openapi("KycVerification");

export const profileSchema = z
  .object({
    id: z.string().openapi({ example: "kyp_6d1f0c2a-9b8e-4f3a-8c7d-5e4b3a2f1d0c" }),
    name: z.string().openapi({ example: "Acme GmbH, Berlin office" }),
    number_count: z.int().openapi({ description: "Numbers attached to the profile.", example: 500 }),
    ...verificationFields,
  })
  .openapi("KycProfile");

function toDocumentSummary(row: DocumentRow): z.infer<typeof documentSummarySchema> {
  return {
    id: withPrefix("doc", row.id),
    document_type: row.documentType,
    filename: row.filename,
    status: row.status,
    rejection_reasons: row.rejectionReasons,
    uploaded_at: toIso(row.uploadedAt),
  };
}

export function downloadPath(documentId: string): string {
  return `/v1/kyc/documents/${withPrefix("doc", documentId)}/download`;
}

/** A document; its kyc_id is its profile's (kyp_) when `ofProfile`. */
export function toDocument(row: DocumentRow, origin: string, ofProfile: boolean): z.infer<typeof documentSchema> {
  return {
    id: withPrefix("doc", row.id),
    kyc_id: withPrefix(ofProfile ? "kyp" : "kyc", row.kycId),
    document_type: row.documentType,
    filename: row.filename,
    file_size: row.fileSize,
    mime_type: row.mimeType,
    description: row.description,
    expiration_date: row.expirationDate,
    status: row.status,
    rejection_reasons: row.rejectionReasons,
    uploaded_at: toIso(row.uploadedAt),
    download_url: `${origin}${downloadPath(row.id)}`,
  };
}

/**
 * A number's verification: its own (`row`), or drawn from its profile (`row` the profile's, under the attachment's id).
 */
export function toVerification(
  row: KycRow,
  documents: DocumentRow[],
  attached?: { numberId: string; attachment: Attachment },
): z.infer<typeof verificationSchema> {
  return {
    id: withPrefix("kyc", attached?.attachment.kycId ?? row.id),
    number_id: withPrefix("num", attached?.numberId ?? row.numberId!),
    profile_id: attached ? withPrefix("kyp", attached.attachment.profileId) : null,
    ...toVerificationFields(row, documents),
  };
}

export function toProfile(row: KycRow, documents: DocumentRow[], numberCount: number): z.infer<typeof profileSchema> {
  return {
    id: withPrefix("kyp", row.id),
    name: row.name!,
    number_count: numberCount,
    ...toVerificationFields(row, documents),
  };
}

function toVerificationFields(row: KycRow, documents: DocumentRow[]) {
  return {
    status: row.status,
    type: row.type,
    address: {
      address_line_1: row.addressLine1,
      address_line_2: row.addressLine2,
      city: row.city,
      state_province: row.stateProvince,
      postal_code: row.postalCode,
      country: row.country,
    },
    company_name: row.companyName,
    tax_id: row.taxId,
    contact_person: row.contactPerson,
    phone_number: row.phoneNumber,
    email: row.email,
    documents: documents.map(toDocumentSummary),
    submitted_at: toIso(row.submittedAt),
    updated_at: toIsoOrNull(row.updatedAt),
    reviewed_at: toIsoOrNull(row.reviewedAt),
    rejection_reason: row.rejectionReason,
    rejection_reasons: row.rejectionReasons,
    expires_at: toIsoOrNull(row.expiresAt),
  };
}

const text = (example: string) => singleLineText().trim().min(1).max(200).openapi({ example });
const optionalText = (example: string) => text(example).nullable().optional();

/** The submission's fields: every verification field but its type (compliance/types.ts lists them, for both types). */
const addressFields = {
  address_line_1: text("1 Market St"),
  address_line_2: optionalText("Suite 300"),
  city: text("San Francisco"),
  state_province: text("CA"),
  postal_code: text("94105"),
  // An address names a real country: one ISO 3166-1 assigns.
  country: assignedCountryCodeSchema,
  company_name: optionalText("Acme Telecom Inc."),
  tax_id: optionalText("12-3456789"),
  contact_person: optionalText("Ada Lovelace"),
  phone_number: e164Schema.nullable().optional(),
  email: z.email().max(200).nullable().optional().openapi({ example: "kyc@acme.example" }),
} satisfies Record<Exclude<VerificationField, "verification_type">, z.ZodType>;

export const submitAddressBody = z
  .strictObject({ ...addressFields, verification_type: z.enum(KYC_TYPES) })
  .refine((body) => body.verification_type !== "business" || (body.company_name ?? null) !== null, {
    path: ["company_name"],
    error: "is required for business verification",
    when: whenFieldsValid("verification_type", "company_name"),
  })
  .openapi("SubmitKycAddress");

export const updateAddressBody = z
  .strictObject({
    address_line_1: addressFields.address_line_1.optional(),
    address_line_2: addressFields.address_line_2,
    city: addressFields.city.optional(),
    state_province: addressFields.state_province.optional(),
    postal_code: addressFields.postal_code.optional(),
    country: addressFields.country.optional(),
    // Not nullable here: a business verification cannot lose its company name.
    company_name: text("Acme Telecom Inc.").optional(),
    tax_id: addressFields.tax_id,
    contact_person: addressFields.contact_person,
    phone_number: addressFields.phone_number,
    email: addressFields.email,
  })
  .refine((body) => Object.keys(body).length > 0, {
    error: "must contain at least one field to change",
  })
  .openapi("UpdateKycAddress");

/** The submitted address as the store takes it (the store stores an absent optional field as null). */
export function toNewVerification(body: z.infer<typeof submitAddressBody>): NewVerification {
  return {
    type: body.verification_type,
    addressLine1: body.address_line_1,
    addressLine2: body.address_line_2,
    city: body.city,
    stateProvince: body.state_province,
    postalCode: body.postal_code,
    country: body.country,
    companyName: body.company_name,
    taxId: body.tax_id,
    contactPerson: body.contact_person,
    phoneNumber: body.phone_number,
    email: body.email,
  };
}

/** The named fields of an address update as the store takes them (null clears an optional field). */
export function toAddressChanges(body: z.infer<typeof updateAddressBody>): AddressChanges {
  return {
    addressLine1: body.address_line_1,
    addressLine2: body.address_line_2,
    city: body.city,
    stateProvince: body.state_province,
    postalCode: body.postal_code,
    country: body.country,
    companyName: body.company_name,
    taxId: body.tax_id,
    contactPerson: body.contact_person,
    phoneNumber: body.phone_number,
    email: body.email,
  };
}

/** The text fields of the multipart upload; the file itself is judged by its bytes. */
export const uploadFields = z.strictObject({
  document_type: z.enum(DOCUMENT_TYPES),
  description: multiLineText().max(500).optional(),
  expiration_date: calendarDateSchema.optional().meta({ description: "YYYY-MM-DD, not in the past." }),
});

/** The upload's file rules as text, for the API description and the portal's field hint. */
export const UPLOAD_RULE = `PDF, JPEG or PNG, at most ${MAX_FILE_SIZE}; an image at least ${MIN_DPI} DPI when it states a resolution`;

/** The multipart body as the API description shows it (the route reads it itself, bounded). */
export const uploadFormSchema = describedOnly(
  uploadFields.extend({
    file: z.file().meta({
      description: `${UPLOAD_RULE}. At most ${MAX_FILE_BYTES.toLocaleString("en-US")} bytes; a JPEG's name ends in .jpg or .jpeg.`,
    }),
  }),
);

/** At most this many reasons in one rejection. */
const MAX_REJECTION_REASONS = 50;

export const reviewBody = z
  .strictObject({
    status: z.enum(REVIEW_TARGETS),
    rejection_reason: singleLineText().trim().min(1).max(1000).optional(),
    reasons: z
      .array(
        z.strictObject({
          code: z.enum(REJECTION_CODES),
          document_id: prefixedId("doc").optional().meta({ description: "A document of this verification." }),
          field: z.enum(VERIFICATION_FIELDS).optional().meta({ description: "A field of this verification." }),
          note: singleLineText().trim().min(1).max(500).optional(),
        }),
      )
      .max(MAX_REJECTION_REASONS)
      .optional()
      .meta({
        description:
          "Structured reasons, only when rejecting. A reason naming a document_id rejects that document (the others " +
          "keep pending_review); without reasons every document is rejected.",
      }),
  })
  .refine((body) => body.status === "rejected" || body.reasons === undefined, {
    path: ["reasons"],
    error: "is allowed only when rejecting",
    when: whenFieldsValid("status", "reasons"),
  })
  .refine((body) => body.status !== "rejected" || body.rejection_reason !== undefined, {
    path: ["rejection_reason"],
    error: "is required when rejecting",
    when: whenFieldsValid("status", "rejection_reason"),
  })
  .refine((body) => body.status === "rejected" || body.rejection_reason === undefined, {
    path: ["rejection_reason"],
    error: "is allowed only when rejecting",
    when: whenFieldsValid("status", "rejection_reason"),
  })
  .openapi("KycReview");

/** The rejection a review body asks for (reasons as stored and shown, document ids prefixed); undefined unless rejecting. */
export function toRejection(body: z.output<typeof reviewBody>): Rejection | undefined {
  if (body.status !== "rejected") return undefined;
  return {
    reason: body.rejection_reason!,
    reasons: (body.reasons ?? []).map(({ document_id, ...reason }) => ({
      ...reason,
      ...(document_id === undefined ? {} : { document_id: withPrefix("doc", document_id) }),
    })),
  };
}

export const deletedDocumentSchema = z.object({ message: z.string(), deleted_at: timestampSchema }).openapi("KycDocumentDeleted");
export const deletedVerificationSchema = z
  .object({ message: z.string(), deleted_at: timestampSchema })
  .openapi("KycVerificationDeleted");

/** The operator's review queue: every account's verifications, awaiting staff unless asked for others, oldest first. */
export const reviewQueueQuery = z.object({
  page: pageQuery.page,
  limit: pageQuery.limit,
  status: commaList(z.enum(KYC_STATUSES), "status", `Verification statuses; default ${AWAITING_STATUSES.join(",")}.`),
  customer_slug: customerSlugFilter,
  subject_type: z
    .enum(SUBJECT_TYPES)
    .optional()
    .openapi({ param: { name: "subject_type", in: "query" }, description: "What is verified: a number, or a profile." }),
  country_code: commaList(countryCodeSchema, "country_code", "The number's country codes (profiles left out)."),
  number_type: commaList(numberTypeSchema, "number_type", "The number's types (profiles left out)."),
  sort_order: sortOrderQuery("asc"),
});

export function toReviewQueueQuery(q: z.infer<typeof reviewQueueQuery>): ReviewQueueQuery {
  return {
    statuses: q.status ?? AWAITING_STATUSES,
    customerSlug: q.customer_slug,
    subjectType: q.subject_type,
    countryCodes: q.country_code,
    numberTypes: q.number_type,
    sortOrder: q.sort_order,
  };
}

/**
 * A verification in the review queue: a number's or a profile's. Its own object rather than an extension of
 * KycVerification, which the description would write as an allOf that a profile's null number_id can never satisfy.
 */
export const queuedVerificationSchema = z
  .object({
    id: z.string().openapi({ description: "kyc_… for a number's verification, kyp_… for a profile." }),
    number_id: z.string().nullable().openapi({ description: "The number verified; null for a profile." }),
    profile_id: profileIdField,
    ...verificationFields,
    name: z.string().nullable().openapi({ description: "A profile's name; null for a number's verification." }),
    customer_slug: z.string(),
    subject: z.object({
      type: z.enum(SUBJECT_TYPES),
      id: z.string().openapi({ example: "num_3f1f7f9c-2d11-4b8c-9a51-0b7e8f5e4a8e" }),
      phone_number: z.string().optional().openapi({ description: "A number's phone number (E.164); absent for a profile." }),
      country_code: z.string().optional(),
      number_type: z.string().optional(),
    }),
  })
  .openapi("QueuedVerification");

export const reviewQueuePageSchema = countedPageSchema(
  queuedVerificationSchema,
  "ReviewQueue",
  statusCountsSchema(KYC_STATUSES, "KycStatusCounts"),
);

export function toQueuedVerification(row: QueuedVerification): z.infer<typeof queuedVerificationSchema> {
  const { verification, documents, number } = row;
  if (number === null) {
    return {
      ...toVerification({ ...verification, numberId: "" }, documents),
      id: withPrefix("kyp", verification.id),
      number_id: null,
      name: verification.name,
      customer_slug: row.customerSlug,
      subject: { type: "profile", id: withPrefix("kyp", verification.id) },
    };
  }
  return {
    ...toVerification(verification, documents),
    name: null,
    customer_slug: row.customerSlug,
    subject: {
      type: "number",
      id: withPrefix("num", number.id),
      phone_number: number.phoneNumber,
      country_code: number.countryCode,
      number_type: number.numberType,
    },
  };
}

/** A new profile: a name, and exactly the body of a number's address submission. */
export const createProfileBody = z
  .strictObject({ name: text("Acme GmbH, Berlin office").max(100), ...addressFields, verification_type: z.enum(KYC_TYPES) })
  .refine((body) => body.verification_type !== "business" || (body.company_name ?? null) !== null, {
    path: ["company_name"],
    error: "is required for business verification",
    when: whenFieldsValid("verification_type", "company_name"),
  })
  .openapi("CreateKycProfile");

/** A profile's amendment: its name (alone, in any state, re-opening nothing), and the address update's fields. */
export const updateProfileBody = z
  .strictObject({ name: text("Acme GmbH, Berlin office").max(100).optional(), ...updateAddressBody.shape })
  .refine((body) => Object.keys(body).length > 0, {
    error: "must contain at least one field to change",
  })
  .openapi("UpdateKycProfile");

export const listProfilesQuery = z.object({
  ...pageQuery,
  status: commaList(z.enum(KYC_STATUSES), "status", "Profile statuses."),
  type: z
    .enum(KYC_TYPES)
    .optional()
    .openapi({ param: { name: "type", in: "query" }, description: "The verification type." }),
  search: searchQuery.openapi({ description: "A part of the name, any case." }),
  sort_by: sortByQuery(PROFILE_SORT_KEYS, "created_at"),
});

export function toProfileListQuery(q: z.infer<typeof listProfilesQuery>): ProfileListQuery {
  return { statuses: q.status, type: q.type, search: q.search, sortBy: q.sort_by, sortOrder: q.sort_order };
}

export const profilePageSchema = pageSchema(profileSchema, "KycProfile");

/** The body of an attach or a detach: numbers by id, or every number of an order. */
export const profileNumbersBody = z
  .strictObject({
    number_ids: z
      .array(prefixedId("num"))
      .min(1)
      .max(MAX_ATTACH)
      .optional()
      .meta({ description: `1 to ${MAX_ATTACH.toLocaleString("en-US")} ids, num_<uuid> or bare; a repeated id counts once.` }),
    order_id: z.uuid().optional().meta({ description: "Instead: every number of this order of the account." }),
  })
  .superRefine(oneSelection)
  .openapi("KycProfileNumbers");

export function toNumberSelection(body: z.output<typeof profileNumbersBody>): NumberSelection {
  return body.order_id !== undefined ? { orderId: body.order_id } : { numberIds: body.number_ids ?? [] };
}

const refusedNumberSchema = z.object({
  number_id: z.string(),
  code: z.enum(ATTACH_REFUSALS),
  detail: z.string(),
});

export const attachReportSchema = z
  .object({
    attached: z.array(z.string()).openapi({ description: "The numbers this request attached." }),
    already_attached: z.array(z.string()).openapi({ description: "The numbers attached to this profile already." }),
    refused: z.array(refusedNumberSchema),
  })
  .openapi("KycProfileAttachReport");

export const detachReportSchema = z
  .object({
    detached: z.array(z.string()).openapi({ description: "The numbers this request detached." }),
    already_detached: z.array(z.string()).openapi({ description: "The account's numbers attached to no profile." }),
    refused: z.array(refusedNumberSchema),
  })
  .openapi("KycProfileDetachReport");

export function toAttachReport(report: NumbersReport): z.infer<typeof attachReportSchema> {
  return {
    attached: report.changed.map((id) => withPrefix("num", id)),
    already_attached: report.unchanged.map((id) => withPrefix("num", id)),
    refused: report.refused.map((r) => ({ number_id: r.numberId, code: r.code, detail: r.detail })),
  };
}

export function toDetachReport(report: NumbersReport): z.infer<typeof detachReportSchema> {
  return {
    detached: report.changed.map((id) => withPrefix("num", id)),
    already_detached: report.unchanged.map((id) => withPrefix("num", id)),
    refused: report.refused.map((r) => ({ number_id: r.numberId, code: r.code, detail: r.detail })),
  };
}

export const evaluationPairQuery = z.object({
  country_code: countryCodeSchema.openapi({ param: { name: "country_code", in: "query" } }),
  number_type: numberTypeSchema.openapi({ param: { name: "number_type", in: "query" } }),
});
