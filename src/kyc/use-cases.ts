// Verification actions shared by the API, the portal and the operator's routes. An upload checks its target before
// reading the body, so a refusal that needs no body costs no read.
import { verificationFieldsOf } from "../compliance/types.ts";
import type { Refusal } from "../db/outcome.ts";
import type { DocumentRow, KycRow } from "../db/schema.ts";
import type { Work } from "../env.ts";
import { withPrefix } from "../lib/ids.ts";
import {
  done,
  type FieldError,
  notFound,
  Problem,
  type ProblemCode,
  type Result,
  refusals,
  refused,
  validationError,
} from "../lib/problem.ts";
import { DAY_MS } from "../lib/time.ts";
import { COMPLIANCE, operatorAction } from "../staff/roles.ts";
import { type CheckedFile, deleteObjectsOrLeaveToSweep, removeDocument, storeDocument } from "./documents.ts";
import { findUploadTarget } from "./documents-store.ts";
import { staffDownload } from "./download.ts";
import { RENEWAL_WINDOW_MS, reviewable } from "./lifecycle.ts";
import { attachNumbers, detachNumbers, type NumberSelection, type NumbersReport } from "./profile-numbers.ts";
import { insertProfile, profileOfAttachment } from "./profiles-store.ts";
import { type Rejection, type ReviewTarget, reviewMovesFrom, reviewVerification } from "./review-store.ts";
import {
  type AddressChanges,
  deleteVerificationRows,
  findVerificationById,
  type NewVerification,
  type ProfileWithDocuments,
  resubmitVerification,
  type Subject,
  type SubjectKind,
  submitVerification,
  updateAddress,
  type VerificationWithDocuments,
} from "./store.ts";

/** The verification's state forbids the action ("changing the address", "uploading files"). */
function verificationLocked(state: string, action: string): Problem<"verification_locked"> {
  return new Problem("verification_locked", `The verification is ${state.replaceAll("_", " ")}; ${action} is not possible now`);
}

/** The verification's address cannot change in this state (an approved one can, from its renewal window). */
export function addressLocked(state: string): Problem<"verification_locked"> {
  const renewal =
    state === "approved" ? ` (an approved one may be renewed from ${RENEWAL_WINDOW_MS / DAY_MS} days before it expires)` : "";
  return verificationLocked(state, `changing the address${renewal}`);
}

/** The number joined a profile: its verification changes through the profile only. */
export function managedByProfile(profileId: string): Problem<"kyc_managed_by_profile"> {
  return new Problem(
    "kyc_managed_by_profile",
    `This number's verification is its profile ${withPrefix("kyp", profileId)}'s: change the profile, or detach the number first`,
  );
}

/** The number was released: its verification is kept as a record (read, downloaded, deleted), not changed or reviewed. */
function numberReleased(action: string): Problem<"number_released"> {
  return new Problem(
    "number_released",
    `The number was released; its verification is kept as a record and ${action} is not possible (restore the number first)`,
  );
}

/** What a subject is called when it is not found. */
function subjectNotFound(subject: Subject | SubjectKind): Problem<"not_found"> {
  const kind = typeof subject === "string" ? subject : subject.kind;
  return notFound(kind === "number" ? "Verification" : "Profile");
}

export const UPLOAD_REFUSALS = refusals(
  "not_found",
  "kyc_not_submitted",
  "kyc_managed_by_profile",
  "verification_locked",
  "number_released",
  "conflict",
);

/** Why an upload is refused, whether found before the body is read or when the row is written. */
function uploadRefused(
  subject: Subject,
  refusal: Refusal<"not_found" | "not_submitted" | "wrong_state" | "full" | "managed_by_profile" | "number_released">,
): Problem<(typeof UPLOAD_REFUSALS)[number]> {
  switch (refusal.reason) {
    case "not_found":
      return notFound(subject.kind === "number" ? "Number" : "Profile");
    case "not_submitted":
      return new Problem("kyc_not_submitted", "Submit the address details before uploading files");
    case "managed_by_profile":
      return managedByProfile(refusal.profileId);
    case "wrong_state":
      return verificationLocked(refusal.state, "uploading files");
    case "number_released":
      return numberReleased("uploading files");
    case "full":
      return new Problem("conflict", `A verification holds at most ${refusal.limit} documents; delete one first`);
  }
}

