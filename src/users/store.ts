// Queries for an account's users.
import { and, count, eq, inArray, isNotNull, isNull, or, type SQL, sql } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import { type AuditContext, auditBeforeWrite, auditStatement } from "../db/audit.ts";
import { batchByName, writeInPhases } from "../db/batch.ts";
import type { Database } from "../db/client.ts";
import { isFailedBatchAssertion, isUniqueViolation } from "../db/errors.ts";
import { type Outcome, ok, refuse } from "../db/outcome.ts";
import { countByStatus, type PageWindow, type SortDirection, stableOrder } from "../db/paging.ts";
import {
  batchAssertions,
  customers,
  invitations,
  USER_STATUSES,
  type UserRole,
  type UserRow,
  type UserStatus,
  userCounts,
  users,
} from "../db/schema.ts";
import { containsText, insertSelection } from "../db/sql.ts";
import { endSessionsOfInactiveUser } from "./sessions.ts";

export const USER_SORT_KEYS = ["name", "email", "role", "status", "created_at", "last_login_at"] as const;
type UserSortKey = (typeof USER_SORT_KEYS)[number];

const SORT_COLUMNS: Record<UserSortKey, { key: SQLiteColumn; nullable: boolean }> = {
  name: { key: users.name, nullable: false },
  email: { key: users.email, nullable: false },
  role: { key: users.role, nullable: false },
  status: { key: users.status, nullable: false },
  created_at: { key: users.createdAt, nullable: false },
  last_login_at: { key: users.lastLoginAt, nullable: true },
};

export interface UserListQuery {
  /** A case-insensitive substring of the email or the name. */
  search?: string | undefined;
  statuses?: readonly UserStatus[] | undefined;
  roles?: readonly UserRole[] | undefined;
  sortBy: UserSortKey;
  sortOrder: SortDirection;
}

/** The list's filters but status: the account, the search, the roles. */
function listConditions(customerId: string, q: Omit<UserListQuery, "statuses">): SQL | undefined {
  return and(
    eq(users.customerId, customerId),
    q.search === undefined ? undefined : sql`(${containsText(users.email, q.search)} OR ${containsText(users.name, q.search)})`,
    q.roles && inArray(users.role, q.roles),
  );
}

/** Counts by status: from user_counts without a search; a search has to test the users themselves. */
function statusCountsQuery(db: Database, customerId: string, q: Omit<UserListQuery, "statuses">) {
  return q.search === undefined
    ? db
        .select({ status: userCounts.status, count: sql<number>`sum(${userCounts.count})`.mapWith(Number) })
        .from(userCounts)
        .where(and(eq(userCounts.customerId, customerId), q.roles && inArray(userCounts.role, q.roles)))
        .groupBy(userCounts.status)
    : db.select({ status: users.status, count: count() }).from(users).where(listConditions(customerId, q)).groupBy(users.status);
}

function pageQuery(db: Database, where: SQL | undefined, q: Omit<UserListQuery, "statuses">, window: PageWindow) {
  return db
    .select()
    .from(users)
    .where(where)
    .orderBy(...stableOrder(SORT_COLUMNS[q.sortBy], users.id, q.sortOrder))
    .limit(window.limit)
    .offset(window.offset);
}

export async function listUsers(db: Database, customerId: string, q: UserListQuery, window: PageWindow) {
  const { rows, counted } = await batchByName(db, {
    rows: pageQuery(db, and(listConditions(customerId, q), q.statuses && inArray(users.status, q.statuses)), q, window),
    counted: statusCountsQuery(db, customerId, q),
  });
  return { rows, ...countByStatus(USER_STATUSES, counted, q.statuses) };
}

/**
 * The statuses the pages show: "invited" is split from "active" while the user has not set a password (they cannot
 * sign in yet). The API's statuses are USER_STATUSES.
 */
export const TEAM_STATUSES = ["active", "invited", "inactive", "locked"] as const;
type TeamStatus = (typeof TEAM_STATUSES)[number];

