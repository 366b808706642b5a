// Verification views shared by the portal and the console: status, details with review reasons, evaluation checklist.
import type { Child } from "hono/jsx";
import { pairId } from "../catalog/store.ts";
import { evaluate, requirementWords } from "../compliance/evaluation.ts";
import { type Evaluation, KYC_TYPE_WORDS, verificationFieldsOf } from "../compliance/types.ts";
import type { CatalogRow, DocumentRow, KycRow, RejectionReason, Requirements, VerificationField } from "../db/schema.ts";
import { withPrefix } from "../lib/ids.ts";
import { capitalised, words } from "../lib/words.ts";
import { Badge } from "../ui/components.tsx";
import { date, dateTime } from "../ui/format.ts";
import { Select } from "../ui/forms.tsx";

/** A form's posted values and the error beside each field. */
export interface FormState {
  values: Record<string, string>;
  errors: Record<string, string>;
}

/** Each verification field as a page names it: its label in the form, and in the details. */
export const FIELD_LABELS: Record<VerificationField, string> = {
  verification_type: "Verification for",
  address_line_1: "Address line 1",
  address_line_2: "Address line 2",
  city: "City",
  state_province: "State or province",
  postal_code: "Postal code",
  country: "Country",
  company_name: "Company name",
  tax_id: "Tax ID",
  contact_person: "Contact person",
  phone_number: "Phone number",
  email: "E-mail",
};

/** A reviewer's reason: "Document illegible: the scan is cut off". */
export function reasonWords(reason: RejectionReason): string {
  return reason.note ? `${capitalised(reason.code)}: ${reason.note}` : capitalised(reason.code);
}

/** A rejection's reasons as a list. */
export function ReasonList({ reasons, label }: { reasons: readonly RejectionReason[]; label: string }) {
  return reasons.length === 0 ? null : (
    <ul class="reasons" aria-label={label}>
      {reasons.map((reason) => (
        <li>{reasonWords(reason)}</li>
      ))}
    </ul>
  );
}

/** The reasons a rejection gives about a document: its own, and the verification's that name it. */
export function reasonsOfDocument(kyc: KycRow, document: DocumentRow): RejectionReason[] {
  const id = withPrefix("doc", document.id);
  const own = document.rejectionReasons;
  const seen = new Set(own.map((reason) => JSON.stringify(reason)));
  return [...own, ...kyc.rejectionReasons.filter((reason) => reason.document_id === id && !seen.has(JSON.stringify(reason)))];
}

/** Reasons naming no field or remaining document, shown for the verification as a whole. */
export function generalReasons(kyc: KycRow, documents: readonly DocumentRow[]): RejectionReason[] {
  const present = new Set(documents.map((document) => withPrefix("doc", document.id)));
  return kyc.rejectionReasons.filter(
    (reason) => reason.field === undefined && (reason.document_id === undefined || !present.has(reason.document_id)),
  );
}

/**
 * The verification's state: status, the rejection's words and its reasons of the whole (unless `reasonsAbove`: the
 * page leads with them, RejectionFixes), expiry and times.
 */
export function StatusFacts({
  kyc,
  documents,
  reasonsAbove = false,
  children,
}: {
  kyc: KycRow;
  documents: readonly DocumentRow[];
  reasonsAbove?: boolean;
  children?: Child;
}) {
  const general = generalReasons(kyc, documents);
  return (
    <dl class="facts">
      <dt>Verification</dt>
      <dd>
        <Badge status={kyc.status} />
      </dd>
      {kyc.rejectionReason && !reasonsAbove ? (
        <>
          <dt>Rejection reason</dt>
          <dd>
            {kyc.rejectionReason}
            {general.length > 0 ? <ReasonList reasons={general} label="Reasons" /> : null}
          </dd>
        </>
      ) : null}
      {kyc.rejectionReasons.length > 0 && general.length < kyc.rejectionReasons.length && !reasonsAbove ? (
        <>
          <dt>Reasons</dt>
          <dd class="muted">Each reason is shown beside the field or document it names.</dd>
        </>
      ) : null}
      <dt>Expires</dt>
      <dd>{date(kyc.expiresAt)}</dd>
      <dt>Submitted</dt>
      <dd>{dateTime(kyc.submittedAt)}</dd>
      <dt>Reviewed</dt>
      <dd>{dateTime(kyc.reviewedAt)}</dd>
      {children}
    </dl>
  );
}

