// The console's reviews (OPERATOR.md, "The console"): the queue of verifications and profiles awaiting staff, oldest
// first, with its filters and counts; a verification's or a profile's page, the evidence first: its documents (one
// opened by its link, large, beside the details: an image inline, a PDF in a new tab) and its details with a
// rejection's reasons beside what each names, then the evaluation, then the decision: the review forms (start,
// approve, reject with reasons per document and field) for compliance and admin, an approval without documents asked
// first on a page of its own; and the documents' bytes, for them only, each read audited. Every change is the API's
// own use case (src/kyc/use-cases.ts) through the API's own body schema, so the console writes the same events and
// says the same words.
import type { Context } from "hono";
import type { Child } from "hono/jsx";
import { findCatalogPair, listOrderablePairs } from "../catalog/store.ts";
import { evaluate } from "../compliance/evaluation.ts";
import { KYC_TYPE_WORDS, verificationFieldsOf } from "../compliance/types.ts";
import { pageWindow } from "../db/paging.ts";
import {
  type DocumentRow,
  KYC_STATUSES,
  type KycRow,
  REJECTION_CODES,
  type Requirements,
  VERIFICATION_FIELDS,
} from "../db/schema.ts";
import type { ConsoleEnv } from "../env.ts";
import { prefixedIdParam } from "../http/fields.ts";
import { pageMeta } from "../http/pagination.ts";
import { workOf } from "../http/request-context.ts";
import { createRouter } from "../http/router.ts";
import { staffDownload } from "../kyc/download.ts";
import {
  AWAITING_STATUSES,
  findQueuedVerification,
  listReviewQueue,
  type QueuedVerification,
  SUBJECT_TYPES,
} from "../kyc/queue.ts";
import { reviewBody, reviewQueueQuery, toRejection, toReviewQueueQuery } from "../kyc/schemas.ts";
import {
  addressAmendable,
  documentDeletable,
  type ReviewTarget,
  reviewMovesFrom,
  type SubjectKind,
  uploadRefusal,
} from "../kyc/store.ts";
import { reviewKyc } from "../kyc/use-cases.ts";
import {
  DetailFacts,
  EvaluationChecklist,
  type FormState,
  ProfileEvaluation,
  ReasonList,
  reasonsOfDocument,
  StatusFacts,
} from "../kyc/views.tsx";
import { contentDisposition } from "../lib/content-disposition.ts";
import { withPrefix } from "../lib/ids.ts";
import { notFound, type Problem, type ProblemStatus } from "../lib/problem.ts";
import { capitalised, words } from "../lib/words.ts";
import { changeGuard, mayChange, type OperatorOperation } from "../staff/roles.ts";
import { Badge, Confirmation, CsrfField, Notice, Pager, pageNotice, StatusTabs, Table } from "../ui/components.tsx";
import { notFoundPage } from "../ui/error-page.tsx";
import { dateTime, withQuery } from "../ui/format.ts";
import {
  FilterForm,
  listFilters,
  MultiChoice,
  PairFilterFields,
  type PairFilterProps,
  PerPageField,
  readForm,
  Select,
  TextInput,
} from "../ui/forms.tsx";
import { renderPage } from "../ui/renderer.tsx";
import { roleName, rolesThatMay } from "./role-words.ts";

type Messages = Record<string, string>;

const REVIEWS = "/ops/reviews";
const SECTION = "reviews";
const kycIdParam = prefixedIdParam("kyc", "kyc_id");
const profileIdParam = prefixedIdParam("kyp", "profile_id");
const documentIdParam = prefixedIdParam("doc", "document_id");

/** What a review page says after its redirects, by the move it made. */
const DONE: Record<string, string> = {
  started: "The review is started.",
  approved: "The verification is approved.",
  rejected: "The verification is rejected; the customer sees the reasons.",
};
const DONE_KEY: Record<ReviewTarget, string> = { under_review: "started", approved: "approved", rejected: "rejected" };

