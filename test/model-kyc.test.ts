// Model-based test of the KYC life cycle: random sequences of address submissions (individual and business),
// amendments, file uploads (real small files, and files the checks refuse), deletes and the operator's reviews, each
// answer checked against a plain in-memory model written from SPEC.md, DECISIONS.md and the choices docs/api.md
// records (not from the store), and the final state read back through the API (and the bucket) after every run.
import { env } from "cloudflare:workers";
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
import { FILES, type FileKind } from "./arbitraries.ts";
import { TEST_ADMIN_TOKEN } from "./constants.ts";
import { createdDocument, filesPath, pdf, uploadFile } from "./files.ts";
import {
  allocateNumbers,
  createCustomer,
  INDIVIDUAL_ADDRESS,
  json,
  type KeyRing,
  keyRing,
  type TestCustomer,
} from "./helpers.ts";

type Status = "pending" | "under_review" | "approved" | "rejected";
type DocumentStatus = "uploaded" | "pending_review" | "verified" | "rejected";

/** A document's status follows its verification's (DECISIONS, KYC). */
const DOCUMENT_STATUS: Record<Status, DocumentStatus> = {
  pending: "uploaded",
  under_review: "pending_review",
  approved: "verified",
  rejected: "rejected",
};
/** The operator's review moves (DECISIONS, Admin). */
const REVIEW_MOVES: Record<Status, Status[]> = {
  pending: ["under_review"],
  under_review: ["approved", "rejected"],
  approved: [],
  rejected: [],
};
/** Where the address may change (a rejected verification re-opens), files be added, and files be deleted. */
const AMENDABLE: Status[] = ["pending", "rejected"];
const UPLOADABLE: Status[] = ["pending", "under_review", "rejected"];
const DELETABLE: Status[] = ["pending", "under_review"];
const MAX_DOCUMENTS = 20;
const YEAR_MS = 365 * 86_400_000;

const ADDRESS_FIELDS = ["address_line_1", "address_line_2", "city", "state_province", "postal_code", "country"] as const;
const CONTACT_FIELDS = ["company_name", "tax_id", "contact_person", "phone_number", "email"] as const;
type Field = (typeof ADDRESS_FIELDS)[number] | (typeof CONTACT_FIELDS)[number];

interface ModelDocument {
  id: string;
  file: FileKind;
  filename: string;
  documentType: string;
  status: DocumentStatus;
  uploadedAt: string;
}

interface ModelVerification {
  id: string;
  type: "individual" | "business";
  fields: Record<Field, string | null>;
  status: Status;
  submittedAt: string;
  updatedAt: string | null;
  reviewedAt: string | null;
  rejectionReason: string | null;
  expiresAt: string | null;
  documents: ModelDocument[];
}

interface Model {
  numbers: { id: string; verification: ModelVerification | null }[];
  /** Documents deleted in this run: a second delete (or a download) is a 404. */
  deleted: string[];
}

interface Real {
  customer: TestCustomer;
  keys: KeyRing;
}

/** The files an upload may carry, with the type its bytes say, or the refusal its content earns. */
const UPLOADS = {
  pdf: { file: "pdf", filename: "utility bill.pdf", mimeType: "application/pdf" },
  png: { file: "png300", filename: "passport.PNG", mimeType: "image/png" },
  pngWithoutDensity: { file: "pngNoDensity", filename: "scan.png", mimeType: "image/png" },
  jpeg: { file: "jpeg300", filename: "résumé.jpeg", mimeType: "image/jpeg" },
  lowResolution: { file: "png72", filename: "blurry.png", mimeType: null },
  executable: { file: "executable", filename: "invoice.pdf", mimeType: null },
  wrongExtension: { file: "png300", filename: "photo.pdf", mimeType: null },
} as const satisfies Record<string, { file: FileKind; filename: string; mimeType: string | null }>;
type Upload = keyof typeof UPLOADS;

let operations: DescribedOperation[];
const op = (id: string) => operationNamed(operations, id);
/** Another account's number, verification and document: never visible to this run's key. */
let foreign: { numberId: string; documentId: string };
let requests = 0;
const seen = new Set<string>();

/** A request to an operation, counted, its outcome noted, its answer checked against the route's declaration. */
async function send(token: string, operationId: string, path: string, call?: Call): Promise<Exchange> {
  requests++;
  const answer = await exchangeWith(token, op(operationId), path, call);
  seen.add(`${operationId} ${answer.status}`);
  return answer;
}

