// Reads the audit log; events are written by each change's own batch (src/db/audit.ts).
import { and, count, desc, eq, gte, inArray, lte, type SQL, sql } from "drizzle-orm";
import type { AuditAction, AuditTargetType } from "../db/audit.ts";
import { pageAndTotal } from "../db/batch.ts";
import type { Database } from "../db/client.ts";
import type { PageWindow } from "../db/paging.ts";
import { type AuditEventRow, auditEvents, customers } from "../db/schema.ts";

/** The operator's filters of the audit log; a customer's view takes all but the actor. */
export interface AuditListQuery {
  /** A staff member's or user's e-mail, or "token" for the ADMIN_TOKEN. */
  actor?: string | undefined;
  actions?: readonly AuditAction[] | undefined;
  targetType?: AuditTargetType | undefined;
  targetId?: string | undefined;
  customerSlug?: string | undefined;
  /** Inclusive millisecond bounds. */
  from?: number | undefined;
  to?: number | undefined;
}

/** An audit event with its account's slug. */
export type AuditEventWithSlug = AuditEventRow & { customerSlug: string | null };

function listConditions(q: AuditListQuery, customerId: string | undefined): SQL | undefined {
  const accountId =
    customerId ??
    (q.customerSlug === undefined
      ? undefined
      : sql`(SELECT ${customers.id} FROM ${customers} WHERE ${eq(customers.slug, q.customerSlug)})`);
  return and(
    accountId === undefined ? undefined : eq(auditEvents.customerId, accountId),
    q.actor === undefined
      ? undefined
      : q.actor === "token"
        ? eq(auditEvents.actorType, "token")
        : eq(auditEvents.actorEmail, q.actor.toLowerCase()),
    q.actions && inArray(auditEvents.action, q.actions),
    q.targetType === undefined ? undefined : eq(auditEvents.targetType, q.targetType),
    q.targetId === undefined ? undefined : eq(auditEvents.targetId, q.targetId),
    q.from === undefined ? undefined : gte(auditEvents.createdAt, q.from),
    q.to === undefined ? undefined : lte(auditEvents.createdAt, q.to),
  );
}

/** A page of audit events, newest first (the events of one batch latest first), and how many match. */
export async function listAuditEvents(
  db: Database,
  q: AuditListQuery,
  window: PageWindow,
  customerId?: string,
): Promise<{ rows: AuditEventWithSlug[]; total: number }> {
  const where = listConditions(q, customerId);
  const { rows, total } = await pageAndTotal(
    db,
    db
      .select({ event: auditEvents, customerSlug: customers.slug })
      .from(auditEvents)
      .leftJoin(customers, eq(customers.id, auditEvents.customerId))
      .where(where)
      .orderBy(desc(auditEvents.createdAt), desc(sql`${auditEvents}.rowid`))
      .limit(window.limit)
      .offset(window.offset),
    db.select({ total: count() }).from(auditEvents).where(where),
  );
  return { rows: rows.map(({ event, customerSlug }) => ({ ...event, customerSlug })), total };
}