/** A verification's page: a number's under /kyc, a profile's under /profiles. */
function hrefOf(kind: SubjectKind, id: string): string {
  return kind === "number" ? `${REVIEWS}/kyc/${withPrefix("kyc", id)}` : `${REVIEWS}/profiles/${withPrefix("kyp", id)}`;
}

/** The confirmation page of an approval without documents, and its POST. */
const approveHref = (reviewed: Pick<Reviewed, "kind" | "kyc">) => `${hrefOf(reviewed.kind, reviewed.kyc.id)}/approve`;

/** The API operation a review of this kind is, whose roles may make it. */
function reviewChange(kind: SubjectKind): OperatorOperation {
  return kind === "number" ? "reviewKycVerification" : "reviewKycProfile";
}

/** What the page reviews, as its title says it. */
function titleOf(reviewed: Pick<Reviewed, "number" | "kyc">): string {
  return reviewed.number ? `Verification of ${reviewed.number.phoneNumber}` : `Profile ${reviewed.kyc.name ?? ""}`;
}

/** A document's bytes, for compliance and admin. */
const documentHref = (document: DocumentRow) => `/ops/documents/${withPrefix("doc", document.id)}`;

function ReviewFilters({ values, errors, pairs }: PairFilterProps) {
  return (
    <FilterForm action={REVIEWS} values={values}>
      <MultiChoice
        name="status"
        label="Statuses"
        value={values.status}
        error={errors.status}
        options={KYC_STATUSES.map((status) => [status, capitalised(status)] as const)}
        none="Awaiting review"
      />
      <Select
        name="subject_type"
        label="Subject"
        value={values.subject_type}
        blank="Numbers and profiles"
        options={SUBJECT_TYPES.map((type) => [type, capitalised(type)] as const)}
        error={errors.subject_type}
      />
      <TextInput
        name="customer_slug"
        label="Account"
        value={values.customer_slug}
        error={errors.customer_slug}
        hint="The account's slug"
      />
      <PairFilterFields values={values} errors={errors} pairs={pairs} />
      <PerPageField values={values} errors={errors} />
    </FilterForm>
  );
}

/** A queued verification's subject, linked to its page: the number's phone number, or the profile's name. */
function SubjectLink({ row }: { row: QueuedVerification }) {
  const { verification, number } = row;
  return number ? (
    <a href={hrefOf("number", verification.id)}>{number.phoneNumber}</a>
  ) : (
    <a href={hrefOf("profile", verification.id)}>{verification.name ?? withPrefix("kyp", verification.id)}</a>
  );
}

/** What a review page shows: the verification, its documents, its account and what it verifies. */
interface Reviewed {
  kind: SubjectKind;
  kyc: KycRow;
  documents: DocumentRow[];
  customerSlug: string;
  /** The number verified; null for a profile. */
  number: QueuedVerification["number"];
  /** A profile's attached numbers (none for a number's own verification). */
  numberCount: number;
}

/** The verification or profile of the page, in one read: undefined when the id names the other kind. */
async function findReviewed(c: Context<ConsoleEnv>, kind: SubjectKind, id: string): Promise<Reviewed | undefined> {
  const found = await findQueuedVerification(c.var.db, id);
  if (!found || (kind === "number") !== (found.number !== null)) return undefined;
  const { verification, documents, customerSlug, number, numberCount } = found;
  return { kind, kyc: verification, documents, customerSlug, number, numberCount };
}

/** The evaluation: a number against its own pair; a profile against a pair of the catalog, chosen on the page. */
async function evaluationPart(c: Context<ConsoleEnv>, reviewed: Reviewed): Promise<Child> {
  const { db } = c.var;
  const subject = { verification: reviewed.kyc, documents: reviewed.documents };
  if (reviewed.number) {
    const pair = { countryCode: reviewed.number.countryCode, numberType: reviewed.number.numberType };
    const row = await findCatalogPair(db, pair);
    // A pair no longer orderable has no requirements.
    const requirements: Requirements | null = row?.requirements ?? null;
    return <EvaluationChecklist evaluation={evaluate(pair, requirements, subject, workOf(c).now)} requirements={requirements} />;
  }
  return (
    <ProfileEvaluation
      action={hrefOf("profile", reviewed.kyc.id)}
      catalog={await listOrderablePairs(db)}
      asked={c.req.query("pair")}
      profile={subject}
    />
  );
}

