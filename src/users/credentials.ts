// Invitations (single-use 72 h links, only the hash stored), passwords, and sign-in with lockout (10 failures in 15
// min).
import { and, eq, gt, inArray, ne, sql } from "drizzle-orm";
import { type AuditContext, auditStatement } from "../db/audit.ts";
import { batchByName, writeInPhases } from "../db/batch.ts";
import type { Database } from "../db/client.ts";
import { type Outcome, ok, refuse } from "../db/outcome.ts";
import { customers, invitations, sessions, type UserRow, type UserStatus, users } from "../db/schema.ts";
import { insertSelection } from "../db/sql.ts";
import { sha256Hex } from "../lib/api-key.ts";
import { decoyHash, hashPassword, type ScryptParameters, verifyPassword } from "../lib/passwords.ts";
import { toIso } from "../lib/time.ts";
import { type CheckedPassword, issueSignInChoice, randomToken, startSession } from "./sessions.ts";

export const INVITATION_TTL_MS = 72 * 3_600_000;
/** Failed sign-ins that lock a user, and the window they must fall in. */
const LOCKOUT_FAILURES = 10;
export const LOCKOUT_WINDOW_MS = 15 * 60_000;
export const PASSWORD_MIN_LENGTH = 12;
export const PASSWORD_MAX_LENGTH = 128;

/**
 * A new invitation for the user, with its audit event; any earlier one of the user's stops working (a new link is
 * also how a password is reset). Returns the token for the link, or not_found.
 */
export async function issueInvitation(
  db: Database,
  audit: AuditContext,
  userId: string,
  now: number,
): Promise<Outcome<{ token: string; expiresAt: number; user: UserRow }, "not_found">> {
  const token = randomToken();
  const expiresAt = now + INVITATION_TTL_MS;
  const issued = await batchByName(db, {
    invitation: writeInPhases({
      before: { earlierVoided: db.delete(invitations).where(eq(invitations.userId, userId)) },
      write: db
        .insert(invitations)
        .select(
          db
            .select(
              insertSelection({
                tokenHash: await sha256Hex(token),
                userId: users.id,
                customerId: users.customerId,
                createdAt: now,
                expiresAt,
              }),
            )
            .from(users)
            .where(eq(users.id, userId)),
        )
        .returning(),
      // The link is a credential: the event says only that one was issued, and until when it works.
      record: (written) =>
        auditStatement(
          db,
          { ...audit, now },
          {
            action: "user.invited",
            target: { type: "user", id: userId },
            customerId: users.customerId,
            changes: { invitation_expires_at: [null, toIso(expiresAt)] },
          },
          { from: users, where: and(eq(users.id, userId), written) },
        ),
      after: { user: db.select().from(users).where(eq(users.id, userId)) },
    }),
  });
  const [created] = issued.invitation.write;
  const [user] = issued.invitation.after.user;
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
  hashing: ScryptParameters,
  token: string,
  password: string,
  now: number,
): Promise<Outcome<UserRow, "not_found">> {
  const tokenHash = await sha256Hex(token);
  const passwordHash = await hashPassword(password, hashing);
  const invitedUser = sql`(SELECT ${invitations.userId} FROM ${invitations} WHERE ${invitations.tokenHash} = ${tokenHash} AND ${invitations.expiresAt} > ${now})`;
  const { passwordSet } = await batchByName(db, {
    passwordSet: writeInPhases({
      write: db
        .update(users)
        .set({ passwordHash, failedSignIns: 0, failedSignInsSince: null, updatedAt: now })
        .where(sql`${users.id} = ${invitedUser}`)
        .returning(),
      // Both find the user through the invitation, so its deletion comes last.
      after: {
        sessionsEnded: db.delete(sessions).where(sql`${sessions.userId} = ${invitedUser}`),
        invitationUsed: db.delete(invitations).where(eq(invitations.tokenHash, tokenHash)),
      },
    }),
  });
  const [user] = passwordSet.write;
  return user ? ok(user) : refuse("not_found");
}

/** An account a person may choose to sign in to. */
export interface AccountChoice {
  slug: string;
  name: string;
}

