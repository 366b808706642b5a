// Model-based test of KYC profiles and the numbers that join them (COMPLIANCE.md: Profiles; Reasons a reviewer gives,
// and the way back): random sequences of attaches and detaches, the operator's reviews of profiles and of numbers' own
// verifications (with and without structured reasons), amendments (address and name-only), resubmits, uploads, document
// deletes, and numbers' own submissions and deletes, each answer checked against a plain in-memory model written from
// COMPLIANCE.md and DECISIONS.md. After every command the three views of a number's verification (the numbers list's
// kyc_status and kyc_profile_id, GET /v1/numbers/{id}/KYC, and its profile) must agree with each other and with the
// model. One account per run: two profiles and four numbers of one order (US mobile, which has no requirements here).
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import {
  type Call,
  type DescribedOperation,
  describedOperations,
  type Exchange,
  exchangeWith,
  expectDuring,
  expectRefusal,
  operationNamed,
} from "./api-description.ts";
import { TEST_ADMIN_TOKEN } from "./constants.ts";
import { pdf } from "./files.ts";
import {
  allocateNumbers,
  createCustomer,
  INDIVIDUAL_ADDRESS,
  type KeyRing,
  keyRing,
  makeOrderable,
  operator,
  type TestCustomer,
} from "./helpers.ts";

type Status = "pending" | "under_review" | "approved" | "rejected";
type DocumentStatus = "uploaded" | "pending_review" | "verified" | "rejected";
type ReviewTarget = "under_review" | "approved" | "rejected";

/** A document's status follows its verification's (DECISIONS, KYC). */
const DOCUMENT_STATUS: Record<Status, DocumentStatus> = {
  pending: "uploaded",
  under_review: "pending_review",
  approved: "verified",
  rejected: "rejected",
};
/** The operator's review moves: the state each target is reached from. */
const REVIEW_FROM: Record<ReviewTarget, Status> = { under_review: "pending", approved: "under_review", rejected: "under_review" };
/** Where the address may change (and re-open), files be added, files be deleted, a number's own be deleted. */
const AMENDABLE: Status[] = ["pending", "rejected"];
const UPLOADABLE: Status[] = ["pending", "under_review", "rejected"];
const DOCUMENT_DELETABLE: Status[] = ["pending", "under_review"];
const OWN_DELETABLE: Status[] = ["pending", "rejected"];
const MAX_DOCUMENTS = 20;
const YEAR_MS = 365 * 86_400_000;
const FILENAME = "passport.pdf";
const PDF = pdf();

interface Reason {
  code: string;
  document_id?: string;
  field?: string;
  note?: string;
}

interface ModelDocument {
  /** Bare uuid. */
  id: string;
  status: DocumentStatus;
  /** The reasons of a rejection that named it: while non-empty (and rejected), it stays rejected until deleted. */
  reasons: Reason[];
  uploadedAt: string;
}

interface ModelVerification {
  /** Bare uuid (kyp_ for a profile, kyc_ for a number's own). */
  id: string;
  status: Status;
  city: string;
  submittedAt: string;
  updatedAt: string | null;
  reviewedAt: string | null;
  rejectionReason: string | null;
  rejectionReasons: Reason[];
  expiresAt: string | null;
  documents: ModelDocument[];
}

interface ModelProfile extends ModelVerification {
  name: string;
}

interface ModelNumber {
  id: string;
  /** The index of the profile it joined, or null. */
  profile: number | null;
  /** The verification id it shows while attached (learnt from its first read after the attach). */
  attachmentKycId: string | null;
  own: ModelVerification | null;
  /** Verification ids it showed before: detached attachments, deleted own verifications. Never shown again. */
  staleKycIds: string[];
}

interface Model {
  profiles: ModelProfile[];
  numbers: ModelNumber[];
  deletedDocuments: string[];
}

interface Real {
  customer: TestCustomer;
  keys: KeyRing;
  orderId: string;
}

type Wire = Record<string, unknown>;

let operations: DescribedOperation[];
let requests = 0;
/** Outcomes met: `operationId status[ code]`, for the coverage check. */
const seen = new Set<string>();

/** A request to an operation with the account's next key (or the operator's token), its answer checked as declared. */
async function send(real: Real | "operator", operationId: string, path: string, call?: Call): Promise<Exchange> {
  requests++;
  const token = real === "operator" ? TEST_ADMIN_TOKEN : await real.keys.next();
  const answer = await exchangeWith(token, operationNamed(operations, operationId), path, call);
  const code = answer.status >= 400 ? ` ${(answer.body as { code?: string } | undefined)?.code}` : "";
  seen.add(`${operationId} ${answer.status}${code}`);
  return answer;
}

const byId = (a: Wire, b: Wire) => String(a.id).localeCompare(String(b.id));
const sorted = (values: unknown) => [...((values as string[] | undefined) ?? [])].sort();
const rejectedByName = (d: ModelDocument) => d.status === "rejected" && d.reasons.length > 0;
const profilesPath = (real: Real, rest = "") => `/api/customers/${real.customer.slug}/kyc-profiles${rest}`;
const numberPath = (n: ModelNumber, prefixed = true) => `/v1/numbers/${prefixed ? "num_" : ""}${n.id}`;

