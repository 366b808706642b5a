// What a number's verification and a profile share on their pages, in one place: the address form and the API bodies
// it makes, the verification's status and details with a reviewer's reasons beside the field or document each names,
// the documents table, the upload form and its two-step handling, the evaluation as a checklist, and the choice of a
// profile (a select of the account's profiles) that the numbers and new-order pages offer.
import type { Context } from "hono";
import type { Child } from "hono/jsx";
import type { Evaluation, RejectionReason, Requirements, VerificationField } from "../compliance/types.ts";
import type { Database } from "../db/client.ts";
import { pageWindow } from "../db/paging.ts";
import { DOCUMENT_TYPES, type DocumentRow, KYC_TYPES, type KycRow } from "../db/schema.ts";
import type { PortalEnv } from "../env.ts";
import { MAX_FILE_SIZE } from "../http/request-body.ts";
import { workOf } from "../http/request-context.ts";
import { listProfiles, type Subject } from "../kyc/store.ts";
import { readUpload } from "../kyc/upload.ts";
import { uploadDocument, uploadTarget } from "../kyc/use-cases.ts";
import { withPrefix } from "../lib/ids.ts";
import { Problem } from "../lib/problem.ts";
import { Badge, CsrfField, Table } from "../ui/components.tsx";
import { capitalised, date, dateTime, words } from "../ui/format.ts";
import { problemFields, readForm, Select, TextArea, TextInput, withCountryCodesUppercased } from "../ui/forms.tsx";

type Messages = Record<string, string>;

/** A form's posted values and the error beside each field. */
export interface FormState {
  values: Record<string, string>;
  errors: Messages;
}

/** Each verification field as a page names it: its label in the form, and in the details. */
const FIELD_LABELS: Record<VerificationField, string> = {
  verification_type: "Verification for",
  address_line_1: "Address line 1",
  address_line_2: "Address line 2",
  city: "City",
  state_province: "State or province",
  postal_code: "Postal code",
  country: "Country",
  company_name: "Company name",
  tax_id: "Tax id",
  contact_person: "Contact person",
  phone_number: "Phone number",
  email: "E-mail",
};

/** A reviewer's reason in words: its code, then the reviewer's note ("Document illegible: the scan is cut off"). */
function reasonWords(reason: RejectionReason): string {
  return reason.note ? `${capitalised(reason.code)}: ${reason.note}` : capitalised(reason.code);
}

/** The reviewer's reasons that name this field, as the hint beside it in a form. */
function reviewerNote(reasons: readonly RejectionReason[], field: VerificationField): string | undefined {
  const named = reasons.filter((reason) => reason.field === field);
  return named.length > 0 ? `Reviewer: ${named.map(reasonWords).join("; ")}` : undefined;
}

function ReasonList({ reasons, label }: { reasons: readonly RejectionReason[]; label: string }) {
  return reasons.length === 0 ? null : (
    <ul class="reasons" aria-label={label}>
      {reasons.map((reason) => (
        <li>{reasonWords(reason)}</li>
      ))}
    </ul>
  );
}

/**
 * The address fields, the same for a number's verification and a profile; `business` adds nothing hidden: company name
 * is always offered, required for business. `reasons`: a rejection's, each shown as the hint of the field it names.
 */
