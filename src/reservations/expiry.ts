// The expiry job (LIFECYCLE.md "Reservations"): active reservations past expires_at are marked expired, each with its
// reservation.expired event; the trigger of migrations/0019 frees their numbers still reserved for them. Each move is
// guarded by the state it moves from, so a rerun or an overlapping run expires nothing twice. A run takes batches until
// fewer than a batch are due, at most MAX_BATCHES: 10,000 reservations (40,000 an hour at the 15-minute cron) in at
// most 300 subrequests (a read, a D1 batch and a queue send each), well inside a run's 1,000 D1 queries.
import { and, asc, eq, lte, sql } from "drizzle-orm";
import { batchByName, writeInPhases } from "../db/batch.ts";
import type { Database } from "../db/client.ts";
import { type ReservationStatus, reservations } from "../db/schema.ts";
import { literal } from "../db/sql.ts";
import { enqueueDeliveries } from "../webhooks/queue.ts";
import { reservationEventIfWritten } from "./store.ts";

/** Reservations per batch: each frees up to 1,000 stock rows by trigger, well within D1's 30 s per query. */
const PER_BATCH = 100;
/** Batches per run at most; what is left waits for the next run. */
const MAX_BATCHES = 100;

/** Active and past its time (the literal as reservations_active_expires_idx states it, so SQLite may use it). */
function lapsed(now: number) {
  return and(sql`${reservations.status} = ${literal("active" satisfies ReservationStatus)}`, lte(reservations.expiresAt, now))!;
}

/** Marks expired the reservations past their time at `now`, earliest first; answers how many. */
export async function expireReservations(
  db: Database,
  queue: Queue<string>,
  now: number,
): Promise<{ expired: number; batches: number }> {
  const report = { expired: 0, batches: 0 };
  for (let batch = 0; batch < MAX_BATCHES; batch++) {
    const due = await db
      .select({ id: reservations.id })
      .from(reservations)
      .where(lapsed(now))
      .orderBy(asc(reservations.expiresAt))
      .limit(PER_BATCH);
    if (due.length === 0) break;
    const statements = Object.fromEntries(
      due.map(({ id }, i) => [
        `reservation${i}`,
        writeInPhases({
          write: db
            .update(reservations)
            .set({ status: "expired" satisfies ReservationStatus, updatedAt: now })
            .where(and(eq(reservations.id, id), lapsed(now)))
            .returning({ id: reservations.id }),
          ...reservationEventIfWritten(db, "reservation.expired", id, now),
        }),
      ]),
    );
    const groups = Object.values(await batchByName(db, statements));
    report.batches++;
    report.expired += groups.filter((group) => group.write.length > 0).length;
    const deliveries = groups.flatMap((group) => group.after.deliveries.map((d) => d.id));
    if (deliveries.length > 0) await enqueueDeliveries(queue, deliveries);
    if (due.length < PER_BATCH) break;
  }
  return report;
}
