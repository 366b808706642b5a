// The portal's page for a number's verification (KYC), through the API's use cases.
import type { Context } from "hono";
import type { DocumentRow, KycRow, NumberRow } from "../db/schema.ts";
import type { PortalEnv } from "../env.ts";
import { prefixedIdParam } from "../http/fields.ts";
import { readsOwnMultipartBody } from "../http/multipart.ts";
import { workOf } from "../http/request-context.ts";
import { createRouter } from "../http/router.ts";
import { findOwnedDocument } from "../kyc/documents-store.ts";
import { downloadResponse } from "../kyc/download.ts";
import { evaluatedNumber } from "../kyc/evaluations.ts";
import { isReleased, verificationAllows } from "../kyc/lifecycle.ts";
import { submitAddressBody, toAddressChanges, toNewVerification, updateAddressBody } from "../kyc/schemas.ts";
import { type Attachment, findVerificationWithDocuments } from "../kyc/store.ts";
import { addressLocked, amendAddress, deleteVerification, managedByProfile, resubmit, submitAddress } from "../kyc/use-cases.ts";
import { DetailFacts, EvaluationChecklist, type FormState, StatusFacts } from "../kyc/views.tsx";
import { withPrefix } from "../lib/ids.ts";
import { notFound, type Problem, type ProblemStatus } from "../lib/problem.ts";
import { words } from "../lib/words.ts";
import { findOwnedNumber } from "../numbers/store.ts";
import { Badge, Confirmation, CsrfField, Notice, pageNotice } from "../ui/components.tsx";
import { notFoundPage as notFoundInSection } from "../ui/error-page.tsx";
import { plural } from "../ui/format.ts";
import { fieldMessages, readForm } from "../ui/forms.tsx";
import { renderPage } from "../ui/renderer.tsx";
import {
  AddressFields,
  AmendForm,
  addressUpdate,
  addressValues,
  DocumentsSection,
  DocumentsTable,
  deleteConfirmedDocument,
  documentDeletePage,
  RejectionFixes,
  receiveUpload,
  submittedAddress,
} from "./kyc-parts.tsx";
import { MoveReportCard, NumberLifeCard, type SettingsForm, takeMoveReport } from "./number-life-parts.tsx";

const numberIdParam = prefixedIdParam("num", "number_id");
const documentIdParam = prefixedIdParam("doc", "document_id");

/** What the verification page says after its redirects. */
const DONE: Record<string, string> = {
  submitted: "The address is submitted. Now upload the documents that prove it.",
  amended: "The address is saved.",
  uploaded: "The document is uploaded.",
  deleted: "The document is deleted.",
  resubmitted: "The verification is resubmitted unchanged: it waits for review again.",
  removed: "The verification is deleted. Submit a new address, or attach the number to a profile.",
  details: "The tags, reference and protection are saved.",
};

interface PageState {
  settings?: SettingsForm;
  address?: FormState;
  upload?: FormState;
  notice?: { kind: "error" | "success"; text: string };
}

