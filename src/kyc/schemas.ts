// Wire format of number verification (KYC): the verification and document objects, address bodies, review body.
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
} from "../db/schema.ts";
import {
  calendarDateSchema,
  countryCodeSchema,
  e164Schema,
  multiLineText,
  numberTypeSchema,
  singleLineText,
  timestampSchema,
} from "../http/fields.ts";
import { commaList, countedPageSchema, pageQuery, sortOrderQuery, statusCountsSchema } from "../http/pagination.ts";
import { MAX_FILE_BYTES, MAX_FILE_SIZE } from "../http/request-body.ts";
import { describedOnly, whenFieldsValid } from "../http/validation.ts";
import { withPrefix } from "../lib/ids.ts";
import { toIso, toIsoOrNull } from "../lib/time.ts";
import { AWAITING_STATUSES, type QueuedVerification, type ReviewQueueQuery, SUBJECT_TYPES } from "./queue.ts";
import { type AddressChanges, type NewVerification, REVIEW_TARGETS } from "./store.ts";

export const documentSummarySchema = z
  .object({
    id: z.string().openapi({ example: "doc_5c0e1f9e-8f3a-4d0b-9d7e-2a6b1c3d4e5f" }),
    document_type: z.enum(DOCUMENT_TYPES),
    filename: z.string().openapi({ example: "passport.pdf" }),
    status: z.enum(DOCUMENT_STATUSES),
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

export const verificationSchema = z
  .object({
    id: z.string().openapi({ example: "kyc_0b7e8f5e-4a8e-4b8c-9a51-3f1f7f9c2d11" }),
    number_id: z.string().openapi({ example: "num_3f1f7f9c-2d11-4b8c-9a51-0b7e8f5e4a8e" }),
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
    expires_at: timestampSchema.nullable().openapi({ description: "Set on approval: one year after it." }),
  })
  .openapi("KycVerification");

function toDocumentSummary(row: DocumentRow): z.infer<typeof documentSummarySchema> {
  return {
    id: withPrefix("doc", row.id),
    document_type: row.documentType,
    filename: row.filename,
    status: row.status,
    uploaded_at: toIso(row.uploadedAt),
  };
}

export function downloadPath(documentId: string): string {
  return `/v1/kyc/documents/${withPrefix("doc", documentId)}/download`;
}

export function toDocument(row: DocumentRow, origin: string): z.infer<typeof documentSchema> {
  return {
    id: withPrefix("doc", row.id),
    kyc_id: withPrefix("kyc", row.kycId),
    document_type: row.documentType,
    filename: row.filename,
    file_size: row.fileSize,
    mime_type: row.mimeType,
    description: row.description,
    expiration_date: row.expirationDate,
    status: row.status,
    uploaded_at: toIso(row.uploadedAt),
    download_url: `${origin}${downloadPath(row.id)}`,
  };
}

export function toVerification(row: KycRow, documents: DocumentRow[]): z.infer<typeof verificationSchema> {
  return {
    id: withPrefix("kyc", row.id),
    number_id: withPrefix("num", row.numberId),
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
    expires_at: toIsoOrNull(row.expiresAt),
  };
}

const text = (example: string) => singleLineText().trim().min(1).max(200).openapi({ example });
const optionalText = (example: string) => text(example).nullable().optional();

const addressFields = {
  address_line_1: text("1 Market St"),
  address_line_2: optionalText("Suite 300"),
  city: text("San Francisco"),
  state_province: text("CA"),
  postal_code: text("94105"),
  country: countryCodeSchema,
  company_name: optionalText("Acme Telecom Inc."),
  tax_id: optionalText("12-3456789"),
  contact_person: optionalText("Ada Lovelace"),
  phone_number: e164Schema.nullable().optional(),
  email: z.email().max(200).nullable().optional().openapi({ example: "kyc@acme.example" }),
};

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

/** The multipart body as the API description shows it (the route reads it itself, bounded). */
export const uploadFormSchema = describedOnly(
  uploadFields.extend({
    file: z.file().meta({
      description:
        `PDF, JPG/JPEG or PNG, at most ${MAX_FILE_SIZE} (${MAX_FILE_BYTES.toLocaleString("en-US")} bytes); images at ` +
        "least 300 DPI when they state a resolution.",
    }),
  }),
);

export const reviewBody = z
  .strictObject({
    status: z.enum(REVIEW_TARGETS),
    rejection_reason: singleLineText().trim().min(1).max(1000).optional(),
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

export const deletedDocumentSchema = z.object({ message: z.string(), deleted_at: timestampSchema }).openapi("KycDocumentDeleted");

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

export const queuedVerificationSchema = verificationSchema
  .extend({
    customer_slug: z.string(),
    subject: z.object({
      type: z.enum(SUBJECT_TYPES),
      id: z.string().openapi({ example: "num_3f1f7f9c-2d11-4b8c-9a51-0b7e8f5e4a8e" }),
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
  return {
    ...toVerification(row.verification, row.documents),
    customer_slug: row.customerSlug,
    subject: {
      type: "number",
      id: withPrefix("num", row.number.id),
      country_code: row.number.countryCode,
      number_type: row.number.numberType,
    },
  };
}