/** The page with one of its documents open (its other query kept: the profile's pair). */
function openHref(c: Context<ConsoleEnv>, reviewed: Reviewed, document: DocumentRow): string {
  const query = withQuery(c.req.query(), { document: withPrefix("doc", document.id), done: undefined });
  return `${hrefOf(reviewed.kind, reviewed.kyc.id)}${query}`;
}

/** The documents as links, each opening it beside the details (the open one marked), with the reasons about each. */
function DocumentChoices({ c, reviewed, open }: { c: Context<ConsoleEnv>; reviewed: Reviewed; open: DocumentRow | undefined }) {
  return (
    <ul class="documents" aria-label="Documents">
      {reviewed.documents.map((document) => (
        <li class={document === open ? "open" : undefined}>
          <a
            href={openHref(c, reviewed, document)}
            aria-current={document === open ? "true" : undefined}
            aria-label={`Open ${document.filename} beside the details`}
          >
            {document.filename}
          </a>{" "}
          <Badge status={document.status} />
          <span class="muted"> {capitalised(document.documentType)}</span>
          <ReasonList reasons={reasonsOfDocument(reviewed.kyc, document)} label={`Reasons about ${document.filename}`} />
        </li>
      ))}
    </ul>
  );
}

/**
 * The open document, large: an image inline at the pane's width, a PDF as a link that opens it (nothing renders a
 * PDF's page here); with its type, status, description and expiry.
 */
function OpenDocument({ document }: { document: DocumentRow }) {
  const href = documentHref(document);
  return (
    <figure class="document-open">
      {document.mimeType.startsWith("image/") ? (
        <a href={href} target="_blank" rel="noopener noreferrer" aria-label={`Open ${document.filename} in a new tab`}>
          <img src={href} alt={document.filename} />
        </a>
      ) : (
        <div class="document-link">
          <p>{document.filename} is a PDF: the browser shows it in a tab of its own.</p>
          <a
            class="button"
            href={href}
            target="_blank"
            rel="noopener noreferrer"
            aria-label={`Open ${document.filename} in a new tab`}
          >
            Open the PDF in a new tab
          </a>
        </div>
      )}
      <figcaption>
        <dl class="facts">
          <dt>File</dt>
          <dd>{document.filename}</dd>
          <dt>Type</dt>
          <dd>{capitalised(document.documentType)}</dd>
          <dt>Status</dt>
          <dd>
            <Badge status={document.status} />
          </dd>
          <dt>Description</dt>
          <dd>{document.description ?? "—"}</dd>
          <dt>Expires</dt>
          <dd>{document.expirationDate ?? "—"}</dd>
          <dt>Uploaded</dt>
          <dd>{dateTime(document.uploadedAt)}</dd>
        </dl>
      </figcaption>
    </figure>
  );
}

/**
 * The evidence's pane: the documents to choose from and the one chosen by the address's `document`, large. A document
 * opens only when asked for: an image shown is a read of its bytes, audited (kyc.document_viewed) and seen by the
 * customer, so a page that opened one by itself would record a view at every load, a review's redirects included.
 */
function DocumentPane({
  c,
  reviewed,
  mayRead,
  asked,
}: {
  c: Context<ConsoleEnv>;
  reviewed: Reviewed;
  mayRead: boolean;
  asked: string | undefined;
}) {
  const { documents } = reviewed;
  if (documents.length === 0) return <p class="muted">No documents: nothing here proves the details.</p>;
  const id = asked === undefined ? undefined : documentIdParam.safeParse(asked);
  const open = id?.success ? documents.find((document) => document.id === id.data) : undefined;
  return (
    <>
      <DocumentChoices c={c} reviewed={reviewed} open={mayRead ? open : undefined} />
      {!mayRead ? (
        <p class="muted">Documents' files are for {rolesThatMay("downloadAnyKycDocument")} to open.</p>
      ) : open ? (
        <OpenDocument document={open} />
      ) : (
        <p class="muted">
          {asked === undefined
            ? "Open a document to see it beside the details; each opening is recorded in the audit log, which the customer sees."
            : "This verification has no such document: open one of the above."}
        </p>
      )}
    </>
  );
}

