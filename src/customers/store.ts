// Queries for customer accounts and API keys, including key authentication.
import { and, count, desc, eq, isNull, lt, or, sql } from "drizzle-orm";
import { type AuditContext, auditStatement } from "../db/audit.ts";
import { batchByName, pageAndTotal, writeInPhases } from "../db/batch.ts";
import type { Database } from "../db/client.ts";
import { isUniqueViolation } from "../db/errors.ts";
import { type Outcome, ok, refuse } from "../db/outcome.ts";
import type { PageWindow } from "../db/paging.ts";
import { type ApiKeyRow, apiKeys, batchAssertions, type CustomerRow, customers } from "../db/schema.ts";
import { insertSelection } from "../db/sql.ts";
import { displayParts, generateApiKey, sha256Hex } from "../lib/api-key.ts";
import { toIso } from "../lib/time.ts";

/** last_used_at is written at most this often per key, so a busy key does not cost a write per request. */
const LAST_USED_RESOLUTION_MS = 60_000;

export type NewCustomer = Pick<typeof customers.$inferInsert, "slug" | "name">;

/** Opens an account, with its audit event. */
export async function createCustomer(
  db: Database,
  audit: AuditContext,
  input: NewCustomer,
  now: number,
): Promise<Outcome<CustomerRow, "duplicate">> {
  const id = crypto.randomUUID();
  try {
    const created = await batchByName(db, {
      customer: db
        .insert(customers)
        .values({ id, ...input, createdAt: now, updatedAt: now })
        .returning(),
      audit: auditStatement(
        db,
        { ...audit, now },
        {
          action: "customer.created",
          target: { type: "customer", id: input.slug },
          customerId: id,
          changes: { slug: [null, input.slug], name: [null, input.name] },
        },
      ),
    });
    return ok(created.customer[0]!);
  } catch (error) {
    if (isUniqueViolation(error)) return refuse("duplicate");
    throw error;
  }
}

export async function findCustomerBySlug(db: Database, slug: string): Promise<CustomerRow | undefined> {
  return db.select().from(customers).where(eq(customers.slug, slug)).get();
}

export async function listCustomers(db: Database, window: PageWindow): Promise<{ rows: CustomerRow[]; total: number }> {
  return pageAndTotal(
    db,
    db.select().from(customers).orderBy(desc(customers.createdAt), desc(customers.id)).limit(window.limit).offset(window.offset),
    db.select({ total: count() }).from(customers),
  );
}

/**
 * Mints a key for the account with this slug, in one statement that finds the account, with its audit event; the
 * plaintext exists only in the return value.
 */
export async function createApiKey(
  db: Database,
  audit: AuditContext,
  customerSlug: string,
  name: string,
  now: number,
): Promise<Outcome<{ row: ApiKeyRow; key: string }, "not_found">> {
  const key = generateApiKey();
  const id = crypto.randomUUID();
  const { prefix, lastFour } = displayParts(key);
  const created = await batchByName(db, {
    key: writeInPhases({
      write: db
        .insert(apiKeys)
        .select(
          db
            .select(
              insertSelection({
                id,
                customerId: customers.id,
                name,
                prefix,
                lastFour,
                keyHash: await sha256Hex(key),
                createdAt: now,
                lastUsedAt: null,
                revokedAt: null,
              }),
            )
            .from(customers)
            .where(eq(customers.slug, customerSlug)),
        )
        .returning(),
      after: {
        audit: auditStatement(
          db,
          { ...audit, now },
          {
            action: "api_key.created",
            target: { type: "api_key", id },
            customerId: apiKeys.customerId,
            changes: { name: [null, name] },
          },
          { from: apiKeys, where: eq(apiKeys.id, id) },
        ),
      },
    }),
  });
  const [row] = created.key.write;
  return row ? ok({ row, key }) : refuse("not_found");
}

/** A page of the keys of the account with this slug, newest first. */
export async function listApiKeys(
  db: Database,
  customerSlug: string,
  window: PageWindow,
): Promise<Outcome<{ rows: ApiKeyRow[]; total: number }, "not_found">> {
  const ofAccount = eq(
    apiKeys.customerId,
    sql`(SELECT ${customers.id} FROM ${customers} WHERE ${eq(customers.slug, customerSlug)})`,
  );
  const found = await batchByName(db, {
    account: db.select({ id: customers.id }).from(customers).where(eq(customers.slug, customerSlug)),
    rows: db
      .select()
      .from(apiKeys)
      .where(ofAccount)
      .orderBy(desc(apiKeys.createdAt), desc(apiKeys.id))
      .limit(window.limit)
      .offset(window.offset),
    totals: db.select({ total: count() }).from(apiKeys).where(ofAccount),
  });
  return found.account.length > 0 ? ok({ rows: found.rows, total: found.totals[0]!.total }) : refuse("not_found");
}