/** Documents follow their verification to `to`, but those a reason rejected by name. */
function follow(v: ModelVerification, to: Status): void {
  for (const d of v.documents) {
    if (rejectedByName(d) || d.status === DOCUMENT_STATUS[to]) continue;
    d.status = DOCUMENT_STATUS[to];
    d.reasons = [];
  }
}

/** A rejected verification re-opened (an amendment, a resubmit): pending, its review undone. */
function reopen(v: ModelVerification): void {
  v.status = "pending";
  v.reviewedAt = null;
  v.rejectionReason = null;
  v.rejectionReasons = [];
  follow(v, "pending");
}

/** A review's effect: the status, the review's time and words, expiry, and the documents it moves. */
function applyReview(v: ModelVerification, to: ReviewTarget, reason: string | undefined, reasons: Reason[], at: string): void {
  if (to === "rejected" && reasons.length > 0) {
    for (const d of v.documents) {
      const naming = reasons.filter((r) => r.document_id === `doc_${d.id}`);
      if (naming.length === 0) continue;
      d.status = "rejected";
      d.reasons = naming;
    }
  } else follow(v, to);
  v.status = to;
  v.reviewedAt = at;
  v.rejectionReason = reason ?? null;
  v.rejectionReasons = reasons;
  if (to === "approved") v.expiresAt = new Date(Date.parse(at) + YEAR_MS).toISOString();
  if (to === "rejected") v.expiresAt = null;
}

/** The fields a number's verification and a profile share, as the model says they read. */
function verificationFields(v: ModelVerification) {
  return {
    status: v.status,
    type: "individual",
    address: {
      address_line_1: INDIVIDUAL_ADDRESS.address_line_1,
      address_line_2: null,
      city: v.city,
      state_province: INDIVIDUAL_ADDRESS.state_province,
      postal_code: INDIVIDUAL_ADDRESS.postal_code,
      country: INDIVIDUAL_ADDRESS.country,
    },
    company_name: null,
    tax_id: null,
    contact_person: null,
    phone_number: null,
    email: null,
    documents: v.documents
      .map((d) => ({
        id: `doc_${d.id}`,
        document_type: "identity",
        filename: FILENAME,
        status: d.status,
        rejection_reasons: d.reasons,
        uploaded_at: d.uploadedAt,
      }))
      .sort(byId),
    submitted_at: v.submittedAt,
    updated_at: v.updatedAt,
    reviewed_at: v.reviewedAt,
    rejection_reason: v.rejectionReason,
    rejection_reasons: v.rejectionReasons,
    expires_at: v.expiresAt,
  };
}

const withSortedDocuments = (actual: Wire): Wire => ({
  ...actual,
  documents: [...((actual.documents as Wire[]) ?? [])].sort(byId),
});

function expectProfile(actual: unknown, model: Model, index: number, label: string): void {
  const p = model.profiles[index] as ModelProfile;
  expect(withSortedDocuments(actual as Wire), label).toEqual({
    id: `kyp_${p.id}`,
    name: p.name,
    number_count: model.numbers.filter((n) => n.profile === index).length,
    ...verificationFields(p),
  });
}

/** A number's verification as GET …/KYC (and its own routes) show it: its own, or its profile's under its own id. */
function expectNumberVerification(actual: unknown, model: Model, n: ModelNumber, label: string): void {
  const wire = withSortedDocuments(actual as Wire);
  if (n.profile !== null) {
    const p = model.profiles[n.profile] as ModelProfile;
    expect(wire, label).toEqual({
      id: expect.stringMatching(/^kyc_[0-9a-f-]{36}$/),
      number_id: `num_${n.id}`,
      profile_id: `kyp_${p.id}`,
      ...verificationFields(p),
    });
    const kycId = String(wire.id).slice(4);
    // Its own id, made at attach: not the profile's, not one it showed before, the same while it stays attached.
    expect(kycId, label).not.toBe(p.id);
    expect(n.staleKycIds, `a verification id shown again after detach; ${label}`).not.toContain(kycId);
    if (n.attachmentKycId !== null) expect(kycId, `the attachment's id changed; ${label}`).toBe(n.attachmentKycId);
    n.attachmentKycId = kycId;
    return;
  }
  const own = n.own;
  if (!own) throw new Error("a number without a verification has nothing to compare");
  expect(wire, label).toEqual({ id: `kyc_${own.id}`, number_id: `num_${n.id}`, profile_id: null, ...verificationFields(own) });
}

/**
 * The agreement checked after every command: each number's kyc_status and kyc_profile_id in the numbers list, its
 * GET …/KYC, and its profile agree with each other, and every one of them with the model; each profile reads as the
 * model says, with the numbers its filter of the list finds.
 */
