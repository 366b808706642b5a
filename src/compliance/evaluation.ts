// Evaluates a verification and its documents against a catalog pair's requirements (COMPLIANCE.md). Pure: no I/O.
import type { DocumentRequirement, DocumentRow, KycRow, KycType, RequirementField, Requirements } from "../db/schema.ts";
import { withPrefix } from "../lib/ids.ts";
import { todayUtc, toIso } from "../lib/time.ts";
import { words } from "../lib/words.ts";
import { type Evaluation, type EvaluationReason, KYC_TYPE_NOUNS, type RequirementResult } from "./types.ts";

export type EvaluatedVerification = Pick<
  KycRow,
  | "type"
  | "status"
  | "country"
  | "expiresAt"
  | "addressLine2"
  | "companyName"
  | "taxId"
  | "contactPerson"
  | "phoneNumber"
  | "email"
>;
export type EvaluatedDocument = Pick<DocumentRow, "id" | "documentType" | "status" | "expirationDate" | "filename">;
export interface Pair {
  countryCode: string;
  numberType: string;
}

/** The verification's column holding each requirable field. */
const FIELD_COLUMN = {
  company_name: "companyName",
  tax_id: "taxId",
  contact_person: "contactPerson",
  phone_number: "phoneNumber",
  email: "email",
  address_line_2: "addressLine2",
} as const satisfies Record<RequirementField, keyof EvaluatedVerification>;

/** Field labels for a reason's detail. */
const FIELD_WORDS: Record<RequirementField, string> = {
  company_name: "the company name",
  tax_id: "the tax ID",
  contact_person: "the contact person",
  phone_number: "the phone number",
  email: "the email address",
  address_line_2: "the second address line",
};

/**
 * A requirement's label ("Verification type", "Tax ID", "Document: A passport"); a document requirement uses its
 * description when available, else its key ("Document “proof”").
 */
export function requirementWords(requirement: string, requirements?: Requirements | null): string {
  if (requirement === "verification_type") return "Verification type";
  if (requirement === "address") return "Address";
  const [kind, name = ""] = requirement.split(":", 2);
  if (kind === "field") {
    const field = FIELD_WORDS[name as RequirementField]?.replace(/^the /, "") ?? words(name);
    return field.charAt(0).toUpperCase() + field.slice(1);
  }
  const document = requirements?.documents.find((d) => d.key === name);
  return document?.description ? `Document: ${document.description}` : `Document “${words(name)}”`;
}

/** Every unmet reason with its detail text; the only place that text is defined. */
const reason = {
  notSubmitted: (): EvaluationReason => ({ code: "not_submitted", detail: "Submit the verification's address details first" }),
  typeNotAccepted: (accepted: KycType[]): EvaluationReason => ({
    code: "verification_type_not_accepted",
    detail: `This number accepts only a verification of ${accepted.map((type) => KYC_TYPE_NOUNS[type]).join(" or ")}`,
  }),
  verificationExpired: (expiresAt: number): EvaluationReason => ({
    code: "verification_expired",
    detail: `The verification expired on ${toIso(expiresAt).slice(0, 10)}; amend it to renew`,
  }),
  addressNotInCountry: (countryCode: string): EvaluationReason => ({
    code: "address_not_in_country",
    detail: `The address must be in ${countryCode}`,
  }),
  fieldMissing: (field: RequirementField): EvaluationReason => ({
    code: "field_missing",
    detail: `Add ${FIELD_WORDS[field]}`,
    field,
  }),
  documentMissing: (requirement: DocumentRequirement): EvaluationReason => ({
    code: "document_missing",
    detail: `Upload one of: ${requirement.document_types.map(words).join(", ")}${requirement.description ? ` (${requirement.description})` : ""}`,
  }),
  documentRejected: (document: EvaluatedDocument): EvaluationReason => ({
    code: "document_rejected",
    detail: `The document “${document.filename}” was rejected; upload a replacement`,
    document_id: withPrefix("doc", document.id),
  }),
  documentExpired: (document: EvaluatedDocument, expirationDate: string): EvaluationReason => ({
    code: "document_expired",
    detail: `The document “${document.filename}” expired on ${expirationDate}; upload a current one`,
    document_id: withPrefix("doc", document.id),
  }),
};

