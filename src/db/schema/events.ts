// Tables for events, webhook endpoints and deliveries. Timestamps are integer milliseconds since the epoch (UTC).
import { sql } from "drizzle-orm";
import { check, index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { literalList } from "../sql.ts";
import { customers } from "./accounts.ts";

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
  "number.released",
  "number.restored",
  "number.suspended",
  "number.resumed",
  "number.updated",
  "reservation.created",
  "reservation.expired",
  "reservation.ordered",
  "reservation.cancelled",
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

export type EventRow = typeof events.$inferSelect;
export type WebhookEndpointRow = typeof webhookEndpoints.$inferSelect;
export type WebhookDeliveryRow = typeof webhookDeliveries.$inferSelect;