type Wire = Record<string, unknown>;

function expectVerification(actual: Wire, numberId: string, v: ModelVerification, label: string): void {
  const documents = [...((actual.documents as Wire[] | undefined) ?? [])].sort((a, b) =>
    String(a.id).localeCompare(String(b.id)),
  );
  expect({ ...actual, documents }, label).toEqual({
    id: `kyc_${v.id}`,
    number_id: `num_${numberId}`,
    // A number's own verification: no profile; the model's reviews give no structured reasons.
    profile_id: null,
    status: v.status,
    type: v.type,
    address: Object.fromEntries(ADDRESS_FIELDS.map((f) => [f, v.fields[f]])),
    ...Object.fromEntries(CONTACT_FIELDS.map((f) => [f, v.fields[f]])),
    documents: [...v.documents]
      .sort((a, b) => a.id.localeCompare(b.id))
      .map((d) => ({
        id: `doc_${d.id}`,
        document_type: d.documentType,
        filename: d.filename,
        status: d.status,
        rejection_reasons: [],
        uploaded_at: d.uploadedAt,
      })),
    submitted_at: v.submittedAt,
    updated_at: v.updatedAt,
    reviewed_at: v.reviewedAt,
    rejection_reason: v.rejectionReason,
    rejection_reasons: [],
    expires_at: v.expiresAt,
  });
}

/** Moves a verification and its documents to a status. */
function moveTo(v: ModelVerification, status: Status): void {
  v.status = status;
  for (const d of v.documents) d.status = DOCUMENT_STATUS[status];
}

/** Which number a command addresses: one of the run's two (by either id form), another account's, or none. */
type NumberTarget = { kind: "own"; pick: number; prefixed: boolean } | { kind: "foreign" } | { kind: "unknown" };
const numberTarget: fc.Arbitrary<NumberTarget> = fc.oneof(
  {
    // Mostly the first number, so its verification gets deep into the life cycle.
    arbitrary: fc.record({ kind: fc.constant("own" as const), pick: fc.constantFrom(0, 0, 0, 1), prefixed: fc.boolean() }),
    weight: 18,
  },
  { arbitrary: fc.constant<NumberTarget>({ kind: "foreign" }), weight: 1 },
  { arbitrary: fc.constant<NumberTarget>({ kind: "unknown" }), weight: 1 },
);

function resolveNumber(model: Model, to: NumberTarget): { entry?: Model["numbers"][number]; path: string } {
  if (to.kind === "own") {
    const entry = model.numbers[to.pick % model.numbers.length];
    if (!entry) throw new Error("the run has no numbers");
    return { entry, path: to.prefixed ? `num_${entry.id}` : entry.id };
  }
  return { path: to.kind === "foreign" ? `num_${foreign.numberId}` : `num_${crypto.randomUUID()}` };
}

const describeNumber = (to: NumberTarget) => (to.kind === "own" ? `n${to.pick}` : to.kind);

/** Text a person would type (no edge whitespace: the API trims, and the rules say nothing of it). */
const text = fc.oneof(
  fc.constantFrom("1 Market St", "Suite 300", "San Francisco", "Zürich", "東京都港区", "O'Brien & Co.", "x".repeat(200)),
  fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9 ,.'-]{0,20}[A-Za-z0-9]$/),
);
const optionalValue: Record<Field, fc.Arbitrary<string>> = {
  address_line_1: text,
  address_line_2: text,
  city: text,
  state_province: fc.constantFrom("CA", "Bavaria", "Île-de-France"),
  postal_code: fc.constantFrom("94105", "SW1A 1AA", "75001"),
  country: fc.constantFrom("US", "DE", "FR", "GB"),
  company_name: text,
  tax_id: fc.constantFrom("12-3456789", "DE123456789"),
  contact_person: text,
  phone_number: fc.constantFrom("+14155550123", "+442079460000"),
  email: fc.constantFrom("kyc@acme.example", "ada.lovelace@example.com"),
};
/** The fields the amendment may clear with null (company_name may not: a business cannot lose it). */
const NULLABLE: Field[] = ["address_line_2", "tax_id", "contact_person", "phone_number", "email"];

