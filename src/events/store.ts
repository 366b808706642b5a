// Queries for the account's events. Events of one batch share a timestamp, so rowid breaks ties.
import { and, desc, eq, inArray, sql } from "drizzle-orm";
import { pageAndTotal } from "../db/batch.ts";
import type { Database } from "../db/client.ts";
import type { PageWindow } from "../db/paging.ts";
import { type EventRow, type EventType, eventCounts, events } from "../db/schema.ts";

/** The page's query: newest first, in the order of the account's indexes on events (each ends with the rowid). */
export function eventPageQuery(db: Database, customerId: string, types: readonly EventType[] | undefined, window: PageWindow) {
  return db
    .select()
    .from(events)
    .where(and(eq(events.customerId, customerId), types && inArray(events.type, types)))
    .orderBy(desc(events.createdAt), desc(sql`${events}.rowid`))
    .limit(window.limit)
    .offset(window.offset);
}

export async function listEvents(
  db: Database,
  customerId: string,
  types: readonly EventType[] | undefined,
  window: PageWindow,
): Promise<{ rows: EventRow[]; total: number }> {
  return pageAndTotal(
    db,
    eventPageQuery(db, customerId, types, window),
    // From event_counts (kept by triggers): the total costs one row per type, not one per event.
    db
      .select({ total: sql<number>`total(${eventCounts.count})`.mapWith(Number) })
      .from(eventCounts)
      .where(and(eq(eventCounts.customerId, customerId), types && inArray(eventCounts.type, types))),
  );
}

export async function findEvent(db: Database, customerId: string, eventId: string): Promise<EventRow | undefined> {
  return db
    .select()
    .from(events)
    .where(and(eq(events.id, eventId), eq(events.customerId, customerId)))
    .get();
}
