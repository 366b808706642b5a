// Every table, index and constraint of the service. Timestamps are integer milliseconds since the epoch (UTC).
import { desc, sql } from "drizzle-orm";
import {
  type AnySQLiteColumn,
  check,
  index,
  integer,
  primaryKey,
  sqliteTable,
  sqliteView,
  text,
  uniqueIndex,
} from "drizzle-orm/sqlite-core";
import type { RejectionReason, Requirements } from "../compliance/types.ts";
import { literal, literalList } from "./sql.ts";

export const ORDER_STATUSES = ["pending", "processing", "fulfilled", "cancelled"] as const;
/** Orders still to be fulfilled. */
export const OPEN_ORDER_STATUSES = ["pending", "processing"] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

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

/** The orderable catalog: a (country_code, number_type) pair is orderable while its row exists. */
export const catalog = sqliteTable(
  "catalog",
  {
    countryCode: text("country_code").notNull(),
    numberType: text("number_type").notNull(),
    createdAt: integer("created_at").notNull(),
    /** What a verification must hold for a number of this pair (src/compliance/types.ts); null: none. */
    requirements: text("requirements", { mode: "json" }).$type<Requirements>(),
  },
  (t) => [primaryKey({ columns: [t.countryCode, t.numberType] })],
);

/** Named where a query tells SQLite to use it (the search, which looks orders up by their sequence number). */
export const ORDERS_BY_SEQUENCE_INDEX = "orders_customer_order_seq_idx";

export const orders = sqliteTable(
  "orders",
  {
    id: text("id").primaryKey(),
    customerId: text("customer_id")
      .notNull()
      .references(() => customers.id),
    /** The global, gap-free sequence behind order_number (#000001 is 1). */
    orderSeq: integer("order_seq").notNull(),
    numberType: text("number_type").notNull(),
    countryCode: text("country_code").notNull(),
    quantity: integer("quantity").notNull(),
    status: text("status", { enum: ORDER_STATUSES }).notNull().default("pending"),
    fulfilledQuantity: integer("fulfilled_quantity").notNull().default(0),
    notes: text("notes"),
    requestedAt: integer("requested_at").notNull(),
    fulfilledAt: integer("fulfilled_at"),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
    /** The account's verification profile the order's numbers join when allocated; null: none. */
    kycProfileId: text("kyc_profile_id").references((): AnySQLiteColumn => kycVerifications.id),
  },
  (t) => [
    uniqueIndex("orders_order_seq_unique").on(t.orderSeq),
    // Whether an open order names a profile (a profile named by one cannot be deleted).
    index("orders_kyc_profile_idx").on(t.kycProfileId, t.status).where(sql`${t.kycProfileId} IS NOT NULL`),
    // One index per sort, each led by customer_id: every list query is scoped to one account. The quantity index also
    // carries what a quantity range's page reads in the default sort, so that page never touches rows.
    // The default sort's index carries what a bounded range page checks (see orderTimeLags), so it stays in the index.
    index("orders_customer_created_idx").on(
      t.customerId,
      t.createdAt,
      t.id,
      t.requestedAt,
      t.fulfilledAt,
      t.status,
      t.numberType,
      t.countryCode,
    ),
    index(ORDERS_BY_SEQUENCE_INDEX).on(t.customerId, t.orderSeq),
    index("orders_customer_number_type_idx").on(t.customerId, t.numberType, t.id),
    index("orders_customer_country_idx").on(t.customerId, t.countryCode, t.id),
    index("orders_customer_quantity_idx").on(t.customerId, t.quantity, t.id, t.status, t.numberType, t.countryCode, t.createdAt),
    index("orders_customer_status_idx").on(t.customerId, t.status, t.id),
    index("orders_customer_requested_idx").on(t.customerId, t.requestedAt, t.id),
    index("orders_customer_fulfilled_idx").on(t.customerId, t.fulfilledAt, t.id),
    // Ascending with NULLs last, as the list sorts nullable keys (descending needs no second index: NULL sorts lowest).
    index("orders_customer_fulfilled_nulls_last_idx").on(t.customerId, sql`(${t.fulfilledAt} IS NULL)`, t.fulfilledAt, t.id),
    // One account's orders of one (number_type, country_code, status) segment: newest first for the enum filters'
    // pages, and by each range column, so a range's count per segment walks index entries without reading them.
    index("orders_customer_segment_created_idx").on(t.customerId, t.numberType, t.countryCode, t.status, t.createdAt, t.id),
    index("orders_customer_segment_requested_idx").on(t.customerId, t.numberType, t.countryCode, t.status, t.requestedAt),
    index("orders_customer_segment_fulfilled_idx").on(t.customerId, t.numberType, t.countryCode, t.status, t.fulfilledAt),
    index("orders_customer_segment_quantity_idx").on(t.customerId, t.numberType, t.countryCode, t.status, t.quantity),
    // The operator's queue across accounts (src/orders/queue.ts): each status's oldest first, alone, per (country,
    // type) pair, per account; and by quantity.
    index("orders_status_requested_idx").on(t.status, t.requestedAt, t.id),
    index("orders_status_pair_requested_idx").on(t.status, t.countryCode, t.numberType, t.requestedAt, t.id),
    index("orders_customer_status_requested_idx").on(t.customerId, t.status, t.requestedAt, t.id),
    index("orders_status_quantity_idx").on(t.status, t.quantity, t.id),
    check("orders_quantity_range", sql`${t.quantity} BETWEEN 1 AND 10000`),
    check("orders_fulfilled_quantity_range", sql`${t.fulfilledQuantity} BETWEEN 0 AND ${t.quantity}`),
    check("orders_status_valid", sql`${t.status} IN ${literalList(ORDER_STATUSES)}`),
  ],
);