export function AddressFields({
  values,
  errors,
  withType,
  reasons = [],
}: {
  values: Record<string, string>;
  errors: Messages;
  withType: boolean;
  reasons?: readonly RejectionReason[];
}) {
  const note = (field: VerificationField, hint?: string) =>
    [hint, reviewerNote(reasons, field)].filter((part) => part !== undefined).join(" · ") || undefined;
  return (
    <>
      {withType ? (
        <Select
          name="verification_type"
          label="Verification for"
          value={values.verification_type}
          blank="Choose"
          options={KYC_TYPES.map((type) => [type, type === "individual" ? "A person" : "A business"] as const)}
          error={errors.verification_type}
        />
      ) : null}
      <TextInput
        name="address_line_1"
        label="Address line 1"
        value={values.address_line_1}
        error={errors.address_line_1}
        hint={note("address_line_1")}
      />
      <TextInput
        name="address_line_2"
        label="Address line 2"
        value={values.address_line_2}
        error={errors.address_line_2}
        hint={note("address_line_2")}
      />
      <TextInput name="city" label="City" value={values.city} error={errors.city} hint={note("city")} />
      <TextInput
        name="state_province"
        label="State or province"
        value={values.state_province}
        error={errors.state_province}
        hint={note("state_province")}
      />
      <TextInput
        name="postal_code"
        label="Postal code"
        value={values.postal_code}
        error={errors.postal_code}
        hint={note("postal_code")}
      />
      <TextInput
        name="country"
        label="Country"
        value={values.country}
        error={errors.country}
        hint={note("country", "2 letters, e.g. US")}
        maxlength={2}
        autocomplete="country"
      />
      <TextInput
        name="company_name"
        label="Company name"
        value={values.company_name}
        error={errors.company_name}
        hint={note("company_name", "Required for a business")}
      />
      <TextInput name="tax_id" label="Tax id" value={values.tax_id} error={errors.tax_id} hint={note("tax_id")} />
      <TextInput
        name="contact_person"
        label="Contact person"
        value={values.contact_person}
        error={errors.contact_person}
        hint={note("contact_person")}
      />
      <TextInput
        name="phone_number"
        label="Phone number"
        type="tel"
        value={values.phone_number}
        error={errors.phone_number}
        hint={note("phone_number", "E.164, e.g. +14155550123")}
      />
      <TextInput name="email" label="E-mail" type="email" value={values.email} error={errors.email} hint={note("email")} />
    </>
  );
}

const REQUIRED_ADDRESS = ["address_line_1", "city", "state_province", "postal_code", "country"] as const;
const OPTIONAL_ADDRESS = ["address_line_2", "company_name", "tax_id", "contact_person", "phone_number", "email"] as const;

/**
 * The API's submit body (a number's address, or a new profile's beside its name) from the form: an empty optional
 * field is absent; a required one stays "" to be refused.
 */
export function submittedAddress(posted: Record<string, string>): Record<string, unknown> {
  const form = withCountryCodesUppercased(posted, ["country"]);
  const body: Record<string, unknown> = { verification_type: form.verification_type || undefined };
  for (const name of REQUIRED_ADDRESS) body[name] = form[name];
  for (const name of OPTIONAL_ADDRESS) body[name] = form[name]?.trim() ? form[name] : undefined;
  return body;
}

/** The API's update body from the amend form, which sends every field: an empty optional field clears it (null). */
export function addressUpdate(posted: Record<string, string>, type: KycRow["type"]): Record<string, unknown> {
  const form = withCountryCodesUppercased(posted, ["country"]);
  const body: Record<string, unknown> = {};
  for (const name of REQUIRED_ADDRESS) body[name] = form[name];
  for (const name of OPTIONAL_ADDRESS) body[name] = form[name]?.trim() ? form[name] : null;
  // A company name cannot be cleared (the API refuses null): a business's empty one is refused as empty, an
  // individual's empty one is left as it is.
  if (type === "business") body.company_name = form.company_name ?? "";
  else if (body.company_name === null) body.company_name = undefined;
  return body;
}

/** The amend form's values: the verification as it is. */
export function addressValues(row: KycRow): Record<string, string> {
  return {
    address_line_1: row.addressLine1,
    address_line_2: row.addressLine2 ?? "",
    city: row.city,
    state_province: row.stateProvince,
    postal_code: row.postalCode,
    country: row.country,
    company_name: row.companyName ?? "",
    tax_id: row.taxId ?? "",
    contact_person: row.contactPerson ?? "",
    phone_number: row.phoneNumber ?? "",
    email: row.email ?? "",
  };
}

/** The reasons a rejection gives about a document: its own, and the verification's that name it. */
function reasonsOfDocument(kyc: KycRow, document: DocumentRow): RejectionReason[] {
  const id = withPrefix("doc", document.id);
  const own = document.rejectionReasons;
  const seen = new Set(own.map((reason) => JSON.stringify(reason)));
  return [...own, ...kyc.rejectionReasons.filter((reason) => reason.document_id === id && !seen.has(JSON.stringify(reason)))];
}

/** The reasons that name neither a field nor a document still there: said of the verification as a whole. */
function generalReasons(kyc: KycRow, documents: readonly DocumentRow[]): RejectionReason[] {
  const present = new Set(documents.map((document) => withPrefix("doc", document.id)));
  return kyc.rejectionReasons.filter(
    (reason) => reason.field === undefined && (reason.document_id === undefined || !present.has(reason.document_id)),
  );
}

