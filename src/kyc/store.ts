// Queries for verifications. Every write that depends on state or ownership is one guarded statement; when it writes
// nothing, the store reads back why.
import { and, asc, count, eq, inArray, isNotNull, isNull, or, type SQL, sql } from "drizzle-orm";
import { batchByName, type Results, writeInPhases } from "../db/batch.ts";
import type { Database } from "../db/client.ts";
import { isUniqueViolation } from "../db/errors.ts";
import { type EventSpec, eventIfWritten, eventStatements, type Outbox } from "../db/outbox.ts";
import { type Outcome, ok, type Refusal, refusalByState, refuse } from "../db/outcome.ts";
import {
  type DocumentRow,
  type DocumentStatus,
  type KycRow,
  type KycStatus,
  kycDocuments,
  kycProfileNumbers,
  kycVerifications,
  type NumberStatus,
  numbers,
  OPEN_ORDER_STATUSES,
  orders,
} from "../db/schema.ts";
import { insertSelection } from "../db/sql.ts";
import { endProfileHoldsStatement } from "../reservations/store.ts";
import { profileData, verificationData } from "../webhooks/payloads.ts";
import {
  isReleased,
  NUMBER_NOT_RELEASED,
  REJECTED_BY_NAME,
  verificationAllows,
  verificationGuard,
  verificationRefusal,
} from "./lifecycle.ts";

/** A verification holds at most this many documents. */
export const MAX_DOCUMENTS = 20;

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
export function ofKind(kind: SubjectKind): SQL {
  return kind === "number" ? isNotNull(kycVerifications.numberId) : isNull(kycVerifications.numberId);
}

type VerificationAction = "submitted" | "updated" | "under_review" | "approved" | "rejected" | "deleted";
export type DocumentAction = "document_uploaded" | "document_deleted";

/** The event type of an action on a verification of this kind: kyc.* for a number's, kyc_profile.* for a profile. */
export function eventTypeOf(
  kind: SubjectKind,
  action: VerificationAction | DocumentAction | "expiring" | "expired",
): EventSpec["type"] {
  return `${kind === "number" ? "kyc" : "kyc_profile"}.${action}`;
}
/** Why a verification holding `documentCount` files takes no other, or undefined when it takes one. */
export function uploadRefusal(
  kyc: Pick<KycRow, "status" | "numberReleased">,
  documentCount: number,
): Refusal<"wrong_state" | "full" | "number_released"> | undefined {
  if (!verificationAllows(kyc, "upload")) return verificationRefusal(kyc, "upload") as Refusal<"wrong_state" | "number_released">;
  if (documentCount >= MAX_DOCUMENTS) return refuse("full", { limit: MAX_DOCUMENTS });
  return undefined;
}

/** A document's status follows its verification's. */
export const DOCUMENT_STATUS_OF: Record<KycStatus, DocumentStatus> = {
  pending: "uploaded",
  under_review: "pending_review",
  approved: "verified",
  rejected: "rejected",
};

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
export function verificationValues(input: NewVerification, now: number) {
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
    // Verifications are submitted for unreleased numbers only; a release sets it (migrations/0016's trigger).
    numberReleased: sql`0`,
  };
}

/** The account's number's status and profile (null: it joined none), or undefined when the account has no such number. */
async function ownedNumberProfile(
  db: Database,
  customerId: string,
  numberId: string,
): Promise<{ status: NumberStatus; profileId: string | null } | undefined> {
  return db
    .select({ status: numbers.status, profileId: numbers.kycProfileId })
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
 * account's number (or none, or one released or joined to a profile) writes nothing, and the unique number_id refuses
 * a second.
 */
export async function submitVerification(
  db: Database,
  outbox: Outbox,
  customerId: string,
  numberId: string,
  input: NewVerification,
  now: number,
): Promise<Outcome<KycRow, "not_found" | "duplicate" | "managed_by_profile" | "number_released">> {
  const id = crypto.randomUUID();
  try {
    const { submitted } = await batchByName(db, {
      submitted: writeInPhases({
        write: db
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
                  NUMBER_NOT_RELEASED,
                  sql`NOT EXISTS (SELECT 1 FROM ${kycProfileNumbers} WHERE ${kycProfileNumbers.numberId} = ${numbers.id})`,
                ),
              ),
          )
          .returning(),
        ...verificationEventIfWritten(db, "number", "submitted", eq(kycVerifications.id, id), now),
      }),
    });
    outbox.add(submitted.after.deliveries);
    const [row] = submitted.write;
    if (row) return ok(row);
    const number = await ownedNumberProfile(db, customerId, numberId);
    if (!number) return refuse("not_found");
    if (isReleased(number)) return refuse("number_released");
    if (number.profileId) return refuse("managed_by_profile", { profileId: number.profileId });
    // The account's, held and attached to none now: a detach came between the insert and the read; the submit may run after it.
    return submitVerification(db, outbox, customerId, numberId, input, now);
  } catch (error) {
    if (isUniqueViolation(error)) return refuse("duplicate");
    throw error;
  }
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

/**
 * Moves the documents of verification `kycId` to the status its move to `to` gives them, only while `movable` holds
 * for it: it runs before the verification moves, in the same batch, so a refused move changes neither. Documents
 * already there, and documents a reviewer's reason rejected by name, are not written.
 */
