// Every table, index and constraint of the service. Timestamps are integer milliseconds since the epoch (UTC).
import { sql } from "drizzle-orm";
import { check, index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

export const ORDER_STATUSES = ["pending", "processing", "fulfilled", "cancelled"] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

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

/** The orderable catalog: a (country_code, number_type) pair is orderable while its row exists. */
export const catalog = sqliteTable(
  "catalog",
  {
    countryCode: text("country_code").notNull(),
    numberType: text("number_type").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.countryCode, t.numberType] })],
);

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
  },
  (t) => [
    uniqueIndex("orders_order_seq_unique").on(t.orderSeq),
    // One index per list filter and sort, each led by customer_id: every list query is scoped to one account.
    index("orders_customer_created_idx").on(t.customerId, t.createdAt, t.id),
    index("orders_customer_order_seq_idx").on(t.customerId, t.orderSeq),
    index("orders_customer_number_type_idx").on(t.customerId, t.numberType, t.id),
    index("orders_customer_country_idx").on(t.customerId, t.countryCode, t.id),
    index("orders_customer_quantity_idx").on(t.customerId, t.quantity, t.id),
    index("orders_customer_status_idx").on(t.customerId, t.status, t.id),
    index("orders_customer_requested_idx").on(t.customerId, t.requestedAt, t.id),
    index("orders_customer_fulfilled_idx").on(t.customerId, t.fulfilledAt, t.id),
    check("orders_quantity_range", sql`${t.quantity} BETWEEN 1 AND 10000`),
    check("orders_fulfilled_quantity_range", sql`${t.fulfilledQuantity} BETWEEN 0 AND ${t.quantity}`),
    check("orders_status_valid", sql`${t.status} IN ('pending', 'processing', 'fulfilled', 'cancelled')`),
  ],
);

export type CustomerRow = typeof customers.$inferSelect;
export type ApiKeyRow = typeof apiKeys.$inferSelect;
export type CatalogRow = typeof catalog.$inferSelect;
export type OrderRow = typeof orders.$inferSelect;
