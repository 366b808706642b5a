// Compliance types and labels (COMPLIANCE.md); the stored enums are in src/db/schema/kyc-vocabulary.ts.
import { type KycType, type RequirementField, VERIFICATION_FIELDS, type VerificationField } from "../db/schema.ts";

/** Who a verification is of, as a choice reads it. */
export const KYC_TYPE_WORDS: Record<KycType, string> = { individual: "A person", business: "A business" };

/** The same within a sentence: "a verification of a business". */
export const KYC_TYPE_NOUNS: Record<KycType, string> = { individual: "a person", business: "a business" };

/** A requirement's key: unique in its set. */
export const REQUIREMENT_KEY_PATTERN = /^[a-z][a-z0-9_]{0,39}$/;

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
