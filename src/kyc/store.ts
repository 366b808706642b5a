// Queries for verifications and their document rows; every write that depends on a state is one guarded statement.
import { and, asc, eq, inArray, sql, type SQL } from "drizzle-orm";
import type { Database } from "../db/client.ts";
import { insertIf } from "../db/conditional-insert.ts";
import { inJsonList } from "../db/sql.ts";
import { isUniqueViolation } from "../db/errors.ts";
import {
  kycDocuments,
  kycVerifications,
  type DocumentRow,
  type DocumentType,
  type KycRow,
  type KycStatus,
} from "../db/schema.ts";
import { MAX_DOCUMENTS, type SubmitAddressInput, type UpdateAddressInput } from "./schemas.ts";

const YEAR_MS = 365 * 86_400_000;

/** States in which the address may change (a rejected verification re-opens). */
const ADDRESS_EDITABLE: KycStatus[] = ["pending", "rejected"];
/** States in which files may be added. */
export const UPLOAD_ALLOWED: KycStatus[] = ["pending", "under_review", "rejected"];
/** States in which a file may still be removed. */
const DELETE_ALLOWED: KycStatus[] = ["pending", "under_review"];

/** The operator's review moves: which state each target may be reached from. */
const REVIEW_FROM: Record<"under_review" | "approved" | "rejected", KycStatus> = {
  under_review: "pending",
  approved: "under_review",
  rejected: "under_review",
};

export async function submitVerification(
  db: Database,
  customerId: string,
  numberId: string,
  input: SubmitAddressInput,
  now: number,
): Promise<KycRow | "exists"> {
  try {
    const [row] = await db
      .insert(kycVerifications)
      .values({
        id: crypto.randomUUID(),
        customerId,
        numberId,
        status: "pending",
        type: input.verification_type,
        addressLine1: input.address_line_1,
        addressLine2: input.address_line_2 ?? null,
        city: input.city,
        stateProvince: input.state_province,
        postalCode: input.postal_code,
        country: input.country,
        companyName: input.company_name ?? null,
        taxId: input.tax_id ?? null,
        contactPerson: input.contact_person ?? null,
        phoneNumber: input.phone_number ?? null,
        email: input.email ?? null,
        submittedAt: now,
      })
      .returning();
    return row!;
  } catch (error) {
    if (isUniqueViolation(error)) return "exists";
    throw error;
  }
}

function ownedVerification(customerId: string, numberId: string): SQL | undefined {
  return and(eq(kycVerifications.numberId, numberId), eq(kycVerifications.customerId, customerId));
}

export async function findVerification(db: Database, customerId: string, numberId: string): Promise<KycRow | undefined> {
  return db.select().from(kycVerifications).where(ownedVerification(customerId, numberId)).get();
}

export async function listDocuments(db: Database, kycId: string): Promise<DocumentRow[]> {
  return db.select().from(kycDocuments).where(eq(kycDocuments.kycId, kycId)).orderBy(asc(kycDocuments.uploadedAt), asc(kycDocuments.id));
}

/** The verification of a number with its documents, in one round trip. */
export async function findVerificationWithDocuments(
  db: Database,
  customerId: string,
  numberId: string,
): Promise<{ verification: KycRow; documents: DocumentRow[] } | undefined> {
  const [[verification], documents] = await db.batch([
    db.select().from(kycVerifications).where(ownedVerification(customerId, numberId)),
    db
      .select({ document: kycDocuments })
      .from(kycDocuments)
      .innerJoin(kycVerifications, eq(kycVerifications.id, kycDocuments.kycId))
      .where(ownedVerification(customerId, numberId))
      .orderBy(asc(kycDocuments.uploadedAt), asc(kycDocuments.id)),
  ]);
  return verification ? { verification, documents: documents.map((d) => d.document) } : undefined;
}

/**
 * Sets every document's status from its verification's: uploaded (pending), pending_review (under_review),
 * verified (approved), rejected (rejected). Runs in the same batch as each verification move.
 */
function syncDocumentStatuses(db: Database, kycId: SQL | string) {
  return db
    .update(kycDocuments)
    .set({
      status: sql`CASE (SELECT ${kycVerifications.status} FROM ${kycVerifications} WHERE ${kycVerifications.id} = ${kycDocuments.kycId})
        WHEN 'under_review' THEN 'pending_review' WHEN 'approved' THEN 'verified' WHEN 'rejected' THEN 'rejected' ELSE 'uploaded' END`,
    })
    .where(sql`${kycDocuments.kycId} = ${kycId}`);
}

export type AddressUpdateOutcome = { verification: KycRow; documents: DocumentRow[] } | "not_found" | { locked: KycStatus };