function result(requirement: string, reasons: EvaluationReason[]): RequirementResult {
  return { requirement, status: reasons.length === 0 ? "met" : "unmet", reasons };
}

function notApplicable(requirement: string): RequirementResult {
  return { requirement, status: "not_applicable", reasons: [] };
}

/** Every field either type requires, once each: the individual's first, in the order given. */
function fieldsOf(requirements: Requirements): RequirementField[] {
  return [...new Set([...requirements.fields.individual, ...requirements.fields.business])];
}

/** The requirements' names in order: the verification type, the address, each field once, each document requirement. */
function requirementNames(requirements: Requirements): string[] {
  return [
    "verification_type",
    "address",
    ...fieldsOf(requirements).map((field) => `field:${field}`),
    ...requirements.documents.map((document) => `document:${document.key}`),
  ];
}

function present(value: string | null): boolean {
  return value !== null && value.trim() !== "";
}

function documentResult(
  requirement: DocumentRequirement,
  verification: EvaluatedVerification,
  documents: EvaluatedDocument[],
  today: string,
): RequirementResult {
  const name = `document:${requirement.key}`;
  if (!requirement.applies_to.includes(verification.type)) return notApplicable(name);
  const qualifying = documents.filter((document) => requirement.document_types.includes(document.documentType));
  const valid = (document: EvaluatedDocument) =>
    document.status !== "rejected" && (document.expirationDate === null || document.expirationDate >= today);
  if (qualifying.some(valid)) return result(name, []);
  if (qualifying.length === 0) return result(name, [reason.documentMissing(requirement)]);
  return result(
    name,
    // Not rejected and not valid means expired (a null expiration date never is: that case is for the type checker).
    qualifying.map((document) =>
      document.status === "rejected" || document.expirationDate === null
        ? reason.documentRejected(document)
        : reason.documentExpired(document, document.expirationDate),
    ),
  );
}

/** The verification (null: none submitted) with its documents against the pair's requirements (null: none). */
export function evaluate(
  pair: Pair,
  requirements: Requirements | null,
  subject: { verification: EvaluatedVerification; documents: EvaluatedDocument[] } | null,
  now: number,
): Evaluation {
  const head = { country_code: pair.countryCode, number_type: pair.numberType };
  if (requirements === null) return { ...head, kyc_required: false, compliant: true, results: [] };
  const results =
    subject === null
      ? requirementNames(requirements).map((name) => result(name, [reason.notSubmitted()]))
      : evaluateSubmitted(pair, requirements, subject.verification, subject.documents, now);
  return { ...head, kyc_required: true, compliant: results.every((r) => r.status !== "unmet"), results };
}

function evaluateSubmitted(
  pair: Pair,
  requirements: Requirements,
  verification: EvaluatedVerification,
  documents: EvaluatedDocument[],
  now: number,
): RequirementResult[] {
  const typeReasons: EvaluationReason[] = [];
  if (!requirements.verification_types.includes(verification.type)) {
    typeReasons.push(reason.typeNotAccepted(requirements.verification_types));
  }
  if (verification.status === "approved" && verification.expiresAt !== null && verification.expiresAt <= now) {
    typeReasons.push(reason.verificationExpired(verification.expiresAt));
  }
  const addressReasons =
    requirements.address_in_country && verification.country !== pair.countryCode
      ? [reason.addressNotInCountry(pair.countryCode)]
      : [];
  const required = requirements.fields[verification.type];
  const fields = fieldsOf(requirements).map((field) => {
    const name = `field:${field}`;
    if (!required.includes(field)) return notApplicable(name);
    return result(name, present(verification[FIELD_COLUMN[field]]) ? [] : [reason.fieldMissing(field)]);
  });
  const today = todayUtc(now);
  return [
    result("verification_type", typeReasons),
    result("address", addressReasons),
    ...fields,
    ...requirements.documents.map((requirement) => documentResult(requirement, verification, documents, today)),
  ];
}
