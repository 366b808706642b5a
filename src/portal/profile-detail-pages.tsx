// The portal's pages for one profile.
import type { Context } from "hono";
import { listOrderablePairs } from "../catalog/store.ts";
import { pageWindow } from "../db/paging.ts";
import type { KycRow } from "../db/schema.ts";
import type { PortalEnv } from "../env.ts";
import { e164Schema, prefixedIdParam } from "../http/fields.ts";
import { readsOwnMultipartBody } from "../http/multipart.ts";
import { pageMeta } from "../http/pagination.ts";
import { workOf } from "../http/request-context.ts";
import { createRouter } from "../http/router.ts";
import { verificationAllows } from "../kyc/lifecycle.ts";
import { findProfile } from "../kyc/profiles-store.ts";
import { profileNumbersBody, toAddressChanges, updateAddressBody, updateProfileBody } from "../kyc/schemas.ts";
import type { ProfileWithDocuments } from "../kyc/store.ts";
import {
  addressLocked,
  amendAddress,
  attachToProfile,
  deleteVerification,
  detachFromProfile,
  resubmit,
} from "../kyc/use-cases.ts";
import { DetailFacts, type FormState, ProfileEvaluation, StatusFacts } from "../kyc/views.tsx";
import { withPrefix } from "../lib/ids.ts";
import type { Problem, ProblemStatus } from "../lib/problem.ts";
import { toNumber } from "../numbers/schemas.ts";
import { findOwnedNumbersByPhone, listNumbers } from "../numbers/store.ts";
import { orderIdParam } from "../orders/schemas.ts";
import { Badge, Confirmation, CsrfField, Notice, Pager, pageNotice, Table } from "../ui/components.tsx";
import { notFoundPage } from "../ui/error-page.tsx";
import { plural, withQuery } from "../ui/format.ts";
import { fieldMessages, parseIdField, readForm, TextArea, TextInput } from "../ui/forms.tsx";
import { renderPage } from "../ui/renderer.tsx";
import {
  AmendForm,
  addressUpdate,
  addressValues,
  DocumentsSection,
  deleteConfirmedDocument,
  documentDeletePage,
  RejectionFixes,
  receiveUpload,
} from "./kyc-parts.tsx";
import { selectableNumberColumns } from "./numbers-pages.tsx";
import { NumbersReportCard, type ReportNote, redirectWithReport, takeReport } from "./numbers-report.tsx";
import { ORDERS_OFFERED, OrderSelect, orderChoices } from "./order-choices.tsx";
import { PROFILES, profileHref } from "./profiles-pages.tsx";

const profileIdParam = prefixedIdParam("kyp", "profile_id");
const documentIdParam = prefixedIdParam("doc", "document_id");
/** The most phone numbers one paste attaches; the API takes 10,000, but a pasted form is kept smaller. */
const MAX_PASTED = 1000;
/** The attached numbers shown on a page of the profile. */
const NUMBERS_PER_PAGE = 20;
const hrefOf = profileHref;
const subjectOf = (profileId: string) => ({ kind: "profile" as const, profileId });

/** What the profile's page says after its redirects. */
const DONE: Record<string, string> = {
  created: "The profile is created. Now upload the documents that prove its address, then attach numbers.",
  renamed: "The name is saved.",
  amended: "The address is saved.",
  uploaded: "The document is uploaded.",
  document_deleted: "The document is deleted.",
  resubmitted: "The profile is resubmitted unchanged: it waits for review again.",
};

interface ProfileState {
  upload?: FormState;
  paste?: FormState;
  order?: FormState;
  notice?: { kind: "error" | "success"; text: string };
  /** What the attach or detach just done did (left by its POST for this page). */
  report?: ReportNote | undefined;
}

/** A positive page number from the query, else 1. */
function pageNumber(text: string | undefined): number {
  return text !== undefined && /^[1-9][0-9]{0,5}$/.test(text) ? Number(text) : 1;
}