/**
 * How many orders of every account there are per (status, country_code, number_type): the operator's queue counts
 * without reading each account's. Derived data, written only by the triggers of migrations/0010.
 */
export const orderTotals = sqliteTable(
  "order_totals",
  {
    status: text("status", { enum: ORDER_STATUSES }).notNull(),
    countryCode: text("country_code").notNull(),
    numberType: text("number_type").notNull(),
    count: integer("count").notNull(),
  },
  (t) => [primaryKey({ columns: [t.status, t.countryCode, t.numberType] })],
);

/**
 * How many orders each account has per (number_type, country_code, status) segment. Derived data, written only by
 * the triggers of migrations/0003, so it stays exact whatever writes the orders; rows at zero are removed.
 */
export const orderCounts = sqliteTable(
  "order_counts",
  {
    customerId: text("customer_id").notNull(),
    numberType: text("number_type").notNull(),
    countryCode: text("country_code").notNull(),
    status: text("status", { enum: ORDER_STATUSES }).notNull(),
    count: integer("count").notNull(),
  },
  (t) => [
    primaryKey({
      columns: [t.customerId, t.numberType, t.countryCode, t.status],
    }),
  ],
);

/**
 * Per account, how far its orders' created_at can be from their requested_at and fulfilled_at: the smallest and
 * largest created_at − requested_at, and created_at − fulfilled_at (null until an order is fulfilled). They turn a
 * requested or fulfilled range into a created_at range that the default sort's index can walk in order. Written only
 * by the triggers of migrations/0003, which only ever widen the bounds: a bound too wide is still true, so they stay
 * right whatever writes the orders.
 */
export const orderTimeLags = sqliteTable("order_time_lags", {
  customerId: text("customer_id").primaryKey(),
  requestedMin: integer("requested_min").notNull(),
  requestedMax: integer("requested_max").notNull(),
  fulfilledMin: integer("fulfilled_min"),
  fulfilledMax: integer("fulfilled_max"),
});

/**
 * The orders' search index: an FTS5 table with the trigram tokenizer over the order number and the notes, kept by
 * triggers (migrations/0003_list_derived_data.sql). Declared as an existing view: drizzle-kit cannot write a virtual
 * table, so it is migrated by hand and only named here, for the queries that read it. Its rowid is
 * (account number << 32) | order_seq: one account's entries form one rowid range.
 */
export const orderTrigrams = sqliteView("order_trigrams", {
  rowid: integer("rowid").notNull(),
  orderNumber: text("order_number"),
  notes: text("notes"),
}).existing();

/**
 * A small integer per account, assigned by trigger when the account is created: the high 32 bits of its orders'
 * rowids in the order_trigrams index, so a search reads only the account's own postings.
 */
export const customerNumbers = sqliteTable("customer_numbers", {
  number: integer("number").primaryKey(),
  customerId: text("customer_id")
    .notNull()
    .unique()
    .references(() => customers.id),
});

export const NUMBER_STATUSES = ["active", "suspended", "released"] as const;
export type NumberStatus = (typeof NUMBER_STATUSES)[number];

