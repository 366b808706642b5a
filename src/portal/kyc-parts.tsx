// Portal forms and handlers shared by a number's verification page and a profile's page. Each part takes the base href
// of its verification's page. Views shared with the console are in src/kyc/views.tsx.
import type { Context } from "hono";
import { KYC_TYPE_WORDS } from "../compliance/types.ts";
import type { Database } from "../db/client.ts";
import {
  DOCUMENT_TYPES,
  type DocumentRow,
  KYC_TYPES,
  type KycRow,
  type RejectionReason,
  type VerificationField,
} from "../db/schema.ts";
import type { PortalEnv } from "../env.ts";
import { workOf } from "../http/request-context.ts";
import { documentDeletable, verificationAllows } from "../kyc/lifecycle.ts";
import { UPLOAD_RULE } from "../kyc/schemas.ts";
import { listProfileNames, type Subject, uploadRefusal } from "../kyc/store.ts";
import { readUpload } from "../kyc/upload.ts";
import { deleteDocument, uploadDocument } from "../kyc/use-cases.ts";
import { FIELD_LABELS, type FormState, generalReasons, ReasonList, reasonsOfDocument, reasonWords } from "../kyc/views.tsx";
import { withPrefix } from "../lib/ids.ts";
import type { Problem } from "../lib/problem.ts";
import { capitalised, words } from "../lib/words.ts";
import { Badge, Confirmation, CsrfField, Table } from "../ui/components.tsx";
import { dateTime } from "../ui/format.ts";
import { problemFields, readForm, Select, TextArea, TextInput } from "../ui/forms.tsx";
import { withCountryCodesUppercased } from "../ui/list-filters.tsx";
import { renderPage } from "../ui/renderer.tsx";

/** The address form's text fields, in its order, each with what its input adds to the label of FIELD_LABELS. */
const ADDRESS_INPUTS: readonly (readonly [
  Exclude<VerificationField, "verification_type">,
  { hint?: string; type?: string; maxlength?: number; autocomplete?: string },
])[] = [
  ["address_line_1", {}],
  ["address_line_2", {}],
  ["city", {}],
  ["state_province", {}],
  ["postal_code", {}],
  ["country", { hint: "2 letters, e.g. US", maxlength: 2, autocomplete: "country" }],
  ["company_name", { hint: "Required for a business" }],
  ["tax_id", {}],
  ["contact_person", {}],
  ["phone_number", { type: "tel", hint: "E.164, e.g. +14155550123" }],
  ["email", { type: "email" }],
];

