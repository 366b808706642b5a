// Tables for staff, the audit log and the number stock. Timestamps are integer milliseconds since the epoch (UTC).
import { desc, sql } from "drizzle-orm";
import { check, index, integer, primaryKey, sqliteTable, sqliteView, text } from "drizzle-orm/sqlite-core";
import { literal, literalList } from "../sql.ts";
import { customers } from "./accounts.ts";

export const STAFF_ROLES = ["viewer", "fulfilment", "compliance", "admin"] as const;
export type StaffRole = (typeof STAFF_ROLES)[number];
export const STAFF_STATUSES = ["enabled", "disabled"] as const;
export type StaffStatus = (typeof STAFF_STATUSES)[number];

/**
 * The operator's staff, known by the e-mail their Cloudflare Access identity carries (lower case), each with one
 * role. Nobody is deleted, so the audit log keeps its people.
 */
export const staff = sqliteTable(
  "staff",
  {
    email: text("email").primaryKey(),
    name: text("name").notNull(),
    role: text("role", { enum: STAFF_ROLES }).notNull(),
    status: text("status", { enum: STAFF_STATUSES }).notNull(),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [
    check("staff_email_lower_case", sql`${t.email} = lower(${t.email})`),
    check("staff_role_valid", sql`${t.role} IN ${literalList(STAFF_ROLES)}`),
    check("staff_status_valid", sql`${t.status} IN ${literalList(STAFF_STATUSES)}`),
  ],
);

export const ACTOR_TYPES = ["staff", "token", "user", "api_key"] as const;
export type ActorType = (typeof ACTOR_TYPES)[number];

/**
 * Who changed what: every operator change and every administrative change of a customer's, written in the same batch
 * as the change. Never changed or deleted (migrations/0010's triggers refuse both), never purged. Newest first is
 * (created_at DESC, rowid DESC): each index ends, implicitly, with the rowid.
 */
export const auditEvents = sqliteTable(
  "audit_events",
  {
    id: text("id").primaryKey(),
    actorType: text("actor_type", { enum: ACTOR_TYPES }).notNull(),
    /** A staff member's or a portal user's e-mail. */
    actorEmail: text("actor_email"),
    /** A portal user's or an API key's id. */
    actorId: text("actor_id"),
    action: text("action").notNull(),
    targetType: text("target_type").notNull(),
    targetId: text("target_id").notNull(),
    /** The account the change is about, if any (a staff member's change is nobody's). */
    customerId: text("customer_id").references(() => customers.id),
    /** JSON: {field: [before, after]}; never a secret. */
    changes: text("changes").notNull(),
    requestId: text("request_id").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [
    index("audit_events_created_idx").on(t.createdAt),
    index("audit_events_customer_created_idx").on(t.customerId, t.createdAt),
    index("audit_events_action_created_idx").on(t.action, t.createdAt),
    index("audit_events_actor_created_idx").on(t.actorType, t.actorEmail, t.createdAt),
    index("audit_events_target_created_idx").on(t.targetType, t.targetId, t.createdAt),
    check("audit_events_actor_type_valid", sql`${t.actorType} IN ${literalList(ACTOR_TYPES)}`),
  ],
);

/** Whether a number in stock may be allocated: now, after its quarantine (available_at), or held by a reservation. */
export const STOCK_STATUSES = ["available", "quarantined", "reserved"] as const;
export type StockStatus = (typeof STOCK_STATUSES)[number];
/** How a number came into stock: an operator's import, or a closed tenure (the return-to-stock job). */
export const STOCK_SOURCES = ["import", "released"] as const;
export type StockSource = (typeof STOCK_SOURCES)[number];

/**
 * Numbers the operator holds before any order (a pair need not be orderable yet). A number is never both here and
 * held by an unclosed tenure: an allocation takes it out in its own batch, and an import skips held numbers. Status
 * and source are checked by the code (a CHECK added now would make drizzle-kit rebuild the table and drop its triggers).
 */
export const stockNumbers = sqliteTable(
  "stock_numbers",
  {
    phoneNumber: text("phone_number").primaryKey(),
    countryCode: text("country_code").notNull(),
    numberType: text("number_type").notNull(),
    /** The import that brought it: its audit event counts the import's rows by it. */
    importId: text("import_id").notNull(),
    importedAt: integer("imported_at").notNull(),
    /** Only status moves; the rest never changes (migrations/0016's trigger refuses it). */
    status: text("status", { enum: STOCK_STATUSES }).notNull().default("available"),
    /** From when it may be allocated: its import, or the end of its quarantine. */
    availableAt: integer("available_at").notNull().default(0),
    /** A released number's import_id is the closed tenure's id. */
    source: text("source", { enum: STOCK_SOURCES }).notNull().default("import"),
    /** While `reserved`: the reservation holding it (migrations/0019's triggers keep this and held_until in step). */
    reservationId: text("reservation_id"),
    /**
     * While `reserved`: when the hold lapses (its reservation's expires_at), or null while held for the order placed
     * from the reservation. A number whose hold has lapsed is available, whatever the expiry job has not yet marked.
     */
    heldUntil: integer("held_until"),
  },
  (t) => [
    // What an allocation from stock takes, per pair: available numbers, oldest available_at first, then import, then
    // number. Queries state this WHERE literally, so SQLite may use the partial index.
    index("stock_numbers_pair_available_idx")
      .on(t.countryCode, t.numberType, t.availableAt, t.importedAt, t.phoneNumber)
      .where(sql`${t.status} = ${literal("available" satisfies StockStatus)}`),
    // The search: available numbers of a pair in phone-number order (starts_with is a range of it).
    index("stock_numbers_pair_phone_available_idx")
      .on(t.countryCode, t.numberType, t.phoneNumber)
      .where(sql`${t.status} = ${literal("available" satisfies StockStatus)}`),
    // Reserved numbers of a pair by when their hold lapses: the lapsed ones are available too.
    index("stock_numbers_pair_held_until_idx")
      .on(t.countryCode, t.numberType, t.heldUntil)
      .where(sql`${t.status} = ${literal("reserved" satisfies StockStatus)}`),
    index("stock_numbers_reservation_idx").on(t.reservationId).where(sql`${t.reservationId} IS NOT NULL`),
    // Quarantined numbers whose quarantine has ended: the return-to-stock job's second pass.
    index("stock_numbers_quarantine_due_idx")
      .on(t.availableAt)
      .where(sql`${t.status} = ${literal("quarantined" satisfies StockStatus)}`),
    // The stock list of one status, in the list's order.
    index("stock_numbers_status_imported_idx").on(t.status, desc(t.importedAt), t.phoneNumber),
    // The list's order, newest import first and by number within one: an index scan, no sort of a whole import.
    index("stock_numbers_imported_idx").on(desc(t.importedAt), t.phoneNumber),
    index("stock_numbers_import_idx").on(t.importId),
  ],
);

/**
 * Numbers in stock per (country_code, number_type), in all and per status; maintained by migrations/0016's triggers,
 * rows at zero removed.
 */
export const stockCounts = sqliteTable(
  "stock_counts",
  {
    countryCode: text("country_code").notNull(),
    numberType: text("number_type").notNull(),
    count: integer("count").notNull(),
    available: integer("available").notNull().default(0),
    quarantined: integer("quarantined").notNull().default(0),
    reserved: integer("reserved").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.countryCode, t.numberType] })],
);

/**
 * The search's index of stock numbers by their digits: an FTS5 table with the trigram tokenizer, kept by the triggers
 * of migrations/0019 (drizzle-kit cannot write a virtual table), so only named here. Its rowid is the number's pair
 * (stockPairs) << 50 | its digits: one pair's numbers form one rowid range.
 */
export const stockTrigrams = sqliteView("stock_trigrams", {
  rowid: integer("rowid").notNull(),
  digits: text("digits"),
}).existing();

/** A small number per stock pair, assigned by migrations/0019's trigger: the high bits of its numbers' rowids above. */
export const stockPairs = sqliteView("stock_pairs", {
  number: integer("number").notNull(),
  countryCode: text("country_code").notNull(),
  numberType: text("number_type").notNull(),
}).existing();

export type StaffRow = typeof staff.$inferSelect;
export type AuditEventRow = typeof auditEvents.$inferSelect;
export type StockNumberRow = typeof stockNumbers.$inferSelect;