async function profilePage(
  c: Context<PortalEnv>,
  found: ProfileWithDocuments,
  state: ProfileState = {},
  status: 200 | ProblemStatus = 200,
) {
  const { db, visitor } = c.var;
  const customerId = visitor.customer.id;
  const kyc = found.verification;
  const documents = found.documents;
  const id = withPrefix("kyp", kyc.id);
  const href = hrefOf(kyc.id);
  const askedPair = c.req.query("pair");
  const numbersWindow = pageWindow(pageNumber(c.req.query("page")), NUMBERS_PER_PAGE);
  const [catalog, attached, orders] = await Promise.all([
    listOrderablePairs(db),
    listNumbers(db, customerId, { kycProfileId: kyc.id, sortBy: "phone_number", sortOrder: "asc" }, numbersWindow),
    orderChoices(db, customerId),
  ]);
  // An attach's report says what was done itself.
  const notice = state.report ? state.notice : pageNotice(c, DONE, state.notice, status);
  const token = visitor.csrfToken;
  const numbersMeta = pageMeta(numbersWindow, attached.total);
  const pageQuery: Record<string, string> = askedPair ? { pair: askedPair } : {};
  return renderPage(
    c,
    { title: `Profile ${kyc.name}`, section: "profiles" },
    <>
      <p>
        <a href={PROFILES}>← Profiles</a>
      </p>
      <h1>
        {kyc.name} <Badge status={kyc.status} />
      </h1>
      {notice ? <Notice kind={notice.kind}>{notice.text}</Notice> : null}
      {state.report ? <NumbersReportCard note={state.report} href={href} profileHref={hrefOf} /> : null}
      <RejectionFixes
        kyc={kyc}
        documents={documents}
        href={href}
        amend={verificationAllows(kyc, "amend", c.var.now) ? `${href}/edit` : undefined}
        token={token}
      />
      <div class="card">
        <StatusFacts kyc={kyc} documents={documents} reasonsAbove={kyc.status === "rejected"}>
          <dt>Profile id</dt>
          <dd>
            <code>{id}</code>
          </dd>
          <dt>Numbers</dt>
          <dd>{found.numberCount}</dd>
        </StatusFacts>
        <div class="actions card-actions">
          <a class="button secondary" href={`${href}/edit`}>
            {verificationAllows(kyc, "amend", c.var.now) ? "Rename or amend…" : "Rename…"}
          </a>
          <a href={`${href}/delete`}>Delete profile…</a>
        </div>
      </div>

      <section class="work" id="requirements">
        <h2>Requirements</h2>
        <ProfileEvaluation
          action={href}
          catalog={catalog}
          asked={askedPair}
          profile={{ verification: kyc, documents }}
          now={c.var.now}
        />
      </section>

      <DocumentsSection href={href} kyc={kyc} documents={documents} token={token} upload={state.upload} />

      <section class="work">
        <h2>Details</h2>
        <DetailFacts kyc={kyc} />
      </section>

      <section class="work" id="numbers">
        <div class="page-head">
          <h2>Numbers</h2>
          {found.numberCount > 0 ? <a href={`/portal/numbers?kyc_profile_id=${id}`}>Show them in Numbers</a> : null}
        </div>
        {attached.rows.length === 0 ? (
          <p class="muted">No numbers are attached yet.</p>
        ) : (
          <form method="post" action={`${href}/numbers/detach`} novalidate>
            <CsrfField token={token} />
            <Table
              label="Attached numbers"
              rows={attached.rows.map(toNumber)}
              columns={[
                ...selectableNumberColumns(),
                {
                  label: "Action",
                  cell: (n) => (
                    <button
                      type="submit"
                      name="only"
                      value={n.number_id}
                      class="secondary"
                      aria-label={`Detach ${n.phone_number}`}
                    >
                      Detach
                    </button>
                  ),
                },
              ]}
            />
            <div class="actions selection">
              <button type="submit" class="secondary">
                Detach the selected numbers
              </button>
            </div>
          </form>
        )}
        {attached.total > 0 ? (
          <Pager meta={numbersMeta} noun="number" hrefOf={(page) => `${href}${withQuery(pageQuery, { page: String(page) })}`} />
        ) : null}

        <h2>Attach numbers</h2>
        <p class="muted">
          A number joins only if it has no verification of its own, is attached to no other profile, and the profile meets the
          requirements of its country and type. Paste their phone numbers, choose an order, or select numbers in{" "}
          <a href="/portal/numbers">Numbers</a>.
        </p>
        <form method="post" action={`${href}/numbers`} class="stack card" novalidate>
          <CsrfField token={token} />
          <TextArea
            name="phone_numbers"
            label="Phone numbers"
            rows={6}
            value={state.paste?.values.phone_numbers}
            error={state.paste?.errors.phone_numbers}
            hint={`Up to ${MAX_PASTED.toLocaleString("en-US")} of the account's numbers, one per line or separated by commas, as +14155550123`}
          />
          <div class="actions">
            <button type="submit">Attach the numbers</button>
          </div>
        </form>
        <form method="post" action={`${href}/numbers`} class="stack card" novalidate>
          <CsrfField token={token} />
          <OrderSelect
            name="order_id"
            label="Every number of an order"
            value={state.order?.values.order_id}
            blank={orders.length === 0 ? "No order has numbers yet" : "Choose an order"}
            orders={orders}
            error={state.order?.errors.order_id}
            hint={`The ${ORDERS_OFFERED} most recent orders being processed or fulfilled`}
          />
          <div class="actions">
            <button type="submit">Attach the order's numbers</button>
          </div>
        </form>
      </section>
    </>,
    status,
  );
}

