// Who holds a reserved stock number, as the console shows it: the numbers still held for an order placed from a
// reservation, and the order each ordered reservation's numbers are held for.
import { asc, count, inArray } from "drizzle-orm";
import type { Database } from "../db/client.ts";
import { orders, stockNumbers } from "../db/schema.ts";
import { heldFor } from "./holds.ts";

/** The first `limit` stock numbers the reservation still holds (for itself, or for its order), in phone order, and how many. */
export async function numbersHeldFor(db: Database, reservationId: string, limit: number, now: number) {
  const held = heldFor(reservationId, now);
  const [rows, [total]] = await Promise.all([
    db
      .select({ phoneNumber: stockNumbers.phoneNumber, heldUntil: stockNumbers.heldUntil })
      .from(stockNumbers)
      .where(held)
      .orderBy(asc(stockNumbers.phoneNumber))
      .limit(limit),
    db.select({ count: count() }).from(stockNumbers).where(held),
  ]);
  return { rows, total: total?.count ?? 0 };
}

/** The orders placed from these reservations, by reservation id: whose numbers a reserved row is held for. */
export async function ordersOfReservations(db: Database, reservationIds: readonly string[]) {
  if (reservationIds.length === 0) return new Map<string, { id: string; orderSeq: number }>();
  const rows = await db
    .select({ id: orders.id, orderSeq: orders.orderSeq, reservationId: orders.reservationId })
    .from(orders)
    .where(inArray(orders.reservationId, [...new Set(reservationIds)]));
  return new Map(rows.map((row) => [row.reservationId!, { id: row.id, orderSeq: row.orderSeq }]));
}
