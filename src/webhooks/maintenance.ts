// Scheduled webhook jobs: re-queue deliveries whose message was lost, purge events and deliveries after 30 days.
import { and, asc, eq, isNull, lt, lte, notExists, or, sql } from "drizzle-orm";
import type { Database } from "../db/client.ts";
import { deleteInBatches } from "../db/purge.ts";
import { type DeliveryStatus, events, webhookDeliveries } from "../db/schema.ts";
import { enqueueDeliveries } from "./queue.ts";

/**
 * How late a due attempt must be before the sweep sends its delivery again: well past the queue's own lateness (a
 * second's batching, a 5 s retry), so the sweep sends a delivery whose message was lost, seldom one still on its way.
 */
export const OVERDUE_MS = 5 * 60_000;
/** Deliveries put back on the queue by one run at most: a backlog drains over the next runs. */
export const SWEEP_LIMIT = 500;
/** How long events and their deliveries are kept. */
const EVENT_RETENTION_MS = 30 * 86_400_000;

/**
 * Sends again the pending deliveries whose next attempt is overdue and which no consumer holds (a message lost
 * between the batch and the queue, or with a consumer that died). A duplicate of a message still on its way is
 * harmless: the consumer's claim lets one of them attempt. Returns how many it sent.
 */
export async function requeueOverdueDeliveries(db: Database, queue: Queue<string>, now: number): Promise<number> {
  const overdue = await db
    .select({ id: webhookDeliveries.id })
    .from(webhookDeliveries)
    .where(
      and(
        eq(webhookDeliveries.status, "pending" satisfies DeliveryStatus),
        lt(webhookDeliveries.nextAttemptAt, now - OVERDUE_MS),
        or(isNull(webhookDeliveries.leaseExpiresAt), lte(webhookDeliveries.leaseExpiresAt, now)),
      ),
    )
    .orderBy(asc(webhookDeliveries.nextAttemptAt))
    .limit(SWEEP_LIMIT);
  await enqueueDeliveries(
    queue,
    overdue.map((row) => row.id),
  );
  return overdue.length;
}

/**
 * Deletes the deliveries, then the events, older than the retention, a few hundred rows a statement (the deliveries
 * first: they refer to their event). An event that still has a delivery is kept. Returns how many rows of each it deleted.
 */
export async function purgeExpiredEvents(db: Database, now: number): Promise<{ deliveries: number; events: number }> {
  const cutoff = now - EVENT_RETENTION_MS;
  const deliveries = await deleteInBatches(db, webhookDeliveries, lt(webhookDeliveries.createdAt, cutoff));
  const unreferenced = notExists(
    db.select({ one: sql`1` }).from(webhookDeliveries).where(eq(webhookDeliveries.eventId, events.id)),
  );
  const deleted = await deleteInBatches(db, events, and(lt(events.createdAt, cutoff), unreferenced)!);
  return { deliveries, events: deleted };
}