function profileNotFound(c: Context<PortalEnv>, what = "Profile") {
  return notFoundPage(c, { what, section: "profiles", back: { href: PROFILES, label: "Back to the profiles" } });
}

/** A use case's refusal, shown on the profile's page in the API's words and with its status. */
function problemPage(c: Context<PortalEnv>, found: ProfileWithDocuments, problem: Problem, state: ProfileState = {}) {
  return profilePage(c, found, { ...state, notice: { kind: "error", text: problem.message } }, problem.status);
}

/** The path's profile id (kyp_<uuid> or the bare uuid), or undefined when it is none. */
function pathProfileId(c: Context<PortalEnv>): string | undefined {
  const id = profileIdParam.safeParse(c.req.param("profile_id"));
  return id.success ? id.data : undefined;
}

/** The visitor's profile by the path's id; another account's profile is none. */
async function visitorsProfile(c: Context<PortalEnv>): Promise<ProfileWithDocuments | undefined> {
  const id = pathProfileId(c);
  return id === undefined ? undefined : findProfile(c.var.db, c.var.visitor.customer.id, id);
}

/** The profile read only now (after its use case, or its form, refused) to draw its page with; none is not found. */
async function withProfile(
  c: Context<PortalEnv>,
  profileId: string,
  draw: (found: ProfileWithDocuments) => Response | Promise<Response>,
) {
  const found = await findProfile(c.var.db, c.var.visitor.customer.id, profileId);
  return found ? draw(found) : profileNotFound(c);
}

/**
 * A use case's refusal of a profile's form, the use case called before the profile is read: a profile not found is
 * that page; any other refusal is drawn on the profile, read only now (the profile's page, unless `draw` says otherwise).
 */
function profileRefusal(
  c: Context<PortalEnv>,
  profileId: string,
  problem: Problem,
  draw: (found: ProfileWithDocuments) => Response | Promise<Response> = (found) => problemPage(c, found, problem),
) {
  return problem.code === "not_found" ? profileNotFound(c) : withProfile(c, profileId, draw);
}

/** The rename and amend page: the name in any state; the address while it may change (each save re-opens the review). */
function editPage(
  c: Context<PortalEnv>,
  kyc: KycRow,
  forms: { name?: FormState; address?: FormState; notice?: string } = {},
  status: 200 | ProblemStatus = 200,
) {
  const href = hrefOf(kyc.id);
  const token = c.var.visitor.csrfToken;
  const amendable = verificationAllows(kyc, "amend", c.var.now);
  const address = forms.address ?? { values: addressValues(kyc), errors: {} };
  return renderPage(
    c,
    { title: `Amend ${kyc.name}`, section: "profiles" },
    <>
      <p>
        <a href={href}>← {kyc.name}</a>
      </p>
      <h1>Rename or amend</h1>
      {forms.notice ? <Notice kind="error">{forms.notice}</Notice> : null}
      <h2>Name</h2>
      <form method="post" action={`${href}/name`} class="stack card" novalidate>
        <CsrfField token={token} />
        <TextInput
          name="name"
          label="Profile name"
          value={forms.name?.values.name ?? kyc.name ?? ""}
          error={forms.name?.errors.name}
          maxlength={100}
          hint="Renaming re-opens nothing"
        />
        <div class="actions">
          <button type="submit">Save name</button>
        </div>
      </form>
      <h2>Address</h2>
      {amendable ? (
        <AmendForm href={href} action={`${href}/address`} what="profile" kyc={kyc} form={address} token={token} />
      ) : (
        <p class="muted">{addressLocked(kyc.status).message}.</p>
      )}
    </>,
    status,
  );
}

/** How many unknown phone numbers a refused paste names. */
const UNKNOWN_NAMED = 5;

/**
 * Converts pasted phone numbers to the number ids the API takes: split at line breaks, commas and spaces, at most
 * MAX_PASTED, each checked with the API's E.164 rule and looked up in the account. Else the field error, nothing attached.
 */