async function expectAgreement(model: Model, real: Real, after: string): Promise<void> {
  const numbersPath = `/api/customers/${real.customer.slug}/numbers?limit=100`;
  const [list, kycs, profiles, filtered] = await Promise.all([
    send(real, "listNumbers", numbersPath),
    Promise.all(model.numbers.map((n) => send(real, "getKycVerification", `${numberPath(n)}/KYC`))),
    Promise.all(model.profiles.map((p) => send(real, "getKycProfile", profilesPath(real, `/kyp_${p.id}`)))),
    Promise.all(model.profiles.map((p) => send(real, "listNumbers", `${numbersPath}&kyc_profile_id=kyp_${p.id}`))),
  ]);
  expect(list.status, list.label).toBe(200);
  const items = new Map((list.body as { data: Wire[] }).data.map((item) => [item.number_id, item]));
  expect(items.size, `after ${after}: ${list.label}`).toBe(model.numbers.length);
  model.numbers.forEach((n, i) => {
    const item = items.get(n.id) as Wire;
    const kyc = kycs[i] as Exchange;
    const label = `after ${after}, number ${i}: list ${JSON.stringify(item)}; ${kyc.label}`;
    // The views agree with each other, whatever the model says.
    const shown = kyc.status === 200 ? (kyc.body as Wire) : undefined;
    expect(item.kyc_status, `list and GET …/KYC disagree; ${label}`).toBe(shown?.status ?? null);
    expect(item.kyc_profile_id, `list and GET …/KYC disagree on the profile; ${label}`).toBe(shown?.profile_id ?? null);
    if (n.profile !== null) {
      const profile = (profiles[n.profile] as Exchange).body as Wire;
      expect(shown?.status, `GET …/KYC and the profile disagree; ${label}`).toBe(profile.status);
    }
    // And with the model.
    const expected = n.profile !== null ? (model.profiles[n.profile] as ModelProfile).status : (n.own?.status ?? null);
    expect(item.kyc_status, label).toBe(expected);
    expect(item.kyc_profile_id, label).toBe(n.profile === null ? null : `kyp_${(model.profiles[n.profile] as ModelProfile).id}`);
    if (n.profile === null && n.own === null) expectRefusal(kyc, [404, "not_found"]);
    else {
      expect(kyc.status, label).toBe(200);
      expectNumberVerification(kyc.body, model, n, label);
    }
  });
  model.profiles.forEach((_, index) => {
    const answer = profiles[index] as Exchange;
    expect(answer.status, answer.label).toBe(200);
    expectProfile(answer.body, model, index, `after ${after}: ${answer.label}`);
    const members = filtered[index] as Exchange;
    expect(
      (members.body as { data: Wire[] }).data.map((item) => item.number_id).sort(),
      `after ${after}: ${members.label}`,
    ).toEqual(
      model.numbers
        .filter((n) => n.profile === index)
        .map((n) => n.id)
        .sort(),
    );
  });
}

type Command = fc.AsyncCommand<Model, Real>;
/** A command that always applies (a refusal is as much a part of the life cycle), then the agreement. */
function command(description: string, run: (model: Model, real: Real) => Promise<void>): Command {
  return {
    check: () => true,
    run: async (model, real) => {
      await run(model, real);
      await expectAgreement(model, real, description);
    },
    toString: () => description,
  };
}

// ---- Attach and detach ----

/**
 * Which numbers a request names: some of the run's (bare or prefixed, the first maybe twice, maybe an unknown one), or
 * the order.
 */
type Selection = { kind: "order" } | { kind: "ids"; picks: number[]; prefixed: boolean; repeat: boolean; unknown: boolean };
const selection: fc.Arbitrary<Selection> = fc.oneof(
  {
    arbitrary: fc.record({
      kind: fc.constant("ids" as const),
      picks: fc.uniqueArray(fc.nat({ max: 3 }), { minLength: 1, maxLength: 4 }),
      prefixed: fc.boolean(),
      repeat: fc.boolean(),
      unknown: fc.oneof({ arbitrary: fc.constant(false), weight: 4 }, fc.constant(true)),
    }),
    weight: 5,
  },
  fc.constant<Selection>({ kind: "order" }),
);
const describeSelection = (s: Selection) =>
  s.kind === "order"
    ? "order"
    : `n${s.picks.join(",n")}${s.prefixed ? "" : " bare"}${s.repeat ? " repeated" : ""}${s.unknown ? " +unknown" : ""}`;

/** The request body, and the numbers it names in request order (undefined for the unknown id). */
function selectionBody(model: Model, real: Real, s: Selection): { body: Wire; named: (ModelNumber | string)[] } {
  if (s.kind === "order") return { body: { order_id: real.orderId }, named: model.numbers };
  const named: (ModelNumber | string)[] = s.picks.map((i) => model.numbers[i] as ModelNumber);
  const ids = named.map((n) => `${s.prefixed ? "num_" : ""}${(n as ModelNumber).id}`);
  if (s.repeat) ids.push(`${s.prefixed ? "" : "num_"}${(named[0] as ModelNumber).id}`);
  if (s.unknown) {
    const unknown = crypto.randomUUID();
    ids.push(unknown);
    named.push(unknown);
  }
  return { body: { number_ids: ids }, named };
}

interface Report {
  changed: string[];
  unchanged: string[];
  refused: { number_id: string; code: string }[];
}

function expectReport(answer: Exchange, keys: [string, string], expected: Report): void {
  expect(answer.status, answer.label).toBe(200);
  const body = answer.body as Record<string, unknown>;
  const refused = ((body.refused as Wire[]) ?? []).map(({ number_id, code, detail }) => {
    expect(typeof detail === "string" && detail.length > 0, answer.label).toBe(true);
    return { number_id, code };
  });
  expect(
    { changed: sorted(body[keys[0]]), unchanged: sorted(body[keys[1]]), refused: refused.sort(byNumber) },
    answer.label,
  ).toEqual({
    changed: [...expected.changed].sort(),
    unchanged: [...expected.unchanged].sort(),
    refused: expected.refused.sort(byNumber),
  });
}
const byNumber = (a: { number_id: unknown }, b: { number_id: unknown }) => String(a.number_id).localeCompare(String(b.number_id));