/** One guarded UPDATE (pending or rejected only; rejected re-opens), with the documents following, in one batch. */
export async function updateAddress(
  db: Database,
  customerId: string,
  numberId: string,
  patch: UpdateAddressInput,
  now: number,
): Promise<AddressUpdateOutcome> {
  const guard = and(ownedVerification(customerId, numberId), inArray(kycVerifications.status, ADDRESS_EDITABLE));
  const kycIdOfNumber = sql`(SELECT ${kycVerifications.id} FROM ${kycVerifications} WHERE ${ownedVerification(customerId, numberId)})`;
  const [[updated]] = await db.batch([
    db
      .update(kycVerifications)
      .set({
        addressLine1: patch.address_line_1,
        addressLine2: patch.address_line_2,
        city: patch.city,
        stateProvince: patch.state_province,
        postalCode: patch.postal_code,
        country: patch.country,
        companyName: patch.company_name,
        taxId: patch.tax_id,
        contactPerson: patch.contact_person,
        phoneNumber: patch.phone_number,
        email: patch.email,
        status: "pending",
        reviewedAt: null,
        rejectionReason: null,
        updatedAt: now,
      })
      .where(guard)
      .returning(),
    syncDocumentStatuses(db, kycIdOfNumber),
  ]);
  if (updated) return { verification: updated, documents: await listDocuments(db, updated.id) };
  const current = await findVerification(db, customerId, numberId);
  return current ? { locked: current.status } : "not_found";
}

export type ReviewOutcome = KycRow | "not_found" | { illegalFrom: KycStatus };

export async function reviewVerification(
  db: Database,
  kycId: string,
  to: keyof typeof REVIEW_FROM,
  rejectionReason: string | undefined,
  now: number,
): Promise<ReviewOutcome> {
  const [[moved]] = await db.batch([
    db
      .update(kycVerifications)
      .set({
        status: to,
        reviewedAt: now,
        rejectionReason: to === "rejected" ? rejectionReason : null,
        expiresAt: to === "approved" ? now + YEAR_MS : null,
      })
      .where(and(eq(kycVerifications.id, kycId), eq(kycVerifications.status, REVIEW_FROM[to])))
      .returning(),
    syncDocumentStatuses(db, kycId),
  ]);
  if (moved) return moved;
  const current = await db.select().from(kycVerifications).where(eq(kycVerifications.id, kycId)).get();
  return current ? { illegalFrom: current.status } : "not_found";
}

export interface NewDocument {
  id: string;
  kycId: string;
  customerId: string;
  documentType: DocumentType;
  filename: string;
  fileSize: number;
  mimeType: string;
  description: string | null;
  expirationDate: string | null;
  objectKey: string;
  uploadedAt: number;
}

/**
 * Writes the row only while the verification accepts files and has fewer than MAX_DOCUMENTS: one statement,
 * so two concurrent uploads cannot both take the last place. Undefined when refused.
 */
export async function insertDocumentIfAllowed(db: Database, doc: NewDocument): Promise<DocumentRow | undefined> {
  const statusOf = sql`(SELECT ${kycVerifications.status} FROM ${kycVerifications} WHERE ${kycVerifications.id} = ${doc.kycId})`;
  const countOf = sql`(SELECT count(*) FROM ${kycDocuments} WHERE ${kycDocuments.kycId} = ${doc.kycId})`;
  return insertIf(
    db,
    kycDocuments,
    {
      id: sql`${doc.id}`,
      kycId: sql`${doc.kycId}`,
      customerId: sql`${doc.customerId}`,
      documentType: sql`${doc.documentType}`,
      filename: sql`${doc.filename}`,
      fileSize: sql`${doc.fileSize}`,
      mimeType: sql`${doc.mimeType}`,
      description: sql`${doc.description}`,
      expirationDate: sql`${doc.expirationDate}`,
      // A file added while the verification is under review is part of that review.
      status: sql`CASE ${statusOf} WHEN 'under_review' THEN 'pending_review' ELSE 'uploaded' END`,
      objectKey: sql`${doc.objectKey}`,
      uploadedAt: sql`${doc.uploadedAt}`,
    },
    sql`${statusOf} IN ${UPLOAD_ALLOWED} AND ${countOf} < ${MAX_DOCUMENTS}`,
  );
}

export async function findOwnedDocument(db: Database, customerId: string, documentId: string): Promise<DocumentRow | undefined> {
  return db.select().from(kycDocuments).where(and(eq(kycDocuments.id, documentId), eq(kycDocuments.customerId, customerId))).get();
}

export type DocumentDeleteOutcome = DocumentRow | "not_found" | { completed: KycStatus };

/** Removes the row only while its verification is not completed; one guarded DELETE. */
export async function deleteDocumentRow(db: Database, customerId: string, documentId: string): Promise<DocumentDeleteOutcome> {
  const statusOf = sql`(SELECT ${kycVerifications.status} FROM ${kycVerifications} WHERE ${kycVerifications.id} = ${kycDocuments.kycId})`;
  const [removed] = await db
    .delete(kycDocuments)
    .where(and(eq(kycDocuments.id, documentId), eq(kycDocuments.customerId, customerId), sql`${statusOf} IN ${DELETE_ALLOWED}`))
    .returning();
  if (removed) return removed;
  const current = await findOwnedDocument(db, customerId, documentId);
  if (!current) return "not_found";
  const verification = await db.select().from(kycVerifications).where(eq(kycVerifications.id, current.kycId)).get();
  return { completed: verification?.status ?? "approved" };
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
