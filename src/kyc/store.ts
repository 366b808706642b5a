// Queries for verifications and their document rows. Every write that depends on a state or on ownership is one
// guarded statement; when it writes nothing, the store finds why.
import { type AnyColumn, and, asc, count, eq, inArray, isNotNull, isNull, lte, ne, or, type SQL, sql } from "drizzle-orm";
import { type AuditContext, auditStatement } from "../db/audit.ts";
import { batchByName, ifWritten, type Results } from "../db/batch.ts";
import type { Database } from "../db/client.ts";
import { isUniqueViolation } from "../db/errors.ts";
import { type EventSpec, eventStatements, type Outbox } from "../db/outbox.ts";
import { type Outcome, ok, type Refusal, refusalByState, refuse } from "../db/outcome.ts";
import { type PageWindow, stableOrder } from "../db/paging.ts";
import {
  type DocumentRow,
  type DocumentStatus,
  type KycRow,
  type KycStatus,
  kycDocuments,
  kycProfileNumbers,
  kycVerifications,
  numbers,
  OPEN_ORDER_STATUSES,
  orders,
  type RejectionReason,
} from "../db/schema.ts";
import { containsText, inJsonList, insertSelection } from "../db/sql.ts";
import { withPrefix } from "../lib/ids.ts";
import { DAY_MS } from "../lib/time.ts";
import { documentEventData, profileData, profileDocumentEventData, verificationData } from "../webhooks/payloads.ts";

/** A verification holds at most this many documents. */
export const MAX_DOCUMENTS = 20;

const YEAR_MS = 365 * DAY_MS;
/** An approved verification may be renewed (amended, and so re-opened) from this long before it expires. */
const RENEWAL_WINDOW_MS = 60 * DAY_MS;

/** States in which the address may change (a rejected verification re-opens). */
const ADDRESS_EDITABLE: readonly KycStatus[] = ["pending", "rejected"];

/** Whether the address of the verification in scope may change now: pending, rejected, or approved within renewal. */
function addressEditable(now: number): SQL {
  return or(
    inArray(kycVerifications.status, ADDRESS_EDITABLE),
    and(eq(kycVerifications.status, "approved" satisfies KycStatus), lte(kycVerifications.expiresAt, now + RENEWAL_WINDOW_MS)),
  )!;
}

/** addressEditable for a verification read: whether its address may be amended now (the pages' forms ask). */
export function addressAmendable(kyc: Pick<KycRow, "status" | "expiresAt">, now: number): boolean {
  if (ADDRESS_EDITABLE.includes(kyc.status)) return true;
  return kyc.status === "approved" && kyc.expiresAt !== null && kyc.expiresAt <= now + RENEWAL_WINDOW_MS;
}

/** deleteDocumentRow's guard for rows read: its verification still open, or a document a rejection's reason named. */
export function documentDeletable(
  kyc: Pick<KycRow, "status">,
  document: Pick<DocumentRow, "status" | "rejectionReasons">,
): boolean {
  if (DELETE_ALLOWED.includes(kyc.status)) return true;
  return kyc.status === "rejected" && document.status === "rejected" && document.rejectionReasons.length > 0;
}

/** What a verification verifies: one of the account's numbers (its own verification), or one of its profiles. */
export type Subject = { kind: "number"; numberId: string } | { kind: "profile"; profileId: string };
export type SubjectKind = Subject["kind"];

/** The account's verification of this subject. */
export function subjectVerification(customerId: string, subject: Subject): SQL {
  return subject.kind === "number"
    ? and(eq(kycVerifications.numberId, subject.numberId), eq(kycVerifications.customerId, customerId))!
    : and(
        eq(kycVerifications.id, subject.profileId),
        eq(kycVerifications.customerId, customerId),
        isNull(kycVerifications.numberId),
      )!;
}

/** Whether the verification in scope is of this kind. */
function ofKind(kind: SubjectKind): SQL {
  return kind === "number" ? isNotNull(kycVerifications.numberId) : isNull(kycVerifications.numberId);
}

type VerificationAction = "submitted" | "updated" | "under_review" | "approved" | "rejected" | "deleted";
type DocumentAction = "document_uploaded" | "document_deleted";

/** The event type of an action on a verification of this kind: kyc.* for a number's, kyc_profile.* for a profile. */
export function eventTypeOf(
  kind: SubjectKind,
  action: VerificationAction | DocumentAction | "expiring" | "expired",
): EventSpec["type"] {
  return `${kind === "number" ? "kyc" : "kyc_profile"}.${action}`;
}
/** States in which files may be added. */
const UPLOAD_ALLOWED: readonly KycStatus[] = ["pending", "under_review", "rejected"];
/** States in which a file may still be removed. */
const DELETE_ALLOWED: readonly KycStatus[] = ["pending", "under_review"];

/** Why a verification in `status` holding `documentCount` files takes no other, or undefined when it takes one. */
export function uploadRefusal(status: KycStatus, documentCount: number): Refusal<"wrong_state" | "full"> | undefined {
  if (!UPLOAD_ALLOWED.includes(status)) return refuse("wrong_state", { state: status });
  if (documentCount >= MAX_DOCUMENTS) return refuse("full", { limit: MAX_DOCUMENTS });
  return undefined;
}