/** The reviewer's reasons that name this field, as the hint beside it in a form. */
function reviewerNote(reasons: readonly RejectionReason[], field: VerificationField): string | undefined {
  const named = reasons.filter((reason) => reason.field === field);
  return named.length > 0 ? `Reviewer: ${named.map(reasonWords).join("; ")}` : undefined;
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
  errors: FormState["errors"];
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
          label={FIELD_LABELS.verification_type}
          value={values.verification_type}
          blank="Choose"
          options={KYC_TYPES.map((type) => [type, KYC_TYPE_WORDS[type]] as const)}
          error={errors.verification_type}
        />
      ) : null}
      {ADDRESS_INPUTS.map(([field, { hint, ...input }]) => (
        <TextInput
          {...input}
          name={field}
          label={FIELD_LABELS[field]}
          value={values[field]}
          error={errors[field]}
          hint={note(field, hint)}
        />
      ))}
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
function UploadForm({ action, token, state }: { action: string; token: string; state: FormState | undefined }) {
  const values = state?.values ?? {};
  const errors = state?.errors ?? {};
  return (
    <form method="post" action={action} enctype="multipart/form-data" class="stack card" novalidate>
      {/* First: the guard reads this part alone before the file (src/portal/session-guard.tsx). */}
      <CsrfField token={token} />
      <TextInput name="file" label="File" type="file" error={errors.file} hint={UPLOAD_RULE} />
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
 * An upload to the subject's verification through the API's use case, its file read by the API's reader in its portal
 * mode (the CSRF field and a browser's empty fields are not the upload's). Ends stored, refused by its target (the
 * problem), or refused by its file (the form to show again, each error beside its field).
 */
export async function receiveUpload(
  c: Context<PortalEnv>,
  subject: Subject,
): Promise<{ ok: true } | { ok: false; problem: Problem } | { ok: false; form: FormState }> {
  const work = workOf(c);
  const read = () => readUpload(c.req.raw, work.now, "portal");
  const stored = await uploadDocument(work, c.var.visitor.customer.id, subject, read);
  if (stored.ok) return { ok: true };
  const { problem } = stored;
  if (!stored.file) return { ok: false, problem };
  const errors = problem.errors ? problemFields(problem) : { file: problem.message };
  return { ok: false, form: { values: (await readForm(c)).fields, errors } };
}

/**
 * The verification's documents, each deletable here while allowed, then the upload form while it takes a file; `href`
 * is the verification's page (its documents' actions are under it).
 */
export function DocumentsSection({
  href,
  kyc,
  documents,
  token,
  upload,
}: {
  href: string;
  kyc: KycRow;
  documents: readonly DocumentRow[];
  token: string;
  upload: FormState | undefined;
}) {
  return (
    <section class="work">
      <h2>Documents</h2>
      <DocumentsTable
        kyc={kyc}
        documents={documents}
        deleteHref={(doc) => (documentDeletable(kyc, doc) ? `${href}/documents/${doc.id}/delete` : undefined)}
      />
      {uploadRefusal(kyc, documents.length) === undefined ? (
        <>
          <h2 id="upload">Upload a document</h2>
          <p class="muted">An identity document, a company registration or a proof of address.</p>
          <UploadForm action={`${href}/documents`} token={token} state={upload} />
        </>
      ) : null}
    </section>
  );
}

/** A rejected verification's resubmit (re-opening it for review) to the page at `href`. */
function ResubmitForm({ href, token, label, primary }: { href: string; token: string; label: string; primary: boolean }) {
  return (
    <form method="post" action={`${href}/resubmit`} class="inline">
      <CsrfField token={token} />
      <button type="submit" class={primary ? undefined : "secondary"}>
        {label}
      </button>
    </form>
  );
}

/** Each rejection reason with its subject: a field's label, a document's name, or the whole verification. */
function reasonsToFix(kyc: KycRow, documents: readonly DocumentRow[]): string[] {
  const aboutDocuments = documents.flatMap((document) =>
    reasonsOfDocument(kyc, document).map((reason) => `${document.filename}: ${reasonWords(reason)}`),
  );
  const aboutFields = kyc.rejectionReasons.flatMap((reason) =>
    reason.field === undefined ? [] : [`${FIELD_LABELS[reason.field]}: ${reasonWords(reason)}`],
  );
  return [...aboutFields, ...aboutDocuments, ...generalReasons(kyc, documents).map(reasonWords)];
}

/**
 * A rejection's panel: the reviewer's note and reasons, then the fix as the primary action (upload a replacement,
 * amend the address, or resubmit once a replacement is uploaded). Resubmitting unchanged is never the primary button.
 * Renders nothing unless rejected; `amend` is the amend page when the address may change.
 */
export function RejectionFixes({
  kyc,
  documents,
  href,
  amend,
  token,
}: {
  kyc: KycRow;
  documents: readonly DocumentRow[];
  href: string;
  amend: string | undefined;
  token: string;
}) {
  if (kyc.status !== "rejected") return null;
  const reasons = reasonsToFix(kyc, documents);
  // A file added since the rejection waits for the resubmit (src/kyc/documents-store.ts: NEW_DOCUMENT_STATUS_OF).
  const replaced = documents.some((document) => document.status === "uploaded");
  const aboutDocuments = documents.some((document) => reasonsOfDocument(kyc, document).length > 0);
  const upload = uploadRefusal(kyc, documents.length) === undefined;
  const resubmittable = verificationAllows(kyc, "resubmit");
  const fixes = [
    upload
      ? {
          href: "#upload",
          label: replaced ? "Upload another document" : "Upload a replacement document",
          first: aboutDocuments && !replaced,
        }
      : undefined,
    amend ? { href: amend, label: "Amend the address", first: !aboutDocuments } : undefined,
  ]
    .filter((fix) => fix !== undefined)
    .sort((a, b) => Number(b.first) - Number(a.first));
  return (
    <section class="card fixes" aria-label="What to fix">
      <h2>What to fix</h2>
      <p>The reviewer rejected this verification{kyc.rejectionReason ? `: ${kyc.rejectionReason}` : "."}</p>
      {reasons.length > 0 ? (
        <ul class="reasons">
          {reasons.map((reason) => (
            <li>{reason}</li>
          ))}
        </ul>
      ) : null}
      <div class="actions card-actions">
        {replaced && resubmittable ? <ResubmitForm href={href} token={token} label="Resubmit for review" primary={true} /> : null}
        {fixes.map((fix, i) => (
          <a class={i === 0 && !replaced ? "button" : "button secondary"} href={fix.href}>
            {fix.label}
          </a>
        ))}
      </div>
      {replaced ? (
        <p class="muted">The new document waits for the resubmit; amending the address re-opens the review by itself.</p>
      ) : (
        // A div: a form may not stand inside a paragraph (the parser would close the paragraph before it).
        <div class="muted">
          Amending the address re-opens the review; a replacement document waits for you to resubmit.
          {resubmittable ? (
            <>
              {" "}
              Nothing to change? <ResubmitForm href={href} token={token} label="Resubmit unchanged" primary={false} />
            </>
          ) : null}
        </div>
      )}
    </section>
  );
}

/**
 * The amend form of the verification whose page is `href`, posted to `action`: every address field as posted or as it
 * is, a reviewer's reasons beside the fields they name; `what` it re-opens ("profile", "verification").
 */
export function AmendForm({
  href,
  action,
  what,
  kyc,
  form,
  token,
}: {
  href: string;
  action: string;
  what: string;
  kyc: KycRow;
  form: FormState;
  token: string;
}) {
  return (
    <>
      {kyc.status !== "pending" ? <p class="muted">Saving re-opens the {what} for review.</p> : null}
      <form method="post" action={action} class="stack card" novalidate>
        <CsrfField token={token} />
        <AddressFields values={form.values} errors={form.errors} withType={false} reasons={kyc.rejectionReasons} />
        <div class="actions">
          <button type="submit">Save address</button>
          <a href={href}>Cancel</a>
        </div>
      </form>
    </>
  );
}

/** Confirmation page for deleting a document of the verification at `href`; `from` is its display name. */
export function documentDeletePage(
  c: Context<PortalEnv>,
  { href, section, document, from }: { href: string; section: string; document: DocumentRow; from: string },
) {
  return renderPage(
    c,
    { title: `Delete ${document.filename}`, section },
    <Confirmation
      token={c.var.visitor.csrfToken}
      title={`Delete ${document.filename}?`}
      action={`${href}/documents/${document.id}/delete`}
      button="Delete the document"
      cancel={href}
    >
      <p>The file goes from {from} and cannot be downloaded again; upload it anew if it is needed.</p>
    </Confirmation>,
  );
}

/**
 * A confirmed document's delete (the use case): back to the page at `href` saying `done`, or the refusal as `refused`
 * draws it.
 */
export async function deleteConfirmedDocument(
  c: Context<PortalEnv>,
  documentId: string,
  { href, done, refused }: { href: string; done: string; refused: (problem: Problem) => Response | Promise<Response> },
) {
  const removed = await deleteDocument(workOf(c), c.var.visitor.customer.id, documentId);
  return removed.ok ? c.redirect(`${href}?done=${done}`, 303) : refused(removed.problem);
}

/** The profiles a choice offers (by name), or none when the account has more than a select should hold. */
export interface ProfileChoices {
  /** kyp_ id, name and status, by name; undefined when there are more than MAX_PROFILE_CHOICES (the id is typed). */
  options: { id: string; name: string; status: KycRow["status"] }[] | undefined;
  /** Each listed profile's name by its kyp_ id. */
  names: Map<string, string>;
}

const MAX_PROFILE_CHOICES = 100;

/**
 * The account's profiles for a choice: all of them by name, when there are at most MAX_PROFILE_CHOICES (one more is
 * asked for, to tell "all" from "too many"); only their ids, names and statuses are read.
 */
export async function profileChoices(db: Database, customerId: string): Promise<ProfileChoices> {
  const rows = await listProfileNames(db, customerId, MAX_PROFILE_CHOICES + 1);
  const options = rows
    .slice(0, MAX_PROFILE_CHOICES)
    .map((row) => ({ id: withPrefix("kyp", row.id), name: row.name ?? "", status: row.status }));
  return {
    options: rows.length > MAX_PROFILE_CHOICES ? undefined : options,
    names: new Map(options.map((o) => [o.id, o.name])),
  };
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
