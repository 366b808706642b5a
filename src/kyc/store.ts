// Queries for verifications and their document rows. Every write that depends on a state or on ownership is one
// guarded statement; when it writes nothing, the store finds why.
import { type AnyColumn, and, asc, count, eq, inArray, type SQL, sql } from "drizzle-orm";
import { auditStatement } from "../audit/store.ts";
import { batchByName, ifWritten } from "../db/batch.ts";
import type { Database } from "../db/client.ts";
import { isUniqueViolation } from "../db/errors.ts";
import { type Outcome, ok, type Refusal, refusalByState, refuse } from "../db/outcome.ts";
import {
  type DocumentRow,
  type DocumentStatus,
  type KycRow,
  type KycStatus,
  kycDocuments,
  kycVerifications,
  numbers,
} from "../db/schema.ts";
import { inJsonList, insertSelection } from "../db/sql.ts";
import type { AuditContext } from "../env.ts";
import { withPrefix } from "../lib/ids.ts";
import { type EventSpec, eventStatements, type Outbox } from "../webhooks/outbox.ts";
import { documentEventData, verificationData } from "../webhooks/payloads.ts";

/** A verification holds at most this many documents. */
export const MAX_DOCUMENTS = 20;

const YEAR_MS = 365 * 86_400_000;

/** States in which the address may change (a rejected verification re-opens). */
export const ADDRESS_EDITABLE: readonly KycStatus[] = ["pending", "rejected"];
/** States in which files may be added. */
const UPLOAD_ALLOWED: readonly KycStatus[] = ["pending", "under_review", "rejected"];
/** States in which a file may still be removed. */
export const DELETE_ALLOWED: readonly KycStatus[] = ["pending", "under_review"];

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
/** The event each review move emits. */
const REVIEW_EVENT = {
  under_review: "kyc.under_review",
  approved: "kyc.approved",
  rejected: "kyc.rejected",
} as const satisfies Record<keyof typeof REVIEW_FROM, EventSpec["type"]>;
export type ReviewTarget = keyof typeof REVIEW_FROM;
export const REVIEW_TARGETS = Object.keys(REVIEW_FROM) as [ReviewTarget, ...ReviewTarget[]];

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

function ownedVerification(customerId: string, numberId: string): SQL | undefined {
  return and(eq(kycVerifications.numberId, numberId), eq(kycVerifications.customerId, customerId));
}

function statusOfVerification(kycId: AnyColumn | SQL | string): SQL {
  return sql`(SELECT ${kycVerifications.status} FROM ${kycVerifications} WHERE ${kycVerifications.id} = ${kycId})`;
}

/** Documents are listed oldest first, ties by id. */
export const DOCUMENT_ORDER = [asc(kycDocuments.uploadedAt), asc(kycDocuments.id)];

/** The documents of the verification of this owned number, oldest first: a query to run in a batch. */
function documentsOfNumber(db: Database, customerId: string, numberId: string) {
  return db
    .select({ document: kycDocuments })
    .from(kycDocuments)
    .innerJoin(kycVerifications, eq(kycVerifications.id, kycDocuments.kycId))
    .where(ownedVerification(customerId, numberId))
    .orderBy(...DOCUMENT_ORDER);
}

/**
 * Starts the verification of a number the account owns: one INSERT … SELECT from the account's numbers, so another
 * account's number (or none) writes nothing, and the unique number_id refuses a second verification.
 */
export async function submitVerification(
  db: Database,
  outbox: Outbox,
  customerId: string,
  numberId: string,
  input: NewVerification,
  now: number,
): Promise<Outcome<KycRow, "not_found" | "duplicate">> {
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
                  expiresAt: null,
                }),
              )
              .from(numbers)
              .where(and(eq(numbers.id, numberId), eq(numbers.customerId, customerId))),
          )
          .returning(),
        "kyc.submitted",
        eq(kycVerifications.id, id),
        now,
      ),
    });
    outbox.add(submitted.event.deliveries);
    const [row] = submitted.write;
    return row ? ok(row) : refuse("not_found");
  } catch (error) {
    if (isUniqueViolation(error)) return refuse("duplicate");
    throw error;
  }
}

/** The verification of an owned number with its documents, in one round trip. */
export async function findVerificationWithDocuments(
  db: Database,
  customerId: string,
  numberId: string,
): Promise<VerificationWithDocuments | undefined> {
  const { verifications, documents } = await batchByName(db, {
    verifications: db.select().from(kycVerifications).where(ownedVerification(customerId, numberId)),
    documents: documentsOfNumber(db, customerId, numberId),
  });
  const [verification] = verifications;
  return verification ? { verification, documents: documents.map((d) => d.document) } : undefined;
}