/** The reject form's names of a document's reason code and note. */
const documentCode = (documentId: string) => `document_code_${documentId}`;
const documentNote = (documentId: string) => `document_note_${documentId}`;
const fieldCode = (field: string) => `field_code_${field}`;
const fieldNote = (field: string) => `field_note_${field}`;

const CODE_OPTIONS = REJECTION_CODES.map((code) => [code, capitalised(code)] as const);

/** A reason's code (with an empty choice: no reason) and its optional note, about one document or field. */
function ReasonInputs({
  codeName,
  noteName,
  about,
  form,
}: {
  codeName: string;
  noteName: string;
  about: string;
  form: FormState;
}) {
  return (
    <>
      <Select
        name={codeName}
        label={`Reason code for ${about}`}
        value={form.values[codeName]}
        blank="No reason"
        options={CODE_OPTIONS}
        error={form.errors[codeName]}
      />
      <TextInput
        name={noteName}
        label={`Note on ${about}`}
        value={form.values[noteName]}
        error={form.errors[noteName]}
        hint="Optional"
      />
    </>
  );
}

const AND = new Intl.ListFormat("en", { type: "conjunction" });

/** Things a customer does, in words: "add and delete documents", each object once with its verbs. */
function doings(rules: readonly (readonly [verb: string, object: string, allowed: boolean])[]): string {
  const verbs = new Map<string, string[]>();
  for (const [verb, object] of rules) verbs.set(object, [...(verbs.get(object) ?? []), verb]);
  return AND.format([...verbs].map(([object, of]) => `${AND.format(of)} ${object}`));
}

/**
 * What the customer can no longer do, and may still do, once a review starts: the rules for a verification under
 * review (src/kyc/store.ts), in words.
 */
function whileReviewed(now: number): string {
  const reviewed = { status: "under_review", expiresAt: null } as const;
  const rules = [
    ["change", "the address", addressAmendable(reviewed, now)],
    ["add", "documents", uploadRefusal(reviewed.status, 0) === undefined],
    ["delete", "documents", documentDeletable(reviewed, { status: "pending_review", rejectionReasons: [] })],
  ] as const;
  const may = rules.filter(([, , allowed]) => allowed);
  const mayNot = rules.filter(([, , allowed]) => !allowed);
  const said = [
    mayNot.length > 0 ? `can no longer ${doings(mayNot)}` : undefined,
    may.length > 0 ? `may still ${doings(may)}` : undefined,
  ].filter((part) => part !== undefined);
  return `While it is reviewed the customer ${said.join(" but ")}.`;
}

/** The review forms the verification's state allows (reviewMovesFrom): start it, or approve or reject it. */
function ReviewForms({ reviewed, token, form, now }: { reviewed: Reviewed; token: string; form: FormState; now: number }) {
  const action = `${hrefOf(reviewed.kind, reviewed.kyc.id)}/review`;
  const { status } = reviewed.kyc;
  const moves = reviewMovesFrom(status);
  if (moves.length === 0) return <p class="muted">Nothing to review: the verification is {words(status)}.</p>;
  return (
    <>
      {moves.includes("under_review") ? (
        <form method="post" action={action} class="actions card">
          <CsrfField token={token} />
          <input type="hidden" name="status" value="under_review" />
          <button type="submit">Start review</button>
          <span class="muted">{whileReviewed(now)}</span>
        </form>
      ) : null}
      {!moves.includes("approved") ? null : reviewed.documents.length === 0 ? (
        <p class="actions card">
          <a class="button" href={approveHref(reviewed)}>
            Approve…
          </a>
          <span class="muted">Nothing proves the details: you are asked first. Approval holds for a year.</span>
        </p>
      ) : (
        <form method="post" action={action} class="actions card">
          <CsrfField token={token} />
          <input type="hidden" name="status" value="approved" />
          <button type="submit">Approve</button>
          <span class="muted">Approval holds for a year.</span>
        </form>
      )}
      {moves.includes("rejected") ? <RejectForm reviewed={reviewed} token={token} form={form} /> : null}
    </>
  );
}

