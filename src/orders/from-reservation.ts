// An order's side of its reservation (LIFECYCLE.md "Reservations", Ordering): the reservation read for the order, and
// its move to ordered in the order's own batch.
import { and, eq, sql } from "drizzle-orm";
import { writeInPhases } from "../db/batch.ts";
import type { Database } from "../db/client.ts";
import { eventIfWritten } from "../db/outbox.ts";
import { orders, type ReservationRow, reservations } from "../db/schema.ts";
import { activeAt } from "../reservations/lifecycle.ts";
import { reservationData } from "../webhooks/payloads.ts";

/** The account's reservation (another account's is not found). */
export async function findReservationOfAccount(
  db: Database,
  customerId: string,
  reservationId: string,
): Promise<ReservationRow | undefined> {
  return db
    .select()
    .from(reservations)
    .where(and(eq(reservations.id, reservationId), eq(reservations.customerId, customerId)))
    .get();
}

/**
 * The reservation becomes ordered with the order `orderId`, and its reservation.ordered event: only while it is active
 * and once the order placed from it exists (earlier in the same batch), so both happen or neither.
 */
export function reservationOrderedStatements(db: Database, reservationId: string, orderId: string, now: number) {
  const thisReservation = eq(reservations.id, reservationId);
  return writeInPhases({
    write: db
      .update(reservations)
      .set({ status: "ordered", orderId, updatedAt: now })
      .where(
        and(
          thisReservation,
          activeAt(now),
          sql`EXISTS (SELECT 1 FROM ${orders} WHERE ${orders.id} = ${orderId} AND ${orders.reservationId} = ${reservationId})`,
        ),
      ),
    ...eventIfWritten(
      db,
      {
        type: "reservation.ordered",
        customerId: reservations.customerId,
        data: reservationData(),
        from: reservations,
        where: thisReservation,
      },
      now,
    ),
  });
}