/**
 * The verification an upload to this number would join, if it takes files now: the number must be the account's,
 * its address submitted, the verification open to files and not full. Read before the body, so a refused upload
 * reads none.
 */
export async function findUploadTarget(
  db: Database,
  customerId: string,
  numberId: string,
): Promise<Outcome<KycRow, "not_found" | "not_submitted" | "wrong_state" | "full">> {
  const found = await batchByName(db, {
    numbers: db
      .select({ id: numbers.id })
      .from(numbers)
      .where(and(eq(numbers.id, numberId), eq(numbers.customerId, customerId))),
    verifications: db.select().from(kycVerifications).where(ownedVerification(customerId, numberId)),
    documents: db
      .select({ count: count() })
      .from(kycDocuments)
      .innerJoin(kycVerifications, eq(kycDocuments.kycId, kycVerifications.id))
      .where(ownedVerification(customerId, numberId)),
  });
  const [number] = found.numbers;
  const [verification] = found.verifications;
  const [documents] = found.documents;
  if (!number) return refuse("not_found");
  if (!verification) return refuse("not_submitted");
  return uploadRefusal(verification.status, documents!.count) ?? ok(verification);
}

/**
 * Moves the documents of verification `kycId` to the status its move to `to` gives them, only while it is in one of
 * `from`: it runs before the verification moves, in the same batch, so a refused move changes neither. Documents
 * already there are not written.
 */
function documentsFollow(db: Database, kycId: SQL | string, to: KycStatus, from: readonly KycStatus[]) {
  const status = DOCUMENT_STATUS_OF[to];
  return db
    .update(kycDocuments)
    .set({ status })
    .where(
      and(
        sql`${kycDocuments.kycId} = ${kycId}`,
        sql`${kycDocuments.status} IS NOT ${status}`,
        sql`${statusOfVerification(kycId)} IN ${from}`,
      ),
    );
}

/** A write of the verification `which` finds, then its event if it wrote (src/db/batch.ts: ifWritten). */
function withVerificationEvent<W extends Parameters<typeof ifWritten>[0]>(
  db: Database,
  write: W,
  type: EventSpec["type"],
  which: SQL,
  now: number,
) {
  return ifWritten(write, (written) => ({
    event: eventStatements(
      db,
      {
        type,
        customerId: kycVerifications.customerId,
        data: verificationData(),
        from: kycVerifications,
        where: and(which, written)!,
      },
      now,
    ).statements,
  }));
}

/** The document event of the `kyc_documents` row `which` finds, where `when` holds. */
function documentEvent(db: Database, type: EventSpec["type"], which: SQL, when: SQL, now: number) {
  return eventStatements(
    db,
    { type, customerId: kycDocuments.customerId, data: documentEventData(), from: kycDocuments, where: and(which, when)! },
    now,
  ).statements;
}

/**
 * One guarded UPDATE (pending or rejected only; rejected re-opens), with the documents following, its `kyc.updated`
 * event, and the documents read back, in one batch.
 */
export async function updateAddress(
  db: Database,
  outbox: Outbox,
  customerId: string,
  numberId: string,
  changes: AddressChanges,
  now: number,
): Promise<Outcome<VerificationWithDocuments, "not_found" | "wrong_state">> {
  const kycIdOfNumber = sql`(SELECT ${kycVerifications.id} FROM ${kycVerifications} WHERE ${ownedVerification(customerId, numberId)})`;
  const { amended, documents } = await batchByName(db, {
    documentsFollow: documentsFollow(db, kycIdOfNumber, "pending", ADDRESS_EDITABLE),
    amended: withVerificationEvent(
      db,
      db
        .update(kycVerifications)
        .set({ ...changes, status: "pending", reviewedAt: null, rejectionReason: null, updatedAt: now })
        .where(and(ownedVerification(customerId, numberId), inArray(kycVerifications.status, ADDRESS_EDITABLE)))
        .returning(),
      "kyc.updated",
      ownedVerification(customerId, numberId)!,
      now,
    ),
    documents: documentsOfNumber(db, customerId, numberId),
  });
  outbox.add(amended.event.deliveries);
  const [updated] = amended.write;
  if (updated) return ok({ verification: updated, documents: documents.map((d) => d.document) });
  return refusalByState(await db.select().from(kycVerifications).where(ownedVerification(customerId, numberId)).get());
}