const SUBMIT_DEFECTS = {
  "no city": ({ city: _, ...rest }: Wire) => rest,
  "country usa": (b: Wire) => ({ ...b, country: "usa" }),
  "email not an address": (b: Wire) => ({ ...b, email: "not-an-email" }),
  "phone not E.164": (b: Wire) => ({ ...b, phone_number: "4155550123" }),
  "address of 201": (b: Wire) => ({ ...b, address_line_1: "a".repeat(201) }),
  "blank city": (b: Wire) => ({ ...b, city: "   " }),
  "unknown field": (b: Wire) => ({ ...b, status: "approved" }),
  "business without company": ({ company_name: _, ...rest }: Wire) => ({ ...rest, verification_type: "business" }),
  "type unknown": (b: Wire) => ({ ...b, verification_type: "corporate" }),
};
const AMEND_DEFECTS = {
  "empty body": () => ({}),
  "verification_type given": (b: Wire) => ({ ...b, verification_type: "business" }),
  "company_name null": (b: Wire) => ({ ...b, company_name: null }),
  "email not an address": (b: Wire) => ({ ...b, email: "@" }),
  "country lowercase": (b: Wire) => ({ ...b, country: "us" }),
};
const someDefect = <D extends Record<string, unknown>>(defects: D) =>
  // One request in five breaks a rule of the wire format.
  fc.oneof({ arbitrary: fc.constant(null), weight: 4 }, fc.constantFrom(...(Object.keys(defects) as (keyof D & string)[])));

type Command = fc.AsyncCommand<Model, Real>;
/** A command that always applies (a request that must be refused is as much a part of the life cycle as any other). */
function command(description: string, run: (model: Model, real: Real) => Promise<void>): Command {
  return { check: () => true, run, toString: () => description };
}

function submit(
  to: NumberTarget,
  type: "individual" | "business",
  extras: Partial<Record<Field, string>>,
  defect: keyof typeof SUBMIT_DEFECTS | null,
): Command {
  return command(
    `submit(${describeNumber(to)} ${type} ${JSON.stringify(extras).slice(0, 60)}${defect ? ` !${defect}` : ""})`,
    async (model, real) => {
      const { entry, path } = resolveNumber(model, to);
      let body: Wire = { ...INDIVIDUAL_ADDRESS, verification_type: type, ...extras };
      if (type === "business" && body.company_name === undefined) body.company_name = "Acme Telecom Inc.";
      if (defect) body = SUBMIT_DEFECTS[defect](body);
      const answer = await send(await real.keys.next(), "submitKycAddress", `/v1/numbers/${path}/KYC/address`, {
        method: "POST",
        json: body,
      });
      if (defect) return expectRefusal(answer, [400, "validation_error"]);
      if (!entry) return expectRefusal(answer, [404, "not_found"]);
      if (entry.verification) return expectRefusal(answer, [409, "kyc_exists"]);
      expect(answer.status, answer.label).toBe(201);
      const created = answer.body as Wire;
      const fields = Object.fromEntries(
        [...ADDRESS_FIELDS, ...CONTACT_FIELDS].map((f) => [f, (body[f] as string | undefined) ?? null]),
      );
      const verification: ModelVerification = {
        id: String(created.id).replace(/^kyc_/, ""),
        type,
        fields: fields as Record<Field, string | null>,
        status: "pending",
        submittedAt: expectDuring(created.submitted_at, answer),
        updatedAt: null,
        reviewedAt: null,
        rejectionReason: null,
        expiresAt: null,
        documents: [],
      };
      expectVerification(created, entry.id, verification, answer.label);
      expect(answer.headers.get("Location"), answer.label).toBe(`/v1/numbers/num_${entry.id}/KYC`);
      entry.verification = verification;
    },
  );
}

