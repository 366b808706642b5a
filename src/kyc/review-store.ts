// The review moves allowed on a verification or profile, and the batch that makes one.
import { and, eq, sql } from "drizzle-orm";
import { type AuditContext, auditBeforeWrite } from "../db/audit.ts";
import { batchByName, writeInPhases } from "../db/batch.ts";
import type { Database } from "../db/client.ts";
import type { Outbox } from "../db/outbox.ts";
import { type Outcome, ok } from "../db/outcome.ts";
import { type KycStatus, kycDocuments, kycVerifications, type RejectionReason } from "../db/schema.ts";
import { inJsonList } from "../db/sql.ts";
import { withPrefix } from "../lib/ids.ts";
import { DAY_MS } from "../lib/time.ts";
import { endProfileHoldsStatement } from "../reservations/store.ts";
import { REVIEWABLE, verificationRefusal } from "./lifecycle.ts";
import {
  countRead,
  DOCUMENT_ORDER,
  documentsFollow,
  numberCountOf,
  ofKind,
  type ProfileWithDocuments,
  type SubjectKind,
  verificationEventIfWritten,
} from "./store.ts";

const YEAR_MS = 365 * DAY_MS;

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
): Promise<Outcome<ProfileWithDocuments, "not_found" | "wrong_state" | "number_released">> {
  const movable = and(eq(kycVerifications.id, kycId), ofKind(kind), eq(kycVerifications.status, REVIEW_FROM[to]), REVIEWABLE)!;
  const reasons = rejection?.reasons ?? [];
  const named = reasons.flatMap((r) => (r.document_id === undefined ? [] : [r.document_id]));
  const namedReasons = sql`(SELECT json_group_array(json(value)) FROM json_each(${JSON.stringify(reasons)}) WHERE value ->> 'document_id' = ${"doc_"} || ${kycDocuments.id})`;
  // A refused review changes no document either (a file added after a rejection stays uploaded).
  const event = verificationEventIfWritten(db, kind, to, eq(kycVerifications.id, kycId), now);
  const { reviewed } = await batchByName(db, {
    reviewed: writeInPhases({
      before: {
        audit: auditBeforeWrite(
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
          { from: kycVerifications, guard: movable },
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
      },
      write: db
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
      record: event.record,
      after: {
        ...event.after,
        documents: db
          .select()
          .from(kycDocuments)
          .where(eq(kycDocuments.kycId, kycId))
          .orderBy(...DOCUMENT_ORDER),
        counted: kind === "profile" ? numberCountOf(db, kycId) : undefined,
        // The review ended: the numbers held through it are held 24 hours more at most.
        holdsEnded:
          kind === "profile" && to !== "under_review"
            ? endProfileHoldsStatement(
                db,
                kycId,
                sql`EXISTS (SELECT 1 FROM ${kycVerifications} WHERE ${and(eq(kycVerifications.id, kycId), eq(kycVerifications.status, to), eq(kycVerifications.reviewedAt, now))})`,
                now,
              )
            : undefined,
      },
    }),
  });
  const { deliveries, documents, counted } = reviewed.after;
  outbox.add(deliveries);
  const [moved] = reviewed.write;
  if (moved) return ok({ verification: moved, documents, numberCount: countRead(counted) });
  return verificationRefusal(
    await db
      .select()
      .from(kycVerifications)
      .where(and(eq(kycVerifications.id, kycId), ofKind(kind)))
      .get(),
    "review",
  );
}
