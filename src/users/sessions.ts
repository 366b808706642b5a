// Portal sessions: a random 256-bit id in the browser's cookie, its SHA-256 in D1. A session ends after 12 idle hours,
// 7 days after it began, when its user signs out or stops being active, and when a new password is set (invitation).
import { and, eq, gt, sql } from "drizzle-orm";
import type { Database } from "../db/client.ts";
import { type CustomerRow, customers, sessions, type UserRow, type UserStatus, users } from "../db/schema.ts";
import { sha256Hex } from "../lib/api-key.ts";
import { toBase64Url } from "../lib/base64.ts";

export const SESSION_IDLE_MS = 12 * 3_600_000;
export const SESSION_MAX_MS = 7 * 86_400_000;
/** A session's last use is written at most this often: every page view would otherwise be a write. */
const TOUCH_INTERVAL_MS = 60_000;

/** A new random token: 32 bytes, base64url. */
export function randomToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return toBase64Url(bytes);
}

/** Starts a session for the user; returns the id for the cookie (only its hash is stored). */
export async function startSession(db: Database, user: Pick<UserRow, "id" | "customerId">, now: number): Promise<string> {
  const token = randomToken();
  await db
    .insert(sessions)
    .values({ idHash: await sha256Hex(token), userId: user.id, customerId: user.customerId, createdAt: now, lastSeenAt: now });
  return token;
}

/**
 * The live session of this cookie's id, with its user (who must still be active) and account, or undefined. Its last
 * use is moved on when it is over a minute old.
 */
export async function findSession(
  db: Database,
  token: string,
  now: number,
): Promise<{ user: UserRow; customer: Pick<CustomerRow, "id" | "slug" | "name"> } | undefined> {
  const idHash = await sha256Hex(token);
  // Named apart from the user's columns: a D1 batch answers rows as objects, where one name holds one value.
  const found = await db
    .select({
      user: users,
      lastSeenAt: sql<number>`${sessions.lastSeenAt}`.as("session_last_seen_at"),
      customerSlug: sql<string>`${customers.slug}`.as("customer_slug"),
      customerName: sql<string>`${customers.name}`.as("customer_name"),
    })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .innerJoin(customers, eq(customers.id, sessions.customerId))
    .where(
      and(
        eq(sessions.idHash, idHash),
        gt(sessions.lastSeenAt, now - SESSION_IDLE_MS),
        gt(sessions.createdAt, now - SESSION_MAX_MS),
        eq(users.status, "active" satisfies UserStatus),
      ),
    )
    .get();
  if (!found) return undefined;
  if (now - found.lastSeenAt > TOUCH_INTERVAL_MS) {
    await db.update(sessions).set({ lastSeenAt: now }).where(eq(sessions.idHash, idHash));
  }
  return { user: found.user, customer: { id: found.user.customerId, slug: found.customerSlug, name: found.customerName } };
}

export async function endSession(db: Database, token: string): Promise<void> {
  await db.delete(sessions).where(eq(sessions.idHash, await sha256Hex(token)));
}

/** For a user's change's batch: ends every session of the user if it is not active after the change. */
export function endSessionsOfInactiveUser(db: Database, userId: string) {
  return db
    .delete(sessions)
    .where(
      and(
        eq(sessions.userId, userId),
        sql`(SELECT ${users.status} FROM ${users} WHERE ${users.id} = ${userId}) IS NOT ${"active" satisfies UserStatus}`,
      ),
    );
}
