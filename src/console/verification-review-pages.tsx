// The review page of a verification or profile, and its decision through the API's use case.
import type { Context } from "hono";
import { verificationFieldsOf } from "../compliance/types.ts";
import { REJECTION_CODES, VERIFICATION_FIELDS } from "../db/schema.ts";
import type { ConsoleEnv } from "../env.ts";
import { prefixedIdParam } from "../http/fields.ts";
import { workOf } from "../http/request-context.ts";
import { createRouter } from "../http/router.ts";
import { documentDeletable, verificationAllows } from "../kyc/lifecycle.ts";
import { type ReviewTarget, reviewMovesFrom } from "../kyc/review-store.ts";
import { reviewBody, toRejection } from "../kyc/schemas.ts";
import type { SubjectKind } from "../kyc/store.ts";
import { downloadDocumentAction, reviewProfileAction, reviewVerificationAction } from "../kyc/use-cases.ts";
import { DetailFacts, type FormState, StatusFacts } from "../kyc/views.tsx";
import { contentDisposition } from "../lib/content-disposition.ts";
import { withPrefix } from "../lib/ids.ts";
import { notFound, type Problem, type ProblemStatus } from "../lib/problem.ts";
import { capitalised, words } from "../lib/words.ts";
import { changeGuard, mayChange } from "../staff/roles.ts";
import { Badge, Confirmation, CsrfField, Notice, pageNotice } from "../ui/components.tsx";
import { notFoundPage } from "../ui/error-page.tsx";
import { readForm, Select, TextInput } from "../ui/forms.tsx";
import { renderPage } from "../ui/renderer.tsx";
import { DocumentPane, documentIdParam, evaluationPart, findReviewed, type Reviewed } from "./review-evidence.tsx";
import { hrefOf, REVIEWS, SECTION } from "./review-pages.tsx";
import { roleName, rolesThatMay } from "./role-words.ts";

type Messages = Record<string, string>;

const kycIdParam = prefixedIdParam("kyc", "kyc_id");
const profileIdParam = prefixedIdParam("kyp", "profile_id");

/** What a review page says after its redirects, by the move it made. */
const DONE: Record<string, string> = {
  started: "The review is started.",
  approved: "The verification is approved.",
  rejected: "The verification is rejected; the customer sees the reasons.",
};
const DONE_KEY: Record<ReviewTarget, string> = { under_review: "started", approved: "approved", rejected: "rejected" };

/** The confirmation page of an approval without documents, and its POST. */
const approveHref = (reviewed: Pick<Reviewed, "kind" | "kyc">) => `${hrefOf(reviewed.kind, reviewed.kyc.id)}/approve`;

/** The review action of this kind of verification. */
function reviewAction(kind: SubjectKind) {
  return kind === "number" ? reviewVerificationAction : reviewProfileAction;
}

/** The page title's name for what is reviewed. */
function titleOf(reviewed: Pick<Reviewed, "number" | "kyc">): string {
  return reviewed.number ? `Verification of ${reviewed.number.phoneNumber}` : `Profile ${reviewed.kyc.name ?? ""}`;
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

/** Customer actions as a phrase, grouping verbs per object: "add and delete documents". */
function doings(rules: readonly (readonly [verb: string, object: string, allowed: boolean])[]): string {
  const verbs = new Map<string, string[]>();
  for (const [verb, object] of rules) verbs.set(object, [...(verbs.get(object) ?? []), verb]);
  return AND.format([...verbs].map(([object, of]) => `${AND.format(of)} ${object}`));
}

/**
 * What the customer can and cannot do once a review starts, as text derived from src/kyc/lifecycle.ts.
 */
function whileReviewed(now: number): string {
  const reviewed = { status: "under_review", expiresAt: null, numberReleased: false } as const;
  const rules = [
    ["change", "the address", verificationAllows(reviewed, "amend", now)],
    ["add", "documents", verificationAllows(reviewed, "upload")],
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
  const mayReview = mayChange(c.var.operator, reviewAction(reviewed.kind));
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
            mayRead={mayChange(c.var.operator, downloadDocumentAction)}
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
            Reviews are for {rolesThatMay(reviewAction(reviewed.kind))}: yours, {roleName(c.var.operator.role)}, reads this
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
    const reviewed = await reviewAction(kind).run(workOf(c), id.data, parsed.data.status, toRejection(parsed.data));
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
/** A verification's or profile's review, and the documents' bytes for reviewers, mounted under /ops. */
export const verificationReviewPages = createRouter<ConsoleEnv>()
  .get("/reviews/kyc/:kyc_id", (c) => showReview(c, "number"))
  .get("/reviews/profiles/:profile_id", (c) => showReview(c, "profile"))
  .post("/reviews/kyc/:kyc_id/review", changeGuard(reviewVerificationAction), (c) => review(c, "number", false))
  .post("/reviews/profiles/:profile_id/review", changeGuard(reviewProfileAction), (c) => review(c, "profile", false))
  .get("/reviews/kyc/:kyc_id/approve", changeGuard(reviewVerificationAction), (c) => askApproval(c, "number"))
  .get("/reviews/profiles/:profile_id/approve", changeGuard(reviewProfileAction), (c) => askApproval(c, "profile"))
  .post("/reviews/kyc/:kyc_id/approve", changeGuard(reviewVerificationAction), (c) => review(c, "number", true))
  .post("/reviews/profiles/:profile_id/approve", changeGuard(reviewProfileAction), (c) => review(c, "profile", true))
  .get("/documents/:document_id", changeGuard(downloadDocumentAction), async (c) => {
    const id = documentIdParam.safeParse(c.req.param("document_id"));
    if (!id.success) throw notFound("Document");
    // A GET is recorded (kyc.document_viewed) before the bytes are read; a HEAD is not.
    const download = await downloadDocumentAction.run(workOf(c), id.data, c.req.raw);
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