/** A virtual number, allocated to an account from one of its orders. */
export const numbers = sqliteTable(
  "numbers",
  {
    id: text("id").primaryKey(),
    customerId: text("customer_id")
      .notNull()
      .references(() => customers.id),
    orderId: text("order_id")
      .notNull()
      .references(() => orders.id),
    /** E.164, unique across all accounts. */
    phoneNumber: text("phone_number").notNull(),
    countryCode: text("country_code").notNull(),
    numberType: text("number_type").notNull(),
    status: text("status", { enum: NUMBER_STATUSES }).notNull().default("active"),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
    /**
     * The profile the number joined, if any: derived data, written only by the triggers of migrations/0014 (the
     * attachment is kyc_profile_numbers'), so the list filters and shows it from the number's own row.
     */
    kycProfileId: text("kyc_profile_id").references((): AnySQLiteColumn => kycVerifications.id),
    /** When the number's verification (its own, or its profile's) expires: derived likewise, by migrations/0014's triggers. */
    kycExpiresAt: integer("kyc_expires_at"),
  },
  (t) => [
    uniqueIndex("numbers_phone_number_unique").on(t.phoneNumber),
    // The numbers of one profile, newest first: the list filtered by kyc_profile_id.
    index("numbers_customer_profile_created_idx")
      .on(t.customerId, t.kycProfileId, t.createdAt, t.id)
      .where(sql`${t.kycProfileId} IS NOT NULL`),
    // The numbers whose verification expires before a date: the list filtered by kyc_expires_before.
    index("numbers_customer_kyc_expires_idx").on(t.customerId, t.kycExpiresAt).where(sql`${t.kycExpiresAt} IS NOT NULL`),
    index("numbers_customer_created_idx").on(t.customerId, t.createdAt, t.id),
    index("numbers_customer_phone_idx").on(t.customerId, t.phoneNumber),
    index("numbers_customer_country_idx").on(t.customerId, t.countryCode, t.id),
    index("numbers_customer_number_type_idx").on(t.customerId, t.numberType, t.id),
    index("numbers_customer_status_idx").on(t.customerId, t.status, t.id),
    index("numbers_order_idx").on(t.orderId),
    check("numbers_status_valid", sql`${t.status} IN ${literalList(NUMBER_STATUSES)}`),
  ],
);

/** Numbers per account, country, type and status; maintained by triggers like order_counts. */
export const numberCounts = sqliteTable(
  "number_counts",
  {
    customerId: text("customer_id").notNull(),
    countryCode: text("country_code").notNull(),
    numberType: text("number_type").notNull(),
    status: text("status", { enum: NUMBER_STATUSES }).notNull(),
    count: integer("count").notNull(),
  },
  (t) => [
    primaryKey({
      columns: [t.customerId, t.countryCode, t.numberType, t.status],
    }),
  ],
);

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

export const KYC_STATUSES = ["pending", "under_review", "approved", "rejected"] as const;
export const KYC_TYPES = ["individual", "business"] as const;
export type KycStatus = (typeof KYC_STATUSES)[number];
export type KycType = (typeof KYC_TYPES)[number];

/**
 * An identity and address verification: a number's own (number_id set), or a profile (name set, no number) that
 * numbers join through kyc_profile_numbers.
 */