/** The rejection: a reason the customer reads, and a reason per document and field. */
function RejectForm({ reviewed, token, form }: { reviewed: Reviewed; token: string; form: FormState }) {
  const action = `${hrefOf(reviewed.kind, reviewed.kyc.id)}/review`;
  const fields = verificationFieldsOf(reviewed.kyc);
  return (
    <form method="post" action={action} class="stack card" novalidate>
      <h2>Reject</h2>
      <CsrfField token={token} />
      <input type="hidden" name="status" value="rejected" />
      <TextInput
        name="rejection_reason"
        label="Rejection reason"
        value={form.values.rejection_reason}
        error={form.errors.rejection_reason}
        hint="What the customer reads: what is wrong and what to do"
      />
      {reviewed.documents.map((doc) => (
        <ReasonInputs codeName={documentCode(doc.id)} noteName={documentNote(doc.id)} about={doc.filename} form={form} />
      ))}
      <details open={fields.some((field) => form.values[fieldCode(field)] || form.errors[fieldCode(field)])}>
        <summary>Reasons about the fields</summary>
        <div class="stack">
          {fields.map((field) => (
            <ReasonInputs codeName={fieldCode(field)} noteName={fieldNote(field)} about={capitalised(field)} form={form} />
          ))}
        </div>
      </details>
      <p class="muted">
        A document given a reason is rejected and stays so until the customer deletes it; without any, every document is.
      </p>
      <div class="actions">
        <button type="submit" class="danger">
          Reject
        </button>
      </div>
    </form>
  );
}

interface PageState {
  form?: FormState;
  notice?: { kind: "error" | "success"; text: string };
}

async function reviewPage(c: Context<ConsoleEnv>, reviewed: Reviewed, state: PageState = {}, status: 200 | ProblemStatus = 200) {
  const { kyc, documents } = reviewed;
  const mayReview = mayChange(c.var.operator, reviewChange(reviewed.kind));
  const notice = pageNotice(c, DONE, state.notice, status);
  const evaluation = await evaluationPart(c, reviewed);
  const title = titleOf(reviewed);
  return renderPage(
    c,
    { title, section: SECTION },
    <>
      <p>
        <a href={REVIEWS}>← Reviews</a>
      </p>
      <h1>
        {title} <Badge status={kyc.status} />
      </h1>
      {notice ? <Notice kind={notice.kind}>{notice.text}</Notice> : null}
      <div class="card">
        <StatusFacts kyc={kyc} documents={documents}>
          <dt>Account</dt>
          <dd>{reviewed.customerSlug}</dd>
          {reviewed.number ? (
            <>
              <dt>Number</dt>
              <dd>
                {reviewed.number.phoneNumber} · {reviewed.number.countryCode} {words(reviewed.number.numberType)}
              </dd>
              <dt>Number id</dt>
              <dd>
                <code>{withPrefix("num", reviewed.number.id)}</code>
              </dd>
              <dt>Verification id</dt>
              <dd>
                <code>{withPrefix("kyc", kyc.id)}</code>
              </dd>
            </>
          ) : (
            <>
              <dt>Profile id</dt>
              <dd>
                <code>{withPrefix("kyp", kyc.id)}</code>
              </dd>
              <dt>Numbers</dt>
              <dd>{reviewed.numberCount}</dd>
            </>
          )}
        </StatusFacts>
      </div>

      <div class="evidence">
        <section class="work" aria-label="Documents">
          <h2>Documents</h2>
          <DocumentPane
            c={c}
            reviewed={reviewed}
            mayRead={mayChange(c.var.operator, "downloadAnyKycDocument")}
            asked={c.req.query("document")}
          />
        </section>
        <section class="work" aria-label="Details">
          <h2>Details</h2>
          <DetailFacts kyc={kyc} />
          <h2>Requirements</h2>
          {evaluation}
        </section>
      </div>

      <section class="work" aria-label="Decision">
        <h2>Decision</h2>
        {mayReview ? (
          <ReviewForms
            reviewed={reviewed}
            token={c.var.csrfToken}
            form={state.form ?? { values: {}, errors: {} }}
            now={workOf(c).now}
          />
        ) : (
          <p class="muted">
            Reviews are for {rolesThatMay(reviewChange(reviewed.kind))}: yours, {roleName(c.var.operator.role)}, reads this
            verification only.
          </p>
        )}
      </section>
    </>,
    status,
  );
}