/**
 * The operator's review: the verification and its documents move together, with its event and its audit event (first,
 * under the move's own guard, so it records the status moved from), in one batch.
 */
export async function reviewVerification(
  db: Database,
  outbox: Outbox,
  audit: AuditContext,
  kycId: string,
  to: ReviewTarget,
  rejectionReason: string | undefined,
  now: number,
): Promise<Outcome<VerificationWithDocuments, "not_found" | "wrong_state">> {
  const movable = and(eq(kycVerifications.id, kycId), eq(kycVerifications.status, REVIEW_FROM[to]));
  // A refused review changes no document either (a file added after a rejection stays uploaded).
  const { reviewed, documents } = await batchByName(db, {
    audit: auditStatement(
      db,
      { ...audit, now },
      {
        action: "kyc.reviewed",
        target: { type: "kyc", id: withPrefix("kyc", kycId) },
        customerId: kycVerifications.customerId,
        changes: {
          status: [kycVerifications.status, to],
          ...(to === "rejected" ? { rejection_reason: [kycVerifications.rejectionReason, rejectionReason ?? null] } : {}),
        },
      },
      { from: kycVerifications, where: movable },
    ),
    documentsFollow: documentsFollow(db, kycId, to, [REVIEW_FROM[to]]),
    reviewed: withVerificationEvent(
      db,
      db
        .update(kycVerifications)
        .set({
          status: to,
          reviewedAt: now,
          rejectionReason: to === "rejected" ? rejectionReason : null,
          expiresAt: to === "approved" ? now + YEAR_MS : null,
        })
        .where(movable)
        .returning(),
      REVIEW_EVENT[to],
      eq(kycVerifications.id, kycId),
      now,
    ),
    documents: db
      .select()
      .from(kycDocuments)
      .where(eq(kycDocuments.kycId, kycId))
      .orderBy(...DOCUMENT_ORDER),
  });
  outbox.add(reviewed.event.deliveries);
  const [moved] = reviewed.write;
  if (moved) return ok({ verification: moved, documents });
  return refusalByState(await db.select().from(kycVerifications).where(eq(kycVerifications.id, kycId)).get());
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
      (written) => ({ event: documentEvent(db, "kyc.document_uploaded", eq(kycDocuments.id, doc.id), written, now) }),
    ),
  });
  outbox.add(stored.event.deliveries);
  const [row] = stored.write;
  if (row) return ok(row);
  // Verifications are never deleted: the one the upload was found for is still there.
  const { status } = (await db
    .select({ status: kycVerifications.status })
    .from(kycVerifications)
    .where(eq(kycVerifications.id, kycId))
    .get())!;
  // It took no file although it was found taking one: it changed state meanwhile, or another upload filled it.
  return uploadRefusal(status, 0) ?? refuse("full", { limit: MAX_DOCUMENTS });
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

export async function findOwnedDocument(db: Database, customerId: string, documentId: string): Promise<DocumentRow | undefined> {
  return db
    .select()
    .from(kycDocuments)
    .where(and(eq(kycDocuments.id, documentId), eq(kycDocuments.customerId, customerId)))
    .get();
}

/**
 * Removes the row only while its verification is not completed: one guarded DELETE, after its `kyc.document_deleted`
 * event, decided by the same guard on the row as it was.
 */
export async function deleteDocumentRow(
  db: Database,
  outbox: Outbox,
  customerId: string,
  documentId: string,
  now: number,
): Promise<Outcome<DocumentRow, "not_found" | "wrong_state">> {
  const owned = and(eq(kycDocuments.id, documentId), eq(kycDocuments.customerId, customerId))!;
  const deletable = sql`${statusOfVerification(kycDocuments.kycId)} IN ${DELETE_ALLOWED}`;
  // The event first, under the delete's own guard: once the row is gone, its data could not be read.
  const { event, deleted } = await batchByName(db, {
    event: documentEvent(db, "kyc.document_deleted", owned, deletable, now),
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

/** Which of these object keys have a document row; the rest are orphans. */
export async function objectKeysWithRows(db: Database, objectKeys: string[]): Promise<Set<string>> {
  if (objectKeys.length === 0) return new Set();
  const rows = await db
    .select({ objectKey: kycDocuments.objectKey })
    .from(kycDocuments)
    .where(inJsonList(kycDocuments.objectKey, objectKeys));
  return new Set(rows.map((r) => r.objectKey));
}