/** The verification's details (the fields its type can hold), each with the reviewer's reasons that name it beside it. */
export function DetailFacts({ kyc }: { kyc: KycRow }) {
  const values: Record<VerificationField, string | null> = {
    verification_type: KYC_TYPE_WORDS[kyc.type],
    company_name: kyc.companyName,
    address_line_1: kyc.addressLine1,
    address_line_2: kyc.addressLine2,
    city: kyc.city,
    state_province: kyc.stateProvince,
    postal_code: kyc.postalCode,
    country: kyc.country,
    tax_id: kyc.taxId,
    contact_person: kyc.contactPerson,
    phone_number: kyc.phoneNumber,
    email: kyc.email,
  };
  const held = (field: VerificationField) => verificationFieldsOf(kyc).includes(field);
  return (
    <div class="card">
      <dl class="facts">
        {(Object.keys(values) as VerificationField[]).filter(held).map((field) => {
          const reasons = kyc.rejectionReasons.filter((reason) => reason.field === field);
          return (
            <>
              <dt>{FIELD_LABELS[field]}</dt>
              <dd>
                {values[field] ?? "—"}
                <ReasonList reasons={reasons} label={`Reasons about ${FIELD_LABELS[field]}`} />
              </dd>
            </>
          );
        })}
      </dl>
    </div>
  );
}

/**
 * A profile checked against a pair of the catalog, chosen on the page (`asked`: the query's "pair"; else the first
 * with requirements, else the first): the form that chooses it and the checklist. The profile and its documents are
 * at hand, so the evaluation reads nothing.
 */
export function ProfileEvaluation({
  action,
  catalog,
  asked,
  profile,
  now,
}: {
  action: string;
  catalog: readonly CatalogRow[];
  asked: string | undefined;
  profile: { verification: KycRow; documents: DocumentRow[] };
  /** The request's time, which the evaluation judges expiry by. */
  now: number;
}) {
  const pair = catalog.find((row) => pairId(row) === asked) ?? catalog.find((row) => row.requirements !== null) ?? catalog[0];
  if (!pair) return <p class="muted">Nothing can be ordered right now, so there is nothing to check the profile against.</p>;
  return (
    <>
      <form method="get" action={action} class="filters card" aria-label="Evaluation pair">
        <Select
          name="pair"
          label="Check against"
          value={pairId(pair)}
          options={catalog.map((row) => [pairId(row), `${row.countryCode} ${words(row.numberType)}`] as const)}
          hint="A country and number type of the catalog"
        />
        <div class="actions">
          <button type="submit">Check</button>
        </div>
      </form>
      <EvaluationChecklist
        evaluation={evaluate(pair, pair.requirements ?? null, profile, now)}
        requirements={pair.requirements}
      />
    </>
  );
}

/**
 * The evaluation as a checklist: each requirement met, unmet with the reasons' words saying what to do, or not
 * applicable. `requirements` (the pair's) give document requirements their description.
 */
export function EvaluationChecklist({
  evaluation,
  requirements,
}: {
  evaluation: Evaluation;
  requirements?: Requirements | null | undefined;
}) {
  const pair = `${evaluation.country_code} ${words(evaluation.number_type)}`;
  if (!evaluation.kyc_required) return <p class="muted">Numbers of {pair} need no verification: nothing to check.</p>;
  const unmet = evaluation.results.filter((result) => result.status === "unmet").length;
  return (
    <div class="card">
      <p>
        {evaluation.compliant ? (
          <>
            <Badge status="met" /> Meets every requirement of {pair} numbers.
          </>
        ) : (
          <>
            <Badge status="unmet" /> {unmet} of {evaluation.results.length} requirements of {pair} numbers are not met.
          </>
        )}
      </p>
      <ul class="checklist" aria-label={`Requirements of ${pair} numbers`}>
        {evaluation.results.map((result) => (
          <li class={result.status}>
            <Badge status={result.status} /> <strong>{requirementWords(result.requirement, requirements)}</strong>
            {result.reasons.length > 0 ? (
              <ul>
                {result.reasons.map((reason) => (
                  <li>{reason.detail}</li>
                ))}
              </ul>
            ) : null}
          </li>
        ))}
      </ul>
    </div>
  );
}