export interface TeamListQuery extends Omit<UserListQuery, "statuses"> {
  statuses?: readonly TeamStatus[] | undefined;
}

/**
 * Never signed in and no password. Only a password lets a user sign in, so the first holds whenever the second does;
 * it is written for the index on (customer_id, last_login_at), which then reads only those users, never the whole team.
 */
const withoutPassword = and(isNull(users.lastLoginAt), isNull(users.passwordHash));

function teamStatusIs(status: TeamStatus): SQL | undefined {
  switch (status) {
    case "invited":
      return and(eq(users.status, "active"), withoutPassword);
    case "active":
      return and(eq(users.status, "active"), isNotNull(users.passwordHash));
    default:
      return eq(users.status, status);
  }
}

/** The statements of a page of listTeam: the page's rows, the counts by status, and the invited users' count. */
export function teamListStatements(db: Database, customerId: string, q: TeamListQuery, window: PageWindow) {
  const common = listConditions(customerId, q);
  return {
    rows: pageQuery(db, and(common, q.statuses && or(...q.statuses.map(teamStatusIs))), q, window),
    counted: statusCountsQuery(db, customerId, q),
    // The status is counted, not filtered or grouped by, so that the index of withoutPassword serves the count.
    invited: db
      .select({ count: sql<number>`coalesce(sum(${users.status} = ${"active" satisfies UserStatus}), 0)`.mapWith(Number) })
      .from(users)
      .where(and(common, withoutPassword)),
  };
}

/** The account's users for the Team page, filtered and counted by TEAM_STATUSES. */
export async function listTeam(db: Database, customerId: string, q: TeamListQuery, window: PageWindow) {
  const statements = teamListStatements(db, customerId, q, window);
  const { rows, counted, invited: invitedCount } = await batchByName(db, statements);
  const byStatus = countByStatus(USER_STATUSES, counted, undefined).statusCounts;
  const invited = invitedCount[0]?.count ?? 0;
  const statusCounts: Record<TeamStatus, number> = { ...byStatus, active: byStatus.active - invited, invited };
  const total = (q.statuses ?? TEAM_STATUSES).reduce((sum, status) => sum + statusCounts[status], 0);
  return { rows, statusCounts, total };
}

export type NewUser = Pick<typeof users.$inferInsert, "email" | "name" | "role" | "status">;
export type UserChanges = Partial<Pick<NewUser, "name" | "role" | "status">>;

/**
 * A user of the account with this slug, in one statement that finds the account, with its audit event; the email is
 * stored lowercased.
 */