async function verificationPage(
  c: Context<PortalEnv>,
  number: NumberRow,
  state: PageState = {},
  status: 200 | ProblemStatus = 200,
) {
  const visitor = c.var.visitor;
  const { found, evaluation } = (await evaluatedNumber(c.var.db, visitor.customer.id, number.id, c.var.now)) ?? {};
  const notice = pageNotice(c, DONE, state.notice, status);
  const report = status === 200 ? await takeMoveReport(c) : undefined;
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
      {report ? <MoveReportCard note={report} /> : null}
      <NumberLifeCard number={number} now={c.var.now} csrf={visitor.csrfToken} form={state.settings} />
      {/* Whether its numbers need a verification is stated here only: the checklist below is only for those that do. */}
      {evaluation && !evaluation.kyc_required ? (
        <p class="muted">
          Numbers of {evaluation.country_code} {words(evaluation.number_type)} need no verification
          {found || isReleased(number) ? "." : ": you may still submit the address it is used at, or attach it to a profile."}
        </p>
      ) : null}
      {found?.attachment ? (
        <ProfileVerification number={number} kyc={found.verification} documents={found.documents} attachment={found.attachment} />
      ) : found ? (
        <Verification c={c} number={number} kyc={found.verification} documents={found.documents} upload={state.upload} />
      ) : isReleased(number) ? (
        <p class="muted">This number is released: restore it to submit its address.</p>
      ) : (
        <>
          {evaluation?.kyc_required ? (
            <p>
              This number is not verified yet, and numbers of {evaluation.country_code} {words(evaluation.number_type)} need a
              verification: submit the address it is used at, then upload the documents that prove it. Or attach it to a{" "}
              <a href="/portal/profiles">profile</a> that is verified once for many numbers.
            </p>
          ) : null}
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
      {evaluation?.kyc_required ? (
        <section class="work" id="requirements">
          <h2>Requirements</h2>
          <EvaluationChecklist evaluation={evaluation} />
        </section>
      ) : null}
    </>,
    status,
  );
}

/** The number's id, as the API and a profile's attach form take it. */
function NumberIdFact({ number }: { number: NumberRow }) {
  return (
    <>
      <dt>Number id</dt>
      <dd>
        <code>{withPrefix("num", number.id)}</code>
      </dd>
    </>
  );
}

/** A number attached to a profile: the profile's verification, read-only, changed through the profile only. */
function ProfileVerification({
  number,
  kyc,
  documents,
  attachment,
}: {
  number: NumberRow;
  kyc: KycRow;
  documents: DocumentRow[];
  attachment: Attachment;
}) {
  const profileHref = `/portal/profiles/${withPrefix("kyp", attachment.profileId)}`;
  return (
    <>
      <div class="card">
        <p>
          This number's verification is its profile's: <a href={profileHref}>{kyc.name}</a>. Change it there (amend, upload,
          resubmit), or detach the number from the profile first.
        </p>
        <StatusFacts kyc={kyc} documents={documents}>
          <NumberIdFact number={number} />
          <dt>Verification id</dt>
          <dd>
            <code>{withPrefix("kyc", attachment.kycId)}</code>
          </dd>
        </StatusFacts>
      </div>
      <section class="work">
        <h2>Documents</h2>
        <DocumentsTable kyc={kyc} documents={documents} />
      </section>
      <section class="work">
        <h2>Address</h2>
        <DetailFacts kyc={kyc} />
      </section>
    </>
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
  upload: FormState | undefined;
}) {
  const token = c.var.visitor.csrfToken;
  const href = `/portal/numbers/${number.id}`;
  const deletable = verificationAllows(kyc, "delete");
  return (
    <>
      <RejectionFixes
        kyc={kyc}
        documents={documents}
        href={href}
        amend={verificationAllows(kyc, "amend", c.var.now) ? `${href}/address/edit` : undefined}
        token={token}
      />
      <div class="card">
        <StatusFacts kyc={kyc} documents={documents} reasonsAbove={kyc.status === "rejected"}>
          <NumberIdFact number={number} />
        </StatusFacts>
        {deletable ? (
          <div class="actions card-actions">
            <a class="button secondary" href={`${href}/verification/delete`}>
              Delete verification…
            </a>
          </div>
        ) : null}
      </div>
      <DocumentsSection href={href} kyc={kyc} documents={documents} token={token} upload={upload} />
      <section class="work">
        <h2>Address</h2>
        <DetailFacts kyc={kyc} />
        {verificationAllows(kyc, "amend", c.var.now) ? (
          <p>
            <a class="button secondary" href={`/portal/numbers/${number.id}/address/edit`}>
              Amend the address
            </a>{" "}
            {kyc.status !== "pending" ? <span class="muted">Amending re-opens the verification for review.</span> : null}
          </p>
        ) : null}
      </section>
    </>
  );
}

/** The amend form, on a page of its own, one click from the verification. */
function amendPage(c: Context<PortalEnv>, number: NumberRow, kyc: KycRow, form: FormState, status: 200 | 400 = 200) {
  return renderPage(
    c,
    { title: `Amend the address of ${number.phoneNumber}`, section: "numbers" },
    <>
      <p>
        <a href={`/portal/numbers/${number.id}`}>← Verification of {number.phoneNumber}</a>
      </p>
      <h1>Amend the address</h1>
      <AmendForm
        href={`/portal/numbers/${number.id}`}
        action={`/portal/numbers/${number.id}/address/edit`}
        what="verification"
        kyc={kyc}
        form={form}
        token={c.var.visitor.csrfToken}
      />
    </>,
    status,
  );
}

/** What is not this account's (or not there at all): "Number", "Document", "Verification". */
function notFoundPage(c: Context<PortalEnv>, what: string) {
  return notFoundInSection(c, { what, section: "numbers", back: { href: "/portal/numbers", label: "Back to the numbers" } });
}

/** A use case's refusal, shown on the number's page in the API's words and with its status. */
function problemPage(c: Context<PortalEnv>, number: NumberRow, problem: Problem) {
  return verificationPage(c, number, { notice: { kind: "error", text: problem.message } }, problem.status);
}

/** The visitor's number by the path's id (num_<uuid> or the bare uuid); another account's number is none. */
export async function visitorsNumber(c: Context<PortalEnv>): Promise<NumberRow | undefined> {
  const id = numberIdParam.safeParse(c.req.param("number_id"));
  return id.success ? findOwnedNumber(c.var.db, c.var.visitor.customer.id, id.data) : undefined;
}

/**
 * The visitor's number and its verification (own or its profile's, with its documents), read together; undefined when
 * the number is none of the account's.
 */
async function visitorsNumberAndVerification(c: Context<PortalEnv>) {
  const id = numberIdParam.safeParse(c.req.param("number_id"));
  if (!id.success) return undefined;
  const { db, visitor } = c.var;
  const [number, found] = await Promise.all([
    findOwnedNumber(db, visitor.customer.id, id.data),
    findVerificationWithDocuments(db, visitor.customer.id, id.data),
  ]);
  return number ? { number, found } : undefined;
}
/** The number's page as other forms of a number answer with it: again with a form's errors, refused, not found. */
export const numberPage = {
  render: verificationPage,
  problem: problemPage,
  notFound: (c: Context<PortalEnv>) => notFoundPage(c, "Number"),
};

/** A number's verification pages and the download of a document, mounted under /portal. */
export const numberKycPages = createRouter<PortalEnv>()
  .get("/numbers/:number_id", async (c) => {
    const number = await visitorsNumber(c);
    return number ? verificationPage(c, number) : notFoundPage(c, "Number");
  })
  .post("/numbers/:number_id/address", async (c) => {
    const number = await visitorsNumber(c);
    if (!number) return notFoundPage(c, "Number");
    const form = (await readForm(c)).fields;
    const parsed = submitAddressBody.safeParse(submittedAddress(form));
    if (!parsed.success) {
      return verificationPage(c, number, { address: { values: form, errors: fieldMessages(parsed.error.issues) } }, 400);
    }
    const submitted = await submitAddress(workOf(c), c.var.visitor.customer.id, number.id, toNewVerification(parsed.data));
    if (!submitted.ok) return problemPage(c, number, submitted.problem);
    return c.redirect(`/portal/numbers/${number.id}?done=submitted`, 303);
  })
  .get("/numbers/:number_id/address/edit", async (c) => {
    const read = await visitorsNumberAndVerification(c);
    if (!read) return notFoundPage(c, "Number");
    const { number, found: current } = read;
    if (!current) return c.redirect(`/portal/numbers/${number.id}`, 303);
    if (current.attachment) return problemPage(c, number, managedByProfile(current.attachment.profileId));
    if (!verificationAllows(current.verification, "amend", c.var.now)) {
      return problemPage(c, number, addressLocked(current.verification.status));
    }
    return amendPage(c, number, current.verification, { values: addressValues(current.verification), errors: {} });
  })
  .post("/numbers/:number_id/address/edit", async (c) => {
    const read = await visitorsNumberAndVerification(c);
    if (!read) return notFoundPage(c, "Number");
    const { number, found: current } = read;
    if (!current) return problemPage(c, number, notFound("Verification"));
    if (current.attachment) return problemPage(c, number, managedByProfile(current.attachment.profileId));
    const form = (await readForm(c)).fields;
    const parsed = updateAddressBody.safeParse(addressUpdate(form, current.verification.type));
    if (!parsed.success) {
      return amendPage(c, number, current.verification, { values: form, errors: fieldMessages(parsed.error.issues) }, 400);
    }
    const changes = toAddressChanges(parsed.data);
    const updated = await amendAddress(workOf(c), c.var.visitor.customer.id, { kind: "number", numberId: number.id }, changes);
    if (!updated.ok) return problemPage(c, number, updated.problem);
    return c.redirect(`/portal/numbers/${number.id}?done=amended`, 303);
  })
  .post("/numbers/:number_id/documents", readsOwnMultipartBody, async (c) => {
    const number = await visitorsNumber(c);
    if (!number) return notFoundPage(c, "Number");
    const received = await receiveUpload(c, { kind: "number", numberId: number.id });
    if (received.ok) return c.redirect(`/portal/numbers/${number.id}?done=uploaded`, 303);
    if ("problem" in received) return problemPage(c, number, received.problem);
    return verificationPage(c, number, { upload: received.form }, 400);
  })
  .post("/numbers/:number_id/resubmit", async (c) => {
    const number = await visitorsNumber(c);
    if (!number) return notFoundPage(c, "Number");
    const reopened = await resubmit(workOf(c), c.var.visitor.customer.id, { kind: "number", numberId: number.id });
    if (!reopened.ok) return problemPage(c, number, reopened.problem);
    return c.redirect(`/portal/numbers/${number.id}?done=resubmitted`, 303);
  })
  .get("/numbers/:number_id/verification/delete", async (c) => {
    const read = await visitorsNumberAndVerification(c);
    if (!read) return notFoundPage(c, "Number");
    const { number, found } = read;
    if (!found) return notFoundPage(c, "Verification");
    if (found.attachment) return problemPage(c, number, managedByProfile(found.attachment.profileId));
    return renderPage(
      c,
      { title: `Delete the verification of ${number.phoneNumber}`, section: "numbers" },
      <Confirmation
        token={c.var.visitor.csrfToken}
        title={`Delete the verification of ${number.phoneNumber}?`}
        action={`/portal/numbers/${number.id}/verification/delete`}
        button="Delete the verification"
        cancel={`/portal/numbers/${number.id}`}
      >
        <p>
          The address and its {plural(found.documents.length, "document")} go. The number then has no verification: submit a new
          one, or attach the number to a profile.
        </p>
      </Confirmation>,
    );
  })
  .post("/numbers/:number_id/verification/delete", async (c) => {
    const number = await visitorsNumber(c);
    if (!number) return notFoundPage(c, "Number");
    const deleted = await deleteVerification(workOf(c), c.var.visitor.customer.id, { kind: "number", numberId: number.id });
    if (!deleted.ok) return problemPage(c, number, deleted.problem);
    return c.redirect(`/portal/numbers/${number.id}?done=removed`, 303);
  })
  .get("/numbers/:number_id/documents/:document_id/delete", async (c) => {
    const read = await visitorsNumberAndVerification(c);
    const documentId = documentIdParam.safeParse(c.req.param("document_id"));
    if (!read || !documentId.success) return notFoundPage(c, read ? "Document" : "Number");
    const { number, found } = read;
    const document = found?.documents.find((doc) => doc.id === documentId.data);
    if (!found || !document) return notFoundPage(c, "Document");
    if (found.attachment) return problemPage(c, number, managedByProfile(found.attachment.profileId));
    return documentDeletePage(c, {
      href: `/portal/numbers/${number.id}`,
      section: "numbers",
      document,
      from: `the verification of ${number.phoneNumber}`,
    });
  })
  .post("/numbers/:number_id/documents/:document_id/delete", async (c) => {
    const read = await visitorsNumberAndVerification(c);
    const documentId = documentIdParam.safeParse(c.req.param("document_id"));
    if (!read || !documentId.success) return notFoundPage(c, read ? "Document" : "Number");
    const { number, found } = read;
    if (found?.attachment) return problemPage(c, number, managedByProfile(found.attachment.profileId));
    if (!found?.documents.some((doc) => doc.id === documentId.data)) return notFoundPage(c, "Document");
    return deleteConfirmedDocument(c, documentId.data, {
      href: `/portal/numbers/${number.id}`,
      done: "deleted",
      refused: (problem) => problemPage(c, number, problem),
    });
  })
  .get("/documents/:document_id/download", async (c) => {
    const documentId = documentIdParam.safeParse(c.req.param("document_id"));
    const row = documentId.success ? await findOwnedDocument(c.var.db, c.var.visitor.customer.id, documentId.data) : undefined;
    const answer = row ? await downloadResponse(c.env.DOCUMENTS, row, c.req.raw) : undefined;
    return answer ?? notFoundPage(c, "Document");
  });