function amend(
  to: NumberTarget,
  changes: Partial<Record<Field, string | null>>,
  defect: keyof typeof AMEND_DEFECTS | null,
): Command {
  return command(
    `amend(${describeNumber(to)} ${JSON.stringify(changes).slice(0, 60)}${defect ? ` !${defect}` : ""})`,
    async (model, real) => {
      const { entry, path } = resolveNumber(model, to);
      const body: Wire = defect ? AMEND_DEFECTS[defect](changes) : changes;
      const answer = await send(await real.keys.next(), "updateKycAddress", `/v1/numbers/${path}/KYC/address`, {
        method: "PATCH",
        json: body,
      });
      if (defect || Object.keys(body).length === 0) return expectRefusal(answer, [400, "validation_error"]);
      const v = entry?.verification;
      if (!entry || !v) return expectRefusal(answer, [404, "not_found"]);
      if (!AMENDABLE.includes(v.status)) return expectRefusal(answer, [409, "verification_locked"]);
      expect(answer.status, answer.label).toBe(200);
      const updated = answer.body as Wire;
      Object.assign(v.fields, changes);
      // A rejected verification re-opens: pending, its reason and review time cleared, its files waiting again.
      moveTo(v, "pending");
      v.rejectionReason = null;
      v.reviewedAt = null;
      v.updatedAt = expectDuring(updated.updated_at, answer);
      expectVerification(updated, entry.id, v, answer.label);
    },
  );
}

/** A document type the rules do not list. */
const NOT_A_DOCUMENT_TYPE = "passport";

type Expiration = "none" | "future" | "today" | "past" | "not a date";
const expirationDate: Record<Expiration, () => string | undefined> = {
  none: () => undefined,
  future: () => "2099-12-31",
  today: () => new Date().toISOString().slice(0, 10),
  past: () => "2001-01-01",
  "not a date": () => "2026-02-30",
};
interface UploadSpec {
  upload: Upload;
  documentType: string;
  description?: string;
  expiration: Expiration;
}

/** One upload, checked: the refusals that apply to the number and to the form, or the stored document. */
async function uploadOnce(model: Model, real: Real, to: NumberTarget, spec: UploadSpec): Promise<void> {
  const { entry, path } = resolveNumber(model, to);
  const { file, filename, mimeType } = UPLOADS[spec.upload];
  const bytes = FILES[file].bytes();
  const form = new FormData();
  form.set("file", new File([bytes], filename, { type: "application/octet-stream" }));
  form.set("document_type", spec.documentType);
  if (spec.description !== undefined) form.set("description", spec.description);
  const expiration = expirationDate[spec.expiration]();
  if (expiration !== undefined) form.set("expiration_date", expiration);
  const answer = await send(await real.keys.next(), "uploadKycDocument", filesPath(path), { method: "POST", form });

  const v = entry?.verification;
  const numberRefusals: [number, string][] = [];
  if (!entry) numberRefusals.push([404, "not_found"]);
  else if (!v) numberRefusals.push([409, "kyc_not_submitted"]);
  else if (!UPLOADABLE.includes(v.status)) numberRefusals.push([409, "verification_locked"]);
  else if (v.documents.length >= MAX_DOCUMENTS) numberRefusals.push([409, "conflict"]);
  const fields =
    spec.documentType === NOT_A_DOCUMENT_TYPE ||
    (spec.description?.length ?? 0) > 500 ||
    ["past", "not a date"].includes(spec.expiration);
  // Fields first, then the file's content; another branch changes the file checks, so any refusal of a bad file passes.
  const formRefusals: [number, string][] = fields
    ? [[400, "validation_error"]]
    : mimeType === null
      ? [
          [400, "resolution_too_low"],
          [415, "unsupported_media_type"],
        ]
      : [];
  if (numberRefusals.length > 0 || formRefusals.length > 0) {
    // A locked verification is refused before the body is read (DECISIONS, Hardening); otherwise the rules do not say
    // whether the number's refusal or the form's comes first.
    const locked = numberRefusals.some(([, code]) => code === "verification_locked");
    const refusals = locked || formRefusals.length === 0 ? numberRefusals : [...numberRefusals, ...formRefusals];
    return expectRefusal(answer, ...refusals);
  }
  if (!v) throw new Error("unreachable: an upload without refusals has a verification");
  expect(answer.status, answer.label).toBe(201);
  const stored = answer.body as Wire;
  const id = String(stored.id).replace(/^doc_/, "");
  // A file joining a rejected verification is new, not rejected (docs/api.md: new files start as uploaded).
  const status: DocumentStatus = v.status === "rejected" ? "uploaded" : DOCUMENT_STATUS[v.status];
  const document: ModelDocument = {
    id,
    file,
    filename,
    documentType: spec.documentType,
    status,
    uploadedAt: expectDuring(stored.uploaded_at, answer),
  };
  expect(stored, answer.label).toEqual({
    id: `doc_${id}`,
    kyc_id: `kyc_${v.id}`,
    document_type: spec.documentType,
    filename,
    file_size: bytes.length,
    mime_type: mimeType,
    description: spec.description ?? null,
    expiration_date: expiration ?? null,
    status,
    rejection_reasons: [],
    uploaded_at: document.uploadedAt,
    download_url: expect.stringMatching(new RegExp(`/v1/kyc/documents/doc_${id}/download$`)),
  });
  expect(answer.headers.get("Location"), answer.label).toBe(`/v1/kyc/documents/doc_${id}/download`);
  v.documents.push(document);
}

