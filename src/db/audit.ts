// Writes audit events inside the change's own batch, so a change never lacks its event and a refused or failed one has
// none. Every feature's store uses it, hence its place in db/.
import { type AnyColumn, and, Column, is, SQL, sql } from "drizzle-orm";
import type { SQLiteTable } from "drizzle-orm/sqlite-core";
import { BeforeWrite } from "./batch.ts";
import type { Database } from "./client.ts";
import { auditEvents } from "./schema.ts";
import { insertSelection, randomUuid } from "./sql.ts";

/**
 * Who acts, as the audit log records them: a staff member (by their Cloudflare Access e-mail) or the ADMIN_TOKEN for
 * the operator; a portal user or an API key for a customer.
 */
export type Actor =
  | { type: "staff"; email: string }
  | { type: "token" }
  | { type: "user"; id: string; email: string }
  | { type: "api_key"; id: string };

/** Who made a change, in which request: what its audit event records beside the change. */
export interface AuditContext {
  actor: Actor;
  requestId: string;
}

/** What happened, as an audit event names it; each new kind of change adds its action here. */
export const AUDIT_ACTIONS = [
  "customer.created",
  "api_key.created",
  "api_key.revoked",
  "catalog.pair_added",
  "catalog.pair_removed",
  "catalog.pair_updated",
  "requirements.changed",
  "order.status_changed",
  "order.numbers_allocated",
  "kyc.reviewed",
  "kyc_profile.reviewed",
  "kyc_profile.numbers_attached",
  "kyc_profile.numbers_detached",
  "kyc.document_viewed",
  "number.released",
  "number.restored",
  "number.suspended",
  "number.resumed",
  "number.protection_changed",
  "user.created",
  "user.updated",
  "user.invited",
  "staff.changed",
  "stock.imported",
  "stock.removed",
  "stock.quarantine_overridden",
  "webhook_endpoint.created",
  "webhook_endpoint.updated",
  "webhook_endpoint.deleted",
  "webhook_endpoint.secret_rotated",
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** What a change is about; its id as the API writes it (kyc_…, doc_…, we_…, num_…, an e-mail, a phone number). */
export const AUDIT_TARGET_TYPES = [
  "customer",
  "api_key",
  "catalog_pair",
  "order",
  "number",
  "kyc",
  "kyc_profile",
  "document",
  "user",
  "staff",
  "stock_import",
  "stock_number",
  "webhook_endpoint",
] as const;
export type AuditTargetType = (typeof AUDIT_TARGET_TYPES)[number];

/** A value an audit event records: a constant, or a column or expression over the row the event is read from. */
type AuditValue = AnyColumn | SQL | string | number | null;

export interface AuditEntry {
  action: AuditAction;
  target: { type: AuditTargetType; id: AuditValue };
  /** The account the change is about; null for one that is nobody's (a staff member, the stock, the catalog). */
  customerId: AuditValue;
  /**
   * Each field the change sets, with its value before and after; never a secret. Given, the event is written only when
   * one of them differs (a PATCH resending the values as they were records nothing); left out, the event records an
   * act that changes no field (a document viewed, a pair added).
   */
  changes?: Record<string, readonly [before: AuditValue, after: AuditValue]>;
}

/**
 * Where the event reads its values, and whether it is written: `from`'s row that `where` finds, at the event's place
 * in the change's batch: after a write (the `written` condition of writeInPhases' record, src/db/batch.ts), or on a
 * row the batch does not change. Without one, the event is written as it is. Before a change, see auditBeforeWrite.
 */
export interface AuditSource {
  from: SQLiteTable | SQL;
  where: SQL | undefined;
}

function actorColumns(actor: Actor): { actorType: Actor["type"]; actorEmail: string | null; actorId: string | null } {
  switch (actor.type) {
    case "staff":
      return { actorType: "staff", actorEmail: actor.email, actorId: null };
    case "token":
      return { actorType: "token", actorEmail: null, actorId: null };
    case "user":
      return { actorType: "user", actorEmail: actor.email, actorId: actor.id };
    case "api_key":
      return { actorType: "api_key", actorEmail: null, actorId: actor.id };
  }
}

/** Whether an audit value is known before the statement runs (not a column or expression over a row). */
function isConstant(value: AuditValue): value is string | number | null {
  return !is(value, SQL) && !is(value, Column);
}

/**
 * The changes as a JSON object of [before, after] pairs, leaving out each field whose value did not change (a status
 * processing to processing): decided here when both are constants, else in SQL, where a null member of the patch
 * leaves its field out (json_patch, RFC 7396).
 */
function changesObject(changes: AuditEntry["changes"]): SQL {
  const pairs = Object.entries(changes ?? {}).flatMap(([field, [before, after]]) => {
    if (isConstant(before) && isConstant(after)) return before === after ? [] : [sql`${field}, json_array(${before}, ${after})`];
    return [sql`${field}, CASE WHEN ${before} IS ${after} THEN NULL ELSE json_array(${before}, ${after}) END`];
  });
  return pairs.length === 0 ? sql`'{}'` : sql`json_patch('{}', json_object(${sql.join(pairs, sql`, `)}))`;
}

/** Whether any of the changes changes its field (decided here when both values are constants, else in SQL). */
function anyChanged(changes: NonNullable<AuditEntry["changes"]>): SQL {
  const differing = Object.values(changes).flatMap(([before, after]) => {
    if (isConstant(before) && isConstant(after)) return before === after ? [] : [sql`1`];
    return [sql`${before} IS NOT ${after}`];
  });
  return differing.length === 0 ? sql`0` : sql`(${sql.join(differing, sql` OR `)})`;
}

/** The statement that records one change's audit event, for the change's own batch. */
export function auditStatement(
  db: Database,
  context: AuditContext & { now: number },
  entry: AuditEntry,
  source: AuditSource = { from: sql`(SELECT 1)`, where: undefined },
) {
  return auditInsert(db, context, entry, source, crypto.randomUUID());
}

/** The INSERT … SELECT of audit events, one per row `source` finds, each with the id `id` gives it. */
function auditInsert(
  db: Database,
  context: AuditContext & { now: number },
  entry: AuditEntry,
  source: AuditSource,
  id: string | SQL,
) {
  return db.insert(auditEvents).select(
    db
      .select(
        insertSelection({
          id,
          ...actorColumns(context.actor),
          action: entry.action,
          targetType: entry.target.type,
          targetId: entry.target.id,
          customerId: entry.customerId,
          changes: changesObject(entry.changes),
          requestId: context.requestId,
          createdAt: context.now,
        }),
      )
      .from(source.from)
      .where(entry.changes ? and(source.where, anyChanged(entry.changes)) : source.where),
  );
}

/**
 * The audit event of a change, read from `from`'s row that the change's own guard finds before the change writes, so
 * its "before" values are the row's: for the before phase of writeInPhases (src/db/batch.ts), which alone takes it.
 */
export function auditBeforeWrite(
  db: Database,
  context: AuditContext & { now: number },
  entry: AuditEntry,
  source: { from: SQLiteTable; guard: SQL | undefined },
) {
  return new BeforeWrite(auditStatement(db, context, entry, { from: source.from, where: source.guard }));
}

/**
 * One audit event per row of a bulk change (each number a release moves), read before the write as auditBeforeWrite
 * reads one: `source.guard` finds the rows the write will change, `entry`'s target id and values are expressions over
 * each of them, and each event gets an id of its own.
 */
export function auditEachBeforeWrite(
  db: Database,
  context: AuditContext & { now: number },
  entry: AuditEntry,
  source: { from: SQLiteTable; guard: SQL | undefined },
) {
  return new BeforeWrite(auditInsert(db, context, entry, { from: source.from, where: source.guard }, randomUuid()));
}