export async function findApiKey(db: Database, id: string): Promise<ApiKeyRow | undefined> {
  return db.select().from(apiKeys).where(eq(apiKeys.id, id)).get();
}

/**
 * Revokes a key once, with its audit event; revoking it again keeps the first revocation time and records nothing.
 * One batch: the write, its audit event if it wrote, then the key.
 */
export async function revokeApiKey(
  db: Database,
  audit: AuditContext,
  id: string,
  now: number,
  ownerId?: string,
): Promise<Outcome<ApiKeyRow, "not_found">> {
  // With an owner, another account's key is none.
  const thisKey = and(eq(apiKeys.id, id), ownerId === undefined ? undefined : eq(apiKeys.customerId, ownerId))!;
  const { key } = await batchByName(db, {
    key: writeInPhases({
      write: db
        .update(apiKeys)
        .set({ revokedAt: now })
        .where(and(thisKey, isNull(apiKeys.revokedAt))),
      record: (written) =>
        auditStatement(
          db,
          { ...audit, now },
          {
            action: "api_key.revoked",
            target: { type: "api_key", id },
            customerId: apiKeys.customerId,
            changes: { revoked_at: [null, toIso(now)] },
          },
          { from: apiKeys, where: and(thisKey, written) },
        ),
      after: { key: db.select().from(apiKeys).where(thisKey) },
    }),
  });
  const [row] = key.after.key;
  return row ? ok(row) : refuse("not_found");
}

interface KeyOwner {
  keyId: string;
  revokedAt: number | null;
  lastUsedAt: number | null;
  customerId: string;
  customerSlug: string;
}

export async function findKeyOwnerByHash(db: Database, keyHash: string): Promise<KeyOwner | undefined> {
  const [owner] = await db
    .select({
      keyId: apiKeys.id,
      revokedAt: apiKeys.revokedAt,
      lastUsedAt: apiKeys.lastUsedAt,
      customerId: apiKeys.customerId,
      customerSlug: customers.slug,
    })
    .from(apiKeys)
    .innerJoin(customers, eq(customers.id, apiKeys.customerId))
    .where(eq(apiKeys.keyHash, keyHash))
    .limit(1);
  return owner;
}

/** What can change about a key once it exists: its revocation and its last use. */
interface KeyState {
  revokedAt: number | null;
  lastUsedAt: number | null;
}

/** A key's state, read by id; `readKeyState` turns its values into a KeyState. */
export function keyStateQuery(db: Database, keyId: string) {
  return db.select({ revokedAt: apiKeys.revokedAt, lastUsedAt: apiKeys.lastUsedAt }).from(apiKeys).where(eq(apiKeys.id, keyId));
}

/** The rows of keyStateQuery as column values in select order; undefined when the key no longer exists. */
export function readKeyState(rows: unknown[][]): KeyState | undefined {
  const [row] = rows;
  return row && { revokedAt: row[0] as number | null, lastUsedAt: row[1] as number | null };
}

/** Whether last_used_at is due for a write: never written, or written over a minute ago. */
export function isLastUsedStale(lastUsedAt: number | null, now: number): boolean {
  return lastUsedAt === null || lastUsedAt < now - LAST_USED_RESOLUTION_MS;
}

/**
 * One conditional write: nothing happens when the key was marked used within the last minute (so concurrent
 * requests that all saw a stale value still write once).
 */
export function lastUsedUpdate(db: Database, keyId: string, now: number) {
  return db
    .update(apiKeys)
    .set({ lastUsedAt: now })
    .where(and(eq(apiKeys.id, keyId), or(isNull(apiKeys.lastUsedAt), lt(apiKeys.lastUsedAt, now - LAST_USED_RESOLUTION_MS))));
}

export async function touchApiKey(db: Database, keyId: string, now: number): Promise<void> {
  await lastUsedUpdate(db, keyId, now);
}

/** Fails its D1 batch (see batchAssertions) unless the key exists and is not revoked. */
export function activeKeyAssertion(db: Database, keyId: string) {
  return db
    .insert(batchAssertions)
    .select(
      sql`SELECT 'api key not active' WHERE NOT EXISTS (SELECT 1 FROM ${apiKeys} WHERE ${apiKeys.id} = ${keyId} AND ${apiKeys.revokedAt} IS NULL)`,
    );
}
