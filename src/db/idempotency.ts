// Storage of idempotency keys: claimed before a request runs, answered from afterwards, released on failure, purged
// after 24 hours.
import { and, eq, gte, lt } from "drizzle-orm";
import { batchByName } from "./batch.ts";
import type { Database } from "./client.ts";
import { deleteInBatches } from "./purge.ts";
import { idempotencyKeys } from "./schema.ts";

/** How long a key and its answer are kept. */
export const IDEMPOTENCY_RETENTION_MS = 24 * 60 * 60 * 1000;

export type IdempotencyRecord = typeof idempotencyKeys.$inferSelect;

export type Claim = Pick<IdempotencyRecord, "scope" | "keyHash" | "fingerprint" | "claim">;

/**
 * Claims the key for a request, unless a record younger than the retention holds it: one batch that inserts the claim
 * (or takes over an expired record) and reads back whoever holds the key now. The caller runs its request only if the
 * record read back carries its own claim.
 */
export async function claimIdempotencyKey(db: Database, claim: Claim, now: number): Promise<IdempotencyRecord> {
  const { holder } = await batchByName(db, {
    claim: db
      .insert(idempotencyKeys)
      .values({ ...claim, createdAt: now, status: null, response: null })
      .onConflictDoUpdate({
        target: [idempotencyKeys.scope, idempotencyKeys.keyHash],
        set: { fingerprint: claim.fingerprint, claim: claim.claim, createdAt: now, status: null, response: null },
        setWhere: lt(idempotencyKeys.createdAt, now - IDEMPOTENCY_RETENTION_MS),
      }),
    holder: db
      .select()
      .from(idempotencyKeys)
      .where(and(eq(idempotencyKeys.scope, claim.scope), eq(idempotencyKeys.keyHash, claim.keyHash))),
  });
  return holder[0]!;
}

/** Whether a record younger than the retention holds the key (a read: nothing is claimed). */
export async function isIdempotencyKeyTaken(db: Database, scope: string, keyHash: string, now: number): Promise<boolean> {
  const [record] = await db
    .select({ createdAt: idempotencyKeys.createdAt })
    .from(idempotencyKeys)
    .where(
      and(
        eq(idempotencyKeys.scope, scope),
        eq(idempotencyKeys.keyHash, keyHash),
        gte(idempotencyKeys.createdAt, now - IDEMPOTENCY_RETENTION_MS),
      ),
    );
  return record !== undefined;
}

function heldBy(claim: Claim) {
  return and(
    eq(idempotencyKeys.scope, claim.scope),
    eq(idempotencyKeys.keyHash, claim.keyHash),
    eq(idempotencyKeys.claim, claim.claim),
  );
}

/** Stores the final answer of the request holding the claim. */
export async function recordIdempotentResponse(db: Database, claim: Claim, status: number, response: string): Promise<void> {
  await db.update(idempotencyKeys).set({ status, response }).where(heldBy(claim));
}

/** Gives the key up, so that a retry runs for real. */
export async function releaseIdempotencyKey(db: Database, claim: Claim): Promise<void> {
  await db.delete(idempotencyKeys).where(heldBy(claim));
}

/** Deletes the records older than the retention, a few hundred at a time. Returns how many it deleted. */
export function purgeExpiredIdempotencyKeys(db: Database, now: number): Promise<number> {
  return deleteInBatches(db, idempotencyKeys, lt(idempotencyKeys.createdAt, now - IDEMPOTENCY_RETENTION_MS));
}