/** The verification's state: status, the rejection's words and its reasons of the whole, expiry and times. */
export function StatusFacts({ kyc, documents, children }: { kyc: KycRow; documents: readonly DocumentRow[]; children?: Child }) {
  const general = generalReasons(kyc, documents);
  return (
    <dl class="facts">
      <dt>Verification</dt>
      <dd>
        <Badge status={kyc.status} />
      </dd>
      {kyc.rejectionReason ? (
        <>
          <dt>Rejection reason</dt>
          <dd>
            {kyc.rejectionReason}
            {general.length > 0 ? <ReasonList reasons={general} label="Reasons" /> : null}
          </dd>
        </>
      ) : null}
      {kyc.rejectionReasons.length > 0 && general.length < kyc.rejectionReasons.length ? (
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

/** The verification's details, each field with the reviewer's reasons that name it beside it. */
export function DetailFacts({ kyc }: { kyc: KycRow }) {
  const values: Record<VerificationField, string | null> = {
    verification_type: kyc.type === "individual" ? "A person" : "A business",
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
  return (
    <div class="card">
      <dl class="facts">
        {(Object.keys(values) as VerificationField[]).map((field) => {
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
 * The verification's documents, each with the reviewer's reasons that name it; `deleteHref` gives a document's delete
 * confirmation when it may be deleted here (undefined: no delete).
 */
export function DocumentsTable({
  kyc,
  documents,
  deleteHref,
}: {
  kyc: KycRow;
  documents: readonly DocumentRow[];
  deleteHref?: ((document: DocumentRow) => string | undefined) | undefined;
}) {
  if (documents.length === 0) return <p class="muted">No documents yet.</p>;
  const reasons = new Map(documents.map((document) => [document.id, reasonsOfDocument(kyc, document)]));
  const anyReasons = [...reasons.values()].some((list) => list.length > 0);
  return (
    <Table
      label="Documents"
      rows={documents}
      columns={[
        { label: "File", cell: (doc) => doc.filename },
        { label: "Type", cell: (doc) => capitalised(doc.documentType) },
        ...(anyReasons
          ? [
              {
                label: "Reviewer's reasons",
                cell: (doc: DocumentRow) => {
                  const list = reasons.get(doc.id) ?? [];
                  return list.length > 0 ? <ReasonList reasons={list} label={`Reasons about ${doc.filename}`} /> : "—";
                },
              },
            ]
          : []),
        { label: "Description", cell: (doc) => doc.description ?? "—" },
        { label: "Expires", cell: (doc) => doc.expirationDate ?? "—" },
        { label: "Status", cell: (doc) => <Badge status={doc.status} /> },
        { label: "Uploaded", cell: (doc) => dateTime(doc.uploadedAt) },
        {
          label: "Actions",
          cell: (doc) => {
            const href = deleteHref?.(doc);
            return (
              <span class="actions">
                <a href={`/portal/documents/${doc.id}/download`} aria-label={`Download ${doc.filename}`}>
                  Download
                </a>
                {href ? (
                  <a href={href} aria-label={`Delete ${doc.filename}…`}>
                    Delete…
                  </a>
                ) : null}
              </span>
            );
          },
        },
      ]}
    />
  );
}

/** The upload form: the CSRF field first (the guard reads that part alone before the file), then the file and its fields. */
export function UploadForm({ action, token, state }: { action: string; token: string; state: FormState | undefined }) {
  const values = state?.values ?? {};
  const errors = state?.errors ?? {};
  return (
    <form method="post" action={action} enctype="multipart/form-data" class="stack card" novalidate>
      {/* First: the guard reads this part alone before the file (src/portal/session-guard.tsx). */}
      <CsrfField token={token} />
      <TextInput name="file" label="File" type="file" error={errors.file} hint={`PDF, JPEG or PNG, at most ${MAX_FILE_SIZE}`} />
      <Select
        name="document_type"
        label="Document type"
        value={values.document_type}
        blank="Choose a type"
        options={DOCUMENT_TYPES.map((type) => [type, capitalised(type)] as const)}
        error={errors.document_type}
      />
      <TextArea name="description" label="Description" value={values.description} error={errors.description} hint="Optional" />
      <TextInput
        name="expiration_date"
        label="Expiration date"
        type="date"
        value={values.expiration_date}
        error={errors.expiration_date}
        hint="Optional; not in the past"
      />
      <div class="actions">
        <button type="submit">Upload</button>
      </div>
    </form>
  );
}

/**
 * An upload to the subject's verification, in the API's two steps: its target found before the body is read, then the
 * file read by the API's reader (in its portal mode: the CSRF field and a browser's empty fields are not the upload's)
 * and stored. Ends stored, refused by a use case (its problem), or refused field by field (the form to show again).
 */
export async function receiveUpload(
  c: Context<PortalEnv>,
  subject: Subject,
): Promise<{ ok: true } | { ok: false; problem: Problem } | { ok: false; form: FormState }> {
  const work = workOf(c);
  const target = await uploadTarget(work, c.var.visitor.customer.id, subject);
  if (!target.ok) return { ok: false, problem: target.problem };
  let file: Awaited<ReturnType<typeof readUpload>>;
  try {
    file = await readUpload(c.req.raw, work.now, "portal");
  } catch (error) {
    if (!(error instanceof Problem)) throw error;
    const errors = error.errors ? problemFields(error) : { file: error.message };
    return { ok: false, form: { values: (await readForm(c)).fields, errors } };
  }
  const stored = await uploadDocument(work, target.value, file);
  return stored.ok ? { ok: true } : { ok: false, problem: stored.problem };
}

/** What a requirement's name reads as: "Address", "Tax id", "Document: A utility bill under 3 months old". */
function requirementLabel(requirement: string, requirements: Requirements | null | undefined): string {
  if (requirement === "verification_type") return "Verification type";
  if (requirement === "address") return "Address";
  const [kind, name = ""] = requirement.split(":", 2);
  if (kind === "field") return FIELD_LABELS[name as VerificationField] ?? capitalised(name);
  const document = requirements?.documents.find((d) => d.key === name);
  return `Document: ${document?.description ?? words(name)}`;
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
            <Badge status={result.status} /> <strong>{requirementLabel(result.requirement, requirements)}</strong>
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

/** The profiles a choice offers (by name), or none when the account has more than a select should hold. */
export interface ProfileChoices {
  /** kyp_ id, name and status, by name; undefined when there are more than MAX_PROFILE_CHOICES (the id is typed). */
  options: { id: string; name: string; status: KycRow["status"] }[] | undefined;
  /** Each listed profile's name by its kyp_ id. */
  names: Map<string, string>;
}

const MAX_PROFILE_CHOICES = 100;

/** The account's profiles for a choice: all of them by name, when there are at most MAX_PROFILE_CHOICES. */
export async function profileChoices(db: Database, customerId: string): Promise<ProfileChoices> {
  const { rows, total } = await listProfiles(
    db,
    customerId,
    { sortBy: "name", sortOrder: "asc" },
    pageWindow(1, MAX_PROFILE_CHOICES),
  );
  const options = rows.map(({ verification: v }) => ({ id: withPrefix("kyp", v.id), name: v.name ?? "", status: v.status }));
  return { options: total > MAX_PROFILE_CHOICES ? undefined : options, names: new Map(options.map((o) => [o.id, o.name])) };
}

/** A choice of one of the account's profiles: a select of them, or the kyp_ id typed when there are too many. */
export function ProfileSelect({
  name,
  label,
  value,
  error,
  hint,
  blank,
  choices,
}: {
  name: string;
  label: string;
  value: string | undefined;
  error?: string | readonly string[] | undefined;
  hint?: string | undefined;
  blank: string;
  choices: ProfileChoices;
}) {
  if (!choices.options) {
    return <TextInput name={name} label={label} value={value} error={error} hint={hint ?? "The profile's id, kyp_…"} />;
  }
  const options: (readonly [string, string])[] = choices.options.map((o) => [o.id, `${o.name} (${words(o.status)})`] as const);
  // A value not among them (from a link or a posted form, or a profile since deleted) stays chosen, to be judged.
  if (value && !choices.options.some((o) => o.id === value)) options.unshift([value, value]);
  return <Select name={name} label={label} value={value} blank={blank} options={options} error={error} hint={hint} />;
}