export const SUBMIT_ADDRESS_REFUSALS = refusals("not_found", "kyc_managed_by_profile", "number_released", "kyc_exists");

/** Starts the number's verification with its address (one per number), with its kyc.submitted event. */
export async function submitAddress(
  work: Work,
  customerId: string,
  numberId: string,
  verification: NewVerification,
): Promise<Result<KycRow, typeof SUBMIT_ADDRESS_REFUSALS>> {
  const submitted = await submitVerification(work.db, work.outbox, customerId, numberId, verification, work.now);
  if (submitted.ok) return done(submitted.value);
  if (submitted.reason === "not_found") return refused(notFound("Number"));
  if (submitted.reason === "managed_by_profile") return refused(managedByProfile(submitted.profileId));
  if (submitted.reason === "number_released") return refused(numberReleased("starting a verification"));
  return refused(new Problem("kyc_exists", "This number already has a verification; amend its address instead"));
}

/** Starts a profile of the account, with its kyc_profile.submitted event. */
export async function createProfile(
  work: Work,
  customerId: string,
  name: string,
  verification: NewVerification,
): Promise<KycRow> {
  return insertProfile(work.db, work.outbox, customerId, name, verification, work.now);
}

export const AMEND_ADDRESS_REFUSALS = refusals("not_found", "kyc_managed_by_profile", "number_released", "verification_locked");

/**
 * Amends the address while pending, rejected, or approved within its renewal window (all re-open), with its
 * *.updated event; a profile's name alone in any state.
 */
export async function amendAddress(
  work: Work,
  customerId: string,
  subject: Subject,
  changes: AddressChanges & { name?: string },
): Promise<Result<ProfileWithDocuments, typeof AMEND_ADDRESS_REFUSALS>> {
  const updated = await updateAddress(work.db, work.outbox, customerId, subject, changes, work.now);
  if (updated.ok) return done(updated.value);
  if (updated.reason === "not_found") return refused(subjectNotFound(subject));
  if (updated.reason === "managed_by_profile") return refused(managedByProfile(updated.profileId));
  if (updated.reason === "number_released") return refused(numberReleased("changing the address"));
  return refused(addressLocked(updated.state));
}

export const RESUBMIT_REFUSALS = refusals("not_found", "kyc_managed_by_profile", "number_released", "verification_locked");

/** Re-opens a rejected verification unchanged (pending, reasons cleared), with its *.updated event. */
export async function resubmit(
  work: Work,
  customerId: string,
  subject: Subject,
): Promise<Result<ProfileWithDocuments, typeof RESUBMIT_REFUSALS>> {
  const reopened = await resubmitVerification(work.db, work.outbox, customerId, subject, work.now);
  if (reopened.ok) return done(reopened.value);
  if (reopened.reason === "not_found") return refused(subjectNotFound(subject));
  if (reopened.reason === "managed_by_profile") return refused(managedByProfile(reopened.profileId));
  if (reopened.reason === "number_released") return refused(numberReleased("resubmitting"));
  return refused(verificationLocked(reopened.state, "resubmitting (only a rejected verification is)"));
}

/** Reads and checks an upload's body, refusing with one of `Codes`; an upload calls it only once its target takes a file. */
export type UploadReader<Codes extends readonly ProblemCode[]> = () => Promise<Result<CheckedFile, Codes>>;

/** An upload's end: stored, or refused by its target (`file: false`) or by the file its reader read (`file: true`). */
export type UploadResult<Codes extends readonly ProblemCode[]> =
  | { ok: true; value: DocumentRow }
  | { ok: false; problem: Problem<(typeof UPLOAD_REFUSALS)[number]>; file: false }
  | { ok: false; problem: Problem<Codes[number]>; file: true };