/** The question an approval without documents asks first: nothing the customer uploaded proves the details. */
function approvalConfirmation(c: Context<ConsoleEnv>, reviewed: Reviewed) {
  const href = hrefOf(reviewed.kind, reviewed.kyc.id);
  const title = titleOf(reviewed);
  return renderPage(
    c,
    { title: `Approve ${title}`, section: SECTION },
    <Confirmation
      token={c.var.csrfToken}
      title={`Approve ${title} without documents?`}
      action={approveHref(reviewed)}
      button="Approve without documents"
      cancel={href}
    >
      <p>
        It has no documents: nothing the customer uploaded proves its details. Approved, it holds for a year
        {reviewed.kind === "profile" ? ", for every number that joins it" : ""}.
      </p>
    </Confirmation>,
  );
}

async function showReview(c: Context<ConsoleEnv>, kind: SubjectKind) {
  const id = pathId(c, kind);
  const found = id.success ? await findReviewed(c, kind, id.data) : undefined;
  return found ? reviewPage(c, found) : reviewNotFound(c, kind);
}

/** The confirmation of an approval without documents; with documents, nothing to ask: the page itself. */
async function askApproval(c: Context<ConsoleEnv>, kind: SubjectKind) {
  const id = pathId(c, kind);
  const found = id.success ? await findReviewed(c, kind, id.data) : undefined;
  if (!found) return reviewNotFound(c, kind);
  return found.documents.length === 0 ? approvalConfirmation(c, found) : c.redirect(hrefOf(kind, found.kyc.id), 303);
}

function reviewNotFound(c: Context<ConsoleEnv>, kind: SubjectKind) {
  return notFoundPage(c, {
    what: kind === "number" ? "Verification" : "Profile",
    section: SECTION,
    back: { href: REVIEWS, label: "Back to the reviews" },
  });
}

/** The posted review as the API's body: the status, and when rejecting the reason and each reason given. */
interface PostedReview {
  body: Record<string, unknown>;
  /** For each reason of the body, in order, the form's names of its code and its note. */
  reasonFields: { code: string; note: string }[];
}

const optional = (text: string | undefined) => (text?.trim() ? text : undefined);

function postedReview(fields: Record<string, string>): PostedReview {
  const status = fields.status ?? "";
  if (status !== "rejected") return { body: { status }, reasonFields: [] };
  const reasons: Record<string, unknown>[] = [];
  const reasonFields: PostedReview["reasonFields"] = [];
  // A reason is given when its code or its note is; a note without a code is the schema's to refuse.
  const add = (code: string, note: string, about: Record<string, string>) => {
    if (!optional(fields[code]) && !optional(fields[note])) return;
    reasons.push({ code: optional(fields[code]), ...about, note: optional(fields[note]) });
    reasonFields.push({ code, note });
  };
  for (const name of Object.keys(fields)) {
    if (!name.startsWith("document_code_")) continue;
    const id = name.slice("document_code_".length);
    add(name, documentNote(id), { document_id: withPrefix("doc", id) });
  }
  // Every field's inputs are read, whatever the type: one the verification cannot hold is the use case's to refuse.
  for (const field of VERIFICATION_FIELDS) add(fieldCode(field), fieldNote(field), { field });
  return {
    body: { status, rejection_reason: optional(fields.rejection_reason), reasons: reasons.length > 0 ? reasons : undefined },
    reasonFields,
  };
}

