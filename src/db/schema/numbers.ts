// Tables for the catalog, orders, numbers and verifications with their documents; kept in one file because they
// reference each other. Timestamps are integer milliseconds since the epoch (UTC).
import { sql } from "drizzle-orm";
import { type AnySQLiteColumn, check, index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { literal, literalList } from "../sql.ts";
import { customers } from "./accounts.ts";
import {
  DOCUMENT_MIME_TYPES,
  DOCUMENT_STATUSES,
  DOCUMENT_TYPES,
  KYC_STATUSES,
  KYC_TYPES,
  type KycType,
  type RejectionReason,
  type Requirements,
} from "./kyc-vocabulary.ts";

export const ORDER_STATUSES = ["pending", "processing", "fulfilled", "cancelled"] as const;
/** Orders still to be fulfilled. */
export const OPEN_ORDER_STATUSES = ["pending", "processing"] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

/** The orderable catalog: a (country_code, number_type) pair is orderable while its row exists. */
export const catalog = sqliteTable(
  "catalog",
  {
    countryCode: text("country_code").notNull(),
    numberType: text("number_type").notNull(),
    createdAt: integer("created_at").notNull(),
    /** What a verification must hold for a number of this pair (src/db/schema/kyc-vocabulary.ts); null: none. */
    requirements: text("requirements", { mode: "json" }).$type<Requirements>(),
  },
  (t) => [primaryKey({ columns: [t.countryCode, t.numberType] })],
);

/** A pair's settings when none were set (LIFECYCLE.md: quarantine_days 90, auto_fulfil false). */
export const DEFAULT_QUARANTINE_DAYS = 90;
export const MAX_QUARANTINE_DAYS = 365;

/**
 * A catalog pair's settings, in a table of their own so that taking the pair out of the catalog (deleting its row)
 * keeps them; a pair without a row here has the defaults.
 */
export const catalogSettings = sqliteTable(
  "catalog_settings",
  {
    countryCode: text("country_code").notNull(),
    numberType: text("number_type").notNull(),
    /** Days a released number waits in stock, after its tenure closes, before it can be allocated again. */
    quarantineDays: integer("quarantine_days").notNull().default(DEFAULT_QUARANTINE_DAYS),
    autoFulfil: integer("auto_fulfil", { mode: "boolean" }).notNull().default(false),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.countryCode, t.numberType] }),
    check(
      "catalog_settings_quarantine_days_range",
      sql`${t.quarantineDays} BETWEEN 0 AND ${sql.raw(String(MAX_QUARANTINE_DAYS))}`,
    ),
  ],
);

/** Named where the return-to-stock job tells SQLite to use it: without statistics it would take the status index. */
export const RELEASE_DUE_INDEX = "numbers_release_due_idx";

