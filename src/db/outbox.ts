// The transactional outbox: events written in the same batch as their change, with a delivery per subscribed endpoint.
// Every feature's store writes events, hence its place in db/; src/webhooks/outbox.ts enqueues the deliveries.
import { type AnyColumn, and, eq, type SQL, sql } from "drizzle-orm";
import type { SQLiteTable } from "drizzle-orm/sqlite-core";
import type { Database } from "./client.ts";
import {
  type DeliveryStatus,
  EVERY_EVENT_TYPE,
  type EventType,
  events,
  type WebhookEndpointStatus,
  webhookDeliveries,
  webhookEndpoints,
} from "./schema.ts";
import { insertSelection, randomUuid } from "./sql.ts";

/** What a request's writes leave to be sent: the ids of the deliveries they created, in the order they were made. */
export class Outbox {
  readonly deliveryIds: string[] = [];

  /** Takes the rows an event's delivery statement returned, once its batch has committed. */
  add(deliveries: readonly { id: string }[]): void {
    for (const { id } of deliveries) this.deliveryIds.push(id);
  }
}

export interface EventSpec {
  /** The event's type, or an expression over `from` that yields one (a change whose kind only the row knows). */
  type: EventType | SQL;
  /** The account the event belongs to, as a column of `from` (or a known id). */
  customerId: AnyColumn | SQL | string;
  /** The resource as the API answers it: a JSON expression over `from` (see payloads.ts). */
  data: SQL;
  /** The table the event is read from: the changed row's. */
  from: SQLiteTable;
  /**
   * When the change happened, evaluated where the statements stand in the batch: the write's own guard in front of a
   * DELETE, or (eventIfWritten) the row the write changed.
   */
  where: SQL;
  /** Deliver to this endpoint only, whatever types it takes (the test event); else to every endpoint that takes it. */
  endpointId?: string;
}

/**
 * The event, inserted where the condition it is given holds, then its deliveries (returning their ids, for the
 * Outbox), which exist only if the event does and so read no condition of their own.
 */
function eventAndDeliveries(db: Database, spec: Omit<EventSpec, "where">, now: number) {
  const eventId = crypto.randomUUID();
  const event = (where: SQL) =>
    db.insert(events).select(
      db
        .select(insertSelection({ id: eventId, customerId: spec.customerId, type: spec.type, data: spec.data, createdAt: now }))
        .from(spec.from)
        .where(where),
    );
  const subscribed =
    spec.endpointId === undefined
      ? and(
          eq(webhookEndpoints.status, "enabled" satisfies WebhookEndpointStatus),
          sql`EXISTS (SELECT 1 FROM json_each(${webhookEndpoints.eventTypes}) WHERE value IN (${events.type}, ${EVERY_EVENT_TYPE}))`,
        )
      : eq(webhookEndpoints.id, spec.endpointId);
  const deliveries = db
    .insert(webhookDeliveries)
    .select(
      db
        .select(
          insertSelection({
            id: randomUuid(),
            customerId: events.customerId,
            endpointId: webhookEndpoints.id,
            eventId: events.id,
            status: "pending" satisfies DeliveryStatus,
            attempts: 0,
            lastStatusCode: null,
            lastError: null,
            lastResponse: null,
            nextAttemptAt: now,
            leaseExpiresAt: null,
            createdAt: now,
            deliveredAt: null,
          }),
        )
        .from(events)
        .innerJoin(webhookEndpoints, and(eq(webhookEndpoints.customerId, events.customerId), subscribed))
        .where(eq(events.id, eventId)),
    )
    .returning({ id: webhookDeliveries.id });
  return { eventId, event, deliveries };
}

/**
 * The two statements that record one event, for the change's own batch (a named group, src/db/batch.ts): the event,
 * if `where` holds, then its deliveries. Both read the state the batch has reached at their place in it. The event's
 * id comes back beside them, for a batch that fills the data in later (see fillEventData).
 */
export function eventStatements(db: Database, spec: EventSpec, now: number) {
  const { eventId, event, deliveries } = eventAndDeliveries(db, spec, now);
  return { eventId, statements: { event: event(spec.where), deliveries } };
}

/**
 * The event of a write, recorded only if it wrote: the `record` and `after` phases of writeInPhases (src/db/batch.ts),
 * to spread beside the write. The event reads the write's condition (with `where`, the row it changed); its deliveries
 * then read the event's row.
 */
export function eventIfWritten(db: Database, spec: EventSpec, now: number) {
  const { event, deliveries } = eventAndDeliveries(db, spec, now);
  return { record: (written: SQL) => event(and(spec.where, written)!), after: { deliveries } };
}

/**
 * An event that names numbers (an allocation, a profile's attach or detach) names at most this many: a D1 row holds at
 * most 2 MB.
 */
const NUMBERS_PER_EVENT = 1000;

/** A number.* event's data holds whole Number items, so fewer of them (LIFECYCLE.md: 1–250 an event). */
export const NUMBERS_PER_NUMBER_EVENT = 250;

/** The numbers of such a change, in one list per event of at most `size`. */
export function inEventChunks<T>(items: readonly T[], size: number = NUMBERS_PER_EVENT): T[][] {
  return Array.from({ length: Math.ceil(items.length / size) }, (_, i) => items.slice(i * size, (i + 1) * size));
}

/** Data not known yet where an event must be decided (before the change, on the state it starts from). */
export const DATA_FILLED_LATER = sql`'null'`;

/**
 * Sets the data of an event decided earlier in the batch (with DATA_FILLED_LATER), from the state the change left: a
 * JSON expression over `from`'s row that `where` finds.
 */
export function fillEventData(db: Database, eventId: string, data: SQL, from: SQLiteTable, where: SQL) {
  return db
    .update(events)
    .set({ data: sql`(SELECT ${data} FROM ${from} WHERE ${where})` })
    .where(eq(events.id, eventId));
}
