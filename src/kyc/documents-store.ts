// Queries for verification and profile documents; each write is one guarded statement, as in store.ts.
import { type AnyColumn, and, count, eq, type SQL, sql } from "drizzle-orm";
import { type AuditContext, auditStatement } from "../db/audit.ts";
import { batchByName, writeInPhases } from "../db/batch.ts";
import type { Database } from "../db/client.ts";
import { type EventSpec, eventIfWritten, eventStatements, type Outbox } from "../db/outbox.ts";
import { type Outcome, ok, refusalByState, refuse } from "../db/outcome.ts";
import {
  type DocumentRow,
  type DocumentStatus,
  type KycRow,
  type KycStatus,
  kycDocuments,
  kycProfileNumbers,
  kycVerifications,
  numbers,
} from "../db/schema.ts";
import { inJsonList, insertSelection } from "../db/sql.ts";
import { withPrefix } from "../lib/ids.ts";
import { documentEventData, profileDocumentEventData } from "../webhooks/payloads.ts";
import { documentDeletableGuard, isReleased, verificationGuard } from "./lifecycle.ts";
import {
  DOCUMENT_STATUS_OF,
  type DocumentAction,
  eventTypeOf,
  MAX_DOCUMENTS,
  type Subject,
  subjectVerification,
  uploadRefusal,
} from "./store.ts";

/** A file added to a rejected verification is new, not rejected: it waits for the next review like any other. */
const NEW_DOCUMENT_STATUS_OF: Record<KycStatus, DocumentStatus> = { ...DOCUMENT_STATUS_OF, rejected: "uploaded" };

/** The document status a verification status maps to, as SQL over an expression that yields the verification's status. */
function documentStatusFor(verificationStatus: SQL | AnyColumn, mapping: Record<KycStatus, DocumentStatus>): SQL {
  const branches = Object.entries(mapping).map(([from, to]) => sql`WHEN ${from} THEN ${to}`);
  return sql`CASE ${verificationStatus} ${sql.join(branches, sql` `)} END`;
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
): Promise<Outcome<KycRow, "not_found" | "not_submitted" | "wrong_state" | "full" | "managed_by_profile" | "number_released">> {
  const which = subjectVerification(customerId, subject);
  const found = await batchByName(db, {
    numbers:
      subject.kind === "number"
        ? db
            .select({ id: numbers.id, status: numbers.status, profileId: kycProfileNumbers.profileId })
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
    // A released number starts no verification, so "submit the address first" would not help.
    if (!verification) return refuse(isReleased(number) ? "number_released" : "not_submitted");
  }
  if (!verification) return refuse("not_found");
  return uploadRefusal(verification, documents!.count) ?? ok(verification);
}

/**
 * The document event of the `kyc_documents` row `where` finds: kyc.* with `{kyc_id, number_id, document}` for a
 * number's verification, kyc_profile.* with `{profile_id, document}` for a profile (the row says which).
 */
function documentEvent(action: DocumentAction, where: SQL): EventSpec {
  const ofProfile = sql`(SELECT ${kycVerifications.numberId} IS NULL FROM ${kycVerifications} WHERE ${kycVerifications.id} = ${kycDocuments.kycId})`;
  return {
    type: sql`CASE WHEN ${ofProfile} THEN ${eventTypeOf("profile", action)} ELSE ${eventTypeOf("number", action)} END`,
    customerId: kycDocuments.customerId,
    data: sql`CASE WHEN ${ofProfile} THEN ${profileDocumentEventData()} ELSE ${documentEventData()} END`,
    from: kycDocuments,
    where,
  };
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
): Promise<Outcome<DocumentRow, "wrong_state" | "full" | "number_released">> {
  const documentCount = sql`(SELECT count(*) FROM ${kycDocuments} WHERE ${kycDocuments.kycId} = ${kycVerifications.id})`;
  const thisDocument = eq(kycDocuments.id, doc.id);
  const { stored } = await batchByName(db, {
    stored: writeInPhases({
      write: db
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
            .where(and(eq(kycVerifications.id, kycId), verificationGuard("upload"), sql`${documentCount} < ${MAX_DOCUMENTS}`)),
        )
        .returning(),
      ...eventIfWritten(db, documentEvent("document_uploaded", thisDocument), now),
    }),
  });
  outbox.add(stored.after.deliveries);
  const [row] = stored.write;
  if (row) return ok(row);
  const current = await db
    .select({ status: kycVerifications.status, numberReleased: kycVerifications.numberReleased })
    .from(kycVerifications)
    .where(eq(kycVerifications.id, kycId))
    .get();
  // Deleted meanwhile (a pending verification may be): it no longer takes files.
  if (!current) return refuse("wrong_state", { state: "deleted" });
  // It took no file although it was found taking one: it changed state meanwhile, or another upload filled it.
  return uploadRefusal(current, 0) ?? refuse("full", { limit: MAX_DOCUMENTS });
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
  const deletable = documentDeletableGuard();
  const { deleted } = await batchByName(db, {
    deleted: writeInPhases({
      // Under the delete's own guard: once the row is gone, its data could not be read.
      before: { event: eventStatements(db, documentEvent("document_deleted", and(owned, deletable)!), now).statements },
      write: db.delete(kycDocuments).where(and(owned, deletable)).returning(),
    }),
  });
  outbox.add(deleted.before.event.deliveries);
  const [removed] = deleted.write;
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
