// Queries for staff; changes keep at least one enabled admin.
import { and, asc, count, eq, inArray, sql } from "drizzle-orm";
import { type AuditContext, auditStatement } from "../db/audit.ts";
import { batchByName, pageAndTotal, writeInPhases } from "../db/batch.ts";
import type { Database } from "../db/client.ts";
import { isFailedBatchAssertion } from "../db/errors.ts";
import { type Outcome, ok, refuse } from "../db/outcome.ts";
import type { PageWindow } from "../db/paging.ts";
import { batchAssertions, type StaffRole, type StaffRow, type StaffStatus, staff } from "../db/schema.ts";

export async function findStaff(db: Database, email: string): Promise<StaffRow | undefined> {
  return db.select().from(staff).where(eq(staff.email, email.toLowerCase())).get();
}

/** A staff member's role and status, read by e-mail, for a check that rides with a request's first D1 call. */
export function staffStateQuery(db: Database, email: string) {
  return db.select({ role: staff.role, status: staff.status }).from(staff).where(eq(staff.email, email));
}

/** Fails its D1 batch (see batchAssertions) unless the member is enabled with one of these roles still. */
export function enabledStaffAssertion(db: Database, email: string, roles: readonly StaffRole[]) {
  return db
    .insert(batchAssertions)
    .select(
      sql`SELECT 'staff member not as known' WHERE NOT EXISTS (SELECT 1 FROM ${staff} WHERE ${and(
        eq(staff.email, email),
        inArray(staff.role, [...roles]),
        eq(staff.status, "enabled"),
      )})`,
    );
}

/** A page of the staff, by e-mail. */
export async function listStaff(db: Database, window: PageWindow): Promise<{ rows: StaffRow[]; total: number }> {
  return pageAndTotal(
    db,
    db.select().from(staff).orderBy(asc(staff.email)).limit(window.limit).offset(window.offset),
    db.select({ total: count() }).from(staff),
  );
}

export interface StaffSettings {
  name: string;
  role: StaffRole;
  status: StaffStatus;
}

/** What the change of a staff member records: each field with its value before (null for a new member) and after. */
function staffChanges(before: StaffRow | undefined, after: StaffSettings) {
  const fields = ["name", "role", "status"] as const;
  return Object.fromEntries(
    fields.filter((field) => before?.[field] !== after[field]).map((field) => [field, [before?.[field] ?? null, after[field]]]),
  ) as Record<string, readonly [string | null, string]>;
}

/** How often a change of a staff member is read and written again when another change got between the two. */
const STAFF_ATTEMPTS = 3;

/**
 * Creates or changes a staff member, with its audit event (the fields before and after, as read), in one batch that
 * writes only while the member is still as read and asserts an enabled admin remains (else nothing is written:
 * wrong_state "last_admin"); nothing is written, nor audited, when nothing changes. D1 runs batches one at a time, so
 * two concurrent demotions of the last two admins cannot both pass; a change that lost a race to another is read and
 * decided again.
 */
export async function putStaff(
  db: Database,
  audit: AuditContext,
  email: string,
  settings: StaffSettings,
  now: number,
): Promise<Outcome<{ row: StaffRow; created: boolean }, "wrong_state">> {
  for (let attempt = 1; ; attempt++) {
    const before = await findStaff(db, email);
    const changes = staffChanges(before, settings);
    if (before && Object.keys(changes).length === 0) return ok({ row: before, created: false });
    const takesAnAdminAway =
      before?.role === "admin" && before.status === "enabled" && (settings.role !== "admin" || settings.status !== "enabled");
    const insert = db.insert(staff).values({ email, ...settings, createdAt: now, updatedAt: now });
    const upsert = before
      ? insert.onConflictDoUpdate({
          target: staff.email,
          set: { ...settings, updatedAt: now },
          setWhere: and(eq(staff.name, before.name), eq(staff.role, before.role), eq(staff.status, before.status)),
        })
      : insert.onConflictDoNothing();
    try {
      const { written } = await batchByName(db, {
        written: writeInPhases({
          write: upsert.returning(),
          record: (wrote) =>
            auditStatement(
              db,
              { ...audit, now },
              { action: "staff.changed", target: { type: "staff", id: email }, customerId: null, changes },
              { from: sql`(SELECT 1)`, where: wrote },
            ),
          after: {
            // Only a change that takes an enabled admin away can leave none (and it writes only if the member is as read).
            lastAdmin: takesAnAdminAway
              ? db
                  .insert(batchAssertions)
                  .select(
                    sql`SELECT 'an enabled admin remains' WHERE NOT EXISTS (SELECT 1 FROM ${staff} WHERE ${and(eq(staff.role, "admin"), eq(staff.status, "enabled"))})`,
                  )
              : undefined,
          },
        }),
      });
      const [row] = written.write;
      if (row) return ok({ row, created: before === undefined });
      if (attempt >= STAFF_ATTEMPTS) throw new Error(`the staff member ${email} kept changing while being changed`);
    } catch (error) {
      if (isFailedBatchAssertion(error)) return refuse("wrong_state", { state: "last_admin" });
      throw error;
    }
  }
}