const describeUpload = (spec: UploadSpec) =>
  `${spec.upload} ${spec.documentType}${spec.description === undefined ? "" : ` desc(${spec.description.length})`} exp=${spec.expiration}`;

function upload(to: NumberTarget, spec: UploadSpec): Command {
  return command(`upload(${describeNumber(to)} ${describeUpload(spec)})`, (model, real) => uploadOnce(model, real, to, spec));
}

/** Uploads PDFs until the verification holds 20, then one more, which is refused; each upload checked like any other. */
function fillUp(to: NumberTarget): Command {
  return command(`fillUp(${describeNumber(to)})`, async (model, real) => {
    const spec: UploadSpec = { upload: "pdf", documentType: "other", expiration: "none" };
    const v = resolveNumber(model, to).entry?.verification;
    const room = v && UPLOADABLE.includes(v.status) ? MAX_DOCUMENTS - v.documents.length : 0;
    for (let i = 0; i <= room; i++) await uploadOnce(model, real, to, spec);
  });
}

/** Which document a command addresses: one of the run's, one it deleted, another account's, or none. */
type DocumentTarget =
  | { kind: "own"; pick: number }
  | { kind: "deleted"; pick: number }
  | { kind: "foreign" }
  | { kind: "unknown" };
const documentTarget: fc.Arbitrary<DocumentTarget> = fc.oneof(
  { arbitrary: fc.nat().map((pick): DocumentTarget => ({ kind: "own", pick })), weight: 10 },
  { arbitrary: fc.nat().map((pick): DocumentTarget => ({ kind: "deleted", pick })), weight: 2 },
  { arbitrary: fc.constant<DocumentTarget>({ kind: "foreign" }), weight: 1 },
  { arbitrary: fc.constant<DocumentTarget>({ kind: "unknown" }), weight: 1 },
);

function resolveDocument(
  model: Model,
  to: DocumentTarget,
): { document?: ModelDocument; verification?: ModelVerification; id: string } {
  // A number first, then one of its files (else the other number's), so a verification's few files are picked as
  // often as another's twenty.
  const withFiles = model.numbers
    .map((n) => n.verification)
    .filter((v): v is ModelVerification => (v?.documents.length ?? 0) > 0);
  if (to.kind === "own" && withFiles.length > 0) {
    const verification = withFiles[to.pick % withFiles.length] as ModelVerification;
    const document = verification.documents[
      Math.floor(to.pick / withFiles.length) % verification.documents.length
    ] as ModelDocument;
    return { document, verification, id: document.id };
  }
  if (to.kind === "deleted" && model.deleted.length > 0) return { id: model.deleted[to.pick % model.deleted.length] as string };
  return { id: to.kind === "foreign" ? foreign.documentId : crypto.randomUUID() };
}

const describeDocument = (to: DocumentTarget) => ("pick" in to ? `${to.kind} d${to.pick}` : to.kind);

function remove(to: DocumentTarget): Command {
  return command(`delete(${describeDocument(to)})`, async (model, real) => {
    const { document, verification, id } = resolveDocument(model, to);
    const answer = await send(await real.keys.next(), "deleteKycDocument", `/v1/kyc/documents/doc_${id}`, { method: "DELETE" });
    if (!document || !verification) return expectRefusal(answer, [404, "not_found"]);
    if (!DELETABLE.includes(verification.status)) return expectRefusal(answer, [409, "verification_completed"]);
    expect(answer.status, answer.label).toBe(200);
    expect(answer.body, answer.label).toEqual({
      message: expect.any(String),
      deleted_at: expectDuring((answer.body as Wire).deleted_at, answer),
    });
    verification.documents = verification.documents.filter((d) => d.id !== id);
    model.deleted.push(id);
  });
}