/**
 * Uploads a document to the subject's verification. The target is checked before the body is read (the subject the
 * account's, the address submitted, the verification open and not full), so a refusal found first costs no read of up
 * to 10 MiB; then the file is stored (R2, then its row and document event), the insert's own guard deciding a race.
 */
export async function uploadDocument<Codes extends readonly ProblemCode[]>(
  work: Work,
  customerId: string,
  subject: Subject,
  readFile: UploadReader<Codes>,
): Promise<UploadResult<Codes>> {
  const target = await findUploadTarget(work.db, customerId, subject);
  if (!target.ok) return { ok: false, problem: uploadRefused(subject, target), file: false };
  const file = await readFile();
  if (!file.ok) return { ok: false, problem: file.problem, file: true };
  const stored = await storeDocument(work.db, work.outbox, work.documents, target.value, file.value, work.now);
  return stored.ok ? done(stored.value) : { ok: false, problem: uploadRefused(subject, stored), file: false };
}

export const DELETE_DOCUMENT_REFUSALS = refusals("not_found", "verification_completed");

/**
 * Deletes a document while its verification is pending or under review, or one a reviewer's reason named while it is
 * rejected, with its document event.
 */
export async function deleteDocument(
  work: Work,
  customerId: string,
  documentId: string,
): Promise<Result<DocumentRow, typeof DELETE_DOCUMENT_REFUSALS>> {
  const removed = await removeDocument(work.db, work.outbox, work.documents, customerId, documentId, work.now);
  if (removed.ok) return done(removed.value);
  if (removed.reason === "not_found") return refused(notFound("Document"));
  return refused(
    new Problem(
      "verification_completed",
      `The verification is ${removed.state.replaceAll("_", " ")}; its documents can no longer be deleted` +
        (removed.state === "rejected" ? " (but those a rejection reason names)" : ""),
    ),
  );
}

export const DELETE_VERIFICATION_REFUSALS = refusals("not_found", "kyc_managed_by_profile", "verification_locked", "conflict");

/**
 * Deletes a verification with its documents (rows, then files), after its *.deleted event: a number's own while
 * pending or rejected, so that the number may join a profile; a profile with no numbers and no open order naming it.
 */
export async function deleteVerification(
  work: Work,
  customerId: string,
  subject: Subject,
): Promise<Result<void, typeof DELETE_VERIFICATION_REFUSALS>> {
  const deleted = await deleteVerificationRows(work.db, work.outbox, customerId, subject, work.now);
  if (deleted.ok) {
    await deleteObjectsOrLeaveToSweep(work.documents, deleted.value.objectKeys);
    return done(undefined);
  }
  switch (deleted.reason) {
    case "not_found":
      return refused(subjectNotFound(subject));
    case "managed_by_profile":
      return refused(managedByProfile(deleted.profileId));
    case "in_use":
      return refused(new Problem("conflict", `The profile cannot be deleted: ${deleted.detail}`));
    case "wrong_state":
      return refused(verificationLocked(deleted.state, "deleting it"));
  }
}

/** The reasons that name what the verification does not have: a document of another or none, a field it has not. */
function reasonErrors(found: VerificationWithDocuments, rejection: Rejection): FieldError[] {
  const documentIds = new Set(found.documents.map((d) => withPrefix("doc", d.id)));
  const fields = verificationFieldsOf(found.verification);
  return rejection.reasons.flatMap((reason, i) => [
    ...(reason.document_id !== undefined && !documentIds.has(reason.document_id)
      ? [{ location: "body" as const, pointer: `/reasons/${i}/document_id`, message: "is not a document of this verification" }]
      : []),
    ...(reason.field !== undefined && !fields.includes(reason.field)
      ? [
          {
            location: "body" as const,
            pointer: `/reasons/${i}/field`,
            message: "is not a field of this verification",
          },
        ]
      : []),
  ]);
}

const REVIEW_KYC_REFUSALS = refusals("validation_error", "not_found", "kyc_managed_by_profile", "number_released", "conflict");