function attach(p: number, s: Selection): Command {
  return command(`attach(p${p} ${describeSelection(s)})`, async (model, real) => {
    const profile = model.profiles[p] as ModelProfile;
    const { body, named } = selectionBody(model, real, s);
    const answer = await send(real, "attachKycProfileNumbers", profilesPath(real, `/kyp_${profile.id}/numbers`), {
      method: "POST",
      json: body,
    });
    const expected: Report = { changed: [], unchanged: [], refused: [] };
    const attached: ModelNumber[] = [];
    for (const n of named) {
      if (typeof n === "string") expected.refused.push({ number_id: `num_${n}`, code: "not_found" });
      else if (n.profile === p) expected.unchanged.push(`num_${n.id}`);
      else if (n.profile !== null) expected.refused.push({ number_id: `num_${n.id}`, code: "attached_to_other_profile" });
      else if (n.own !== null) expected.refused.push({ number_id: `num_${n.id}`, code: "has_own_verification" });
      else {
        expected.changed.push(`num_${n.id}`);
        attached.push(n);
      }
    }
    expectReport(answer, ["attached", "already_attached"], expected);
    for (const n of attached) {
      n.profile = p;
      n.attachmentKycId = null;
    }
  });
}

function detachNumbers(n: ModelNumber): void {
  n.profile = null;
  if (n.attachmentKycId !== null) n.staleKycIds.push(n.attachmentKycId);
  n.attachmentKycId = null;
}

function detach(p: number, s: Selection): Command {
  return command(`detach(p${p} ${describeSelection(s)})`, async (model, real) => {
    const profile = model.profiles[p] as ModelProfile;
    const { body, named } = selectionBody(model, real, s);
    const answer = await send(real, "detachKycProfileNumbers", profilesPath(real, `/kyp_${profile.id}/numbers/detach`), {
      method: "POST",
      json: body,
    });
    const expected: Report = { changed: [], unchanged: [], refused: [] };
    const detached: ModelNumber[] = [];
    for (const n of named) {
      if (typeof n === "string") expected.refused.push({ number_id: `num_${n}`, code: "not_found" });
      else if (n.profile === p) {
        expected.changed.push(`num_${n.id}`);
        detached.push(n);
      } else if (n.profile !== null) expected.refused.push({ number_id: `num_${n.id}`, code: "attached_to_other_profile" });
      else expected.unchanged.push(`num_${n.id}`);
    }
    expectReport(answer, ["detached", "already_detached"], expected);
    detached.forEach(detachNumbers);
  });
}

/** DELETE of one number: mostly one attached to that profile (when any), else the number picked. */
function detachOne(p: number, pick: number, stray: boolean, prefixed: boolean): Command {
  return command(`detachOne(p${p} #${pick}${stray ? " stray" : ""}${prefixed ? "" : " bare"})`, async (model, real) => {
    const profile = model.profiles[p] as ModelProfile;
    const members = model.numbers.filter((n) => n.profile === p);
    const n = (
      stray || members.length === 0 ? model.numbers[pick % model.numbers.length] : members[pick % members.length]
    ) as ModelNumber;
    const answer = await send(
      real,
      "detachKycProfileNumber",
      profilesPath(real, `/kyp_${profile.id}/numbers/${prefixed ? "num_" : ""}${n.id}`),
      { method: "DELETE" },
    );
    if (n.profile !== p) return expectRefusal(answer, [404, "not_found"]);
    expectReport(answer, ["detached", "already_detached"], { changed: [`num_${n.id}`], unchanged: [], refused: [] });
    detachNumbers(n);
  });
}

// ---- Verifications: a profile, or a number's own ----

type Subject = { kind: "profile"; index: number } | { kind: "number"; index: number };
const describeSubject = (s: Subject) => (s.kind === "profile" ? `p${s.index}` : `n${s.index}`);

/** A number's own routes while it is attached: the profile's to change. */
const MANAGED: [number, string] = [409, "kyc_managed_by_profile"];

type ReasonsKind = "none" | "document" | "field" | "both" | "unknownDocument";
interface Move {
  /** "next": the legal move from where the model stands (or an illegal one from approved and rejected). */
  to: ReviewTarget | "next";
  reject: boolean;
  reasons: ReasonsKind;
  pick: number;
}

function reviewTarget(v: ModelVerification | undefined, move: Move): ReviewTarget {
  if (move.to !== "next") return move.to;
  if (v?.status === "pending") return "under_review";
  if (v?.status === "under_review") return move.reject ? "rejected" : "approved";
  return move.reject ? "rejected" : "under_review";
}

/**
 * The reasons a rejection gives: naming a document of the verification (a field when it has none), a field, or a
 * document of none.
 */
function reasonsFor(v: ModelVerification | undefined, kind: ReasonsKind, pick: number): Reason[] {
  const field: Reason = { code: "field_invalid", field: "postal_code" };
  const document = (): Reason => {
    const d = v?.documents[pick % Math.max(1, v.documents.length)];
    return d
      ? { code: "document_illegible", document_id: `doc_${d.id}`, note: "Cut off at the bottom" }
      : { code: "address_unverifiable", field: "city" };
  };
  switch (kind) {
    case "none":
      return [];
    case "field":
      return [field];
    case "document":
      return [document()];
    case "both":
      return [document(), field];
    case "unknownDocument":
      return [{ code: "document_mismatch", document_id: `doc_${crypto.randomUUID()}` }];
  }
}

