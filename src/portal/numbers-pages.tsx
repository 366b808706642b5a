// The portal's Numbers and each number's verification (KYC): the list with the API's filters; the verification's
// status, rejection reason, expiry and address; submitting or amending the address; uploading, downloading and
// deleting documents. Every action is the API's own use case (src/kyc/use-cases.ts), judged by the API's schemas and
// upload reader, so the portal emits the same events, keeps the same rules and says the same words.
import type { Context } from "hono";
import { pageWindow } from "../db/paging.ts";
import { DOCUMENT_TYPES, type DocumentRow, KYC_TYPES, type KycRow, NUMBER_STATUSES, type NumberRow } from "../db/schema.ts";
import type { PortalEnv } from "../env.ts";
import { prefixedIdParam } from "../http/fields.ts";
import { readsOwnMultipartBody } from "../http/multipart.ts";
import { pageMeta } from "../http/pagination.ts";
import { MAX_FILE_SIZE } from "../http/request-body.ts";
import { workOf } from "../http/request-context.ts";
import { createRouter } from "../http/router.ts";
import { downloadResponse } from "../kyc/download.ts";
import { submitAddressBody, toAddressChanges, toNewVerification, updateAddressBody } from "../kyc/schemas.ts";
import {
  ADDRESS_EDITABLE,
  DELETE_ALLOWED,
  findOwnedDocument,
  findVerificationWithDocuments,
  uploadRefusal,
} from "../kyc/store.ts";
import { readUpload } from "../kyc/upload.ts";
import {
  amendAddress,
  deleteDocument,
  submitAddress,
  uploadDocument,
  uploadTarget,
  verificationLocked,
} from "../kyc/use-cases.ts";
import { notFound, Problem, type ProblemStatus } from "../lib/problem.ts";
import { listNumbersQuery, toNumber, toNumberListQuery } from "../numbers/schemas.ts";
import { findOwnedNumber, listNumbers } from "../numbers/store.ts";
import { Badge, Confirmation, CsrfField, Notice, Pager, Table } from "../ui/components.tsx";
import { capitalised, date, dateTime, withQuery, words } from "../ui/format.ts";
import {
  FilterForm,
  fieldMessages,
  listFilters,
  problemFields,
  readForm,
  Select,
  SortFields,
  TextArea,
  TextInput,
  withCountryCodesUppercased,
} from "../ui/forms.tsx";
import { renderPage } from "../ui/renderer.tsx";

type Messages = Record<string, string>;

const numberIdParam = prefixedIdParam("num", "number_id");
const documentIdParam = prefixedIdParam("doc", "document_id");
/** What the verification page says after its redirects. */
const DONE: Record<string, string> = {
  submitted: "The address is submitted. Now upload the documents that prove it.",
  amended: "The address is saved.",
  uploaded: "The document is uploaded.",
  deleted: "The document is deleted.",
};

function NumberFilters({ values, errors }: { values: Record<string, string>; errors: Messages }) {
  return (
    <FilterForm action="/portal/numbers" values={values}>
      <TextInput name="search" label="Search" value={values.search} error={errors.search} hint="Digits of the number" />
      <TextInput
        name="status"
        label="Statuses"
        value={values.status}
        error={errors.status}
        hint={`e.g. ${NUMBER_STATUSES.join(",")}`}
      />
      <TextInput
        name="country_code"
        label="Countries"
        value={values.country_code}
        error={errors.country_code}
        hint="e.g. US,GB"
      />
      <TextInput
        name="number_type"
        label="Number types"
        value={values.number_type}
        error={errors.number_type}
        hint="e.g. mobile,landline"
      />
      <SortFields query={listNumbersQuery} values={values} errors={errors} />
      <TextInput name="limit" label="Per page" type="number" value={values.limit} error={errors.limit} />
    </FilterForm>
  );
}