function download(to: DocumentTarget): Command {
  return command(`download(${describeDocument(to)})`, async (model, real) => {
    const { document, id } = resolveDocument(model, to);
    await expectDownload(real, id, document);
  });
}

async function expectDownload(real: Real, id: string, document: ModelDocument | undefined): Promise<void> {
  const answer = await send(await real.keys.next(), "downloadKycDocument", `/v1/kyc/documents/doc_${id}/download`);
  if (!document) return expectRefusal(answer, [404, "not_found"]);
  expect(answer.status, answer.label).toBe(200);
  expect(answer.headers.get("Content-Type"), answer.label).toBe(UPLOADS[uploadOf(document)].mimeType);
  expect([...answer.bytes], answer.label).toEqual([...FILES[document.file].bytes()]);
}

/** The upload a stored document came from (its file kind and name say which). */
function uploadOf(document: ModelDocument): Upload {
  const found = (Object.keys(UPLOADS) as Upload[]).find(
    (u) => UPLOADS[u].file === document.file && UPLOADS[u].filename === document.filename,
  );
  if (!found) throw new Error(`no upload for ${document.filename}`);
  return found;
}

function reviewCommand(to: NumberTarget, status: string, reason: string | undefined): Command {
  return command(`review(${describeNumber(to)} → ${status}${reason === undefined ? "" : ` "${reason}"`})`, async (model) => {
    // The operator may review any account's verification: "foreign" would be a real one, so it names none.
    const v = to.kind === "own" ? resolveNumber(model, to).entry?.verification : undefined;
    const answer = await send(
      TEST_ADMIN_TOKEN,
      "reviewKycVerification",
      `/admin/kyc/kyc_${v?.id ?? crypto.randomUUID()}/review`,
      {
        method: "POST",
        json: reason === undefined ? { status } : { status, rejection_reason: reason },
      },
    );
    const known = ["under_review", "approved", "rejected"].includes(status);
    // A reason is required when rejecting, and allowed only then.
    if (!known || (status === "rejected") !== (reason !== undefined)) return expectRefusal(answer, [400, "validation_error"]);
    if (!v) return expectRefusal(answer, [404, "not_found"]);
    if (!REVIEW_MOVES[v.status].includes(status as Status)) return expectRefusal(answer, [409, "conflict"]);
    expect(answer.status, answer.label).toBe(200);
    const reviewed = answer.body as Wire;
    moveTo(v, status as Status);
    v.reviewedAt = expectDuring(reviewed.reviewed_at, answer);
    v.rejectionReason = reason ?? null;
    v.expiresAt = status === "approved" ? new Date(Date.parse(v.reviewedAt) + YEAR_MS).toISOString() : null;
    const numberId = model.numbers.find((n) => n.verification === v)?.id ?? "";
    expectVerification(reviewed, numberId, v, answer.label);
  });
}

function read(to: NumberTarget): Command {
  return command(`get(${describeNumber(to)})`, async (model, real) => {
    const { entry, path } = resolveNumber(model, to);
    const answer = await send(await real.keys.next(), "getKycVerification", `/v1/numbers/${path}/KYC`);
    if (!entry?.verification) return expectRefusal(answer, [404, "not_found"]);
    expect(answer.status, answer.label).toBe(200);
    expectVerification(answer.body as Wire, entry.id, entry.verification, answer.label);
  });
}

const field = (name: Field) => optionalValue[name];
const uploadSpec: fc.Arbitrary<UploadSpec> = fc.record(
  {
    upload: fc.oneof(
      { arbitrary: fc.constantFrom<Upload>("pdf", "png", "pngWithoutDensity", "jpeg"), weight: 6 },
      fc.constantFrom<Upload>("lowResolution", "executable", "wrongExtension"),
    ),
    documentType: fc.oneof(
      { arbitrary: fc.constantFrom("identity", "address_proof", "utility_bill", "other"), weight: 12 },
      fc.constant(NOT_A_DOCUMENT_TYPE),
    ),
    description: fc.oneof(
      { arbitrary: fc.constantFrom("Front and back", "Kontoauszug März", "d".repeat(500)), weight: 8 },
      fc.constant("d".repeat(501)),
    ),
    expiration: fc.oneof(
      { arbitrary: fc.constantFrom<Expiration>("none", "future", "today"), weight: 8 },
      fc.constantFrom<Expiration>("past", "not a date"),
    ),
  },
  { requiredKeys: ["upload", "documentType", "expiration"] },
);

