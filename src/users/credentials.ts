// How a user gets in: invitations (a link to set a password, single use, 72 h, only its hash stored), the password,
// and sign-in with its lockout (10 failures within 15 minutes lock the user).
import { and, eq, gt, sql } from "drizzle-orm";
import type { Database } from "../db/client.ts";
import { type Outcome, ok, refuse } from "../db/outcome.ts";
import { customers, invitations, sessions, type UserRow, type UserStatus, users } from "../db/schema.ts";
import { insertSelection } from "../db/sql.ts";
import { sha256Hex } from "../lib/api-key.ts";
import { DECOY_HASH, hashPassword, verifyPassword } from "../lib/passwords.ts";
import { endSessionsOfInactiveUser, randomToken } from "./sessions.ts";

export const INVITATION_TTL_MS = 72 * 3_600_000;
/** Failed sign-ins that lock a user, and the window they must fall in. */
const LOCKOUT_FAILURES = 10;
export const LOCKOUT_WINDOW_MS = 15 * 60_000;
export const PASSWORD_MIN_LENGTH = 12;
export const PASSWORD_MAX_LENGTH = 128;

/**
 * A new invitation for the user; any earlier one of the user's stops working (a new link is also how a password is
 * reset). Returns the token for the link, or not_found.
 */
export async function issueInvitation(
  db: Database,
  userId: string,
  now: number,
): Promise<Outcome<{ token: string; expiresAt: number; user: UserRow }, "not_found">> {
  const token = randomToken();
  const [, [created], [user]] = await db.batch([
    db.delete(invitations).where(eq(invitations.userId, userId)),
    db
      .insert(invitations)
      .select(
        db
          .select(
            insertSelection({
              tokenHash: await sha256Hex(token),
              userId: users.id,
              customerId: users.customerId,
              createdAt: now,
              expiresAt: now + INVITATION_TTL_MS,
            }),
          )
          .from(users)
          .where(eq(users.id, userId)),
      )
      .returning(),
    db.select().from(users).where(eq(users.id, userId)),
  ]);
  return created && user ? ok({ token, expiresAt: created.expiresAt, user }) : refuse("not_found");
}

/** The user an unexpired invitation is for, with the account's slug, or undefined. */
export async function findInvitation(db: Database, token: string, now: number) {
  return db
    .select({ user: users, customerSlug: customers.slug })
    .from(invitations)
    .innerJoin(users, eq(users.id, invitations.userId))
    .innerJoin(customers, eq(customers.id, invitations.customerId))
    .where(and(eq(invitations.tokenHash, await sha256Hex(token)), gt(invitations.expiresAt, now)))
    .get();
}

/** Why a password is refused, or null: 12–128 characters, not the user's e-mail. */
export function passwordProblem(password: string, email: string): string | null {
  const length = [...password].length;
  if (length < PASSWORD_MIN_LENGTH) return `must be at least ${PASSWORD_MIN_LENGTH} characters`;
  if (length > PASSWORD_MAX_LENGTH) return `must be at most ${PASSWORD_MAX_LENGTH} characters`;
  if (password.trim().toLowerCase() === email.toLowerCase()) return "must not be your e-mail address";
  return null;
}

/**
 * Sets the password of the invitation's user and uses the invitation up, in one batch (one transaction): the password
 * and the end of the user's sessions (a new password is a reset) are written only while the invitation is there, and
 * it is deleted with them, so a link works once, however often it is sent. Clears the failed sign-ins; a lock is an
 * admin's to lift.
 */
export async function acceptInvitation(
  db: Database,
  token: string,
  password: string,
  now: number,
): Promise<Outcome<UserRow, "not_found">> {
  const tokenHash = await sha256Hex(token);
  const passwordHash = await hashPassword(password);
  const invitedUser = sql`(SELECT ${invitations.userId} FROM ${invitations} WHERE ${invitations.tokenHash} = ${tokenHash} AND ${invitations.expiresAt} > ${now})`;
  const [[user]] = await db.batch([
    db
      .update(users)
      .set({ passwordHash, failedSignIns: 0, failedSignInsSince: null, updatedAt: now })
      .where(sql`${users.id} = ${invitedUser}`)
      .returning(),
    db.delete(sessions).where(sql`${sessions.userId} = ${invitedUser}`),
    db.delete(invitations).where(eq(invitations.tokenHash, tokenHash)),
  ]);
  return user ? ok(user) : refuse("not_found");
}

export type SignInRefusal = "invalid" | "inactive" | "locked";

/**
 * Checks an e-mail and password of the account with this slug. An unknown account or e-mail costs a password check
 * too, and answers as a wrong password does. A wrong password counts towards the lock: the tenth failure within
 * LOCKOUT_WINDOW_MS locks the user (status locked, sessions ended). An inactive or locked user is refused whatever the
 * password, but only once it is right (a wrong one is "invalid", so nothing is said about the account). A right
 * password resets the count, sets last_login_at and re-hashes a hash of older parameters.
 */
export async function signIn(
  db: Database,
  accountSlug: string,
  email: string,
  password: string,
  now: number,
): Promise<Outcome<UserRow, never> | { ok: false; reason: SignInRefusal }> {
  const found = await db
    .select({ user: users })
    .from(users)
    .innerJoin(customers, eq(customers.id, users.customerId))
    .where(and(eq(customers.slug, accountSlug.toLowerCase()), eq(users.email, email.trim().toLowerCase())))
    .get();
  const check = await verifyPassword(password, found?.user.passwordHash ?? DECOY_HASH);
  if (!found || !check.matches) {
    if (found) await recordFailure(db, found.user.id, now);
    return { ok: false, reason: "invalid" };
  }
  const { user } = found;
  if (user.status !== ("active" satisfies UserStatus))
    return { ok: false, reason: user.status === "locked" ? "locked" : "inactive" };
  const [signedIn] = await db
    .update(users)
    .set({
      lastLoginAt: now,
      failedSignIns: 0,
      failedSignInsSince: null,
      ...(check.outdated ? { passwordHash: await hashPassword(password) } : {}),
    })
    .where(and(eq(users.id, user.id), eq(users.status, "active" satisfies UserStatus)))
    .returning();
  return signedIn ? ok(signedIn) : { ok: false, reason: "invalid" };
}

/** One failed sign-in, in one UPDATE: a new window when the last one is over, the lock at the tenth; a lock ends sessions. */
async function recordFailure(db: Database, userId: string, now: number): Promise<void> {
  const windowOver = sql`(${users.failedSignInsSince} IS NULL OR ${users.failedSignInsSince} <= ${now - LOCKOUT_WINDOW_MS})`;
  const count = sql`CASE WHEN ${windowOver} THEN 1 ELSE ${users.failedSignIns} + 1 END`;
  await db.batch([
    db
      .update(users)
      .set({
        failedSignIns: count,
        failedSignInsSince: sql`CASE WHEN ${windowOver} THEN ${now} ELSE ${users.failedSignInsSince} END`,
        status: sql`CASE WHEN ${users.status} = ${"active" satisfies UserStatus} AND ${count} >= ${LOCKOUT_FAILURES} THEN ${"locked" satisfies UserStatus} ELSE ${users.status} END`,
      })
      .where(eq(users.id, userId)),
    endSessionsOfInactiveUser(db, userId),
  ]);
}