/** The address fields; `business` adds nothing hidden: company name is always offered, required for business. */
function AddressFields({ values, errors, withType }: { values: Record<string, string>; errors: Messages; withType: boolean }) {
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
      <TextInput name="address_line_1" label="Address line 1" value={values.address_line_1} error={errors.address_line_1} />
      <TextInput name="address_line_2" label="Address line 2" value={values.address_line_2} error={errors.address_line_2} />
      <TextInput name="city" label="City" value={values.city} error={errors.city} />
      <TextInput name="state_province" label="State or province" value={values.state_province} error={errors.state_province} />
      <TextInput name="postal_code" label="Postal code" value={values.postal_code} error={errors.postal_code} />
      <TextInput
        name="country"
        label="Country"
        value={values.country}
        error={errors.country}
        hint="2 letters, e.g. US"
        maxlength={2}
        autocomplete="country"
      />
      <TextInput
        name="company_name"
        label="Company name"
        value={values.company_name}
        error={errors.company_name}
        hint="Required for a business"
      />
      <TextInput name="tax_id" label="Tax id" value={values.tax_id} error={errors.tax_id} />
      <TextInput name="contact_person" label="Contact person" value={values.contact_person} error={errors.contact_person} />
      <TextInput
        name="phone_number"
        label="Phone number"
        type="tel"
        value={values.phone_number}
        error={errors.phone_number}
        hint="E.164, e.g. +14155550123"
      />
      <TextInput name="email" label="E-mail" type="email" value={values.email} error={errors.email} />
    </>
  );
}

const REQUIRED_ADDRESS = ["address_line_1", "city", "state_province", "postal_code", "country"] as const;
const OPTIONAL_ADDRESS = ["address_line_2", "company_name", "tax_id", "contact_person", "phone_number", "email"] as const;

/** The API's submit body from the form: an empty optional field is absent; a required one stays "" to be refused. */
function submitBodyFrom(posted: Record<string, string>) {
  const form = withCountryCodesUppercased(posted, ["country"]);
  const body: Record<string, unknown> = { verification_type: form.verification_type || undefined };
  for (const name of REQUIRED_ADDRESS) body[name] = form[name];
  for (const name of OPTIONAL_ADDRESS) body[name] = form[name]?.trim() ? form[name] : undefined;
  return submitAddressBody.safeParse(body);
}

/** The API's update body from the amend form, which sends every field: an empty optional field clears it (null). */
function updateBodyFrom(posted: Record<string, string>, type: KycRow["type"]) {
  const form = withCountryCodesUppercased(posted, ["country"]);
  const body: Record<string, unknown> = {};
  for (const name of REQUIRED_ADDRESS) body[name] = form[name];
  for (const name of OPTIONAL_ADDRESS) body[name] = form[name]?.trim() ? form[name] : null;
  // A company name cannot be cleared (the API refuses null): a business's empty one is refused as empty, an
  // individual's empty one is left as it is.
  if (type === "business") body.company_name = form.company_name ?? "";
  else if (body.company_name === null) body.company_name = undefined;
  return updateAddressBody.safeParse(body);
}

