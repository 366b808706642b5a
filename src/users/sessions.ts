// Portal sessions: a random 256-bit id in the cookie, its SHA-256 in D1. A session starts only if the checked password
// hash and the user's active status still hold in the batch that writes it, so a reset, deactivation or lock committed
// during a sign-in also ends that sign-in's session.
import { and, desc, eq, gt, lte, notInArray, or, type SQL, sql } from "drizzle-orm";
import { batchByName, writeInPhases } from "../db/batch.ts";
import type { Database } from "../db/client.ts";
import { deleteInBatches } from "../db/purge.ts";
import {
  type CustomerRow,
  customers,
  invitations,
  sessions,
  signInChoices,
  type UserRow,
  type UserStatus,
  users,
} from "../db/schema.ts";
import { insertSelection } from "../db/sql.ts";
import { sha256Hex } from "../lib/api-key.ts";
import { toBase64Url } from "../lib/base64.ts";

export const SESSION_IDLE_MS = 12 * 3_600_000;
export const SESSION_MAX_MS = 7 * 86_400_000;
/** Live sessions a user may have; starting one more ends the oldest. */
export const MAX_SESSIONS_PER_USER = 10;
/** How long a person whose password opens several accounts has to choose one. */
export const SIGN_IN_CHOICE_TTL_MS = 5 * 60_000;
/** A session's last use is written at most this often: every page view would otherwise be a write. */
const TOUCH_INTERVAL_MS = 60_000;

/** A new random token: 32 bytes, base64url. */
export function randomToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return toBase64Url(bytes);
}

/** A password that matched: whose, and the stored hash it matched (the session's guard). */
export interface CheckedPassword {
  userId: string;
  passwordHash: string;
}

const isActive = eq(users.status, "active" satisfies UserStatus);

function isLive(now: number): SQL {
  return and(gt(sessions.lastSeenAt, now - SESSION_IDLE_MS), gt(sessions.createdAt, now - SESSION_MAX_MS))!;
}

/**
 * What follows a session's INSERT … SELECT in its batch, each keyed on the new row so that it does nothing when the
 * insert's guard wrote none: the user's last sign-in set and failed ones cleared (and `rehash` stored in place of the
 * checked hash); the browser's previous session (`ending`) ended; the user's sessions beyond the newest
 * MAX_SESSIONS_PER_USER live ones, and the expired ones, ended.
 */
async function afterSessionStart(
  db: Database,
  idHash: string,
  now: number,
  { ending, rehash }: { ending?: string | undefined; rehash?: string | undefined },
) {
  const newSessionsUser = sql`(SELECT ${sessions.userId} FROM ${sessions} WHERE ${sessions.idHash} = ${idHash})`;
  const newest = db
    .select({ idHash: sessions.idHash })
    .from(sessions)
    .where(and(sql`${sessions.userId} = ${newSessionsUser}`, isLive(now)))
    .orderBy(desc(sessions.createdAt), desc(sessions.idHash))
    .limit(MAX_SESSIONS_PER_USER);
  const signedIn = { lastLoginAt: now, failedSignIns: 0, failedSignInsSince: null };
  return {
    signedIn: db
      .update(users)
      .set(rehash === undefined ? signedIn : { ...signedIn, passwordHash: rehash })
      .where(sql`${users.id} = ${newSessionsUser}`),
    // The browser's previous session first, so that it is not counted against the cap.
    previousEnded: db
      .delete(sessions)
      .where(and(eq(sessions.idHash, ending === undefined ? "" : await sha256Hex(ending)), sql`${newSessionsUser} IS NOT NULL`)),
    oldestEnded: db
      .delete(sessions)
      .where(and(sql`${sessions.userId} = ${newSessionsUser}`, notInArray(sessions.idHash, newest))),
  };
}

/** The select list of a new session row `idHash`, from the users table of the query it is in. */
function sessionColumns(idHash: string, now: number) {
  return insertSelection({ idHash, userId: users.id, customerId: users.customerId, createdAt: now, lastSeenAt: now });
}

/**
 * Starts a session for the user whose password was checked, only while the user is still active and their stored hash
 * is still the one checked. `ending` is the session the browser had (it ends); `rehash` replaces a hash of older
 * parameters. Returns the id for the cookie (only its hash is stored), or undefined when the guard did not hold.
 */