/** Named where a query tells SQLite to use it (the search, which looks orders up by their sequence number). */
export const ORDERS_BY_SEQUENCE_INDEX = "orders_customer_order_seq_idx";
/** Named where a quantity range's page walks the default sort's index, which SQLite would not pick without statistics. */
export const ORDERS_BY_CREATED_INDEX = "orders_customer_created_idx";
/** Named where a rare quantity range's page reads it: with quantity in the created index, SQLite could scan that instead. */
export const ORDERS_BY_QUANTITY_INDEX = "orders_customer_quantity_idx";

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
    /** The reservation the order was placed from; its numbers are held for the order until it is fulfilled or cancelled. */
    reservationId: text("reservation_id"),
  },
  (t) => [
    uniqueIndex("orders_order_seq_unique").on(t.orderSeq),
    uniqueIndex("orders_reservation_unique").on(t.reservationId).where(sql`${t.reservationId} IS NOT NULL`),
    // Whether an open order names a profile (a profile named by one cannot be deleted).
    index("orders_kyc_profile_idx").on(t.kycProfileId, t.status).where(sql`${t.kycProfileId} IS NOT NULL`),
    // One index per sort, each led by customer_id: every list query is scoped to one account. The quantity index also
    // carries what a quantity range's page reads in the default sort, so that page never touches rows.
    // The default sort's index carries what a range page checks (see orderTimeLags and quantityWalkRowids), so it stays
    // in the index.
    index(ORDERS_BY_CREATED_INDEX).on(
      t.customerId,
      t.createdAt,
      t.id,
      t.requestedAt,
      t.fulfilledAt,
      t.status,
      t.numberType,
      t.countryCode,
      t.quantity,
    ),
    index(ORDERS_BY_SEQUENCE_INDEX).on(t.customerId, t.orderSeq),
    index("orders_customer_number_type_idx").on(t.customerId, t.numberType, t.id),
    index("orders_customer_country_idx").on(t.customerId, t.countryCode, t.id),
    index(ORDERS_BY_QUANTITY_INDEX).on(t.customerId, t.quantity, t.id, t.status, t.numberType, t.countryCode, t.createdAt),
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

/** The order times counted per day in order_day_counts. */
export const ORDER_DAY_FIELDS = ["created", "requested", "fulfilled"] as const;
export type OrderDayField = (typeof ORDER_DAY_FIELDS)[number];
/** A day of order_day_counts: a time's UTC day is floor(ms / DAY_MS). */
export const DAY_MS = 86_400_000;

/**
 * How many orders each account has per UTC day of each of created_at, requested_at and fulfilled_at (none for an
 * order not fulfilled), per status. A range of days is counted from one row per day and status, and a deep page's
 * first row is found by summing days rather than reading every earlier order. Per status only, so the rows stay a
 * few per day however busy the account; filters by number type or country are counted from the orders' segment
 * indexes instead. Derived data, written only by the triggers of migrations/0021; rows at zero are removed. WITHOUT
 * ROWID (added by hand to the generated migration), so a count is read from its key's b-tree.
 */
export const orderDayCounts = sqliteTable(
  "order_day_counts",
  {
    customerId: text("customer_id").notNull(),
    field: text("field", { enum: ORDER_DAY_FIELDS }).notNull(),
    day: integer("day").notNull(),
    status: text("status", { enum: ORDER_STATUSES }).notNull(),
    count: integer("count").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.customerId, t.field, t.day, t.status] }),
    check("order_day_counts_field_valid", sql`${t.field} IN ${literalList(ORDER_DAY_FIELDS)}`),
  ],
);

/**
 * How many orders each account has per quantity and status: a quantity range is counted from one row per quantity
 * and status in it, however many orders hold them. Derived data, written only by the triggers of migrations/0021;
 * rows at zero are removed. WITHOUT ROWID, as order_day_counts.
 */
