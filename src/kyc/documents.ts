// Document files: bytes in R2 and the row in D1, kept consistent.
import type { Database } from "../db/client.ts";
import type { Outbox } from "../db/outbox.ts";
import { type Outcome, ok } from "../db/outcome.ts";
import type { DocumentMimeType, DocumentRow, DocumentType, KycRow } from "../db/schema.ts";
import { describeError } from "../lib/describe-error.ts";
import { deleteDocumentRow, findOwnedDocument, insertDocument, objectKeysWithRows } from "./documents-store.ts";

/** Every document object lives under this prefix; the orphan sweep looks nowhere else. */
export const OBJECT_PREFIX = "kyc/";
/** An object without a row is an orphan once it is this old (an upload in flight is younger). */
export const ORPHAN_AGE_MS = 3_600_000;

export interface CheckedFile {
  /** The file's bytes as received (a view into the request's body); their length is the stored file_size. */
  content: Uint8Array;
  filename: string;
  mimeType: DocumentMimeType;
  documentType: DocumentType;
  description: string | null;
  expirationDate: string | null;
}

/**
 * Object first, row second: a failed or refused row write deletes the object again, so a failure of either
 * leaves neither behind (and a row write whose answer was lost after committing is the upload, done). Should the Worker die
 * between the two, the object has no row and the sweep removes it.
 * Refused when the verification stopped taking files or filled up since it was read.
 */
export async function storeDocument(
  db: Database,
  outbox: Outbox,
  bucket: R2Bucket,
  verification: KycRow,
  file: CheckedFile,
  now: number,
): Promise<Outcome<DocumentRow, "wrong_state" | "full" | "number_released">> {
  const id = crypto.randomUUID();
  // A key of ours, never the client's file name.
  const objectKey = `${OBJECT_PREFIX}${verification.customerId}/${verification.id}/${id}`;
  await bucket.put(objectKey, file.content, {
    httpMetadata: { contentType: file.mimeType },
    customMetadata: { documentId: id },
  });
  let outcome: Outcome<DocumentRow, "wrong_state" | "full" | "number_released">;
  try {
    outcome = await insertDocument(
      db,
      outbox,
      verification.id,
      {
        id,
        documentType: file.documentType,
        filename: file.filename,
        fileSize: file.content.byteLength,
        mimeType: file.mimeType,
        description: file.description,
        expirationDate: file.expirationDate,
        objectKey,
      },
      now,
    );
  } catch (error) {
    // D1 may have written the row and lost only its answer: then the upload did happen, and says so (a retry would
    // store the file twice). The object is deleted only once a read shows no row; should that read fail too, the
    // object stays, and the sweep deletes it if it has no row.
    const written = await findOwnedDocument(db, verification.customerId, id).catch(() => null);
    if (written) return ok(written);
    if (written === undefined) await deleteObjectsOrLeaveToSweep(bucket, [objectKey]);
    throw error;
  }
  if (!outcome.ok) await deleteObjectsOrLeaveToSweep(bucket, [objectKey]);
  return outcome;
}

/**
 * Deletes objects that have no row. Should R2 fail, the objects are orphans the sweep removes within the
 * hour, so the failure is logged and the request answers as it would have.
 */
export async function deleteObjectsOrLeaveToSweep(bucket: R2Bucket, objectKeys: string[]): Promise<void> {
  if (objectKeys.length === 0) return;
  try {
    await bucket.delete(objectKeys);
  } catch (error) {
    console.log(
      JSON.stringify({
        level: "warn",
        event: "orphan-left-for-sweep",
        object_keys: objectKeys,
        error: describeError(error),
      }),
    );
  }
}

/** Row first, object second: once the row is gone the document is gone for clients; a leftover object is an orphan. */
export async function removeDocument(
  db: Database,
  outbox: Outbox,
  bucket: R2Bucket,
  customerId: string,
  documentId: string,
  now: number,
): Promise<Outcome<DocumentRow, "not_found" | "wrong_state">> {
  const outcome = await deleteDocumentRow(db, outbox, customerId, documentId, now);
  if (outcome.ok) await deleteObjectsOrLeaveToSweep(bucket, [outcome.value.objectKey]);
  return outcome;
}

/** Deletes document objects older than ORPHAN_AGE_MS that have no row. Returns how many it deleted. */
export async function sweepOrphanObjects(db: Database, bucket: R2Bucket, now: number): Promise<number> {
  let deleted = 0;
  let cursor: string | undefined;
  do {
    const page = await bucket.list({
      prefix: OBJECT_PREFIX,
      cursor,
      limit: 1000,
    });
    const old = page.objects.filter((o) => now - o.uploaded.getTime() >= ORPHAN_AGE_MS).map((o) => o.key);
    const kept = await objectKeysWithRows(db, old);
    const orphans = old.filter((key) => !kept.has(key));
    if (orphans.length > 0) {
      await bucket.delete(orphans);
      deleted += orphans.length;
    }
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor);
  return deleted;
}