function review(subject: Subject, move: Move): Command {
  const shown = `${move.to}${move.to === "next" ? (move.reject ? "/reject" : "/approve") : ""} ${move.reasons}`;
  return command(`review(${describeSubject(subject)} ${shown})`, async (model) => {
    const n = subject.kind === "number" ? (model.numbers[subject.index] as ModelNumber) : undefined;
    const v = subject.kind === "profile" ? model.profiles[subject.index] : n?.profile === null ? (n.own ?? undefined) : undefined;
    const to = reviewTarget(n?.profile != null ? model.profiles[n.profile] : v, move);
    const reasons = to === "rejected" ? reasonsFor(v, move.reasons, move.pick) : [];
    const reason = to === "rejected" ? "Does not match" : undefined;
    const body: Wire = { status: to };
    if (reason !== undefined) body.rejection_reason = reason;
    if (reasons.length > 0) body.reasons = reasons;
    let answer: Exchange;
    if (subject.kind === "profile") {
      answer = await send("operator", "reviewKycProfile", `/admin/kyc-profiles/kyp_${v?.id}/review`, {
        method: "POST",
        json: body,
      });
    } else {
      const number = n as ModelNumber;
      // Attached: the id its GET shows (learnt by the last agreement); else its own, or one it showed before, or none.
      const kycId =
        number.profile !== null ? number.attachmentKycId : (number.own?.id ?? number.staleKycIds.at(-1) ?? crypto.randomUUID());
      expect(kycId, "an attached number's verification id is known after the agreement").not.toBeNull();
      answer = await send("operator", "reviewKycVerification", `/admin/kyc/kyc_${kycId}/review`, { method: "POST", json: body });
      if (number.profile !== null) return expectRefusal(answer, MANAGED);
    }
    if (!v) return expectRefusal(answer, [404, "not_found"]);
    if (move.reasons === "unknownDocument" && to === "rejected") return expectRefusal(answer, [400, "validation_error"]);
    if (REVIEW_FROM[to] !== v.status) return expectRefusal(answer, [409, "conflict"]);
    expect(answer.status, answer.label).toBe(200);
    applyReview(v, to, reason, reasons, expectDuring((answer.body as Wire).reviewed_at, answer));
    if (subject.kind === "profile") expectProfile(answer.body, model, subject.index, answer.label);
    else expectNumberVerification(answer.body, model, n as ModelNumber, answer.label);
  });
}

type Amendment = "city" | "name" | "both";
/** PATCH of a profile: its address (pending or rejected, re-opens), its name alone (always, re-opens nothing), or both. */
function amendProfile(p: number, amendment: Amendment, city: string, name: string): Command {
  return command(`amendProfile(p${p} ${amendment} ${amendment === "name" ? name : city})`, async (model, real) => {
    const profile = model.profiles[p] as ModelProfile;
    const body: Wire = {};
    if (amendment !== "name") body.city = city;
    if (amendment !== "city") body.name = name;
    const answer = await send(real, "updateKycProfile", profilesPath(real, `/kyp_${profile.id}`), {
      method: "PATCH",
      json: body,
    });
    if (amendment !== "name" && !AMENDABLE.includes(profile.status)) return expectRefusal(answer, [409, "verification_locked"]);
    expect(answer.status, answer.label).toBe(200);
    if (amendment !== "city") profile.name = name;
    if (amendment !== "name") {
      profile.city = city;
      reopen(profile);
      profile.updatedAt = expectDuring((answer.body as Wire).updated_at, answer);
    }
    expectProfile(answer.body, model, p, answer.label);
  });
}

/** PATCH of a number's own address. */
function amendOwn(i: number, city: string): Command {
  return command(`amendOwn(n${i} ${city})`, async (model, real) => {
    const n = model.numbers[i] as ModelNumber;
    const answer = await send(real, "updateKycAddress", `${numberPath(n)}/KYC/address`, { method: "PATCH", json: { city } });
    if (n.profile !== null) return expectRefusal(answer, MANAGED);
    if (!n.own) return expectRefusal(answer, [404, "not_found"]);
    if (!AMENDABLE.includes(n.own.status)) return expectRefusal(answer, [409, "verification_locked"]);
    expect(answer.status, answer.label).toBe(200);
    n.own.city = city;
    reopen(n.own);
    n.own.updatedAt = expectDuring((answer.body as Wire).updated_at, answer);
    expectNumberVerification(answer.body, model, n, answer.label);
  });
}

function resubmit(subject: Subject): Command {
  return command(`resubmit(${describeSubject(subject)})`, async (model, real) => {
    if (subject.kind === "profile") {
      const profile = model.profiles[subject.index] as ModelProfile;
      const answer = await send(real, "resubmitKycProfile", profilesPath(real, `/kyp_${profile.id}/resubmit`), {
        method: "POST",
      });
      if (profile.status !== "rejected") return expectRefusal(answer, [409, "verification_locked"]);
      expect(answer.status, answer.label).toBe(200);
      reopen(profile);
      return expectProfile(answer.body, model, subject.index, answer.label);
    }
    const n = model.numbers[subject.index] as ModelNumber;
    const answer = await send(real, "resubmitKycVerification", `${numberPath(n)}/KYC/resubmit`, { method: "POST" });
    if (n.profile !== null) return expectRefusal(answer, MANAGED);
    if (!n.own) return expectRefusal(answer, [404, "not_found"]);
    if (n.own.status !== "rejected") return expectRefusal(answer, [409, "verification_locked"]);
    expect(answer.status, answer.label).toBe(200);
    reopen(n.own);
    expectNumberVerification(answer.body, model, n, answer.label);
  });
}

