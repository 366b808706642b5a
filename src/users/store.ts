// Queries for the users of an account: the list with status counts, create, update.
import { and, count, eq, inArray, sql } from "drizzle-orm";
import type { Database } from "../db/client.ts";
import { isUniqueViolation } from "../db/errors.ts";
import { USER_STATUSES, userCounts, users, type UserRole, type UserRow, type UserStatus } from "../db/schema.ts";
import { countByStatus, stableOrder, type PageWindow } from "../http/pagination.ts";
import { containsText } from "../db/sql.ts";
import type { ListUsersQuery } from "./schemas.ts";

const SORT_COLUMNS = {
  name: { key: users.name, nullable: false },
  email: { key: users.email, nullable: false },
  role: { key: users.role, nullable: false },
  status: { key: users.status, nullable: false },
  created_at: { key: users.createdAt, nullable: false },
  last_login_at: { key: users.lastLoginAt, nullable: true },
} as const;

export async function listUsers(db: Database, customerId: string, q: ListUsersQuery, window: PageWindow) {
  const common = and(
    eq(users.customerId, customerId),
    q.search === undefined ? undefined : sql`(${containsText(users.email, q.search)} OR ${containsText(users.name, q.search)})`,
    q.role && inArray(users.role, q.role),
  );
  // Without a search the counts come from user_counts; a search has to test the users themselves.
  const counts =
    q.search === undefined
      ? db
          .select({ status: userCounts.status, count: sql<number>`sum(${userCounts.count})`.mapWith(Number) })
          .from(userCounts)
          .where(and(eq(userCounts.customerId, customerId), q.role && inArray(userCounts.role, q.role)))
          .groupBy(userCounts.status)
      : db.select({ status: users.status, count: count() }).from(users).where(common).groupBy(users.status);
  const [rows, countRows] = await db.batch([
    db
      .select()
      .from(users)
      .where(and(common, q.status && inArray(users.status, q.status)))
      .orderBy(...stableOrder(SORT_COLUMNS[q.sort_by], users.id, q.sort_order))
      .limit(window.limit)
      .offset(window.offset),
    counts,
  ]);
  return { rows, ...countByStatus(USER_STATUSES, countRows, q.status) };
}

export async function createUser(
  db: Database,
  customerId: string,
  input: { email: string; name: string; role: UserRole; status?: UserStatus | undefined },
  now: number,
): Promise<UserRow | "duplicate"> {
  try {
    const [row] = await db
      .insert(users)
      .values({
        id: crypto.randomUUID(),
        customerId,
        email: input.email.toLowerCase(),
        name: input.name,
        role: input.role,
        status: input.status ?? "active",
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    return row!;
  } catch (error) {
    if (isUniqueViolation(error)) return "duplicate";
    throw error;
  }
}

export async function findUser(db: Database, userId: string): Promise<UserRow | undefined> {
  return db.select().from(users).where(eq(users.id, userId)).get();
}

export async function updateUser(
  db: Database,
  userId: string,
  patch: { name?: string | undefined; role?: UserRole | undefined; status?: UserStatus | undefined },
  now: number,
): Promise<UserRow | undefined> {
  const [row] = await db
    .update(users)
    .set({ name: patch.name, role: patch.role, status: patch.status, updatedAt: now })
    .where(eq(users.id, userId))
    .returning();
  return row;
}