/** The operator's review moves: the state each target may be reached from. */
const REVIEW_FROM = { under_review: "pending", approved: "under_review", rejected: "under_review" } as const satisfies Record<
  string,
  KycStatus
>;
export type ReviewTarget = keyof typeof REVIEW_FROM;
export const REVIEW_TARGETS = Object.keys(REVIEW_FROM) as [ReviewTarget, ...ReviewTarget[]];

/** The review moves a verification that is `status` allows now (what the console offers to do with it). */
export function reviewMovesFrom(status: KycStatus): ReviewTarget[] {
  return REVIEW_TARGETS.filter((target) => REVIEW_FROM[target] === status);
}

/** A document's status follows its verification's. */
const DOCUMENT_STATUS_OF: Record<KycStatus, DocumentStatus> = {
  pending: "uploaded",
  under_review: "pending_review",
  approved: "verified",
  rejected: "rejected",
};
/** A file added to a rejected verification is new, not rejected: it waits for the next review like any other. */
const NEW_DOCUMENT_STATUS_OF: Record<KycStatus, DocumentStatus> = { ...DOCUMENT_STATUS_OF, rejected: "uploaded" };

/** The document status a verification status maps to, as SQL over an expression that yields the verification's status. */
function documentStatusFor(verificationStatus: SQL | AnyColumn, mapping: Record<KycStatus, DocumentStatus>): SQL {
  const branches = Object.entries(mapping).map(([from, to]) => sql`WHEN ${from} THEN ${to}`);
  return sql`CASE ${verificationStatus} ${sql.join(branches, sql` `)} END`;
}

/**
 * A document a reviewer's reason named at a rejection: it stays rejected until deleted, whatever its verification does,
 * and may be deleted while the verification is rejected. (Without reasons a rejection rejects every document, and they
 * follow the verification again when it re-opens.)
 */
const REJECTED_BY_NAME = and(
  eq(kycDocuments.status, "rejected" satisfies DocumentStatus),
  ne(kycDocuments.rejectionReasons, sql`'[]'`),
)!;

export type NewVerification = Pick<
  typeof kycVerifications.$inferInsert,
  | "type"
  | "addressLine1"
  | "addressLine2"
  | "city"
  | "stateProvince"
  | "postalCode"
  | "country"
  | "companyName"
  | "taxId"
  | "contactPerson"
  | "phoneNumber"
  | "email"
>;
/** The fields an address update names; null clears an optional one. The verification type never changes. */
export type AddressChanges = Partial<Omit<NewVerification, "type">>;

export type VerificationWithDocuments = { verification: KycRow; documents: DocumentRow[] };

/** A number's verification drawn from its profile: the attachment's own id and the profile's. */
export interface Attachment {
  kycId: string;
  profileId: string;
}

/** Documents are listed oldest first, ties by id. */
export const DOCUMENT_ORDER = [asc(kycDocuments.uploadedAt), asc(kycDocuments.id)];

/** The documents of the verification `which` finds, oldest first: a query to run in a batch. */
export function documentsOf(db: Database, which: SQL) {
  return db
    .select({ document: kycDocuments })
    .from(kycDocuments)
    .innerJoin(kycVerifications, eq(kycVerifications.id, kycDocuments.kycId))
    .where(which)
    .orderBy(...DOCUMENT_ORDER);
}

/** The verification's values as an INSERT … SELECT writes them, in the table's column order. */
function verificationValues(input: NewVerification, now: number) {
  return {
    status: "pending" satisfies KycStatus,
    type: input.type,
    addressLine1: input.addressLine1,
    addressLine2: input.addressLine2 ?? null,
    city: input.city,
    stateProvince: input.stateProvince,
    postalCode: input.postalCode,
    country: input.country,
    companyName: input.companyName ?? null,
    taxId: input.taxId ?? null,
    contactPerson: input.contactPerson ?? null,
    phoneNumber: input.phoneNumber ?? null,
    email: input.email ?? null,
    submittedAt: now,
    updatedAt: null,
    reviewedAt: null,
    rejectionReason: null,
    rejectionReasons: sql`'[]'`,
    expiresAt: null,
    expiryNotice: 0,
  };
}

/** The account's number's profile (null: it joined none), or undefined when the account has no such number. */
async function ownedNumberProfile(
  db: Database,
  customerId: string,
  numberId: string,
): Promise<{ profileId: string | null } | undefined> {
  return db
    .select({ profileId: numbers.kycProfileId })
    .from(numbers)
    .where(and(eq(numbers.id, numberId), eq(numbers.customerId, customerId)))
    .get();
}

/** Why a number's own verification wrote nothing: the number is the account's and joined a profile, or not found. */
async function managedOrNotFound(
  db: Database,
  customerId: string,
  numberId: string,
): Promise<Refusal<"managed_by_profile" | "not_found">> {
  const profileId = (await ownedNumberProfile(db, customerId, numberId))?.profileId;
  return profileId ? refuse("managed_by_profile", { profileId }) : refuse("not_found");
}

/**
 * Starts the verification of a number the account owns: one INSERT … SELECT from the account's numbers, so another
 * account's number (or none, or one that joined a profile) writes nothing, and the unique number_id refuses a second.
 */