/** A PDF to a profile, or to a number's own verification. */
function upload(subject: Subject): Command {
  return command(`upload(${describeSubject(subject)})`, async (model, real) => {
    const form = new FormData();
    form.set("file", new File([PDF], FILENAME, { type: "application/octet-stream" }));
    form.set("document_type", "identity");
    let v: ModelVerification;
    let kycId: string;
    let answer: Exchange;
    if (subject.kind === "profile") {
      v = model.profiles[subject.index] as ModelProfile;
      kycId = `kyp_${v.id}`;
      answer = await send(real, "uploadKycProfileDocument", profilesPath(real, `/${kycId}/files`), { method: "POST", form });
    } else {
      const n = model.numbers[subject.index] as ModelNumber;
      answer = await send(real, "uploadKycDocument", `${numberPath(n)}/KYC/files`, { method: "POST", form });
      if (n.profile !== null) return expectRefusal(answer, MANAGED);
      if (!n.own) return expectRefusal(answer, [409, "kyc_not_submitted"]);
      v = n.own;
      kycId = `kyc_${v.id}`;
    }
    if (!UPLOADABLE.includes(v.status)) return expectRefusal(answer, [409, "verification_locked"]);
    if (v.documents.length >= MAX_DOCUMENTS) return expectRefusal(answer, [409, "conflict"]);
    expect(answer.status, answer.label).toBe(201);
    const stored = answer.body as Wire;
    const id = String(stored.id).replace(/^doc_/, "");
    // A file joining a rejected verification is new: uploaded, like one joining a pending one.
    const status: DocumentStatus = v.status === "rejected" ? "uploaded" : DOCUMENT_STATUS[v.status];
    const document: ModelDocument = { id, status, reasons: [], uploadedAt: expectDuring(stored.uploaded_at, answer) };
    expect(stored, answer.label).toEqual({
      id: `doc_${id}`,
      kyc_id: kycId,
      document_type: "identity",
      filename: FILENAME,
      file_size: PDF.length,
      mime_type: "application/pdf",
      description: null,
      expiration_date: null,
      status,
      rejection_reasons: [],
      uploaded_at: document.uploadedAt,
      download_url: expect.stringMatching(new RegExp(`/v1/kyc/documents/doc_${id}/download$`)),
    });
    v.documents.push(document);
  });
}

/** Deletes a document of the run (a profile's or a number's own), or one deleted before. */
function deleteDocument(pick: number, deleted: boolean): Command {
  return command(`deleteDocument(${deleted ? "deleted " : ""}d${pick})`, async (model, real) => {
    const held = [...model.profiles, ...model.numbers.flatMap((n) => (n.own ? [n.own] : []))].flatMap((v) =>
      v.documents.map((d) => ({ v, d })),
    );
    const target = deleted || held.length === 0 ? undefined : held[pick % held.length];
    const id = target?.d.id ?? model.deletedDocuments[pick % Math.max(1, model.deletedDocuments.length)] ?? crypto.randomUUID();
    const answer = await send(real, "deleteKycDocument", `/v1/kyc/documents/doc_${id}`, { method: "DELETE" });
    if (!target) return expectRefusal(answer, [404, "not_found"]);
    const { v, d } = target;
    // While the verification is open; once rejected, only a document a reason named.
    if (!DOCUMENT_DELETABLE.includes(v.status) && !(v.status === "rejected" && rejectedByName(d))) {
      return expectRefusal(answer, [409, "verification_completed"]);
    }
    expect(answer.status, answer.label).toBe(200);
    expect(answer.body, answer.label).toEqual({
      message: expect.any(String),
      deleted_at: expectDuring((answer.body as Wire).deleted_at, answer),
    });
    v.documents = v.documents.filter((other) => other !== d);
    model.deletedDocuments.push(id);
  });
}

/** A number's own address submission: refused while it is attached, or when it has one. */
function submitOwn(i: number, prefixed: boolean): Command {
  return command(`submitOwn(n${i}${prefixed ? "" : " bare"})`, async (model, real) => {
    const n = model.numbers[i] as ModelNumber;
    const answer = await send(real, "submitKycAddress", `${numberPath(n, prefixed)}/KYC/address`, {
      method: "POST",
      json: INDIVIDUAL_ADDRESS,
    });
    if (n.profile !== null) return expectRefusal(answer, MANAGED);
    if (n.own) return expectRefusal(answer, [409, "kyc_exists"]);
    expect(answer.status, answer.label).toBe(201);
    const created = answer.body as Wire;
    n.own = {
      id: String(created.id).replace(/^kyc_/, ""),
      status: "pending",
      city: INDIVIDUAL_ADDRESS.city,
      submittedAt: expectDuring(created.submitted_at, answer),
      updatedAt: null,
      reviewedAt: null,
      rejectionReason: null,
      rejectionReasons: [],
      expiresAt: null,
      documents: [],
    };
    expect(n.staleKycIds, answer.label).not.toContain(n.own.id);
    expectNumberVerification(created, model, n, answer.label);
  });
}