/**
 * The operator's review of a number's verification or a profile: pending → under_review → approved or rejected (with
 * a reason, and structured reasons naming its documents and fields).
 */
async function reviewKyc(
  work: Work,
  kind: SubjectKind,
  kycId: string,
  status: ReviewTarget,
  rejection: Rejection | undefined,
): Promise<Result<ProfileWithDocuments, typeof REVIEW_KYC_REFUSALS>> {
  if (rejection && rejection.reasons.length > 0) {
    const found = await findVerificationById(work.db, kind, kycId);
    if (!found) return refused(await reviewNotFound(work, kind, kycId));
    const errors = reasonErrors(found, rejection);
    if (errors.length > 0) return refused(validationError(errors));
  }
  const reviewed = await reviewVerification(work.db, work.outbox, work, kind, kycId, status, rejection, work.now);
  if (reviewed.ok) return done(reviewed.value);
  if (reviewed.reason === "not_found") return refused(await reviewNotFound(work, kind, kycId));
  if (reviewed.reason === "number_released") return refused(numberReleased("reviewing it"));
  return refused(new Problem("conflict", `A verification cannot move from ${reviewed.state} to ${status}`));
}

/** No verification of this kind has the id: the id a number shows for its profile's, or none. */
async function reviewNotFound(
  work: Work,
  kind: SubjectKind,
  kycId: string,
): Promise<Problem<"not_found" | "kyc_managed_by_profile">> {
  const profileId = kind === "number" ? await profileOfAttachment(work.db, kycId) : undefined;
  return profileId ? managedByProfile(profileId) : subjectNotFound(kind);
}

/** Why an attach or detach is refused as a whole. */
function selectionRefused(reason: "not_found" | "unknown_order"): Problem<"not_found"> {
  return reason === "not_found" ? notFound("Profile") : notFound("Order");
}

export const PROFILE_NUMBERS_REFUSALS = refusals("not_found");

/** Attaches numbers to a profile of the account (each all or nothing), with its events and audit event. */
export async function attachToProfile(
  work: Work,
  customerId: string,
  profileId: string,
  selection: NumberSelection,
): Promise<Result<NumbersReport, typeof PROFILE_NUMBERS_REFUSALS>> {
  const attached = await attachNumbers(work.db, work.outbox, work, customerId, profileId, selection, work.now);
  return attached.ok ? done(attached.value) : refused(selectionRefused(attached.reason));
}

/** Detaches numbers from a profile of the account, with its events and audit event. */
export async function detachFromProfile(
  work: Work,
  customerId: string,
  profileId: string,
  selection: NumberSelection,
): Promise<Result<NumbersReport, typeof PROFILE_NUMBERS_REFUSALS>> {
  const detached = await detachNumbers(work.db, work.outbox, work, customerId, profileId, selection, work.now);
  return detached.ok ? done(detached.value) : refused(selectionRefused(detached.reason));
}

/** The review of a verification: offered while its status has a move (pending → under_review → a decision). */
const reviewAvailable = (kyc: Pick<KycRow, "status" | "numberReleased">) =>
  reviewable(kyc) && reviewMovesFrom(kyc.status).length > 0;

/** The operator's review of a number's verification or of a profile. */
function reviewActionOf(kind: SubjectKind, operationId: string) {
  return operatorAction({
    operationId,
    roles: COMPLIANCE,
    refusals: REVIEW_KYC_REFUSALS,
    available: reviewAvailable,
    run: (work: Work, kycId: string, status: ReviewTarget, rejection: Rejection | undefined) =>
      reviewKyc(work, kind, kycId, status, rejection),
  });
}

export const reviewVerificationAction = reviewActionOf("number", "reviewKycVerification");
export const reviewProfileAction = reviewActionOf("profile", "reviewKycProfile");

/** Staff open any account's document (its bytes); a GET is audited (kyc.document_viewed). */
export const downloadDocumentAction = operatorAction({
  operationId: "downloadAnyKycDocument",
  roles: COMPLIANCE,
  refusals: refusals("not_found"),
  run: staffDownload,
});
