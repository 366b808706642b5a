// Tables for customer accounts, API keys, users and sign-in, idempotency keys and batch assertions. Timestamps are
// integer milliseconds since the epoch (UTC).
import { sql } from "drizzle-orm";
import { check, index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { literalList } from "../sql.ts";

/** The constraint a failed batch assertion reports (see batchAssertions). */
export const BATCH_ASSERTION_CONSTRAINT = "batch_assertion_failed";

export const customers = sqliteTable(
  "customers",
  {
    id: text("id").primaryKey(),
    slug: text("slug").notNull(),
    name: text("name").notNull(),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [uniqueIndex("customers_slug_unique").on(t.slug), index("customers_created_at_idx").on(t.createdAt, t.id)],
);

export const apiKeys = sqliteTable(
  "api_keys",
  {
    id: text("id").primaryKey(),
    customerId: text("customer_id")
      .notNull()
      .references(() => customers.id),
    name: text("name").notNull(),
    /** The first characters of the key, safe to show: lets a customer recognise a key without its secret. */
    prefix: text("prefix").notNull(),
    lastFour: text("last_four").notNull(),
    /** Hex SHA-256 of the whole key; the key itself is never stored. */
    keyHash: text("key_hash").notNull(),
    createdAt: integer("created_at").notNull(),
    lastUsedAt: integer("last_used_at"),
    revokedAt: integer("revoked_at"),
  },
  (t) => [
    uniqueIndex("api_keys_key_hash_unique").on(t.keyHash),
    index("api_keys_customer_created_idx").on(t.customerId, t.createdAt, t.id),
  ],
);

/**
 * Never holds a row. A D1 batch rolls back whole when one of its statements fails, so a batch asserts a condition by
 * inserting a row here when the condition does not hold: the CHECK fails the statement, and with it the batch.
 */
export const batchAssertions = sqliteTable("batch_assertions", { assertion: text("assertion").notNull() }, (t) => [
  check(BATCH_ASSERTION_CONSTRAINT, sql`${t.assertion} IS NULL`),
]);

export const USER_ROLES = ["owner", "admin", "member"] as const;
export const USER_STATUSES = ["active", "inactive", "locked"] as const;
export type UserRole = (typeof USER_ROLES)[number];
export type UserStatus = (typeof USER_STATUSES)[number];

/** A person with access to a customer account. */
export const users = sqliteTable(
  "users",
  {
    id: text("id").primaryKey(),
    customerId: text("customer_id")
      .notNull()
      .references(() => customers.id),
    /** Stored lowercased, so one address is one user per account whatever its case. */
    email: text("email").notNull(),
    name: text("name").notNull(),
    role: text("role", { enum: USER_ROLES }).notNull(),
    status: text("status", { enum: USER_STATUSES }).notNull().default("active"),
    lastLoginAt: integer("last_login_at"),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
    /** A PHC string (src/lib/passwords.ts); null until the user sets a password through an invitation. */
    passwordHash: text("password_hash"),
    /** Failed sign-ins since failedSignInsSince; the tenth within the lockout window locks the user. */
    failedSignIns: integer("failed_sign_ins").notNull().default(0),
    failedSignInsSince: integer("failed_sign_ins_since"),
  },
  (t) => [
    uniqueIndex("users_customer_email_unique").on(t.customerId, t.email),
    /** Sign-in asks for an e-mail alone, and finds the person's memberships of every account by it. */
    index("users_email_idx").on(t.email),
    index("users_customer_created_idx").on(t.customerId, t.createdAt, t.id),
    index("users_customer_name_idx").on(t.customerId, t.name, t.id),
    index("users_customer_role_idx").on(t.customerId, t.role, t.id),
    index("users_customer_status_idx").on(t.customerId, t.status, t.id),
    index("users_customer_last_login_idx").on(t.customerId, t.lastLoginAt, t.id),
    check("users_role_valid", sql`${t.role} IN ${literalList(USER_ROLES)}`),
    check("users_status_valid", sql`${t.status} IN ${literalList(USER_STATUSES)}`),
  ],
);

/** Users per account, role and status; maintained by triggers like order_counts. */
export const userCounts = sqliteTable(
  "user_counts",
  {
    customerId: text("customer_id").notNull(),
    role: text("role", { enum: USER_ROLES }).notNull(),
    status: text("status", { enum: USER_STATUSES }).notNull(),
    count: integer("count").notNull(),
  },
  (t) => [primaryKey({ columns: [t.customerId, t.role, t.status] })],
);

/** A signed-in person's portal session: only the SHA-256 of its cookie's random id is stored. */
export const sessions = sqliteTable(
  "sessions",
  {
    /** Hex SHA-256 of the session id the cookie holds. */
    idHash: text("id_hash").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id),
    customerId: text("customer_id")
      .notNull()
      .references(() => customers.id),
    createdAt: integer("created_at").notNull(),
    /** The session's last use; it ends after 12 idle hours, and in any case 7 days after createdAt. */
    lastSeenAt: integer("last_seen_at").notNull(),
  },
  (t) => [
    index("sessions_user_idx").on(t.userId, t.createdAt),
    index("sessions_last_seen_idx").on(t.lastSeenAt),
    index("sessions_created_idx").on(t.createdAt),
  ],
);

/**
 * A sign-in whose password matched the person's membership of several accounts, waiting for them to choose one: a
 * random ticket in a short-lived cookie, only its SHA-256 here, one row per account it may open. Each row keeps the
 * password hash the password was checked against, so the session starts only while that hash (and the user's active
 * status) still holds.
 */
export const signInChoices = sqliteTable(
  "sign_in_choices",
  {
    ticketHash: text("ticket_hash").notNull(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id),
    passwordHash: text("password_hash").notNull(),
    expiresAt: integer("expires_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.ticketHash, t.userId] }), index("sign_in_choices_expires_idx").on(t.expiresAt)],
);

/** A link that lets a user set a password: single use, 72 hours; only the SHA-256 of its token is stored. */
export const invitations = sqliteTable(
  "invitations",
  {
    tokenHash: text("token_hash").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id),
    customerId: text("customer_id")
      .notNull()
      .references(() => customers.id),
    createdAt: integer("created_at").notNull(),
    expiresAt: integer("expires_at").notNull(),
  },
  (t) => [index("invitations_user_idx").on(t.userId)],
);

/**
 * Idempotency keys (see the Idempotency section of DECISIONS.md), per scope: a customer account's id, or OPERATOR_SCOPE.
 * A row is claimed before its request runs (status null) and holds the final answer afterwards; it lives 24 hours.
 */
export const idempotencyKeys = sqliteTable(
  "idempotency_keys",
  {
    scope: text("scope").notNull(),
    /** Hex SHA-256 of the key: the key itself is only the client's. */
    keyHash: text("key_hash").notNull(),
    /** Hex SHA-256 of the request's method, path and content. */
    fingerprint: text("fingerprint").notNull(),
    /** A random id of the request that holds (or held) the key: whoever reads back its own claim runs. */
    claim: text("claim").notNull(),
    createdAt: integer("created_at").notNull(),
    /** The stored answer's status; null while the first request still runs. */
    status: integer("status"),
    /** The stored answer (body, Content-Type, Location), encrypted under a key derived from the idempotency key. */
    response: text("response"),
  },
  (t) => [primaryKey({ columns: [t.scope, t.keyHash] }), index("idempotency_keys_created_idx").on(t.createdAt)],
);

export type CustomerRow = typeof customers.$inferSelect;
export type ApiKeyRow = typeof apiKeys.$inferSelect;
export type UserRow = typeof users.$inferSelect;