export const kycVerifications = sqliteTable(
  "kyc_verifications",
  {
    id: text("id").primaryKey(),
    customerId: text("customer_id")
      .notNull()
      .references(() => customers.id),
    numberId: text("number_id").references(() => numbers.id),
    /** A profile's name; null on a number's own verification. */
    name: text("name"),
    status: text("status", { enum: KYC_STATUSES }).notNull().default("pending"),
    type: text("type", { enum: KYC_TYPES }).notNull(),
    addressLine1: text("address_line_1").notNull(),
    addressLine2: text("address_line_2"),
    city: text("city").notNull(),
    stateProvince: text("state_province").notNull(),
    postalCode: text("postal_code").notNull(),
    country: text("country").notNull(),
    companyName: text("company_name"),
    taxId: text("tax_id"),
    contactPerson: text("contact_person"),
    phoneNumber: text("phone_number"),
    email: text("email"),
    submittedAt: integer("submitted_at").notNull(),
    /** Null until the first address update. */
    updatedAt: integer("updated_at"),
    reviewedAt: integer("reviewed_at"),
    rejectionReason: text("rejection_reason"),
    /** The reviewer's structured reasons for the last rejection; [] when none. */
    rejectionReasons: text("rejection_reasons", { mode: "json" }).$type<RejectionReason[]>().notNull().default([]),
    expiresAt: integer("expires_at"),
    /** The last expiry notice sent for the current approval (src/compliance/expiry.ts): 0 none, then 30, 7, -1 expired. */
    expiryNotice: integer("expiry_notice").notNull().default(0),
  },
  (t) => [
    uniqueIndex("kyc_verifications_number_unique").on(t.numberId),
    // A profile's list (by name, per account); the expiry job; the numbers list's kyc_expires_before.
    index("kyc_verifications_profile_name_idx").on(t.customerId, t.name).where(sql`${t.numberId} IS NULL`),
    index("kyc_verifications_expires_idx").on(t.expiresAt).where(sql`${t.expiresAt} IS NOT NULL`),
    index("kyc_verifications_customer_expires_idx").on(t.customerId, t.expiresAt).where(sql`${t.expiresAt} IS NOT NULL`),
    check("kyc_number_or_profile", sql`(${t.numberId} IS NULL) = (${t.name} IS NOT NULL)`),
    index("kyc_verifications_customer_idx").on(t.customerId, t.id),
    // The operator's review queue across accounts, oldest submission first: alone, and per account.
    index("kyc_verifications_status_submitted_idx").on(t.status, t.submittedAt, t.id),
    index("kyc_verifications_customer_status_submitted_idx").on(t.customerId, t.status, t.submittedAt, t.id),
    check("kyc_status_valid", sql`${t.status} IN ${literalList(KYC_STATUSES)}`),
    check("kyc_type_valid", sql`${t.type} IN ${literalList(KYC_TYPES)}`),
    check(
      "kyc_business_has_company",
      sql`${t.type} = ${literal("individual" satisfies KycType)} OR ${t.companyName} IS NOT NULL`,
    ),
  ],
);

/** Verifications per account and status, and of every account per status; maintained by migrations/0010's triggers. */
export const kycCounts = sqliteTable(
  "kyc_counts",
  {
    customerId: text("customer_id").notNull(),
    status: text("status", { enum: KYC_STATUSES }).notNull(),
    count: integer("count").notNull(),
  },
  (t) => [primaryKey({ columns: [t.customerId, t.status] })],
);

export const kycTotals = sqliteTable("kyc_totals", {
  status: text("status", { enum: KYC_STATUSES }).primaryKey(),
  count: integer("count").notNull(),
});

/**
 * A number that joined a profile: its verification is the profile's, under an id of its own (`kyc_<kyc_id>`, made at
 * attach, gone at detach). One row per number, so a number is never in two profiles.
 */
export const kycProfileNumbers = sqliteTable(
  "kyc_profile_numbers",
  {
    numberId: text("number_id")
      .primaryKey()
      .references(() => numbers.id),
    kycId: text("kyc_id").notNull(),
    profileId: text("profile_id")
      .notNull()
      .references(() => kycVerifications.id),
    customerId: text("customer_id")
      .notNull()
      .references(() => customers.id),
    attachedAt: integer("attached_at").notNull(),
  },
  (t) => [
    uniqueIndex("kyc_profile_numbers_kyc_unique").on(t.kycId),
    index("kyc_profile_numbers_profile_idx").on(t.profileId, t.numberId),
  ],
);

export const DOCUMENT_TYPES = [
  "identity",
  "address_proof",
  "business_registration",
  "tax_certificate",
  "utility_bill",
  "bank_statement",
  "other",
] as const;
export const DOCUMENT_STATUSES = ["uploaded", "pending_review", "verified", "rejected"] as const;
/** The types a document's content may be, judged by its bytes. */
export const DOCUMENT_MIME_TYPES = ["application/pdf", "image/jpeg", "image/png"] as const;
export type DocumentType = (typeof DOCUMENT_TYPES)[number];
export type DocumentStatus = (typeof DOCUMENT_STATUSES)[number];
export type DocumentMimeType = (typeof DOCUMENT_MIME_TYPES)[number];