/** Review bodies: mostly the moves themselves, sometimes a reason where none belongs (or none where one must be). */
const reviews = fc
  .tuple(
    numberTarget,
    fc.oneof(
      { arbitrary: fc.constant({ status: "under_review" }), weight: 4 },
      { arbitrary: fc.constant({ status: "approved" }), weight: 3 },
      {
        arbitrary: fc.constantFrom("Blurry scan", "Address does not match").map((reason) => ({ status: "rejected", reason })),
        weight: 3,
      },
      fc.constantFrom<{ status: string; reason?: string }>(
        { status: "rejected" },
        { status: "approved", reason: "Fine" },
        { status: "pending" },
        { status: "APPROVED" },
      ),
    ),
  )
  .map(([to, { status, reason }]: [NumberTarget, { status: string; reason?: string }]) => reviewCommand(to, status, reason));

const submissions = fc
  .tuple(
    numberTarget,
    fc.constantFrom("individual" as const, "business" as const),
    fc.record(
      Object.fromEntries([...ADDRESS_FIELDS, ...CONTACT_FIELDS].map((f) => [f, field(f)])) as Record<Field, fc.Arbitrary<string>>,
      {
        requiredKeys: [],
      },
    ),
    someDefect(SUBMIT_DEFECTS),
  )
  .map(([to, type, extras, defect]) => submit(to, type, extras, defect));

const amendments = fc
  .tuple(
    numberTarget,
    fc.record(
      Object.fromEntries(
        [...ADDRESS_FIELDS, ...CONTACT_FIELDS].map((f) => [
          f,
          NULLABLE.includes(f) ? fc.option(field(f), { nil: null, freq: 3 }) : field(f),
        ]),
      ) as Record<Field, fc.Arbitrary<string | null>>,
      { requiredKeys: [] },
    ),
    someDefect(AMEND_DEFECTS),
  )
  .map(([to, changes, defect]) => amend(to, changes, defect));

const uploads = fc.tuple(numberTarget, uploadSpec).map(([to, spec]) => upload(to, spec));

/** The commands, each kind as often as it appears here: the deeper states need submissions and reviews first. */
const commands = [
  submissions,
  submissions,
  amendments,
  amendments,
  uploads,
  uploads,
  // Filling a verification up costs twenty uploads: one command in six of this kind.
  fc.oneof({ arbitrary: uploads, weight: 5 }, numberTarget.map(fillUp)),
  reviews,
  reviews,
  reviews,
  documentTarget.map(remove),
  fc.oneof(documentTarget.map(download), numberTarget.map(read)),
];

/** The run's numbers as the API shows them at the end: each verification, the numbers' kyc_status, every stored file. */
async function expectFinalState(model: Model, real: Real): Promise<void> {
  for (const entry of model.numbers)
    await read({ kind: "own", pick: model.numbers.indexOf(entry), prefixed: true }).run(model, real);
  const list = await send(await real.keys.next(), "listNumbers", `/api/customers/${real.customer.slug}/numbers?limit=100`);
  const statuses = Object.fromEntries((list.body as { data: Wire[] }).data.map((n) => [n.number_id, n.kyc_status]));
  expect(statuses).toEqual(Object.fromEntries(model.numbers.map((n) => [n.id, n.verification?.status ?? null])));
  const documents = model.numbers.flatMap((n) => n.verification?.documents ?? []);
  for (const document of documents) await expectDownload(real, document.id, document);
  // One object per document in the bucket, none left behind by refused or deleted uploads.
  const objects = await env.DOCUMENTS.list({ prefix: `kyc/${real.customer.customerId}/` });
  expect(objects.objects.length).toBe(documents.length);
}

beforeAll(async () => {
  operations = await describedOperations();
  const other = await createCustomer("foreign");
  const [number] = await allocateNumbers(other, 1);
  if (!number) throw new Error("no number allocated");
  await json(
    await other.api.v1.numbers[":number_id"].KYC.address.$post({
      param: { number_id: number.number_id },
      json: INDIVIDUAL_ADDRESS,
    }),
    201,
  );
  const document = await createdDocument(await uploadFile(other, number.number_id, pdf(), "foreign.pdf"));
  foreign = { numberId: number.number_id, documentId: document.id.replace(/^doc_/, "") };
});