export async function submitVerification(
  db: Database,
  outbox: Outbox,
  customerId: string,
  numberId: string,
  input: NewVerification,
  now: number,
): Promise<Outcome<KycRow, "not_found" | "duplicate" | "managed_by_profile">> {
  const id = crypto.randomUUID();
  try {
    const { submitted } = await batchByName(db, {
      submitted: withVerificationEvent(
        db,
        db
          .insert(kycVerifications)
          .select(
            db
              .select(
                insertSelection({
                  id,
                  customerId: numbers.customerId,
                  numberId: numbers.id,
                  name: null,
                  ...verificationValues(input, now),
                }),
              )
              .from(numbers)
              .where(
                and(
                  eq(numbers.id, numberId),
                  eq(numbers.customerId, customerId),
                  sql`NOT EXISTS (SELECT 1 FROM ${kycProfileNumbers} WHERE ${kycProfileNumbers.numberId} = ${numbers.id})`,
                ),
              ),
          )
          .returning(),
        "number",
        "submitted",
        eq(kycVerifications.id, id),
        now,
      ),
    });
    outbox.add(submitted.event.deliveries);
    const [row] = submitted.write;
    if (row) return ok(row);
    const number = await ownedNumberProfile(db, customerId, numberId);
    if (!number) return refuse("not_found");
    if (number.profileId) return refuse("managed_by_profile", { profileId: number.profileId });
    // The account's and attached to none now: a detach came between the insert and the read; the submit may run after it.
    return submitVerification(db, outbox, customerId, numberId, input, now);
  } catch (error) {
    if (isUniqueViolation(error)) return refuse("duplicate");
    throw error;
  }
}

/** Starts a profile of the account: a verification with a name and no number, with its kyc_profile.submitted event. */
export async function insertProfile(
  db: Database,
  outbox: Outbox,
  customerId: string,
  name: string,
  input: NewVerification,
  now: number,
): Promise<KycRow> {
  const id = crypto.randomUUID();
  const { submitted } = await batchByName(db, {
    submitted: withVerificationEvent(
      db,
      db
        .insert(kycVerifications)
        .select(
          db
            .select(insertSelection({ id, customerId, numberId: null, name, ...verificationValues(input, now) }))
            .from(sql`(SELECT 1)`),
        )
        .returning(),
      "profile",
      "submitted",
      eq(kycVerifications.id, id),
      now,
    ),
  });
  outbox.add(submitted.event.deliveries);
  return submitted.write[0]!;
}

/**
 * The statements that read the verification of an owned number (its own, or its profile's) with its documents, and the
 * attachment that gives a profile's its own id, for a batch; `numberVerification` makes the answer of their results.
 */
export function numberVerificationStatements(db: Database, customerId: string, numberId: string) {
  const attachmentOfNumber = and(eq(kycProfileNumbers.numberId, numberId), eq(kycProfileNumbers.customerId, customerId));
  const attachedProfile = sql`${kycVerifications.id} = (SELECT ${kycProfileNumbers.profileId} FROM ${kycProfileNumbers} WHERE ${attachmentOfNumber})`;
  const which = or(subjectVerification(customerId, { kind: "number", numberId }), attachedProfile)!;
  return {
    verifications: db.select().from(kycVerifications).where(which),
    documents: documentsOf(db, which),
    attachments: db
      .select({ kycId: kycProfileNumbers.kycId, profileId: kycProfileNumbers.profileId })
      .from(kycProfileNumbers)
      .where(attachmentOfNumber),
  };
}

export type NumberVerification = VerificationWithDocuments & { attachment: Attachment | undefined };

export function numberVerification(
  results: Results<ReturnType<typeof numberVerificationStatements>>,
): NumberVerification | undefined {
  const [verification] = results.verifications;
  return verification
    ? { verification, documents: results.documents.map((d) => d.document), attachment: results.attachments[0] }
    : undefined;
}

/** The verification of an owned number with its documents, in one round trip: its own, or its profile's. */
export async function findVerificationWithDocuments(
  db: Database,
  customerId: string,
  numberId: string,
): Promise<NumberVerification | undefined> {
  return numberVerification(await batchByName(db, numberVerificationStatements(db, customerId, numberId)));
}

export type ProfileWithDocuments = VerificationWithDocuments & { numberCount: number };

/** A profile of the account with its documents and how many numbers joined it, in one round trip. */
export async function findProfile(
  db: Database,
  customerId: string,
  profileId: string,
): Promise<ProfileWithDocuments | undefined> {
  const which = subjectVerification(customerId, { kind: "profile", profileId });
  const { verifications, documents, counted } = await batchByName(db, {
    verifications: db.select().from(kycVerifications).where(which),
    documents: documentsOf(db, which),
    counted: numberCountOf(db, profileId),
  });
  const [verification] = verifications;
  return verification ? { verification, documents: documents.map((d) => d.document), numberCount: counted[0]!.count } : undefined;
}

/**
 * The verification an upload to this subject would join, if it takes files now: the subject must be the account's,
 * its address submitted, the verification open to files and not full. Read before the body, so a refused upload
 * reads none.
 */