export const orderQuantityCounts = sqliteTable(
  "order_quantity_counts",
  {
    customerId: text("customer_id").notNull(),
    quantity: integer("quantity").notNull(),
    status: text("status", { enum: ORDER_STATUSES }).notNull(),
    count: integer("count").notNull(),
  },
  (t) => [primaryKey({ columns: [t.customerId, t.quantity, t.status] })],
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
 * Order statuses as small numbers, code = the status's place in ORDER_STATUSES: the search grams carry one per
 * character of an order's text, where the status's name would take ten bytes.
 */
export const orderStatusCodes = sqliteTable("order_status_codes", {
  code: integer("code").primaryKey(),
  status: text("status", { enum: ORDER_STATUSES }).notNull().unique(),
});

/** 1 to the longest text an order's grams are cut from (its notes, 1,000 characters): where a gram starts. */
export const searchPositions = sqliteTable("search_positions", {
  n: integer("n").primaryKey(),
});

/** The longest gram: a longer needle is looked up by its first SEARCH_GRAM_LENGTH characters, then tested. */
export const SEARCH_GRAM_LENGTH = 16;

/**
 * The orders' search index, exact for a needle of up to SEARCH_GRAM_LENGTH characters. Every suffix of an order's
 * number ("#000042") and lowered notes, cut to SEARCH_GRAM_LENGTH characters, once per order: the orders whose text
 * contains a needle are those with a gram that starts with it, so they are one key range. Within an order sorted by
 * gram, `lcp` is how many characters a gram shares with the one before it (0 for its first): of an order's grams that
 * start with a needle, exactly one shares fewer than the needle's length with the gram before it, so counting those
 * counts each order once, and with `status` (a code of order_status_codes) they are counted by status from the index
 * alone. Derived data, written only by the triggers of migrations/0026. WITHOUT ROWID: the key is the row.
 */
export const orderSearchGrams = sqliteTable(
  "order_search_grams",
  {
    /** The account's number (customer_numbers): a small integer, where the account's id would take 36 bytes. */
    account: integer("account").notNull(),
    gram: text("gram").notNull(),
    orderSeq: integer("order_seq").notNull(),
    lcp: integer("lcp").notNull(),
    status: integer("status").notNull(),
  },
  (t) => [primaryKey({ columns: [t.account, t.gram, t.orderSeq] })],
);

/**
 * A small integer per account, assigned by trigger when the account is created: the search grams carry it instead of
 * the account's id.
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
/** Who released a number. */
export const RELEASE_REASONS = ["customer", "operator"] as const;
export type ReleaseReason = (typeof RELEASE_REASONS)[number];
export const SUSPENSION_REASONS = ["kyc_expired", "non_payment", "abuse", "customer_request", "other"] as const;
export type SuspensionReason = (typeof SUSPENSION_REASONS)[number];

/** The unique index of the phone numbers of unclosed tenures (a constraint error names it). */
export const HELD_PHONE_NUMBER_INDEX = "numbers_phone_number_held_unique";

/**
 * A tenure: one phone number held by one account, from its allocation until the return-to-stock job closes it
 * (closed_at). Closed tenures stay, so one phone number may have several rows, at most one of them unclosed.
 * Enumerated values (status, reasons) are checked by the code, not by CHECKs added since migrations/0014: a new CHECK
 * would make drizzle-kit rebuild the table, which drops its triggers.
 */
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
    /** E.164; held by at most one unclosed tenure. */
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
    releasedAt: integer("released_at"),
    /** Until when a release can be undone: released_at + 10 days (src/numbers/lifecycle.ts). */
    restorableUntil: integer("restorable_until"),
    releaseReason: text("release_reason", { enum: RELEASE_REASONS }),
    /** Kept through a release, so a restore knows the state to go back to. */
    suspendedAt: integer("suspended_at"),
    suspensionReason: text("suspension_reason", { enum: SUSPENSION_REASONS }),
    releaseProtected: integer("release_protected", { mode: "boolean" }).notNull().default(false),
    /** The customer's labels, in their order; number_tags indexes them (migrations/0016's triggers). */
    tags: text("tags", { mode: "json" }).$type<string[]>().notNull().default([]),
    customerReference: text("customer_reference"),
    /** The profile a release detached the number from, for a restore to attach it again (internal). */
    releasedProfileId: text("released_profile_id").references((): AnySQLiteColumn => kycVerifications.id),
    /** The profile a release detached the number from has been deleted since: a restore reports profile_gone (internal). */
    releasedProfileGone: integer("released_profile_gone", { mode: "boolean" }).notNull().default(false),
    /** When the return-to-stock job ended the tenure (internal). */
    closedAt: integer("closed_at"),
  },
  (t) => [
    // One unclosed tenure per phone number: an allocation of a held number fails here.
    uniqueIndex(HELD_PHONE_NUMBER_INDEX).on(t.phoneNumber).where(sql`${t.closedAt} IS NULL`),
    // A phone number's tenures, oldest first; the operator's search by prefix.
    index("numbers_phone_number_idx").on(t.phoneNumber, t.createdAt),
    // The operator's list across accounts, newest first: alone, per status, per pair.
    index("numbers_created_idx").on(t.createdAt, t.id),
    index("numbers_status_created_idx").on(t.status, t.createdAt, t.id),
    index("numbers_pair_created_idx").on(t.countryCode, t.numberType, t.createdAt, t.id),
    index("numbers_customer_reference_idx").on(t.customerId, t.customerReference).where(sql`${t.customerReference} IS NOT NULL`),
    index("numbers_customer_released_idx").on(t.customerId, t.releasedAt, t.id).where(sql`${t.releasedAt} IS NOT NULL`),
    // The return-to-stock job's released tenures, earliest deadline first (a query states this WHERE literally).
    index(RELEASE_DUE_INDEX)
      .on(t.restorableUntil)
      .where(sql`${t.status} = ${literal("released" satisfies NumberStatus)} AND ${t.closedAt} IS NULL`),
    // The numbers of one profile, newest first: the list filtered by kyc_profile_id, which counts those not released
    // from the index alone (status carried).
    index("numbers_customer_profile_created_idx")
      .on(t.customerId, t.kycProfileId, t.createdAt, t.id, t.status)
      .where(sql`${t.kycProfileId} IS NOT NULL`),
    // The numbers whose verification expires before a date: the list filtered by kyc_expires_before.
    index("numbers_customer_kyc_expires_idx").on(t.customerId, t.kycExpiresAt).where(sql`${t.kycExpiresAt} IS NOT NULL`),
    index("numbers_customer_created_idx").on(t.customerId, t.createdAt, t.id),
    // The numbers of one order, of one (country, type) pair and of one status, newest first: the list filtered by
    // order_id, by one country and one type, or by one status, reads the page in order and no number outside the filter.
    index("numbers_customer_order_created_idx").on(t.customerId, t.orderId, t.createdAt, t.id),
    index("numbers_customer_pair_created_idx").on(t.customerId, t.countryCode, t.numberType, t.createdAt, t.id),
    index("numbers_customer_status_created_idx").on(t.customerId, t.status, t.createdAt, t.id),
    index("numbers_customer_phone_idx").on(t.customerId, t.phoneNumber),
    index("numbers_customer_country_idx").on(t.customerId, t.countryCode, t.id),
    index("numbers_customer_number_type_idx").on(t.customerId, t.numberType, t.id),
    index("numbers_customer_status_idx").on(t.customerId, t.status, t.id),
    index("numbers_order_idx").on(t.orderId),
    check("numbers_status_valid", sql`${t.status} IN ${literalList(NUMBER_STATUSES)}`),
  ],
);