/** DELETE of a number's own verification (pending or rejected), with its documents, so that it may join a profile. */
function deleteOwn(i: number): Command {
  return command(`deleteOwn(n${i})`, async (model, real) => {
    const n = model.numbers[i] as ModelNumber;
    const answer = await send(real, "deleteKycVerification", `${numberPath(n)}/KYC`, { method: "DELETE" });
    if (n.profile !== null) return expectRefusal(answer, MANAGED);
    if (!n.own) return expectRefusal(answer, [404, "not_found"]);
    if (!OWN_DELETABLE.includes(n.own.status)) return expectRefusal(answer, [409, "verification_locked"]);
    expect(answer.status, answer.label).toBe(200);
    model.deletedDocuments.push(...n.own.documents.map((d) => d.id));
    n.staleKycIds.push(n.own.id);
    n.own = null;
  });
}

// ---- Arbitraries ----

// Mostly the first profile, so that its life cycle gets deep (rejections, resubmits) within fifteen commands.
const profilePick = fc.constantFrom(0, 0, 0, 1);
const numberPick = fc.nat({ max: 3 });
const subject: fc.Arbitrary<Subject> = fc.oneof(
  { arbitrary: profilePick.map((index): Subject => ({ kind: "profile", index })), weight: 3 },
  { arbitrary: numberPick.map((index): Subject => ({ kind: "number", index })), weight: 2 },
);
const move: fc.Arbitrary<Move> = fc.record({
  // Mostly the legal move from where the model stands, rejections more often than approvals (approved is final here).
  to: fc.constantFrom<Move["to"]>("next", "next", "next", "next", "next", "next", "under_review", "approved", "rejected"),
  reject: fc.constantFrom(true, true, false),
  reasons: fc.constantFrom<ReasonsKind>("none", "none", "document", "document", "field", "both", "unknownDocument"),
  pick: fc.nat({ max: 7 }),
});
const city = fc.constantFrom("Oakland", "Zürich", "Berlin");
const name = fc.constantFrom("Head office", "Branch, Lyon", "東京支店");

const commands = [
  fc.tuple(profilePick, selection).map(([p, s]) => attach(p, s)),
  fc.tuple(profilePick, selection).map(([p, s]) => attach(p, s)),
  fc.tuple(profilePick, selection).map(([p, s]) => attach(p, s)),
  fc.tuple(profilePick, selection).map(([p, s]) => detach(p, s)),
  fc
    .tuple(profilePick, numberPick, fc.oneof({ arbitrary: fc.constant(false), weight: 3 }, fc.constant(true)), fc.boolean())
    .map(([p, pick, stray, prefixed]) => detachOne(p, pick, stray, prefixed)),
  fc.tuple(profilePick, move).map(([index, m]) => review({ kind: "profile", index }, m)),
  fc.tuple(profilePick, move).map(([index, m]) => review({ kind: "profile", index }, m)),
  fc.tuple(profilePick, move).map(([index, m]) => review({ kind: "profile", index }, m)),
  fc.tuple(profilePick, move).map(([index, m]) => review({ kind: "profile", index }, m)),
  fc.tuple(profilePick, move).map(([index, m]) => review({ kind: "profile", index }, m)),
  fc.tuple(numberPick, move).map(([index, m]) => review({ kind: "number", index }, m)),
  fc
    .tuple(profilePick, fc.constantFrom<Amendment>("city", "name", "both"), city, name)
    .map(([p, a, c, n]) => amendProfile(p, a, c, n)),
  fc.tuple(numberPick, city).map(([i, c]) => amendOwn(i, c)),
  subject.map(resubmit),
  subject.map(resubmit),
  subject.map(upload),
  subject.map(upload),
  fc
    .tuple(fc.nat(), fc.oneof({ arbitrary: fc.constant(false), weight: 5 }, fc.constant(true)))
    .map(([pick, d]) => deleteDocument(pick, d)),
  fc.tuple(numberPick, fc.boolean()).map(([i, prefixed]) => submitOwn(i, prefixed)),
  fc.tuple(numberPick, fc.boolean()).map(([i, prefixed]) => submitOwn(i, prefixed)),
  numberPick.map(deleteOwn),
  numberPick.map(deleteOwn),
];

// ---- Runs ----

/** A new account: two profiles (created through the API, checked) and four numbers of one order; the agreement. */
async function setUp(): Promise<{ model: Model; real: Real }> {
  const customer = await createCustomer("profile-model");
  // US mobile is in the catalog without requirements (the beforeAll), and no command changes it.
  const numbers = await allocateNumbers(customer, 4, { orderable: "made-by-file" });
  const real: Real = { customer, keys: keyRing(customer.slug, customer.key), orderId: numbers[0]?.order_id ?? "" };
  const model: Model = {
    profiles: [],
    numbers: numbers.map((n) => ({ id: n.number_id, profile: null, attachmentKycId: null, own: null, staleKycIds: [] })),
    deletedDocuments: [],
  };
  for (const profileName of ["Head office", "Branch"]) {
    const answer = await send(real, "createKycProfile", profilesPath(real), {
      method: "POST",
      json: { name: profileName, ...INDIVIDUAL_ADDRESS },
    });
    expect(answer.status, answer.label).toBe(201);
    const created = answer.body as Wire;
    model.profiles.push({
      id: String(created.id).replace(/^kyp_/, ""),
      name: profileName,
      status: "pending",
      city: INDIVIDUAL_ADDRESS.city,
      submittedAt: expectDuring(created.submitted_at, answer),
      updatedAt: null,
      reviewedAt: null,
      rejectionReason: null,
      rejectionReasons: [],
      expiresAt: null,
      documents: [],
    });
    expectProfile(created, model, model.profiles.length - 1, answer.label);
  }
  await expectAgreement(model, real, "set-up");
  return { model, real };
}