export async function startSession(
  db: Database,
  checked: CheckedPassword,
  now: number,
  options: { ending?: string | undefined; rehash?: string | undefined } = {},
): Promise<string | undefined> {
  const token = randomToken();
  const idHash = await sha256Hex(token);
  const guard = and(eq(users.id, checked.userId), eq(users.passwordHash, checked.passwordHash), isActive);
  const { started } = await batchByName(db, {
    started: writeInPhases({
      write: db
        .insert(sessions)
        .select(db.select(sessionColumns(idHash, now)).from(users).where(guard))
        .returning(),
      after: await afterSessionStart(db, idHash, now, options),
    }),
  });
  return started.write.length === 1 ? token : undefined;
}

/** A ticket's membership that may still open: its user active, their hash still the one checked. */
const choosable = and(eq(users.id, signInChoices.userId), eq(users.passwordHash, signInChoices.passwordHash), isActive);

/**
 * A ticket for a person whose password opened several accounts: one row per account, each with the hash that was
 * checked (or the `rehash` that replaces a hash of older parameters, stored in the same batch while the checked one
 * still holds). Returns the ticket for the cookie (only its hash is stored).
 */
export async function issueSignInChoice(
  db: Database,
  checked: readonly (CheckedPassword & { rehash?: string | undefined })[],
  now: number,
): Promise<string> {
  const ticket = randomToken();
  const ticketHash = await sha256Hex(ticket);
  const expiresAt = now + SIGN_IN_CHOICE_TTL_MS;
  const rows = checked.map(({ userId, passwordHash, rehash }) => ({
    ticketHash,
    userId,
    passwordHash: rehash ?? passwordHash,
    expiresAt,
  }));
  const rehashes = checked.flatMap(({ userId, passwordHash, rehash }) =>
    rehash === undefined
      ? []
      : [
          db
            .update(users)
            .set({ passwordHash: rehash })
            .where(and(eq(users.id, userId), eq(users.passwordHash, passwordHash))),
        ],
  );
  await batchByName(db, {
    choices: db.insert(signInChoices).values(rows),
    ...Object.fromEntries(rehashes.map((rehash, i) => [`rehash of ${i}`, rehash])),
  });
  return ticket;
}

/**
 * Starts the session of the ticket's account `accountSlug`, under the same guard as a direct sign-in (the checked hash,
 * the active status) and while the ticket is unexpired, and uses the ticket up. Returns the session's id, or undefined.
 */
export async function startChosenSession(
  db: Database,
  ticket: string,
  accountSlug: string,
  now: number,
  ending: string | undefined,
): Promise<string | undefined> {
  const token = randomToken();
  const idHash = await sha256Hex(token);
  const ticketHash = await sha256Hex(ticket);
  const chosen = db
    .select(sessionColumns(idHash, now))
    .from(signInChoices)
    .innerJoin(users, choosable)
    .innerJoin(customers, eq(customers.id, users.customerId))
    .where(and(eq(signInChoices.ticketHash, ticketHash), eq(customers.slug, accountSlug), gt(signInChoices.expiresAt, now)));
  const { started } = await batchByName(db, {
    started: writeInPhases({
      write: db.insert(sessions).select(chosen).returning(),
      // The ticket is used up last: the session's insert reads it.
      after: {
        ...(await afterSessionStart(db, idHash, now, { ending })),
        ticketUsed: db.delete(signInChoices).where(eq(signInChoices.ticketHash, ticketHash)),
      },
    }),
  });
  return started.write.length === 1 ? token : undefined;
}

/** The accounts an unexpired ticket may still open (the account's slug and name), by name: as startChosenSession guards. */
export async function signInChoicesOf(db: Database, ticket: string, now: number) {
  return db
    .select({ slug: customers.slug, name: customers.name })
    .from(signInChoices)
    .innerJoin(users, choosable)
    .innerJoin(customers, eq(customers.id, users.customerId))
    .where(and(eq(signInChoices.ticketHash, await sha256Hex(ticket)), gt(signInChoices.expiresAt, now)))
    .orderBy(customers.name, customers.slug);
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
    .where(and(eq(sessions.idHash, idHash), isLive(now), isActive))
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

/**
 * The scheduled purge of what has expired: sessions idle or too old, invitations past their 72 hours, sign-in tickets
 * past their minutes. Returns how many rows of each it deleted.
 */
export async function purgeExpiredCredentials(db: Database, now: number) {
  return {
    sessions: await deleteInBatches(
      db,
      sessions,
      or(lte(sessions.lastSeenAt, now - SESSION_IDLE_MS), lte(sessions.createdAt, now - SESSION_MAX_MS))!,
    ),
    invitations: await deleteInBatches(db, invitations, lte(invitations.expiresAt, now)),
    sign_in_choices: await deleteInBatches(db, signInChoices, lte(signInChoices.expiresAt, now)),
  };
}
