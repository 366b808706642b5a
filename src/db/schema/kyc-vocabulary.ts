// Enums and JSON shapes stored by verification tables, matching the API's values so reads need no mapping.

export const KYC_STATUSES = ["pending", "under_review", "approved", "rejected"] as const;
export const KYC_TYPES = ["individual", "business"] as const;
export type KycStatus = (typeof KYC_STATUSES)[number];
export type KycType = (typeof KYC_TYPES)[number];

export const DOCUMENT_TYPES = [
  "identity",
  "address_proof",
  "business_registration",
  "tax_certificate",
  "utility_bill",
  "bank_statement",
  "other",
] as const;
export const DOCUMENT_STATUSES = ["uploaded", "pending_review", "verified", "rejected"] as const;
/** The types a document's content may be, judged by its bytes. */
export const DOCUMENT_MIME_TYPES = ["application/pdf", "image/jpeg", "image/png"] as const;
export type DocumentType = (typeof DOCUMENT_TYPES)[number];
export type DocumentStatus = (typeof DOCUMENT_STATUSES)[number];
export type DocumentMimeType = (typeof DOCUMENT_MIME_TYPES)[number];

/** Verification fields a pair may require beyond the always-required address. */
export const REQUIREMENT_FIELDS = [
  "company_name",
  "tax_id",
  "contact_person",
  "phone_number",
  "email",
  "address_line_2",
] as const;
export type RequirementField = (typeof REQUIREMENT_FIELDS)[number];

export interface DocumentRequirement {
  key: string;
  document_types: DocumentType[];
  applies_to: KycType[];
  description: string;
}

/** What a verification must hold for a number of one (country_code, number_type) pair. */
export interface Requirements {
  verification_types: KycType[];
  address_in_country: boolean;
  fields: Record<KycType, RequirementField[]>;
  documents: DocumentRequirement[];
}

/** Why a reviewer rejects: a closed set. */
export const REJECTION_CODES = [
  "document_illegible",
  "document_expired",
  "document_mismatch",
  "document_type_wrong",
  "document_incomplete",
  "address_unverifiable",
  "company_unverifiable",
  "field_invalid",
  "other",
] as const;
type RejectionCode = (typeof REJECTION_CODES)[number];

/** The fields of a verification: its type, and the fields its submission takes (src/kyc/schemas.ts shares these). */
export const VERIFICATION_FIELDS = [
  "verification_type",
  "address_line_1",
  "address_line_2",
  "city",
  "state_province",
  "postal_code",
  "country",
  "company_name",
  "tax_id",
  "contact_person",
  "phone_number",
  "email",
] as const;
export type VerificationField = (typeof VERIFICATION_FIELDS)[number];

/** One reason of a rejection, as stored and shown: `document_id` prefixed (`doc_…`). */
export interface RejectionReason {
  code: RejectionCode;
  document_id?: string;
  field?: VerificationField;
  note?: string;
}