/** One run: a new account with two numbers, the commands, then the final state. */
async function runAgainstModel(cmds: Iterable<Command>): Promise<void> {
  const customer = await createCustomer("kyc-model");
  // US mobile was made orderable by the beforeAll's allocation; no command changes the catalog.
  const numbers = await allocateNumbers(customer, 2, { orderable: "made-by-file" });
  const real: Real = { customer, keys: keyRing(customer.slug, customer.key) };
  const model: Model = { numbers: numbers.map((n) => ({ id: n.number_id, verification: null })), deleted: [] };
  await fc.asyncModelRun(() => ({ model, real }), cmds);
  await expectFinalState(model, real);
}

describe("the KYC life cycle against a model", () => {
  it("follows the model through submissions, amendments, uploads, deletes and reviews, and ends in the model's state", async () => {
    requests = 0;
    await fc.assert(fc.asyncProperty(fc.commands(commands, { maxCommands: 45, size: "max" }), runAgainstModel), { numRuns: 45 });
    // The budget: at least 1,000 generated requests for this property, reaching every outcome of the life cycle.
    expect(requests).toBeGreaterThanOrEqual(1000);
    // The rarer outcomes (a re-opening, the 21st file, a refused file type, a delete after completion) are walked
    // through by the scenarios below, which random runs reach only now and then.
    const outcomes = [
      "submitKycAddress 201",
      "submitKycAddress 400",
      "submitKycAddress 404",
      "submitKycAddress 409",
      "updateKycAddress 200",
      "updateKycAddress 400",
      "updateKycAddress 404",
      "updateKycAddress 409",
      "uploadKycDocument 201",
      "uploadKycDocument 400",
      "uploadKycDocument 404",
      "uploadKycDocument 409",
      "deleteKycDocument 200",
      "deleteKycDocument 404",
      "reviewKycVerification 200",
      "reviewKycVerification 400",
      "reviewKycVerification 404",
      "reviewKycVerification 409",
    ];
    expect(
      outcomes.filter((outcome) => !seen.has(outcome)),
      `outcomes met: ${[...seen].sort().join(", ")}`,
    ).toEqual([]);
  }, 120_000);

  const first: NumberTarget = { kind: "own", pick: 0, prefixed: true };
  const firstFile: DocumentTarget = { kind: "own", pick: 0 };
  const file = (upload: Upload): UploadSpec => ({ upload, documentType: "identity", expiration: "none" });

  it("approves a verification, then refuses to change it, add to it or delete from it", async () => {
    await runAgainstModel([
      submit(first, "individual", {}, null),
      upload(first, file("pdf")),
      reviewCommand(first, "under_review", undefined),
      upload(first, file("png")),
      remove(firstFile),
      reviewCommand(first, "approved", undefined),
      amend(first, { city: "Berlin" }, null),
      upload(first, file("jpeg")),
      remove(firstFile),
      reviewCommand(first, "rejected", "Too late"),
    ]);
  });

  it("rejects a verification, takes new files as uploaded, and re-opens it on an amendment", async () => {
    await runAgainstModel([
      submit(first, "business", { company_name: "Acme Telecom Inc.", tax_id: "12-3456789" }, null),
      upload(first, file("pdf")),
      reviewCommand(first, "under_review", undefined),
      reviewCommand(first, "rejected", "Address does not match"),
      upload(first, file("pngWithoutDensity")),
      remove(firstFile),
      amend(first, { address_line_1: "2 Market St", tax_id: null }, null),
      reviewCommand(first, "under_review", undefined),
    ]);
  });

  it("refuses files that are not a PDF, JPEG or PNG of enough resolution, and a 21st file", async () => {
    await runAgainstModel([
      submit(first, "individual", {}, null),
      upload(first, file("executable")),
      upload(first, file("wrongExtension")),
      upload(first, file("lowResolution")),
      fillUp(first),
      remove(firstFile),
      upload(first, file("jpeg")),
    ]);
  });

  it("keeps a file added after a rejection as uploaded when a review is then refused (a counterexample it found)", async () => {
    await runAgainstModel([
      submit(first, "individual", {}, null),
      reviewCommand(first, "under_review", undefined),
      reviewCommand(first, "rejected", "Blurry scan"),
      upload(first, file("pdf")),
      reviewCommand(first, "under_review", undefined),
    ]);
  });
});