async function pastedNumbers(c: Context<PortalEnv>, text: string): Promise<{ ids: string[] } | { error: string }> {
  const phones = [...new Set(text.split(/[\s,;]+/).filter((phone) => phone !== ""))];
  if (phones.length === 0) return { error: "is required" };
  if (phones.length > MAX_PASTED) return { error: `must hold at most ${MAX_PASTED.toLocaleString("en-US")} phone numbers` };
  for (const [index, phone] of phones.entries()) {
    const parsed = e164Schema.safeParse(phone);
    if (!parsed.success) return { error: `entry ${index + 1} (“${phone}”) ${parsed.error.issues[0]?.message ?? "is not valid"}` };
  }
  const owned = new Map(
    (await findOwnedNumbersByPhone(c.var.db, c.var.visitor.customer.id, phones)).map((row) => [row.phoneNumber, row.id]),
  );
  const unknown = phones.filter((phone) => !owned.has(phone));
  if (unknown.length > 0) {
    if (unknown.length === 1) return { error: `This account has no number ${unknown[0]}` };
    const more = unknown.length > UNKNOWN_NAMED ? ` and ${unknown.length - UNKNOWN_NAMED} more` : "";
    return { error: `This account has none of these numbers: ${unknown.slice(0, UNKNOWN_NAMED).join(", ")}${more}` };
  }
  return { ids: phones.map((phone) => owned.get(phone)!) };
}
/** One profile's pages, mounted under /portal after the list (whose /profiles/new comes first). */
export const profileDetailPages = createRouter<PortalEnv>()
  .get("/profiles/:profile_id", async (c) => {
    const found = await visitorsProfile(c);
    return found ? profilePage(c, found, { report: await takeReport(c, found.verification.id) }) : profileNotFound(c);
  })
  .get("/profiles/:profile_id/edit", async (c) => {
    const found = await visitorsProfile(c);
    return found ? editPage(c, found.verification) : profileNotFound(c);
  })
  .post("/profiles/:profile_id/name", async (c) => {
    const profileId = pathProfileId(c);
    if (profileId === undefined) return profileNotFound(c);
    const form = (await readForm(c)).fields;
    const parsed = updateProfileBody.safeParse({ name: form.name ?? "" });
    if (!parsed.success || parsed.data.name === undefined) {
      const errors = parsed.success ? {} : fieldMessages(parsed.error.issues);
      return withProfile(c, profileId, (found) => editPage(c, found.verification, { name: { values: form, errors } }, 400));
    }
    const renamed = await amendAddress(workOf(c), c.var.visitor.customer.id, subjectOf(profileId), { name: parsed.data.name });
    if (renamed.ok) return c.redirect(`${hrefOf(profileId)}?done=renamed`, 303);
    const { problem } = renamed;
    return profileRefusal(c, profileId, problem, (found) =>
      editPage(c, found.verification, { name: { values: form, errors: {} }, notice: problem.message }, problem.status),
    );
  })
  .post("/profiles/:profile_id/address", async (c) => {
    // Read first: the body the API takes depends on whom the profile is for (addressUpdate).
    const found = await visitorsProfile(c);
    if (!found) return profileNotFound(c);
    const kyc = found.verification;
    const form = (await readForm(c)).fields;
    const parsed = updateAddressBody.safeParse(addressUpdate(form, kyc.type));
    if (!parsed.success) {
      return editPage(c, kyc, { address: { values: form, errors: fieldMessages(parsed.error.issues) } }, 400);
    }
    const amended = await amendAddress(workOf(c), c.var.visitor.customer.id, subjectOf(kyc.id), toAddressChanges(parsed.data));
    if (!amended.ok) {
      return editPage(c, kyc, { address: { values: form, errors: {} }, notice: amended.problem.message }, amended.problem.status);
    }
    return c.redirect(`${hrefOf(kyc.id)}?done=amended`, 303);
  })
  .post("/profiles/:profile_id/documents", readsOwnMultipartBody, async (c) => {
    const profileId = pathProfileId(c);
    if (profileId === undefined) return profileNotFound(c);
    const received = await receiveUpload(c, subjectOf(profileId));
    if (received.ok) return c.redirect(`${hrefOf(profileId)}?done=uploaded`, 303);
    if ("problem" in received) return profileRefusal(c, profileId, received.problem);
    return withProfile(c, profileId, (found) => profilePage(c, found, { upload: received.form }, 400));
  })
  .get("/profiles/:profile_id/documents/:document_id/delete", async (c) => {
    const found = await visitorsProfile(c);
    const documentId = documentIdParam.safeParse(c.req.param("document_id"));
    if (!found) return profileNotFound(c);
    const document = documentId.success ? found.documents.find((doc) => doc.id === documentId.data) : undefined;
    if (!document) return profileNotFound(c, "Document");
    const kyc = found.verification;
    return documentDeletePage(c, { href: hrefOf(kyc.id), section: "profiles", document, from: `the profile ${kyc.name ?? ""}` });
  })
  .post("/profiles/:profile_id/documents/:document_id/delete", async (c) => {
    const found = await visitorsProfile(c);
    const documentId = documentIdParam.safeParse(c.req.param("document_id"));
    if (!found) return profileNotFound(c);
    if (!documentId.success || !found.documents.some((doc) => doc.id === documentId.data)) return profileNotFound(c, "Document");
    return deleteConfirmedDocument(c, documentId.data, {
      href: hrefOf(found.verification.id),
      done: "document_deleted",
      refused: (problem) => problemPage(c, found, problem),
    });
  })
  .post("/profiles/:profile_id/resubmit", async (c) => {
    const profileId = pathProfileId(c);
    if (profileId === undefined) return profileNotFound(c);
    const reopened = await resubmit(workOf(c), c.var.visitor.customer.id, subjectOf(profileId));
    if (reopened.ok) return c.redirect(`${hrefOf(profileId)}?done=resubmitted`, 303);
    return profileRefusal(c, profileId, reopened.problem);
  })
  .get("/profiles/:profile_id/delete", async (c) => {
    const found = await visitorsProfile(c);
    if (!found) return profileNotFound(c);
    const kyc = found.verification;
    return renderPage(
      c,
      { title: `Delete ${kyc.name}`, section: "profiles" },
      <Confirmation
        token={c.var.visitor.csrfToken}
        title={`Delete the profile ${kyc.name}?`}
        action={`${hrefOf(kyc.id)}/delete`}
        button="Delete the profile"
        cancel={hrefOf(kyc.id)}
      >
        <p>
          The profile goes with its {plural(found.documents.length, "document")}. A profile with numbers attached, or named by a
          pending or processing order, cannot be deleted: detach its numbers first.
        </p>
      </Confirmation>,
    );
  })
  .post("/profiles/:profile_id/delete", async (c) => {
    const profileId = pathProfileId(c);
    if (profileId === undefined) return profileNotFound(c);
    const deleted = await deleteVerification(workOf(c), c.var.visitor.customer.id, subjectOf(profileId));
    if (deleted.ok) return c.redirect(`${PROFILES}?done=deleted`, 303);
    return profileRefusal(c, profileId, deleted.problem);
  })
  .post("/profiles/:profile_id/numbers", async (c) => {
    const found = await visitorsProfile(c);
    if (!found) return profileNotFound(c);
    const form = (await readForm(c)).fields;
    const profileId = found.verification.id;
    let selection: { numberIds: string[] } | { orderId: string };
    if (form.order_id !== undefined) {
      const order = parseIdField(orderIdParam, form.order_id);
      if ("error" in order) return profilePage(c, found, { order: { values: form, errors: { order_id: order.error } } }, 400);
      selection = { orderId: order.id };
    } else {
      const pasted = await pastedNumbers(c, form.phone_numbers ?? "");
      if ("error" in pasted)
        return profilePage(c, found, { paste: { values: form, errors: { phone_numbers: pasted.error } } }, 400);
      selection = { numberIds: pasted.ids };
    }
    const attached = await attachToProfile(workOf(c), c.var.visitor.customer.id, profileId, selection);
    if (!attached.ok) {
      const state = "orderId" in selection ? { order: { values: form, errors: {} } } : { paste: { values: form, errors: {} } };
      return problemPage(c, found, attached.problem, state);
    }
    return redirectWithReport(c, hrefOf(profileId), { profileId, kind: "attach", report: attached.value });
  })
  .post("/profiles/:profile_id/numbers/detach", async (c) => {
    const found = await visitorsProfile(c);
    if (!found) return profileNotFound(c);
    const form = await readForm(c);
    const only = form.fields.only;
    const numberIds = only !== undefined ? [only] : form.list("number_ids");
    const parsed = profileNumbersBody.safeParse({ number_ids: numberIds });
    if (!parsed.success) {
      const message = fieldMessages(parsed.error.issues).number_ids ?? "are not valid";
      return profilePage(c, found, { notice: { kind: "error", text: `Numbers ${message}: choose the numbers to detach.` } }, 400);
    }
    const profileId = found.verification.id;
    const detached = await detachFromProfile(workOf(c), c.var.visitor.customer.id, profileId, {
      numberIds: parsed.data.number_ids ?? [],
    });
    if (!detached.ok) return problemPage(c, found, detached.problem);
    return redirectWithReport(c, hrefOf(profileId), { profileId, kind: "detach", report: detached.value });
  });