export async function findUploadTarget(
  db: Database,
  customerId: string,
  subject: Subject,
): Promise<Outcome<KycRow, "not_found" | "not_submitted" | "wrong_state" | "full" | "managed_by_profile">> {
  const which = subjectVerification(customerId, subject);
  const found = await batchByName(db, {
    numbers:
      subject.kind === "number"
        ? db
            .select({ id: numbers.id, profileId: kycProfileNumbers.profileId })
            .from(numbers)
            .leftJoin(kycProfileNumbers, eq(kycProfileNumbers.numberId, numbers.id))
            .where(and(eq(numbers.id, subject.numberId), eq(numbers.customerId, customerId)))
        : undefined,
    verifications: db.select().from(kycVerifications).where(which),
    documents: db
      .select({ count: count() })
      .from(kycDocuments)
      .innerJoin(kycVerifications, eq(kycDocuments.kycId, kycVerifications.id))
      .where(which),
  });
  const [verification] = found.verifications;
  const [documents] = found.documents;
  if (found.numbers !== undefined) {
    const [number] = found.numbers;
    if (!number) return refuse("not_found");
    if (number.profileId !== null) return refuse("managed_by_profile", { profileId: number.profileId });
    if (!verification) return refuse("not_submitted");
  }
  if (!verification) return refuse("not_found");
  return uploadRefusal(verification.status, documents!.count) ?? ok(verification);
}

/**
 * Moves the documents of verification `kycId` to the status its move to `to` gives them, only while `movable` holds
 * for it: it runs before the verification moves, in the same batch, so a refused move changes neither. Documents
 * already there, and documents a reviewer's reason rejected by name, are not written.
 */
function documentsFollow(db: Database, kycId: SQL | string, to: KycStatus, movable: SQL) {
  const status = DOCUMENT_STATUS_OF[to];
  return db
    .update(kycDocuments)
    .set({ status, rejectionReasons: [] })
    .where(
      and(
        sql`${kycDocuments.kycId} = ${kycId}`,
        sql`${kycDocuments.status} IS NOT ${status}`,
        sql`NOT (${REJECTED_BY_NAME})`,
        sql`EXISTS (SELECT 1 FROM ${kycVerifications} WHERE ${kycVerifications.id} = ${kycId} AND ${movable})`,
      ),
    );
}

/** A write of the verification `which` finds, then its event if it wrote (src/db/batch.ts: ifWritten). */
function withVerificationEvent<W extends Parameters<typeof ifWritten>[0]>(
  db: Database,
  write: W,
  kind: SubjectKind,
  action: VerificationAction,
  which: SQL,
  now: number,
) {
  return ifWritten(write, (written) => ({ event: verificationEvent(db, kind, action, and(which, written)!, now) }));
}

/** The event of an action on the verification `where` finds (the profile's data for a profile), for a batch. */
function verificationEvent(db: Database, kind: SubjectKind, action: VerificationAction, where: SQL, now: number) {
  return eventStatements(
    db,
    {
      type: eventTypeOf(kind, action),
      customerId: kycVerifications.customerId,
      data: kind === "number" ? verificationData() : profileData(),
      from: kycVerifications,
      where,
    },
    now,
  ).statements;
}

/**
 * The document event of the `kyc_documents` row `which` finds, where `when` holds: kyc.* with `{kyc_id, number_id,
 * document}` for a number's verification, kyc_profile.* with `{profile_id, document}` for a profile (the row says which).
 */
function documentEvent(db: Database, action: DocumentAction, which: SQL, when: SQL, now: number) {
  const ofProfile = sql`(SELECT ${kycVerifications.numberId} IS NULL FROM ${kycVerifications} WHERE ${kycVerifications.id} = ${kycDocuments.kycId})`;
  return eventStatements(
    db,
    {
      type: sql`CASE WHEN ${ofProfile} THEN ${eventTypeOf("profile", action)} ELSE ${eventTypeOf("number", action)} END`,
      customerId: kycDocuments.customerId,
      data: sql`CASE WHEN ${ofProfile} THEN ${profileDocumentEventData()} ELSE ${documentEventData()} END`,
      from: kycDocuments,
      where: and(which, when)!,
    },
    now,
  ).statements;
}

/** How many numbers joined the profile `profileId` finds (none for a number's own verification): for a batch. */
export function numberCountOf(db: Database, profileId: SQL | string) {
  return db.select({ count: count() }).from(kycProfileNumbers).where(sql`${kycProfileNumbers.profileId} = ${profileId}`);
}

/** The count numberCountOf read, or 0 where it was not read (a number's own verification has no numbers). */
function countRead(counted: { count: number }[] | undefined): number {
  return counted?.[0]?.count ?? 0;
}

/**
 * A guarded UPDATE of the subject's verification while `movable` holds, with its documents following to pending when
 * it re-opens, its `*.updated` event, and the documents and number count read back, in one batch. When it writes
 * nothing, a read says why.
 */
