// The verifications' actions, once for every front end (the API, the portal, the operator's routes): each takes its
// validated input, calls the store, and ends in its value or the one problem that refuses it, in the words a person
// reads. An upload is two steps, so that a refusal that needs no body is found before the body is read.
import type { Refusal } from "../db/outcome.ts";
import type { DocumentRow, KycRow } from "../db/schema.ts";
import type { Work } from "../env.ts";
import { done, notFound, Problem, type Result, refused } from "../lib/problem.ts";
import { type CheckedFile, removeDocument, storeDocument } from "./documents.ts";
import {
  type AddressChanges,
  findUploadTarget,
  type NewVerification,
  type ReviewTarget,
  reviewVerification,
  submitVerification,
  updateAddress,
  type VerificationWithDocuments,
} from "./store.ts";

/** The verification's state forbids the action ("changing the address", "uploading files"). */
export function verificationLocked(state: string, action: string): Problem {
  return new Problem("verification_locked", `The verification is ${state.replaceAll("_", " ")}; ${action} is not possible now`);
}

/** Why an upload is refused, whether found before the body is read or when the row is written. */
function uploadRefused(refusal: Refusal<"not_found" | "not_submitted" | "wrong_state" | "full">): Problem {
  switch (refusal.reason) {
    case "not_found":
      return notFound("Number");
    case "not_submitted":
      return new Problem("kyc_not_submitted", "Submit the address details before uploading files");
    case "wrong_state":
      return verificationLocked(refusal.state, "uploading files");
    case "full":
      return new Problem("conflict", `A verification holds at most ${refusal.limit} documents; delete one first`);
  }
}

/** Starts the number's verification with its address (one per number), with its kyc.submitted event. */
export async function submitAddress(
  work: Work,
  customerId: string,
  numberId: string,
  verification: NewVerification,
): Promise<Result<KycRow>> {
  const submitted = await submitVerification(work.db, work.outbox, customerId, numberId, verification, work.now);
  if (submitted.ok) return done(submitted.value);
  if (submitted.reason === "not_found") return refused(notFound("Number"));
  return refused(new Problem("kyc_exists", "This number already has a verification; amend its address instead"));
}

/** Amends the address while pending or rejected (a rejected one re-opens), with its kyc.updated event. */
export async function amendAddress(
  work: Work,
  customerId: string,
  numberId: string,
  changes: AddressChanges,
): Promise<Result<VerificationWithDocuments>> {
  const updated = await updateAddress(work.db, work.outbox, customerId, numberId, changes, work.now);
  if (updated.ok) return done(updated.value);
  if (updated.reason === "not_found") return refused(notFound("Verification"));
  return refused(verificationLocked(updated.state, "changing the address"));
}

/**
 * The first step of an upload, before its body is read: the verification it would join, if it takes a file now (the
 * number the account's, the address submitted, the verification open and not full).
 */
export async function uploadTarget(work: Work, customerId: string, numberId: string): Promise<Result<KycRow>> {
  const target = await findUploadTarget(work.db, customerId, numberId);
  return target.ok ? done(target.value) : refused(uploadRefused(target));
}

/** The second step: the checked file stored (R2, then its row and kyc.document_uploaded event), or refused. */
export async function uploadDocument(work: Work, target: KycRow, file: CheckedFile): Promise<Result<DocumentRow>> {
  const stored = await storeDocument(work.db, work.outbox, work.documents, target, file, work.now);
  return stored.ok ? done(stored.value) : refused(uploadRefused(stored));
}

/** Deletes a document while its verification is pending or under review, with its kyc.document_deleted event. */
export async function deleteDocument(work: Work, customerId: string, documentId: string): Promise<Result<DocumentRow>> {
  const removed = await removeDocument(work.db, work.outbox, work.documents, customerId, documentId, work.now);
  if (removed.ok) return done(removed.value);
  if (removed.reason === "not_found") return refused(notFound("Document"));
  return refused(
    new Problem(
      "verification_completed",
      `The verification is ${removed.state.replaceAll("_", " ")}; its documents can no longer be deleted`,
    ),
  );
}

/** The operator's review: pending → under_review → approved or rejected (with a reason). */
export async function reviewKyc(
  work: Work,
  kycId: string,
  status: ReviewTarget,
  rejectionReason: string | undefined,
): Promise<Result<VerificationWithDocuments>> {
  const reviewed = await reviewVerification(work.db, work.outbox, work, kycId, status, rejectionReason, work.now);
  if (reviewed.ok) return done(reviewed.value);
  if (reviewed.reason === "not_found") return refused(notFound("Verification"));
  return refused(new Problem("conflict", `A verification cannot move from ${reviewed.state} to ${status}`));
}