/** A refusal's field path (the schema's issue path, or a problem's pointer split) as the form's field name. */
function formFieldOf(path: readonly PropertyKey[], reasonFields: PostedReview["reasonFields"]): string {
  const [first, index, key] = path;
  if (first === "reasons" && index !== undefined) {
    const names = reasonFields[Number(index)];
    if (names) return key === "note" ? names.note : names.code;
  }
  return String(first ?? "");
}

/** The errors beside the form's fields; what is about no field of the form (the status, the whole) goes in a notice. */
function refusalState(fields: Record<string, string>, errors: Messages, summary: string): PageState {
  const known = new Set(["rejection_reason", ...Object.keys(fields)]);
  const loose = Object.entries(errors)
    .filter(([name]) => !known.has(name) || name === "status")
    .map(([name, message]) => (name ? `${name} ${message}` : message));
  return { form: { values: fields, errors }, notice: { kind: "error", text: [summary, ...loose].join(" ") } };
}

/** The path's verification id of the kind, parsed as the API's path parameter. */
function pathId(c: Context<ConsoleEnv>, kind: SubjectKind) {
  return kind === "number" ? kycIdParam.safeParse(c.req.param("kyc_id")) : profileIdParam.safeParse(c.req.param("profile_id"));
}

/**
 * The review the form states, through the API's body schema and use case. An approval of a verification without
 * documents is first asked about (a redirect to its confirmation), unless it is the confirmation's own post.
 */
async function review(c: Context<ConsoleEnv>, kind: SubjectKind, confirmed: boolean) {
  const id = pathId(c, kind);
  if (!id.success) return reviewNotFound(c, kind);
  const { fields } = await readForm(c);
  const posted = postedReview(confirmed ? { status: "approved" } : fields);
  const parsed = reviewBody.safeParse(posted.body);
  let refusal: { state: PageState; status: ProblemStatus };
  if (parsed.success) {
    if (parsed.data.status === "approved" && !confirmed) {
      const found = await findReviewed(c, kind, id.data);
      if (!found) return reviewNotFound(c, kind);
      if (found.documents.length === 0) return c.redirect(approveHref(found), 303);
    }
    const reviewed = await reviewKyc(workOf(c), kind, id.data, parsed.data.status, toRejection(parsed.data));
    if (reviewed.ok) return c.redirect(`${hrefOf(kind, id.data)}?done=${DONE_KEY[parsed.data.status]}`, 303);
    refusal = { state: problemState(fields, posted, reviewed.problem), status: reviewed.problem.status };
  } else {
    const errors: Messages = {};
    for (const issue of parsed.error.issues) errors[formFieldOf(issue.path, posted.reasonFields)] ??= issue.message;
    refusal = {
      state: refusalState(fields, errors, "Nothing was changed; each problem is shown beside its field."),
      status: 400,
    };
  }
  const found = await findReviewed(c, kind, id.data);
  return found ? reviewPage(c, found, refusal.state, refusal.status) : reviewNotFound(c, kind);
}