async function changeVerification(
  db: Database,
  outbox: Outbox,
  customerId: string,
  subject: Subject,
  change: { set: Partial<typeof kycVerifications.$inferInsert>; movable: SQL; reopens: boolean },
  now: number,
): Promise<Outcome<ProfileWithDocuments, "not_found" | "wrong_state" | "managed_by_profile">> {
  const which = subjectVerification(customerId, subject);
  const kycIdOf = sql`(SELECT ${kycVerifications.id} FROM ${kycVerifications} WHERE ${which})`;
  const { changed, documents, counted } = await batchByName(db, {
    documentsFollow: change.reopens ? documentsFollow(db, kycIdOf, "pending", change.movable) : undefined,
    changed: withVerificationEvent(
      db,
      db.update(kycVerifications).set(change.set).where(and(which, change.movable)).returning(),
      subject.kind,
      "updated",
      which,
      now,
    ),
    documents: documentsOf(db, which),
    counted: subject.kind === "profile" ? numberCountOf(db, kycIdOf) : undefined,
  });
  outbox.add(changed.event.deliveries);
  const [updated] = changed.write;
  if (updated) return ok({ verification: updated, documents: documents.map((d) => d.document), numberCount: countRead(counted) });
  const current = await db.select().from(kycVerifications).where(which).get();
  if (!current && subject.kind === "number") return managedOrNotFound(db, customerId, subject.numberId);
  return refusalByState(current);
}

/**
 * Amends the address while pending, rejected, or approved within its renewal window (all re-open, the reasons and
 * review time cleared). A profile's name alone changes in any state and re-opens nothing.
 */
export async function updateAddress(
  db: Database,
  outbox: Outbox,
  customerId: string,
  subject: Subject,
  changes: AddressChanges & { name?: string },
  now: number,
): Promise<Outcome<ProfileWithDocuments, "not_found" | "wrong_state" | "managed_by_profile">> {
  // Fields absent from the request are undefined here, and change nothing.
  const renaming = Object.entries(changes).every(([key, value]) => key === "name" || value === undefined);
  const change = renaming
    ? { set: { name: changes.name }, movable: sql`1`, reopens: false }
    : {
        set: {
          ...changes,
          status: "pending" as const,
          reviewedAt: null,
          rejectionReason: null,
          rejectionReasons: [],
          updatedAt: now,
        },
        movable: addressEditable(now),
        reopens: true,
      };
  return changeVerification(db, outbox, customerId, subject, change, now);
}

/**
 * Re-opens a rejected verification unchanged: pending, its reasons and review time cleared, its documents (but those a
 * reason named) waiting again.
 */
export async function resubmitVerification(
  db: Database,
  outbox: Outbox,
  customerId: string,
  subject: Subject,
  now: number,
): Promise<Outcome<ProfileWithDocuments, "not_found" | "wrong_state" | "managed_by_profile">> {
  return changeVerification(
    db,
    outbox,
    customerId,
    subject,
    {
      set: { status: "pending", reviewedAt: null, rejectionReason: null, rejectionReasons: [] },
      movable: eq(kycVerifications.status, "rejected" satisfies KycStatus),
      reopens: true,
    },
    now,
  );
}

/** A rejection: the reviewer's words, and the reasons (each may name a document or a field). */
export interface Rejection {
  reason: string;
  reasons: RejectionReason[];
}

/**
 * The operator's review: the verification and its documents move together, with its event and its audit event (first,
 * under the move's own guard, so it records the status moved from), in one batch. With reasons, a rejection rejects the
 * documents they name (each keeping the reasons that name it); without, every document.
 */
export async function reviewVerification(
  db: Database,
  outbox: Outbox,
  audit: AuditContext,
  kind: SubjectKind,
  kycId: string,
  to: ReviewTarget,
  rejection: Rejection | undefined,
  now: number,
): Promise<Outcome<ProfileWithDocuments, "not_found" | "wrong_state">> {
  const movable = and(eq(kycVerifications.id, kycId), ofKind(kind), eq(kycVerifications.status, REVIEW_FROM[to]))!;
  const reasons = rejection?.reasons ?? [];
  const named = reasons.flatMap((r) => (r.document_id === undefined ? [] : [r.document_id]));
  const namedReasons = sql`(SELECT json_group_array(json(value)) FROM json_each(${JSON.stringify(reasons)}) WHERE value ->> 'document_id' = ${"doc_"} || ${kycDocuments.id})`;
  // A refused review changes no document either (a file added after a rejection stays uploaded).
  const { reviewed, documents, counted } = await batchByName(db, {
    audit: auditStatement(
      db,
      { ...audit, now },
      {
        action: kind === "number" ? "kyc.reviewed" : "kyc_profile.reviewed",
        target: { type: kind === "number" ? "kyc" : "kyc_profile", id: withPrefix(kind === "number" ? "kyc" : "kyp", kycId) },
        customerId: kycVerifications.customerId,
        changes: {
          status: [kycVerifications.status, to],
          ...(rejection ? { rejection_reason: [kycVerifications.rejectionReason, rejection.reason] } : {}),
          ...(reasons.length > 0
            ? { rejection_reasons: [sql`json(${kycVerifications.rejectionReasons})`, sql`json(${JSON.stringify(reasons)})`] }
            : {}),
        },
      },
      { from: kycVerifications, where: movable },
    ),
    documentsFollow:
      to === "rejected" && reasons.length > 0
        ? db
            .update(kycDocuments)
            .set({ status: "rejected", rejectionReasons: namedReasons })
            .where(
              and(
                eq(kycDocuments.kycId, kycId),
                inJsonList(sql`${"doc_"} || ${kycDocuments.id}`, named),
                sql`EXISTS (SELECT 1 FROM ${kycVerifications} WHERE ${movable})`,
              ),
            )
        : documentsFollow(db, kycId, to, movable),
    reviewed: withVerificationEvent(
      db,
      db
        .update(kycVerifications)
        .set({
          status: to,
          reviewedAt: now,
          rejectionReason: rejection?.reason ?? null,
          rejectionReasons: reasons,
          // Kept while a renewal is reviewed; a new approval starts a new year and new notices; a rejection ends it.
          ...(to === "approved" ? { expiresAt: now + YEAR_MS, expiryNotice: 0 } : {}),
          ...(to === "rejected" ? { expiresAt: null } : {}),
        })
        .where(movable)
        .returning(),
      kind,
      to,
      eq(kycVerifications.id, kycId),
      now,
    ),
    documents: db
      .select()
      .from(kycDocuments)
      .where(eq(kycDocuments.kycId, kycId))
      .orderBy(...DOCUMENT_ORDER),
    counted: kind === "profile" ? numberCountOf(db, kycId) : undefined,
  });
  outbox.add(reviewed.event.deliveries);
  const [moved] = reviewed.write;
  if (moved) return ok({ verification: moved, documents, numberCount: countRead(counted) });
  return refusalByState(
    await db
      .select()
      .from(kycVerifications)
      .where(and(eq(kycVerifications.id, kycId), ofKind(kind)))
      .get(),
  );
}