/**
 * Each number's tags, one row per tag in lower case (tags are ASCII): the list's `tag` filter. Derived data, written
 * only by the triggers of migrations/0016 from numbers.tags.
 */
export const numberTags = sqliteTable(
  "number_tags",
  {
    numberId: text("number_id").notNull(),
    customerId: text("customer_id").notNull(),
    tagKey: text("tag_key").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.numberId, t.tagKey] }),
    index("number_tags_customer_tag_idx").on(t.customerId, t.tagKey, t.numberId),
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

/**
 * Numbers per account, order and status, as number_counts per pair: the list of one order's numbers counts them from
 * here, whatever the order's size. Derived data, written only by the triggers of migrations/0024; rows at zero are
 * removed. WITHOUT ROWID, as order_day_counts.
 */
export const numberOrderCounts = sqliteTable(
  "number_order_counts",
  {
    customerId: text("customer_id").notNull(),
    orderId: text("order_id").notNull(),
    status: text("status", { enum: NUMBER_STATUSES }).notNull(),
    count: integer("count").notNull(),
  },
  (t) => [primaryKey({ columns: [t.customerId, t.orderId, t.status] })],
);

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
    /** The last expiry notice sent for the current approval (src/kyc/expiry.ts): 0 none, then 30, 7, -1 expired. */
    expiryNotice: integer("expiry_notice").notNull().default(0),
    /**
     * Whether its number (a number's own verification) is released: such a verification leaves the review queue and
     * its counts. Derived data, kept by migrations/0016's trigger on numbers.status.
     */
    numberReleased: integer("number_released", { mode: "boolean" }).notNull().default(false),
  },
  (t) => [
    uniqueIndex("kyc_verifications_number_unique").on(t.numberId),
    // A profile's list (by name, per account); the expiry job; the numbers list's kyc_expires_before.
    index("kyc_verifications_profile_name_idx").on(t.customerId, t.name).where(sql`${t.numberId} IS NULL`),
    index("kyc_verifications_expires_idx").on(t.expiresAt).where(sql`${t.expiresAt} IS NOT NULL`),
    index("kyc_verifications_customer_expires_idx").on(t.customerId, t.expiresAt).where(sql`${t.expiresAt} IS NOT NULL`),
    check("kyc_number_or_profile", sql`(${t.numberId} IS NULL) = (${t.name} IS NOT NULL)`),
    index("kyc_verifications_customer_idx").on(t.customerId, t.id),
    // The operator's review queue across accounts (number_released = 0), oldest submission first: alone, and per account.
    index("kyc_verifications_status_submitted_idx").on(t.status, t.numberReleased, t.submittedAt, t.id),
    index("kyc_verifications_customer_status_submitted_idx").on(t.customerId, t.status, t.numberReleased, t.submittedAt, t.id),
    check("kyc_status_valid", sql`${t.status} IN ${literalList(KYC_STATUSES)}`),
    check("kyc_type_valid", sql`${t.type} IN ${literalList(KYC_TYPES)}`),
    check(
      "kyc_business_has_company",
      sql`${t.type} = ${literal("individual" satisfies KycType)} OR ${t.companyName} IS NOT NULL`,
    ),
  ],
);

/**
 * Verifications per account and status, and of every account per status, leaving out those of released numbers;
 * maintained by migrations/0016's triggers.
 */
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

export type CatalogSettingsRow = typeof catalogSettings.$inferSelect;
export type CatalogRow = typeof catalog.$inferSelect;
export type OrderRow = typeof orders.$inferSelect;
export type NumberRow = typeof numbers.$inferSelect;
export type KycRow = typeof kycVerifications.$inferSelect;
export type DocumentRow = typeof kycDocuments.$inferSelect;
