// Reservations: numbers in stock held for one account before it orders them (LIFECYCLE.md "Reservations").
// Timestamps are integer milliseconds since the epoch (UTC).
import { desc, sql } from "drizzle-orm";
import { check, index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { literal, literalList } from "../sql.ts";
import { customers } from "./accounts.ts";

export const RESERVATION_STATUSES = ["active", "ordered", "expired", "cancelled"] as const;
export type ReservationStatus = (typeof RESERVATION_STATUSES)[number];

/**
 * One account's hold on numbers of one pair. While `active` and before `expires_at` its numbers are held (their
 * stock rows `reserved`, naming it); once `ordered` they are held for its order until that order is fulfilled or
 * cancelled. A row stays `active` past `expires_at` until the expiry job marks it: reads and holds judge it by
 * `expires_at` meanwhile.
 */
export const reservations = sqliteTable(
  "reservations",
  {
    id: text("id").primaryKey(),
    customerId: text("customer_id")
      .notNull()
      .references(() => customers.id),
    countryCode: text("country_code").notNull(),
    numberType: text("number_type").notNull(),
    status: text("status", { enum: RESERVATION_STATUSES }).notNull().default("active"),
    /** How many numbers it holds (its reservation_numbers rows). */
    quantity: integer("quantity").notNull(),
    expiresAt: integer("expires_at").notNull(),
    /** The profile whose review it is held through; null: a plain time to live. */
    holdForProfile: text("hold_for_profile"),
    /** The order placed from it, once ordered. */
    orderId: text("order_id"),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [
    // The account's list, newest first, all or of one status.
    index("reservations_customer_created_idx").on(t.customerId, desc(t.createdAt), t.id),
    index("reservations_customer_status_created_idx").on(t.customerId, t.status, desc(t.createdAt), t.id),
    // The account's numbers in active reservations (the ceiling), summed from the index alone.
    index("reservations_customer_active_idx")
      .on(t.customerId, t.expiresAt, t.quantity)
      .where(sql`${t.status} = ${literal("active" satisfies ReservationStatus)}`),
    // The expiry job: active reservations past their time, earliest first.
    index("reservations_active_expires_idx")
      .on(t.expiresAt)
      .where(sql`${t.status} = ${literal("active" satisfies ReservationStatus)}`),
    // The reservations held through a profile's review.
    index("reservations_profile_idx")
      .on(t.holdForProfile)
      .where(sql`${t.holdForProfile} IS NOT NULL AND ${t.status} = ${literal("active" satisfies ReservationStatus)}`),
    check("reservations_status_valid", sql`${t.status} IN ${literalList(RESERVATION_STATUSES)}`),
    check("reservations_quantity_range", sql`${t.quantity} BETWEEN 1 AND 1000`),
  ],
);

/** The phone numbers a reservation was made with: kept for good, after they leave the stock or the hold ends. */
export const reservationNumbers = sqliteTable(
  "reservation_numbers",
  {
    reservationId: text("reservation_id")
      .notNull()
      .references(() => reservations.id),
    phoneNumber: text("phone_number").notNull(),
  },
  (t) => [primaryKey({ columns: [t.reservationId, t.phoneNumber] })],
);

export type ReservationRow = typeof reservations.$inferSelect;