/** The verification of any account with this id, with its documents; undefined when none or not of this kind. */
export async function findVerificationById(
  db: Database,
  kind: SubjectKind,
  kycId: string,
): Promise<VerificationWithDocuments | undefined> {
  const which = and(eq(kycVerifications.id, kycId), ofKind(kind))!;
  const { verifications, documents } = await batchByName(db, {
    verifications: db.select().from(kycVerifications).where(which),
    documents: documentsOf(db, which),
  });
  const [verification] = verifications;
  return verification ? { verification, documents: documents.map((d) => d.document) } : undefined;
}

/** The profile behind the verification id an attached number shows (`kyc_<attachment>`), if it is one. */
export async function profileOfAttachment(db: Database, kycId: string): Promise<string | undefined> {
  const row = await db
    .select({ profileId: kycProfileNumbers.profileId })
    .from(kycProfileNumbers)
    .where(eq(kycProfileNumbers.kycId, kycId))
    .get();
  return row?.profileId;
}

type NewDocument = Pick<
  typeof kycDocuments.$inferInsert,
  "id" | "documentType" | "filename" | "fileSize" | "mimeType" | "description" | "expirationDate" | "objectKey"
>;

/**
 * Writes the row only while the verification takes files and has fewer than MAX_DOCUMENTS: one INSERT … SELECT from
 * the verification, so two concurrent uploads cannot both take the last place.
 */
export async function insertDocument(
  db: Database,
  outbox: Outbox,
  kycId: string,
  doc: NewDocument,
  now: number,
): Promise<Outcome<DocumentRow, "wrong_state" | "full">> {
  const documentCount = sql`(SELECT count(*) FROM ${kycDocuments} WHERE ${kycDocuments.kycId} = ${kycVerifications.id})`;
  const thisDocument = eq(kycDocuments.id, doc.id);
  const { stored } = await batchByName(db, {
    stored: ifWritten(
      db
        .insert(kycDocuments)
        .select(
          db
            .select(
              insertSelection({
                id: doc.id,
                kycId: kycVerifications.id,
                customerId: kycVerifications.customerId,
                documentType: doc.documentType,
                filename: doc.filename,
                fileSize: doc.fileSize,
                mimeType: doc.mimeType,
                description: doc.description ?? null,
                expirationDate: doc.expirationDate ?? null,
                status: documentStatusFor(kycVerifications.status, NEW_DOCUMENT_STATUS_OF),
                rejectionReasons: sql`'[]'`,
                objectKey: doc.objectKey,
                uploadedAt: now,
              }),
            )
            .from(kycVerifications)
            .where(
              and(
                eq(kycVerifications.id, kycId),
                inArray(kycVerifications.status, UPLOAD_ALLOWED),
                sql`${documentCount} < ${MAX_DOCUMENTS}`,
              ),
            ),
        )
        .returning(),
      (written) => ({ event: documentEvent(db, "document_uploaded", thisDocument, written, now) }),
    ),
  });
  outbox.add(stored.event.deliveries);
  const [row] = stored.write;
  if (row) return ok(row);
  const current = await db
    .select({ status: kycVerifications.status })
    .from(kycVerifications)
    .where(eq(kycVerifications.id, kycId))
    .get();
  // Deleted meanwhile (a pending verification may be): it no longer takes files.
  if (!current) return refuse("wrong_state", { state: "deleted" });
  // It took no file although it was found taking one: it changed state meanwhile, or another upload filled it.
  return uploadRefusal(current.status, 0) ?? refuse("full", { limit: MAX_DOCUMENTS });
}