/** A supporting file of a verification: the row here, the bytes in R2 under `objectKey`. */
export const kycDocuments = sqliteTable(
  "kyc_documents",
  {
    id: text("id").primaryKey(),
    kycId: text("kyc_id")
      .notNull()
      .references(() => kycVerifications.id),
    customerId: text("customer_id")
      .notNull()
      .references(() => customers.id),
    documentType: text("document_type", { enum: DOCUMENT_TYPES }).notNull(),
    filename: text("filename").notNull(),
    fileSize: integer("file_size").notNull(),
    mimeType: text("mime_type", { enum: DOCUMENT_MIME_TYPES }).notNull(),
    description: text("description"),
    expirationDate: text("expiration_date"),
    status: text("status", { enum: DOCUMENT_STATUSES }).notNull().default("uploaded"),
    /** The reviewer's reasons naming this document at the last rejection; [] when none. */
    rejectionReasons: text("rejection_reasons", { mode: "json" }).$type<RejectionReason[]>().notNull().default([]),
    objectKey: text("object_key").notNull(),
    uploadedAt: integer("uploaded_at").notNull(),
  },
  (t) => [
    uniqueIndex("kyc_documents_object_key_unique").on(t.objectKey),
    index("kyc_documents_kyc_idx").on(t.kycId, t.uploadedAt, t.id),
    index("kyc_documents_customer_idx").on(t.customerId, t.id),
  ],
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

export const EVENT_TYPES = [
  "order.created",
  "order.updated",
  "order.processing",
  "order.numbers_allocated",
  "order.fulfilled",
  "order.cancelled",
  "kyc.submitted",
  "kyc.updated",
  "kyc.under_review",
  "kyc.approved",
  "kyc.rejected",
  "kyc.document_uploaded",
  "kyc.document_deleted",
  "kyc.deleted",
  "kyc.expiring",
  "kyc.expired",
  "kyc_profile.submitted",
  "kyc_profile.updated",
  "kyc_profile.under_review",
  "kyc_profile.approved",
  "kyc_profile.rejected",
  "kyc_profile.deleted",
  "kyc_profile.document_uploaded",
  "kyc_profile.document_deleted",
  "kyc_profile.numbers_attached",
  "kyc_profile.numbers_detached",
  "kyc_profile.expiring",
  "kyc_profile.expired",
  "webhook.test",
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** In an endpoint's event types, alone: every type, present and future (types added later reach it too). */
export const EVERY_EVENT_TYPE = "*";
/** What an endpoint takes: some types, or every type (present and future). */
export type EventTypeSelection = readonly EventType[] | readonly [typeof EVERY_EVENT_TYPE];

/**
 * One change of one resource, written in the same batch as the change (an outbox). `data` is the resource as the API
 * answered it at that moment, as JSON text. Listed newest first; rowid (insertion order) breaks ties between events of
 * one batch, which share their timestamp. Kept 30 days.
 */
export const events = sqliteTable(
  "events",
  {
    id: text("id").primaryKey(),
    customerId: text("customer_id")
      .notNull()
      .references(() => customers.id),
    type: text("type", { enum: EVENT_TYPES }).notNull(),
    data: text("data").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [
    // Each index ends, implicitly, with the rowid: newest first is (created_at DESC, rowid DESC) in either.
    index("events_customer_created_idx").on(t.customerId, t.createdAt),
    index("events_customer_type_created_idx").on(t.customerId, t.type, t.createdAt),
    index("events_created_idx").on(t.createdAt),
    check("events_type_valid", sql`${t.type} IN ${literalList(EVENT_TYPES)}`),
  ],
);

/** Events per account and type; maintained by the triggers of migrations/0006 like order_counts. */
export const eventCounts = sqliteTable(
  "event_counts",
  {
    customerId: text("customer_id").notNull(),
    type: text("type", { enum: EVENT_TYPES }).notNull(),
    count: integer("count").notNull(),
  },
  (t) => [primaryKey({ columns: [t.customerId, t.type] })],
);

export const WEBHOOK_ENDPOINT_STATUSES = ["enabled", "disabled"] as const;
export type WebhookEndpointStatus = (typeof WEBHOOK_ENDPOINT_STATUSES)[number];

/** Where an account wants its events delivered, and the secret deliveries are signed with. */
export const webhookEndpoints = sqliteTable(
  "webhook_endpoints",
  {
    id: text("id").primaryKey(),
    customerId: text("customer_id")
      .notNull()
      .references(() => customers.id),
    url: text("url").notNull(),
    description: text("description"),
    /** JSON array of the event types delivered here, or ["*"] for every type, present and future. */
    eventTypes: text("event_types").notNull(),
    status: text("status", { enum: WEBHOOK_ENDPOINT_STATUSES }).notNull().default("enabled"),
    /** `whsec_` + base64 of 32 random bytes. */
    secret: text("secret").notNull(),
    /** The secret before the last rotation, still signing (beside the new one) until previousSecretExpiresAt. */
    previousSecret: text("previous_secret"),
    previousSecretExpiresAt: integer("previous_secret_expires_at"),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [
    index("webhook_endpoints_customer_created_idx").on(t.customerId, t.createdAt, t.id),
    check("webhook_endpoints_status_valid", sql`${t.status} IN ${literalList(WEBHOOK_ENDPOINT_STATUSES)}`),
  ],
);

export const DELIVERY_STATUSES = ["pending", "succeeded", "failed"] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** One event to one endpoint: created with its event, then its attempts' outcome. */
export const webhookDeliveries = sqliteTable(
  "webhook_deliveries",
  {
    id: text("id").primaryKey(),
    customerId: text("customer_id")
      .notNull()
      .references(() => customers.id),
    endpointId: text("endpoint_id")
      .notNull()
      .references(() => webhookEndpoints.id),
    eventId: text("event_id")
      .notNull()
      .references(() => events.id),
    status: text("status", { enum: DELIVERY_STATUSES }).notNull().default("pending"),
    attempts: integer("attempts").notNull().default(0),
    lastStatusCode: integer("last_status_code"),
    lastError: text("last_error"),
    /** At most the first 1 KiB of the receiver's last answer. */
    lastResponse: text("last_response"),
    /** When the next attempt is due; null once the delivery is no longer pending. */
    nextAttemptAt: integer("next_attempt_at"),
    /** While an attempt is in flight: until when no other consumer may start one. */
    leaseExpiresAt: integer("lease_expires_at"),
    createdAt: integer("created_at").notNull(),
    deliveredAt: integer("delivered_at"),
  },
  (t) => [
    index("webhook_deliveries_endpoint_created_idx").on(t.endpointId, t.createdAt, t.id),
    index("webhook_deliveries_endpoint_status_created_idx").on(t.endpointId, t.status, t.createdAt, t.id),
    index("webhook_deliveries_due_idx").on(t.status, t.nextAttemptAt),
    index("webhook_deliveries_event_idx").on(t.eventId),
    index("webhook_deliveries_created_idx").on(t.createdAt),
    check("webhook_deliveries_status_valid", sql`${t.status} IN ${literalList(DELIVERY_STATUSES)}`),
  ],
);

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

/**
 * Numbers the operator holds before any order (a pair need not be orderable yet). A number is never both here and
 * allocated: an allocation takes it out in its own batch, and an import skips allocated numbers.
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
  },
  (t) => [
    // Oldest first per pair: what an allocation from stock takes.
    index("stock_numbers_pair_imported_idx").on(t.countryCode, t.numberType, t.importedAt, t.phoneNumber),
    // The list's order, newest import first and by number within one: an index scan, no sort of a whole import.
    index("stock_numbers_imported_idx").on(desc(t.importedAt), t.phoneNumber),
    index("stock_numbers_import_idx").on(t.importId),
  ],
);

/** Numbers in stock per (country_code, number_type); maintained by migrations/0010's triggers, rows at zero removed. */
export const stockCounts = sqliteTable(
  "stock_counts",
  {
    countryCode: text("country_code").notNull(),
    numberType: text("number_type").notNull(),
    count: integer("count").notNull(),
  },
  (t) => [primaryKey({ columns: [t.countryCode, t.numberType] })],
);

export type CustomerRow = typeof customers.$inferSelect;
export type ApiKeyRow = typeof apiKeys.$inferSelect;
export type CatalogRow = typeof catalog.$inferSelect;
export type OrderRow = typeof orders.$inferSelect;
export type NumberRow = typeof numbers.$inferSelect;
export type UserRow = typeof users.$inferSelect;
export type KycRow = typeof kycVerifications.$inferSelect;
export type DocumentRow = typeof kycDocuments.$inferSelect;
export type EventRow = typeof events.$inferSelect;
export type WebhookEndpointRow = typeof webhookEndpoints.$inferSelect;
export type WebhookDeliveryRow = typeof webhookDeliveries.$inferSelect;
export type StaffRow = typeof staff.$inferSelect;
export type AuditEventRow = typeof auditEvents.$inferSelect;
export type StockNumberRow = typeof stockNumbers.$inferSelect;