function addressValues(row: KycRow): Record<string, string> {
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

interface PageState {
  address?: { values: Record<string, string>; errors: Messages };
  upload?: { values: Record<string, string>; errors: Messages };
  notice?: { kind: "error" | "success"; text: string };
}

function DocumentsTable({ numberId, documents, deletable }: { numberId: string; documents: DocumentRow[]; deletable: boolean }) {
  if (documents.length === 0)
    return <p class="muted">No documents yet. Upload an identity document or a proof of address below.</p>;
  return (
    <Table
      label="Documents"
      rows={documents}
      columns={[
        { label: "File", cell: (doc) => doc.filename },
        { label: "Type", cell: (doc) => capitalised(doc.documentType) },
        { label: "Description", cell: (doc) => doc.description ?? "—" },
        { label: "Expires", cell: (doc) => doc.expirationDate ?? "—" },
        { label: "Status", cell: (doc) => <Badge status={doc.status} /> },
        { label: "Uploaded", cell: (doc) => dateTime(doc.uploadedAt) },
        {
          label: "Actions",
          cell: (doc) => (
            <span class="actions">
              <a href={`/portal/documents/${doc.id}/download`}>Download</a>
              {deletable ? (
                <a href={`/portal/numbers/${numberId}/documents/${doc.id}/delete`} aria-label={`Delete ${doc.filename}…`}>
                  Delete…
                </a>
              ) : null}
            </span>
          ),
        },
      ]}
    />
  );
}

function UploadForm({ numberId, token, state }: { numberId: string; token: string; state: PageState["upload"] }) {
  const values = state?.values ?? {};
  const errors = state?.errors ?? {};
  return (
    <form
      method="post"
      action={`/portal/numbers/${numberId}/documents`}
      enctype="multipart/form-data"
      class="stack card"
      novalidate
    >
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

async function verificationPage(
  c: Context<PortalEnv>,
  number: NumberRow,
  state: PageState = {},
  status: 200 | ProblemStatus = 200,
) {
  const visitor = c.var.visitor;
  const found = await findVerificationWithDocuments(c.var.db, visitor.customer.id, number.id);
  const done = status === 200 && !state.notice ? DONE[c.req.query("done") ?? ""] : undefined;
  const notice = state.notice ?? (done ? { kind: "success" as const, text: done } : undefined);
  return renderPage(
    c,
    { title: `Verification of ${number.phoneNumber}`, section: "numbers" },
    <>
      <p>
        <a href="/portal/numbers">← Numbers</a>
      </p>
      <h1>
        {number.phoneNumber} <Badge status={number.status} />
      </h1>
      {notice ? <Notice kind={notice.kind}>{notice.text}</Notice> : null}
      {found ? (
        <Verification c={c} number={number} kyc={found.verification} documents={found.documents} upload={state.upload} />
      ) : (
        <>
          <p>This number is not verified yet: submit the address it is used at, then upload the supporting documents.</p>
          <h2>Submit the address</h2>
          <form method="post" action={`/portal/numbers/${number.id}/address`} class="stack card" novalidate>
            <CsrfField token={visitor.csrfToken} />
            <AddressFields values={state.address?.values ?? {}} errors={state.address?.errors ?? {}} withType={true} />
            <div class="actions">
              <button type="submit">Submit address</button>
            </div>
          </form>
        </>
      )}
    </>,
    status,
  );
}

/** A submitted verification: its status, then its documents and the upload, then the address with a way to amend it. */
function Verification({
  c,
  number,
  kyc,
  documents,
  upload,
}: {
  c: Context<PortalEnv>;
  number: NumberRow;
  kyc: KycRow;
  documents: DocumentRow[];
  upload: PageState["upload"];
}) {
  return (
    <>
      <div class="card">
        <dl class="facts">
          <dt>Verification</dt>
          <dd>
            <Badge status={kyc.status} />
          </dd>
          {kyc.rejectionReason ? (
            <>
              <dt>Rejection reason</dt>
              <dd>{kyc.rejectionReason}</dd>
            </>
          ) : null}
          <dt>Expires</dt>
          <dd>{date(kyc.expiresAt)}</dd>
          <dt>Submitted</dt>
          <dd>{dateTime(kyc.submittedAt)}</dd>
          <dt>Reviewed</dt>
          <dd>{dateTime(kyc.reviewedAt)}</dd>
        </dl>
      </div>
      <section class="work">
        <h2>Documents</h2>
        <DocumentsTable numberId={number.id} documents={documents} deletable={DELETE_ALLOWED.includes(kyc.status)} />
        {uploadRefusal(kyc.status, documents.length) === undefined ? (
          <>
            <h2>Upload a document</h2>
            <UploadForm numberId={number.id} token={c.var.visitor.csrfToken} state={upload} />
          </>
        ) : null}
      </section>
      <section class="work">
        <h2>Address</h2>
        <div class="card">
          <dl class="facts">
            <dt>For</dt>
            <dd>{kyc.type === "individual" ? "A person" : "A business"}</dd>
            {kyc.companyName ? (
              <>
                <dt>Company</dt>
                <dd>{kyc.companyName}</dd>
              </>
            ) : null}
            <dt>Address</dt>
            <dd>
              {[kyc.addressLine1, kyc.addressLine2, kyc.city, kyc.stateProvince, kyc.postalCode, kyc.country]
                .filter((part) => part)
                .join(", ")}
            </dd>
          </dl>
        </div>
        {ADDRESS_EDITABLE.includes(kyc.status) ? (
          <p>
            <a class="button secondary" href={`/portal/numbers/${number.id}/address/edit`}>
              Amend the address
            </a>{" "}
            {kyc.status === "rejected" ? <span class="muted">Amending re-opens the verification for review.</span> : null}
          </p>
        ) : null}
      </section>
    </>
  );
}

/** The amend form, on a page of its own, one click from the verification. */
function amendPage(
  c: Context<PortalEnv>,
  number: NumberRow,
  kyc: KycRow,
  form: { values: Record<string, string>; errors: Messages },
  status: 200 | 400 = 200,
) {
  return renderPage(
    c,
    { title: `Amend the address of ${number.phoneNumber}`, section: "numbers" },
    <>
      <p>
        <a href={`/portal/numbers/${number.id}`}>← Verification of {number.phoneNumber}</a>
      </p>
      <h1>Amend the address</h1>
      {kyc.status === "rejected" ? <p class="muted">Saving re-opens the verification for review.</p> : null}
      <form method="post" action={`/portal/numbers/${number.id}/address/edit`} class="stack card" novalidate>
        <CsrfField token={c.var.visitor.csrfToken} />
        <AddressFields values={form.values} errors={form.errors} withType={false} />
        <div class="actions">
          <button type="submit">Save address</button>
          <a href={`/portal/numbers/${number.id}`}>Cancel</a>
        </div>
      </form>
    </>,
    status,
  );
}

/** What is not this account's (or not there at all): "Number", "Document", "Verification". */
function notFoundPage(c: Context<PortalEnv>, what: string) {
  return renderPage(
    c,
    { title: `${what} not found`, section: "numbers" },
    <>
      <h1>{what} not found</h1>
      <p>
        This account has no such {what.toLowerCase()}. <a href="/portal/numbers">Back to the numbers</a>.
      </p>
    </>,
    404,
  );
}

/** A use case's refusal, shown on the number's page in the API's words and with its status. */
function problemPage(c: Context<PortalEnv>, number: NumberRow, problem: Problem) {
  return verificationPage(c, number, { notice: { kind: "error", text: problem.message } }, problem.status);
}

/** The visitor's number by the path's id (num_<uuid> or the bare uuid); another account's number is none. */
async function visitorsNumber(c: Context<PortalEnv>): Promise<NumberRow | undefined> {
  const id = numberIdParam.safeParse(c.req.param("number_id"));
  return id.success ? findOwnedNumber(c.var.db, c.var.visitor.customer.id, id.data) : undefined;
}

export const numberPages = createRouter<PortalEnv>()
  .get("/numbers", async (c) => {
    const visitor = c.var.visitor;
    const filters = listFilters(c, listNumbersQuery, { title: "Numbers", section: "numbers" }, NumberFilters);
    if ("refused" in filters) return filters.refused;
    const { raw, query } = filters;
    const window = pageWindow(query.page, query.limit);
    const list = await listNumbers(c.var.db, visitor.customer.id, toNumberListQuery(query), window);
    const meta = pageMeta(window, list.total);
    return renderPage(
      c,
      { title: "Numbers", section: "numbers" },
      <>
        <h1>Numbers</h1>
        <NumberFilters values={raw} errors={{}} />
        {list.rows.length === 0 ? (
          <div class="card empty">
            <p>
              No numbers match. Numbers arrive when an order is fulfilled: <a href="/portal/orders/new">place an order</a>.
            </p>
          </div>
        ) : (
          <Table
            label="Numbers"
            rows={list.rows.map((r) => toNumber(r.number, r.kycStatus))}
            columns={[
              { label: "Number", cell: (n) => <a href={`/portal/numbers/${n.number_id}`}>{n.phone_number}</a> },
              { label: "Country", cell: (n) => n.country_code },
              { label: "Type", cell: (n) => words(n.number_type) },
              { label: "Status", cell: (n) => <Badge status={n.status} /> },
              {
                label: "Verification",
                cell: (n) => (n.kyc_status ? <Badge status={n.kyc_status} /> : <span class="muted">not submitted</span>),
              },
              { label: "Since", cell: (n) => date(n.created_at) },
            ]}
          />
        )}
        <Pager meta={meta} noun="number" hrefOf={(page) => `/portal/numbers${withQuery(raw, { page: String(page) })}`} />
      </>,
    );
  })
  .get("/numbers/:number_id", async (c) => {
    const number = await visitorsNumber(c);
    return number ? verificationPage(c, number) : notFoundPage(c, "Number");
  })
  .post("/numbers/:number_id/address", async (c) => {
    const number = await visitorsNumber(c);
    if (!number) return notFoundPage(c, "Number");
    const form = (await readForm(c)).fields;
    const parsed = submitBodyFrom(form);
    if (!parsed.success) {
      return verificationPage(c, number, { address: { values: form, errors: fieldMessages(parsed.error.issues) } }, 400);
    }
    const submitted = await submitAddress(workOf(c), c.var.visitor.customer.id, number.id, toNewVerification(parsed.data));
    if (!submitted.ok) return problemPage(c, number, submitted.problem);
    return c.redirect(`/portal/numbers/${number.id}?done=submitted`, 303);
  })
  .get("/numbers/:number_id/address/edit", async (c) => {
    const number = await visitorsNumber(c);
    if (!number) return notFoundPage(c, "Number");
    const current = await findVerificationWithDocuments(c.var.db, c.var.visitor.customer.id, number.id);
    if (!current) return c.redirect(`/portal/numbers/${number.id}`, 303);
    if (!ADDRESS_EDITABLE.includes(current.verification.status)) {
      return problemPage(c, number, verificationLocked(current.verification.status, "changing the address"));
    }
    return amendPage(c, number, current.verification, { values: addressValues(current.verification), errors: {} });
  })
  .post("/numbers/:number_id/address/edit", async (c) => {
    const number = await visitorsNumber(c);
    if (!number) return notFoundPage(c, "Number");
    const current = await findVerificationWithDocuments(c.var.db, c.var.visitor.customer.id, number.id);
    if (!current) return problemPage(c, number, notFound("Verification"));
    const form = (await readForm(c)).fields;
    const parsed = updateBodyFrom(form, current.verification.type);
    if (!parsed.success) {
      return amendPage(c, number, current.verification, { values: form, errors: fieldMessages(parsed.error.issues) }, 400);
    }
    const changes = toAddressChanges(parsed.data);
    const updated = await amendAddress(workOf(c), c.var.visitor.customer.id, number.id, changes);
    if (!updated.ok) return problemPage(c, number, updated.problem);
    return c.redirect(`/portal/numbers/${number.id}?done=amended`, 303);
  })
  .post("/numbers/:number_id/documents", readsOwnMultipartBody, async (c) => {
    const number = await visitorsNumber(c);
    if (!number) return notFoundPage(c, "Number");
    const work = workOf(c);
    const target = await uploadTarget(work, c.var.visitor.customer.id, number.id);
    if (!target.ok) return problemPage(c, number, target.problem);
    let file: Awaited<ReturnType<typeof readUpload>>;
    try {
      // The API's reader, in its portal mode: the CSRF field and a browser's empty fields are not the upload's.
      file = await readUpload(c.req.raw, work.now, "portal");
    } catch (error) {
      if (!(error instanceof Problem)) throw error;
      const errors = error.errors ? problemFields(error) : { file: error.message };
      return verificationPage(c, number, { upload: { values: (await readForm(c)).fields, errors } }, 400);
    }
    const stored = await uploadDocument(work, target.value, file);
    if (!stored.ok) return problemPage(c, number, stored.problem);
    return c.redirect(`/portal/numbers/${number.id}?done=uploaded`, 303);
  })
  .get("/numbers/:number_id/documents/:document_id/delete", async (c) => {
    const number = await visitorsNumber(c);
    const documentId = documentIdParam.safeParse(c.req.param("document_id"));
    if (!number || !documentId.success) return notFoundPage(c, number ? "Document" : "Number");
    const found = await findVerificationWithDocuments(c.var.db, c.var.visitor.customer.id, number.id);
    const document = found?.documents.find((doc) => doc.id === documentId.data);
    if (!document) return notFoundPage(c, "Document");
    return renderPage(
      c,
      { title: `Delete ${document.filename}`, section: "numbers" },
      <Confirmation
        token={c.var.visitor.csrfToken}
        title={`Delete ${document.filename}?`}
        action={`/portal/numbers/${number.id}/documents/${document.id}/delete`}
        button="Delete the document"
        cancel={`/portal/numbers/${number.id}`}
      >
        <p>
          The file goes from the verification of {number.phoneNumber} and cannot be downloaded again; upload it anew if it is
          needed.
        </p>
      </Confirmation>,
    );
  })
  .post("/numbers/:number_id/documents/:document_id/delete", async (c) => {
    const number = await visitorsNumber(c);
    const documentId = documentIdParam.safeParse(c.req.param("document_id"));
    if (!number || !documentId.success) return notFoundPage(c, number ? "Document" : "Number");
    const removed = await deleteDocument(workOf(c), c.var.visitor.customer.id, documentId.data);
    if (!removed.ok) return problemPage(c, number, removed.problem);
    return c.redirect(`/portal/numbers/${number.id}?done=deleted`, 303);
  })
  .get("/documents/:document_id/download", async (c) => {
    const documentId = documentIdParam.safeParse(c.req.param("document_id"));
    const row = documentId.success ? await findOwnedDocument(c.var.db, c.var.visitor.customer.id, documentId.data) : undefined;
    const answer = row ? await downloadResponse(c.env.DOCUMENTS, row, c.req.header("If-None-Match")) : undefined;
    return answer ?? notFoundPage(c, "Document");
  });