/**
 * Any account's document for staff to look at, with the audit event that records who looked (kyc.document_viewed),
 * in one batch: no document is read without its event.
 */
export async function viewDocument(
  db: Database,
  audit: AuditContext,
  documentId: string,
  now: number,
): Promise<DocumentRow | undefined> {
  const thisDocument = eq(kycDocuments.id, documentId);
  const { document } = await batchByName(db, {
    viewed: auditStatement(
      db,
      { ...audit, now },
      {
        action: "kyc.document_viewed",
        target: { type: "document", id: withPrefix("doc", documentId) },
        customerId: kycDocuments.customerId,
      },
      { from: kycDocuments, where: thisDocument },
    ),
    document: db.select().from(kycDocuments).where(thisDocument),
  });
  return document[0];
}

/** Any account's document, read without recording a view (a HEAD of staff's download reads no file). */
export async function findAnyDocument(db: Database, documentId: string): Promise<DocumentRow | undefined> {
  return db.select().from(kycDocuments).where(eq(kycDocuments.id, documentId)).get();
}

export async function findOwnedDocument(db: Database, customerId: string, documentId: string): Promise<DocumentRow | undefined> {
  return db
    .select()
    .from(kycDocuments)
    .where(and(eq(kycDocuments.id, documentId), eq(kycDocuments.customerId, customerId)))
    .get();
}

/**
 * Removes the row only while its verification is not completed, or it is a document a reason named while its
 * verification is rejected: one guarded DELETE, after its document event, decided by the same guard on the row as it was.
 */
export async function deleteDocumentRow(
  db: Database,
  outbox: Outbox,
  customerId: string,
  documentId: string,
  now: number,
): Promise<Outcome<DocumentRow, "not_found" | "wrong_state">> {
  const owned = and(eq(kycDocuments.id, documentId), eq(kycDocuments.customerId, customerId))!;
  const verificationStatus = sql`(SELECT ${kycVerifications.status} FROM ${kycVerifications} WHERE ${kycVerifications.id} = ${kycDocuments.kycId})`;
  const deletable = or(
    sql`${verificationStatus} IN ${DELETE_ALLOWED}`,
    and(sql`${verificationStatus} = ${"rejected" satisfies KycStatus}`, REJECTED_BY_NAME),
  )!;
  // The event first, under the delete's own guard: once the row is gone, its data could not be read.
  const { event, deleted } = await batchByName(db, {
    event: documentEvent(db, "document_deleted", owned, deletable, now),
    deleted: db.delete(kycDocuments).where(and(owned, deletable)).returning(),
  });
  outbox.add(event.deliveries);
  const [removed] = deleted;
  if (removed) return ok(removed);
  return refusalByState(
    await db
      .select({ status: kycVerifications.status })
      .from(kycDocuments)
      .innerJoin(kycVerifications, eq(kycVerifications.id, kycDocuments.kycId))
      .where(owned)
      .get(),
  );
}

/** States in which a verification may be deleted (a number's own; a profile with no numbers in any state). */
const VERIFICATION_DELETABLE: readonly KycStatus[] = ["pending", "rejected"];

/** deleteVerificationRows' guard for a number's own verification read: whether it may be deleted now. */
export function verificationDeletable(kyc: Pick<KycRow, "status">): boolean {
  return VERIFICATION_DELETABLE.includes(kyc.status);
}

/**
 * Deletes a verification and its document rows, after its `*.deleted` event, in one batch; answers the object keys
 * of its files, for the caller to delete from R2 once the rows are gone. A number's own verification only while
 * pending or rejected; a profile only with no number attached and no pending or processing order naming it (orders
 * closed since forget it).
 */
export async function deleteVerificationRows(
  db: Database,
  outbox: Outbox,
  customerId: string,
  subject: Subject,
  now: number,
): Promise<Outcome<{ objectKeys: string[] }, "not_found" | "wrong_state" | "managed_by_profile" | "in_use">> {
  const which = subjectVerification(customerId, subject);
  const unused = and(
    sql`NOT EXISTS (SELECT 1 FROM ${kycProfileNumbers} WHERE ${kycProfileNumbers.profileId} = ${kycVerifications.id})`,
    sql`NOT EXISTS (SELECT 1 FROM ${orders} WHERE ${orders.kycProfileId} = ${kycVerifications.id} AND ${inArray(orders.status, OPEN_ORDER_STATUSES)})`,
  )!;
  const deletable = and(which, subject.kind === "number" ? inArray(kycVerifications.status, VERIFICATION_DELETABLE) : unused)!;
  const kycIdOf = sql`(SELECT ${kycVerifications.id} FROM ${kycVerifications} WHERE ${deletable})`;
  const { event, documents, deleted } = await batchByName(db, {
    event: verificationEvent(db, subject.kind, "deleted", deletable, now),
    forgotten:
      subject.kind === "profile"
        ? db.update(orders).set({ kycProfileId: null }).where(sql`${orders.kycProfileId} = ${kycIdOf}`)
        : undefined,
    documents: db
      .delete(kycDocuments)
      .where(sql`${kycDocuments.kycId} = ${kycIdOf}`)
      .returning({ objectKey: kycDocuments.objectKey }),
    deleted: db.delete(kycVerifications).where(deletable).returning({ id: kycVerifications.id }),
  });
  outbox.add(event.deliveries);
  if (deleted.length > 0) return ok({ objectKeys: documents.map((d) => d.objectKey) });
  const current = await db.select().from(kycVerifications).where(which).get();
  if (!current && subject.kind === "number") return managedOrNotFound(db, customerId, subject.numberId);
  if (current && subject.kind === "profile") {
    return refuse("in_use", { detail: "it still has numbers attached, or a pending or processing order names it" });
  }
  return refusalByState(current);
}