/** What a sign-in comes to: a session, a choice of accounts (a ticket for it), or the one refusal. */
type SignInResult =
  | { outcome: "signed_in"; session: string }
  | { outcome: "choose_account"; ticket: string; accounts: AccountChoice[] }
  | { outcome: "refused" };

/**
 * Checks an e-mail and password against each active membership's own hash. Locked and inactive memberships are never
 * checked, so no answer reveals whether their password was right. An unknown e-mail costs one decoy check, and a miss
 * always runs the same statements (recordFailures), so known and unknown e-mails make the same D1 calls; the remaining
 * timing differences are listed in docs/security.md. One match starts a session (`ending` is the browser's previous
 * session); several give a ticket to choose an account.
 */
export async function signIn(
  db: Database,
  hashing: ScryptParameters,
  email: string,
  password: string,
  now: number,
  ending?: string,
): Promise<SignInResult> {
  const address = email.trim().toLowerCase();
  const memberships = await db
    .select({ user: users, slug: customers.slug, name: customers.name })
    .from(users)
    .innerJoin(customers, eq(customers.id, users.customerId))
    .where(eq(users.email, address))
    .orderBy(customers.name, customers.slug);
  const candidates = memberships.filter(({ user }) => user.status === ("active" satisfies UserStatus) && user.passwordHash);
  if (candidates.length === 0) await verifyPassword(password, decoyHash(hashing), hashing);
  const matched: { membership: (typeof memberships)[number]; checked: CheckedPassword; outdated: boolean }[] = [];
  for (const membership of candidates) {
    const passwordHash = membership.user.passwordHash!;
    const check = await verifyPassword(password, passwordHash, hashing);
    if (check.matches)
      matched.push({ membership, checked: { userId: membership.user.id, passwordHash }, outdated: check.outdated });
  }
  if (matched.length === 0) {
    await recordFailures(db, address, now);
    return { outcome: "refused" };
  }
  const rehashed = async ({ checked, outdated }: (typeof matched)[number]) => ({
    ...checked,
    rehash: outdated ? await hashPassword(password, hashing) : undefined,
  });
  if (matched.length === 1) {
    const { rehash, ...checked } = await rehashed(matched[0]!);
    const session = await startSession(db, checked, now, { ending, rehash });
    return session === undefined ? { outcome: "refused" } : { outcome: "signed_in", session };
  }
  const ticket = await issueSignInChoice(db, await Promise.all(matched.map(rehashed)), now);
  return { outcome: "choose_account", ticket, accounts: matched.map(({ membership: { slug, name } }) => ({ slug, name })) };
}

/**
 * A failed sign-in for every active membership of the e-mail, in one batch that runs the same statements whether the
 * e-mail is known or not: each count goes up (a new window when the last one is over), the tenth locks the user, and
 * a lock ends the user's sessions.
 */
async function recordFailures(db: Database, email: string, now: number): Promise<void> {
  const windowOver = sql`(${users.failedSignInsSince} IS NULL OR ${users.failedSignInsSince} <= ${now - LOCKOUT_WINDOW_MS})`;
  const count = sql`CASE WHEN ${windowOver} THEN 1 ELSE ${users.failedSignIns} + 1 END`;
  const notActive = db
    .select({ id: users.id })
    .from(users)
    .where(and(eq(users.email, email), ne(users.status, "active" satisfies UserStatus)));
  await batchByName(db, {
    counted: writeInPhases({
      write: db
        .update(users)
        .set({
          failedSignIns: count,
          failedSignInsSince: sql`CASE WHEN ${windowOver} THEN ${now} ELSE ${users.failedSignInsSince} END`,
          status: sql`CASE WHEN ${count} >= ${LOCKOUT_FAILURES} THEN ${"locked" satisfies UserStatus} ELSE ${users.status} END`,
        })
        .where(and(eq(users.email, email), eq(users.status, "active" satisfies UserStatus))),
      after: { sessionsEnded: db.delete(sessions).where(inArray(sessions.userId, notActive)) },
    }),
  });
}