/** A use case's refusal: its field errors beside the fields, its words in a notice. */
function problemState(fields: Record<string, string>, posted: PostedReview, problem: Problem): PageState {
  if (!problem.errors) return { form: { values: fields, errors: {} }, notice: { kind: "error", text: problem.message } };
  const errors: Messages = {};
  for (const error of problem.errors) {
    const path = error.pointer.replace(/^\//, "").split("/");
    errors[formFieldOf(path, posted.reasonFields)] ??= error.message;
  }
  return refusalState(fields, errors, problem.message);
}

export const reviewPages = createRouter<ConsoleEnv>()
  .get("/reviews", async (c) => {
    const page = { title: "Reviews", section: SECTION };
    const pairs = await listOrderablePairs(c.var.db);
    const filters = listFilters(c, reviewQueueQuery, page, (props) => <ReviewFilters {...props} pairs={pairs} />);
    if ("answer" in filters) return filters.answer;
    const { raw, query } = filters;
    const window = pageWindow(query.page, query.limit);
    const { rows, total, statusCounts } = await listReviewQueue(c.var.db, toReviewQueueQuery(query), window);
    const meta = pageMeta(window, total);
    return renderPage(
      c,
      page,
      <>
        <h1>Reviews</h1>
        <p class="muted">Verifications and profiles awaiting staff, the oldest submission first.</p>
        <StatusTabs
          path={REVIEWS}
          query={raw}
          statuses={KYC_STATUSES}
          counts={statusCounts}
          filtered={query.status}
          unfiltered={{ label: "Awaiting review", statuses: AWAITING_STATUSES }}
        />
        <ReviewFilters values={raw} errors={{}} pairs={pairs} />
        {rows.length === 0 ? (
          <div class="card empty">
            <p>Nothing matches: no verification awaits review here.</p>
          </div>
        ) : (
          <Table
            label="Reviews"
            rows={rows}
            columns={[
              { label: "Subject", cell: (row) => <SubjectLink row={row} /> },
              {
                label: "What",
                cell: (row) => (row.number ? `${row.number.countryCode} ${words(row.number.numberType)} number` : "Profile"),
              },
              { label: "Account", cell: (row) => row.customerSlug },
              { label: "For", cell: (row) => KYC_TYPE_WORDS[row.verification.type] },
              { label: "Documents", cell: (row) => row.documents.length },
              { label: "Status", cell: (row) => <Badge status={row.verification.status} /> },
              { label: "Submitted", cell: (row) => dateTime(row.verification.submittedAt) },
            ]}
          />
        )}
        <Pager meta={meta} noun="verification" hrefOf={(n) => `${REVIEWS}${withQuery(raw, { page: String(n) })}`} />
      </>,
    );
  })
  .get("/reviews/kyc/:kyc_id", (c) => showReview(c, "number"))
  .get("/reviews/profiles/:profile_id", (c) => showReview(c, "profile"))
  .post("/reviews/kyc/:kyc_id/review", changeGuard("reviewKycVerification"), (c) => review(c, "number", false))
  .post("/reviews/profiles/:profile_id/review", changeGuard("reviewKycProfile"), (c) => review(c, "profile", false))
  .get("/reviews/kyc/:kyc_id/approve", changeGuard("reviewKycVerification"), (c) => askApproval(c, "number"))
  .get("/reviews/profiles/:profile_id/approve", changeGuard("reviewKycProfile"), (c) => askApproval(c, "profile"))
  .post("/reviews/kyc/:kyc_id/approve", changeGuard("reviewKycVerification"), (c) => review(c, "number", true))
  .post("/reviews/profiles/:profile_id/approve", changeGuard("reviewKycProfile"), (c) => review(c, "profile", true))
  .get("/documents/:document_id", changeGuard("downloadAnyKycDocument"), async (c) => {
    const id = documentIdParam.safeParse(c.req.param("document_id"));
    if (!id.success) throw notFound("Document");
    // A GET is recorded (kyc.document_viewed) before the bytes are read; a HEAD is not.
    const download = await staffDownload(workOf(c), id.data, c.req.raw);
    if (!download) throw notFound("Document");
    const { row, answer } = download;
    // Shown in the browser rather than saved, never cached, never sniffed; an image can run nothing.
    const headers = new Headers(answer.headers);
    headers.set("Content-Disposition", contentDisposition(row.filename).replace(/^attachment/, "inline"));
    headers.set("X-Content-Type-Options", "nosniff");
    headers.set("Cache-Control", "no-store");
    if (row.mimeType.startsWith("image/")) headers.set("Content-Security-Policy", "sandbox");
    return new Response(answer.body, { status: answer.status, headers });
  });