/** Which of these object keys have a document row; the rest are orphans. */
export async function objectKeysWithRows(db: Database, objectKeys: string[]): Promise<Set<string>> {
  if (objectKeys.length === 0) return new Set();
  const rows = await db
    .select({ objectKey: kycDocuments.objectKey })
    .from(kycDocuments)
    .where(inJsonList(kycDocuments.objectKey, objectKeys));
  return new Set(rows.map((r) => r.objectKey));
}

/** The account's profiles by name, for a choice of one: at most `limit`, with no documents or counts. */
export async function listProfileNames(
  db: Database,
  customerId: string,
  limit: number,
): Promise<Pick<KycRow, "id" | "name" | "status">[]> {
  return db
    .select({ id: kycVerifications.id, name: kycVerifications.name, status: kycVerifications.status })
    .from(kycVerifications)
    .where(and(eq(kycVerifications.customerId, customerId), isNull(kycVerifications.numberId)))
    .orderBy(asc(kycVerifications.name), asc(kycVerifications.id))
    .limit(limit);
}

/** The account's profiles among `profileIds` (bare ids), with their names: a statement, for a page's batch. */
export function profileNamesOf(db: Database, customerId: string, profileIds: readonly string[]) {
  return db
    .select({ id: kycVerifications.id, name: kycVerifications.name })
    .from(kycVerifications)
    .where(
      and(
        inJsonList(kycVerifications.id, profileIds),
        eq(kycVerifications.customerId, customerId),
        isNull(kycVerifications.numberId),
      ),
    );
}

/** The names of the account's profiles among `profileIds` (bare ids), by id; another account's are left out. */
export async function findProfileNames(
  db: Database,
  customerId: string,
  profileIds: readonly string[],
): Promise<Map<string, string>> {
  if (profileIds.length === 0) return new Map();
  const rows = await profileNamesOf(db, customerId, profileIds);
  return new Map(rows.map((row) => [row.id, row.name ?? ""]));
}

export const PROFILE_SORT_KEYS = ["name", "status", "created_at"] as const;
type ProfileSortKey = (typeof PROFILE_SORT_KEYS)[number];

export interface ProfileListQuery {
  statuses?: readonly KycStatus[] | undefined;
  type?: KycRow["type"] | undefined;
  /** A substring of the name, any case. */
  search?: string | undefined;
  sortBy: ProfileSortKey;
  sortOrder: "asc" | "desc";
}

const PROFILE_SORT_COLUMNS: Record<ProfileSortKey, { key: AnyColumn; nullable: boolean }> = {
  name: { key: kycVerifications.name, nullable: false },
  status: { key: kycVerifications.status, nullable: false },
  created_at: { key: kycVerifications.submittedAt, nullable: false },
};

/** A page of the account's profiles, each with its documents and number count, and the total, in one D1 call. */
export async function listProfiles(
  db: Database,
  customerId: string,
  q: ProfileListQuery,
  window: PageWindow,
): Promise<{ rows: ProfileWithDocuments[]; total: number }> {
  const matching = and(
    eq(kycVerifications.customerId, customerId),
    isNull(kycVerifications.numberId),
    q.statuses && inArray(kycVerifications.status, q.statuses),
    q.type && eq(kycVerifications.type, q.type),
    q.search === undefined ? undefined : containsText(kycVerifications.name, q.search),
  )!;
  const onPage = sql`${kycVerifications.id} IN (SELECT ${kycVerifications.id} FROM ${kycVerifications} WHERE ${matching} ORDER BY ${sql.join(
    stableOrder(PROFILE_SORT_COLUMNS[q.sortBy], kycVerifications.id, q.sortOrder),
    sql`, `,
  )} LIMIT ${window.limit} OFFSET ${window.offset})`;
  const { page, documents, totals } = await batchByName(db, {
    page: db
      .select({
        verification: kycVerifications,
        numberCount:
          sql<number>`(SELECT count(*) FROM ${kycProfileNumbers} WHERE ${kycProfileNumbers.profileId} = ${kycVerifications.id})`
            .mapWith(Number)
            .as("number_count"),
      })
      .from(kycVerifications)
      .where(onPage)
      .orderBy(...stableOrder(PROFILE_SORT_COLUMNS[q.sortBy], kycVerifications.id, q.sortOrder)),
    documents: documentsOf(db, onPage),
    totals: db.select({ total: count() }).from(kycVerifications).where(matching),
  });
  const rows = page.map((row) => ({
    ...row,
    documents: documents.map((d) => d.document).filter((d) => d.kycId === row.verification.id),
  }));
  return { rows, total: totals[0]!.total };
}
