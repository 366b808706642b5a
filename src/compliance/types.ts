// The compliance vocabulary (COMPLIANCE.md): what a catalog pair requires of a verification, the evaluation's reason
// codes, and the reviewer's rejection reasons. Stored as the API shows them (JSON columns of catalog,
// kyc_verifications and kyc_documents), so reading one back needs no mapping.
import type { DocumentType, KycType } from "../db/schema.ts";

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

/** A requirement's key: unique in its set. */
export const REQUIREMENT_KEY_PATTERN = /^[a-z][a-z0-9_]{0,39}$/;

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

/** Why a requirement is unmet: a closed set, declared in the API description. */
export const EVALUATION_CODES = [
  "not_submitted",
  "verification_type_not_accepted",
  "field_missing",
  "address_not_in_country",
  "document_missing",
  "document_expired",
  "document_rejected",
  "verification_expired",
] as const;
export type EvaluationCode = (typeof EVALUATION_CODES)[number];

export const REQUIREMENT_STATUSES = ["met", "unmet", "not_applicable"] as const;
export type RequirementStatus = (typeof REQUIREMENT_STATUSES)[number];

export interface EvaluationReason {
  code: EvaluationCode;
  detail: string;
  field?: RequirementField;
  document_id?: string;
}

export interface RequirementResult {
  /** `verification_type`, `address`, `field:<name>` or `document:<key>`. */
  requirement: string;
  status: RequirementStatus;
  reasons: EvaluationReason[];
}

export interface Evaluation {
  country_code: string;
  number_type: string;
  kyc_required: boolean;
  compliant: boolean;
  results: RequirementResult[];
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

/** The fields the spec gives for a business's verification; a person's may give them too. */
const BUSINESS_FIELDS: readonly VerificationField[] = ["company_name", "tax_id", "contact_person"];

/** What decides a verification's fields: its type, and which of a business's fields it gave. */
export interface VerificationShape {
  type: KycType;
  companyName: string | null;
  taxId: string | null;
  contactPerson: string | null;
}

/**
 * The fields a verification has, which its rejection's reasons may name (COMPLIANCE.md) and the review form and the
 * details list: every field of a business's; a person's has a business's fields only when it gave them.
 */
export function verificationFieldsOf(verification: VerificationShape): readonly VerificationField[] {
  if (verification.type === "business") return VERIFICATION_FIELDS;
  const given: Record<string, string | null> = {
    company_name: verification.companyName,
    tax_id: verification.taxId,
    contact_person: verification.contactPerson,
  };
  return VERIFICATION_FIELDS.filter((field) => !BUSINESS_FIELDS.includes(field) || given[field] !== null);
}

/** One reason of a rejection, as stored and shown: `document_id` prefixed (`doc_…`). */
export interface RejectionReason {
  code: RejectionCode;
  document_id?: string;
  field?: VerificationField;
  note?: string;
}