export function documentsFollow(db: Database, kycId: SQL | string, to: KycStatus, movable: SQL) {
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

/** The event of a write of the verification `which` finds, recorded only if it wrote (writeInPhases' record, after). */
export function verificationEventIfWritten(db: Database, kind: SubjectKind, action: VerificationAction, which: SQL, now: number) {
  return eventIfWritten(db, verificationEvent(kind, action, which), now);
}

/** The event of an action on the verification `where` finds (the profile's data for a profile). */
function verificationEvent(kind: SubjectKind, action: VerificationAction, where: SQL): EventSpec {
  return {
    type: eventTypeOf(kind, action),
    customerId: kycVerifications.customerId,
    data: kind === "number" ? verificationData() : profileData(),
    from: kycVerifications,
    where,
  };
}

/** How many numbers joined the profile `profileId` finds (none for a number's own verification): for a batch. */
export function numberCountOf(db: Database, profileId: SQL | string) {
  return db.select({ count: count() }).from(kycProfileNumbers).where(sql`${kycProfileNumbers.profileId} = ${profileId}`);
}

/** The count numberCountOf read, or 0 where it was not read (a number's own verification has no numbers). */
export function countRead(counted: { count: number }[] | undefined): number {
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
  change: { action: "amend" | "resubmit"; set: Partial<typeof kycVerifications.$inferInsert>; movable: SQL; reopens: boolean },
  now: number,
): Promise<Outcome<ProfileWithDocuments, "not_found" | "wrong_state" | "managed_by_profile" | "number_released">> {
  const which = subjectVerification(customerId, subject);
  const kycIdOf = sql`(SELECT ${kycVerifications.id} FROM ${kycVerifications} WHERE ${which})`;
  const event = verificationEventIfWritten(db, subject.kind, "updated", which, now);
  const { changed } = await batchByName(db, {
    changed: writeInPhases({
      before: { documentsFollow: change.reopens ? documentsFollow(db, kycIdOf, "pending", change.movable) : undefined },
      write: db.update(kycVerifications).set(change.set).where(and(which, change.movable)).returning(),
      record: event.record,
      after: {
        ...event.after,
        documents: documentsOf(db, which),
        counted: subject.kind === "profile" ? numberCountOf(db, kycIdOf) : undefined,
      },
    }),
  });
  const { deliveries, documents, counted } = changed.after;
  outbox.add(deliveries);
  const [updated] = changed.write;
  if (updated) return ok({ verification: updated, documents: documents.map((d) => d.document), numberCount: countRead(counted) });
  const current = await db.select().from(kycVerifications).where(which).get();
  if (!current && subject.kind === "number") return managedOrNotFound(db, customerId, subject.numberId);
  return verificationRefusal(current, change.action);
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
): Promise<Outcome<ProfileWithDocuments, "not_found" | "wrong_state" | "managed_by_profile" | "number_released">> {
  // Fields absent from the request are undefined here, and change nothing.
  const renaming = Object.entries(changes).every(([key, value]) => key === "name" || value === undefined);
  const change = renaming
    ? { action: "amend" as const, set: { name: changes.name }, movable: sql`1`, reopens: false }
    : {
        action: "amend" as const,
        set: {
          ...changes,
          status: "pending" as const,
          reviewedAt: null,
          rejectionReason: null,
          rejectionReasons: [],
          updatedAt: now,
        },
        movable: verificationGuard("amend", now),
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
): Promise<Outcome<ProfileWithDocuments, "not_found" | "wrong_state" | "managed_by_profile" | "number_released">> {
  return changeVerification(
    db,
    outbox,
    customerId,
    subject,
    {
      action: "resubmit",
      set: { status: "pending", reviewedAt: null, rejectionReason: null, rejectionReasons: [] },
      movable: verificationGuard("resubmit"),
      reopens: true,
    },
    now,
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
  const deletable = and(which, subject.kind === "number" ? verificationGuard("delete") : unused)!;
  const kycIdOf = sql`(SELECT ${kycVerifications.id} FROM ${kycVerifications} WHERE ${deletable})`;
  const { deleted } = await batchByName(db, {
    // Each finds the verification through the delete's guard, so all stand before it.
    deleted: writeInPhases({
      before: {
        event: eventStatements(db, verificationEvent(subject.kind, "deleted", deletable), now).statements,
        forgotten:
          subject.kind === "profile"
            ? db.update(orders).set({ kycProfileId: null }).where(sql`${orders.kycProfileId} = ${kycIdOf}`)
            : undefined,
        // Released numbers forget it (released_profile_id references it) and remember that it is gone, for their restore.
        releasedFrom:
          subject.kind === "profile"
            ? db
                .update(numbers)
                .set({ releasedProfileId: null, releasedProfileGone: true })
                .where(sql`${numbers.releasedProfileId} = ${kycIdOf}`)
            : undefined,
        // The profile's review ends with it: the numbers held through it are held 24 hours more at most.
        holdsEnded:
          subject.kind === "profile"
            ? endProfileHoldsStatement(
                db,
                subject.profileId,
                sql`EXISTS (SELECT 1 FROM ${kycVerifications} WHERE ${deletable})`,
                now,
              )
            : undefined,
        documents: db
          .delete(kycDocuments)
          .where(sql`${kycDocuments.kycId} = ${kycIdOf}`)
          .returning({ objectKey: kycDocuments.objectKey }),
      },
      write: db.delete(kycVerifications).where(deletable).returning({ id: kycVerifications.id }),
    }),
  });
  const { event, documents } = deleted.before;
  outbox.add(event.deliveries);
  if (deleted.write.length > 0) return ok({ objectKeys: documents.map((d) => d.objectKey) });
  const current = await db.select().from(kycVerifications).where(which).get();
  if (!current && subject.kind === "number") return managedOrNotFound(db, customerId, subject.numberId);
  if (current && subject.kind === "profile") {
    return refuse("in_use", { detail: "it still has numbers attached, or a pending or processing order names it" });
  }
  return refusalByState(current);
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
