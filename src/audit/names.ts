// Display names for the actors and targets of a page of audit events, read in one D1 call. Scoped to the account when
// one is given, so a customer's page cannot name another account's records or the operator's staff.
import { and, eq, type SQL } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import { batchByName, type Results } from "../db/batch.ts";
import type { Database } from "../db/client.ts";
import {
  type AuditEventRow,
  apiKeys,
  customers,
  kycDocuments,
  kycVerifications,
  numbers,
  orders,
  staff,
  users,
  webhookEndpoints,
} from "../db/schema.ts";
import { inJsonList } from "../db/sql.ts";

/** The names a page of audit events needs, each kind by the id its events carry. */
export interface AuditNames {
  /** Portal users by id: name and e-mail. */
  users: Map<string, { name: string; email: string }>;
  /** API keys by id: their names. */
  apiKeys: Map<string, string>;
  /** Orders by id: their sequence (the order number). */
  orders: Map<string, number>;
  /** Numbers by their num_ id: their phone numbers. */
  numbers: Map<string, string>;
  /** A number's verification by its kyc_ id: the number's phone number. */
  verifications: Map<string, string>;
  /** Profiles by their kyp_ id: their names. */
  profiles: Map<string, string>;
  /** Documents by their doc_ id: their file names. */
  documents: Map<string, string>;
  /** Webhook endpoints by their we_ id: their URLs. */
  endpoints: Map<string, string>;
  /** Staff by e-mail: their names (never on a customer's page). */
  staff: Map<string, string>;
  /** Accounts by slug: their names. */
  accounts: Map<string, string>;
}

/** The ids of one kind the events name: as actor (`actor`) or as target (`target`). */
function idsOf(rows: readonly AuditEventRow[], target: string, actor?: string, prefix?: string): string[] {
  const ids = new Set<string>();
  for (const row of rows) {
    if (row.targetType === target) ids.add(prefix ? row.targetId.replace(new RegExp(`^${prefix}_`), "") : row.targetId);
    if (actor && row.actorType === actor) {
      const id = actor === "staff" ? row.actorEmail : row.actorId;
      if (id) ids.add(id);
    }
  }
  return [...ids];
}

/** A query of the ids' rows of one kind, or nothing when the page names none. */
function lookup<Q>(ids: readonly string[], column: SQLiteColumn, query: (where: SQL) => Q): Q | undefined {
  return ids.length === 0 ? undefined : query(inJsonList(column, ids));
}

/** The names of the actors and targets of `rows`; `customerId`: only that account's (a customer's page). */
export async function auditNames(db: Database, rows: readonly AuditEventRow[], customerId?: string): Promise<AuditNames> {
  const ofAccount = (column: SQLiteColumn) => (customerId === undefined ? undefined : eq(column, customerId));
  const statements = {
    users: lookup(idsOf(rows, "user", "user"), users.id, (where) =>
      db
        .select({ id: users.id, name: users.name, email: users.email })
        .from(users)
        .where(and(where, ofAccount(users.customerId))),
    ),
    apiKeys: lookup(idsOf(rows, "api_key", "api_key"), apiKeys.id, (where) =>
      db
        .select({ id: apiKeys.id, name: apiKeys.name })
        .from(apiKeys)
        .where(and(where, ofAccount(apiKeys.customerId))),
    ),
    orders: lookup(idsOf(rows, "order"), orders.id, (where) =>
      db
        .select({ id: orders.id, seq: orders.orderSeq })
        .from(orders)
        .where(and(where, ofAccount(orders.customerId))),
    ),
    numbers: lookup(idsOf(rows, "number", undefined, "num"), numbers.id, (where) =>
      db
        .select({ id: numbers.id, phone: numbers.phoneNumber })
        .from(numbers)
        .where(and(where, ofAccount(numbers.customerId))),
    ),
    verifications: lookup(idsOf(rows, "kyc", undefined, "kyc"), kycVerifications.id, (where) =>
      db
        .select({ id: kycVerifications.id, phone: numbers.phoneNumber })
        .from(kycVerifications)
        .innerJoin(numbers, eq(numbers.id, kycVerifications.numberId))
        .where(and(where, ofAccount(kycVerifications.customerId))),
    ),
    profiles: lookup(idsOf(rows, "kyc_profile", undefined, "kyp"), kycVerifications.id, (where) =>
      db
        .select({ id: kycVerifications.id, name: kycVerifications.name })
        .from(kycVerifications)
        .where(and(where, ofAccount(kycVerifications.customerId))),
    ),
    documents: lookup(idsOf(rows, "document", undefined, "doc"), kycDocuments.id, (where) =>
      db
        .select({ id: kycDocuments.id, filename: kycDocuments.filename })
        .from(kycDocuments)
        .innerJoin(kycVerifications, eq(kycVerifications.id, kycDocuments.kycId))
        .where(and(where, ofAccount(kycVerifications.customerId))),
    ),
    endpoints: lookup(idsOf(rows, "webhook_endpoint", undefined, "we"), webhookEndpoints.id, (where) =>
      db
        .select({ id: webhookEndpoints.id, url: webhookEndpoints.url })
        .from(webhookEndpoints)
        .where(and(where, ofAccount(webhookEndpoints.customerId))),
    ),
    staff:
      customerId === undefined
        ? lookup(idsOf(rows, "staff", "staff"), staff.email, (where) =>
            db.select({ email: staff.email, name: staff.name }).from(staff).where(where),
          )
        : undefined,
    accounts: lookup(idsOf(rows, "customer"), customers.slug, (where) =>
      db
        .select({ slug: customers.slug, name: customers.name })
        .from(customers)
        .where(and(where, customerId === undefined ? undefined : eq(customers.id, customerId))),
    ),
  };
  // A page that names nothing to look up (no events; the token's catalog changes) costs no D1 call.
  const found: Partial<Results<typeof statements>> = Object.values(statements).some((statement) => statement !== undefined)
    ? await batchByName(db, statements)
    : {};
  return {
    users: new Map((found.users ?? []).map((row) => [row.id, { name: row.name, email: row.email }])),
    apiKeys: new Map((found.apiKeys ?? []).map((row) => [row.id, row.name])),
    orders: new Map((found.orders ?? []).map((row) => [row.id, row.seq])),
    numbers: new Map((found.numbers ?? []).map((row) => [`num_${row.id}`, row.phone])),
    verifications: new Map((found.verifications ?? []).map((row) => [`kyc_${row.id}`, row.phone])),
    profiles: new Map((found.profiles ?? []).map((row) => [`kyp_${row.id}`, row.name ?? ""])),
    documents: new Map((found.documents ?? []).map((row) => [`doc_${row.id}`, row.filename])),
    endpoints: new Map((found.endpoints ?? []).map((row) => [`we_${row.id}`, row.url])),
    staff: new Map((found.staff ?? []).map((row) => [row.email, row.name])),
    accounts: new Map((found.accounts ?? []).map((row) => [row.slug, row.name])),
  };
}