export async function createUser(
  db: Database,
  audit: AuditContext,
  customerSlug: string,
  user: NewUser,
  now: number,
): Promise<Outcome<UserRow, "not_found" | "duplicate">> {
  const id = crypto.randomUUID();
  const status = user.status ?? ("active" satisfies UserStatus);
  try {
    const created = await batchByName(db, {
      user: writeInPhases({
        write: db
          .insert(users)
          .select(
            db
              .select(
                insertSelection({
                  id,
                  customerId: customers.id,
                  email: user.email.toLowerCase(),
                  name: user.name,
                  role: user.role,
                  status,
                  lastLoginAt: null,
                  createdAt: now,
                  updatedAt: now,
                  passwordHash: null,
                  failedSignIns: 0,
                  failedSignInsSince: null,
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
              action: "user.created",
              target: { type: "user", id },
              customerId: users.customerId,
              changes: {
                email: [null, user.email.toLowerCase()],
                name: [null, user.name],
                role: [null, user.role],
                status: [null, status],
              },
            },
            { from: users, where: eq(users.id, id) },
          ),
        },
      }),
    });
    const [row] = created.user.write;
    return row ? ok(row) : refuse("not_found");
  } catch (error) {
    if (isUniqueViolation(error)) return refuse("duplicate");
    throw error;
  }
}

/** The account's user with this e-mail (any case), or undefined. */
export async function findUserByEmail(db: Database, customerId: string, email: string): Promise<UserRow | undefined> {
  return db
    .select()
    .from(users)
    .where(and(eq(users.customerId, customerId), eq(users.email, email.toLowerCase())))
    .get();
}

export async function findUser(db: Database, userId: string): Promise<UserRow | undefined> {
  return db.select().from(users).where(eq(users.id, userId)).get();
}

function userUpdate(db: Database, userId: string, changes: UserChanges, now: number, where?: SQL) {
  const unlocks = changes.status === "active" ? { failedSignIns: 0, failedSignInsSince: null } : {};
  return db
    .update(users)
    .set({ ...changes, ...unlocks, updatedAt: now })
    .where(and(eq(users.id, userId), where))
    .returning();
}

/** What a teammate's change was decided on: the user's account, role and status when the rules were checked. */
interface SeenUser {
  customerId: string;
  role: UserRole;
  status: UserStatus;
}

/** Roles by what they may do, for telling a promotion. */
const ROLE_RANK: Record<UserRole, number> = { member: 0, admin: 1, owner: 2 };

/**
 * A change decided on a read of the user (see src/users/use-cases.ts): written only while the user is still as `seen`
 * (else wrong_state "changed"), and, when `keepActiveOwner`, in a batch that asserts the account still has an active
 * owner afterwards (else wrong_state "last_active_owner", nothing written). D1 runs batches one at a time, so two
 * concurrent demotions of the last two owners cannot both pass. Ends the sessions of a user no longer active. A
 * promotion voids the user's unused password links: one issued under the lower role (by someone allowed to issue it
 * then) must not set the password of the higher one.
 */
export async function updateTeammate(
  db: Database,
  audit: AuditContext,
  userId: string,
  seen: SeenUser,
  changes: UserChanges,
  keepActiveOwner: boolean,
  now: number,
): Promise<Outcome<UserRow, "wrong_state">> {
  const unchanged = and(eq(users.customerId, seen.customerId), eq(users.role, seen.role), eq(users.status, seen.status));
  const activeOwner = and(
    eq(users.customerId, seen.customerId),
    eq(users.role, "owner" satisfies UserRole),
    eq(users.status, "active" satisfies UserStatus),
  );
  const assertion = db
    .insert(batchAssertions)
    .select(sql`SELECT 'no active owner left' WHERE NOT EXISTS (SELECT 1 FROM ${users} WHERE ${activeOwner})`);
  const promoted = changes.role !== undefined && ROLE_RANK[changes.role] > ROLE_RANK[seen.role];
  // Keyed on the update's own effect: the user now has the new role (the guard held).
  const voidLinks = db
    .delete(invitations)
    .where(
      and(
        eq(invitations.userId, userId),
        sql`(SELECT ${users.role} FROM ${users} WHERE ${users.id} = ${userId}) = ${changes.role ?? seen.role}`,
      ),
    );
  try {
    const { changed } = await batchByName(db, {
      changed: writeInPhases({
        // Under the change's guard: the values it changes from.
        before: {
          audit: auditBeforeWrite(
            db,
            { ...audit, now },
            {
              action: "user.updated",
              target: { type: "user", id: userId },
              customerId: users.customerId,
              changes: Object.fromEntries(
                (["name", "role", "status"] as const)
                  .filter((field) => changes[field] !== undefined)
                  .map((field) => [field, [users[field], changes[field] ?? null]]),
              ),
            },
            { from: users, guard: and(eq(users.id, userId), unchanged) },
          ),
        },
        write: userUpdate(db, userId, changes, now, unchanged),
        after: {
          sessionsEnded: endSessionsOfInactiveUser(db, userId),
          ownerKept: keepActiveOwner ? assertion : undefined,
          linksVoided: promoted ? voidLinks : undefined,
        },
      }),
    });
    const [row] = changed.write;
    return row ? ok(row) : refuse("wrong_state", { state: "changed" });
  } catch (error) {
    if (isFailedBatchAssertion(error)) return refuse("wrong_state", { state: "last_active_owner" });
    throw error;
  }
}