async function runAgainstModel(cmds: Iterable<Command>): Promise<void> {
  const setup = await setUp();
  await fc.asyncModelRun(() => setup, cmds);
}

beforeAll(async () => {
  operations = await describedOperations();
  // The files of one workerd share its catalog: US mobile without requirements, as the model has it.
  const param = { country_code: "US", number_type: "mobile" };
  await makeOrderable(param.country_code, param.number_type);
  const cleared = await operator.admin.catalog[":country_code"][":number_type"].requirements.$delete({ param });
  expect([200, 404]).toContain(cleared.status);
});

describe("profiles and their numbers against a model", () => {
  it("keeps the numbers list, each number's verification and its profile in agreement with each other and the model", async () => {
    requests = 0;
    const started = Date.now();
    await fc.assert(fc.asyncProperty(fc.commands(commands, { maxCommands: 15, size: "max" }), runAgainstModel), {
      numRuns: 40,
      seed: 20_250_611,
    });
    console.info(`model-profiles: ${requests} requests in ${Date.now() - started} ms`);
  }, 120_000);

  const p0: Subject = { kind: "profile", index: 0 };
  const n0: Subject = { kind: "number", index: 0 };
  const ids = (...picks: number[]): Selection => ({ kind: "ids", picks, prefixed: true, repeat: false, unknown: false });
  const next = (reject: boolean, reasons: ReasonsKind = "none"): Move => ({ to: "next", reject, reasons, pick: 0 });

  it("rejects a profile by a document's name, keeps that document rejected through a resubmit, and shows it on every attached number", async () => {
    await runAgainstModel([
      upload(p0),
      upload(p0),
      attach(0, ids(0, 1)),
      review(p0, next(false)),
      review(p0, next(true, "both")),
      upload(p0),
      deleteDocument(1, false),
      amendProfile(0, "name", "Oakland", "Renamed"),
      resubmit(p0),
      review(p0, next(false)),
      review(p0, next(false)),
      amendProfile(0, "both", "Berlin", "Late"),
      upload(p0),
      deleteDocument(0, false),
    ]);
  });

  it("refuses a number's own routes while attached and attaching a number with its own, until it is deleted", async () => {
    await runAgainstModel([
      submitOwn(0, true),
      upload(n0),
      amendOwn(0, "Oakland"),
      attach(0, ids(0, 1)),
      review(n0, next(false)),
      deleteOwn(0),
      review(n0, next(true)),
      deleteOwn(0),
      attach(1, ids(0, 1)),
      deleteOwn(0),
      submitOwn(1, false),
      upload({ kind: "number", index: 1 }),
      resubmit({ kind: "number", index: 1 }),
      review({ kind: "number", index: 1 }, next(false)),
      detachOne(0, 0, false, false),
      detachOne(0, 1, true, true),
      detach(1, { kind: "order" }),
      submitOwn(0, true),
    ]);
  });

  // Last: the random runs (this seed) and the scenarios above between them reach every outcome, refusals as much as moves.
  it("reaches every outcome of the routes it models", () => {
    const outcomes = [
      "attachKycProfileNumbers 200",
      "detachKycProfileNumbers 200",
      "detachKycProfileNumber 200",
      "detachKycProfileNumber 404 not_found",
      "reviewKycProfile 200",
      "reviewKycProfile 400 validation_error",
      "reviewKycProfile 409 conflict",
      "reviewKycVerification 200",
      "reviewKycVerification 409 kyc_managed_by_profile",
      "updateKycProfile 200",
      "updateKycProfile 409 verification_locked",
      "resubmitKycProfile 200",
      "resubmitKycProfile 409 verification_locked",
      "uploadKycProfileDocument 201",
      "uploadKycProfileDocument 409 verification_locked",
      "uploadKycDocument 409 kyc_managed_by_profile",
      "deleteKycDocument 200",
      "deleteKycDocument 409 verification_completed",
      "submitKycAddress 201",
      "submitKycAddress 409 kyc_managed_by_profile",
      "submitKycAddress 409 kyc_exists",
      "deleteKycVerification 200",
      "deleteKycVerification 409 kyc_managed_by_profile",
      "deleteKycVerification 409 verification_locked",
      "resubmitKycVerification 409 kyc_managed_by_profile",
      "updateKycAddress 200",
      "updateKycAddress 409 kyc_managed_by_profile",
      "uploadKycDocument 409 kyc_not_submitted",
      "reviewKycVerification 404 not_found",
      "getKycVerification 404 not_found",
    ];
    expect(
      outcomes.filter((outcome) => !seen.has(outcome)),
      `outcomes met: ${[...seen].sort().join(", ")}`,
    ).toEqual([]);
  });
});
