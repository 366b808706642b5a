// Queries for webhook endpoints and their deliveries.
import { and, count, eq, inArray, type SQL, sql } from "drizzle-orm";
import { type AuditContext, auditBeforeWrite, auditStatement } from "../db/audit.ts";
import { batchByName, pageAndTotal, writeInPhases } from "../db/batch.ts";
import type { Database } from "../db/client.ts";
import { eventStatements, type Outbox } from "../db/outbox.ts";
import { type Outcome, ok, refusalByState, refuse } from "../db/outcome.ts";
import { type PageWindow, stableOrder } from "../db/paging.ts";
import {
  customers,
  type DeliveryStatus,
  EVENT_TYPES,
  EVERY_EVENT_TYPE,
  type EventType,
  type EventTypeSelection,
  events,
  type WebhookDeliveryRow,
  type WebhookEndpointRow,
  type WebhookEndpointStatus,
  webhookDeliveries,
  webhookEndpoints,
} from "../db/schema.ts";
import { insertSelection, iso } from "../db/sql.ts";
import { toBase64 } from "../lib/base64.ts";
import { withPrefix } from "../lib/ids.ts";
import { toIso } from "../lib/time.ts";
import { testEventData } from "./payloads.ts";

/** An account has at most this many endpoints. */
export const MAX_ENDPOINTS = 10;
/** How long the secret before a rotation still signs deliveries, beside the new one. */
const PREVIOUS_SECRET_TTL_MS = 24 * 3_600_000;

export interface NewEndpoint {
  url: string;
  description?: string | undefined;
  eventTypes: EventTypeSelection;
}

/** The fields a change names; `description: null` clears it. */
export interface EndpointChanges {
  url?: string | undefined;
  description?: string | null | undefined;
  eventTypes?: EventTypeSelection | undefined;
  status?: WebhookEndpointStatus | undefined;
}

/** A delivery with the type of its event, as the delivery log lists it. */
export interface DeliveryWithEvent {
  delivery: WebhookDeliveryRow;
  eventType: EventType;
}

/** `whsec_` and the base64 of 32 random bytes (Standard Webhooks: the key is the decoded bytes). */
function generateSecret(): string {
  return `whsec_${toBase64(crypto.getRandomValues(new Uint8Array(32)))}`;
}

/** The types an endpoint takes, every current one when it takes every type. */
export function subscribedTypes(endpoint: Pick<WebhookEndpointRow, "eventTypes">): EventType[] {
  const stored: string[] = JSON.parse(endpoint.eventTypes);
  return stored.includes(EVERY_EVENT_TYPE) ? [...EVENT_TYPES] : EVENT_TYPES.filter((type) => stored.includes(type));
}

/** Whether an endpoint takes every type, present and future. */
export function takesEveryType(endpoint: Pick<WebhookEndpointRow, "eventTypes">): boolean {
  return (JSON.parse(endpoint.eventTypes) as string[]).includes(EVERY_EVENT_TYPE);
}

function owned(customerId: string, endpointId: string) {
  return and(eq(webhookEndpoints.id, endpointId), eq(webhookEndpoints.customerId, customerId));
}

/** An endpoint as audit events name it. */
function endpointTarget(endpointId: string) {
  return { type: "webhook_endpoint" as const, id: withPrefix("we", endpointId) };
}

/**
 * One INSERT … SELECT from the account that writes the endpoint only while the account has fewer than MAX_ENDPOINTS,
 * so concurrent creates can never pass the limit between a count and an insert; with its audit event (never the secret).
 */
export async function createEndpoint(
  db: Database,
  audit: AuditContext,
  customerId: string,
  endpoint: NewEndpoint,
  now: number,
): Promise<Outcome<WebhookEndpointRow, "full">> {
  const id = crypto.randomUUID();
  const endpointCount = sql`(SELECT count(*) FROM ${webhookEndpoints} WHERE ${webhookEndpoints.customerId} = ${customers.id})`;
  const created = await batchByName(db, {
    endpoint: writeInPhases({
      write: db
        .insert(webhookEndpoints)
        .select(
          db
            .select(
              insertSelection({
                id,
                customerId: customers.id,
                url: endpoint.url,
                description: endpoint.description ?? null,
                eventTypes: JSON.stringify(endpoint.eventTypes),
                status: "enabled" satisfies WebhookEndpointStatus,
                secret: generateSecret(),
                previousSecret: null,
                previousSecretExpiresAt: null,
                createdAt: now,
                updatedAt: now,
              }),
            )
            .from(customers)
            .where(and(eq(customers.id, customerId), sql`${endpointCount} < ${MAX_ENDPOINTS}`)),
        )
        .returning(),
      after: {
        audit: auditStatement(
          db,
          { ...audit, now },
          {
            action: "webhook_endpoint.created",
            target: endpointTarget(id),
            customerId: webhookEndpoints.customerId,
            changes: {
              url: [null, webhookEndpoints.url],
              description: [null, webhookEndpoints.description],
              event_types: [null, webhookEndpoints.eventTypes],
              status: [null, webhookEndpoints.status],
            },
          },
          { from: webhookEndpoints, where: eq(webhookEndpoints.id, id) },
        ),
      },
    }),
  });
  const [row] = created.endpoint.write;
  return row ? ok(row) : refuse("full", { limit: MAX_ENDPOINTS });
}

/** A page of the account's endpoints, newest first. */
export async function listEndpoints(
  db: Database,
  customerId: string,
  window: PageWindow,
): Promise<{ rows: WebhookEndpointRow[]; total: number }> {
  return pageAndTotal(
    db,
    db
      .select()
      .from(webhookEndpoints)
      .where(eq(webhookEndpoints.customerId, customerId))
      .orderBy(...stableOrder({ key: webhookEndpoints.createdAt, nullable: false }, webhookEndpoints.id, "desc"))
      .limit(window.limit)
      .offset(window.offset),
    db.select({ total: count() }).from(webhookEndpoints).where(eq(webhookEndpoints.customerId, customerId)),
  );
}

export async function findEndpoint(
  db: Database,
  customerId: string,
  endpointId: string,
): Promise<WebhookEndpointRow | undefined> {
  return db.select().from(webhookEndpoints).where(owned(customerId, endpointId)).get();
}

/** Changes the endpoint, with its audit event (first, under the same condition, so it records the values changed from). */
export async function updateEndpoint(
  db: Database,
  audit: AuditContext,
  customerId: string,
  endpointId: string,
  changes: EndpointChanges,
  now: number,
): Promise<Outcome<WebhookEndpointRow, "not_found">> {
  const values = {
    url: changes.url,
    description: changes.description,
    eventTypes: changes.eventTypes && JSON.stringify(changes.eventTypes),
    status: changes.status,
  };
  const fields = { url: "url", description: "description", eventTypes: "event_types", status: "status" } as const;
  const changed = await batchByName(db, {
    endpoint: writeInPhases({
      before: {
        audit: auditBeforeWrite(
          db,
          { ...audit, now },
          {
            action: "webhook_endpoint.updated",
            target: endpointTarget(endpointId),
            customerId: webhookEndpoints.customerId,
            changes: Object.fromEntries(
              (Object.keys(fields) as (keyof typeof fields)[])
                .filter((field) => values[field] !== undefined)
                .map((field) => [fields[field], [webhookEndpoints[field], values[field] ?? null]]),
            ),
          },
          { from: webhookEndpoints, guard: owned(customerId, endpointId) },
        ),
      },
      write: db
        .update(webhookEndpoints)
        .set({ ...values, updatedAt: now })
        .where(owned(customerId, endpointId))
        .returning(),
    }),
  });
  const [row] = changed.endpoint.write;
  return row ? ok(row) : refuse("not_found");
}

/**
 * A new secret; the one it replaces keeps signing (beside it) for PREVIOUS_SECRET_TTL_MS, so receivers can switch
 * without losing a delivery. A second rotation within that time drops the oldest secret. One UPDATE: its right-hand
 * sides read the row as it was.
 */
export async function rotateSecret(
  db: Database,
  audit: AuditContext,
  customerId: string,
  endpointId: string,
  now: number,
): Promise<Outcome<WebhookEndpointRow, "not_found">> {
  const rotated = await batchByName(db, {
    endpoint: writeInPhases({
      before: {
        // Says that the secret changed and until when the old one signs too; never a secret.
        audit: auditBeforeWrite(
          db,
          { ...audit, now },
          {
            action: "webhook_endpoint.secret_rotated",
            target: endpointTarget(endpointId),
            customerId: webhookEndpoints.customerId,
            changes: {
              previous_secret_expires_at: [iso(webhookEndpoints.previousSecretExpiresAt), toIso(now + PREVIOUS_SECRET_TTL_MS)],
            },
          },
          { from: webhookEndpoints, guard: owned(customerId, endpointId) },
        ),
      },
      write: db
        .update(webhookEndpoints)
        .set({
          secret: generateSecret(),
          previousSecret: sql`${webhookEndpoints.secret}`,
          previousSecretExpiresAt: now + PREVIOUS_SECRET_TTL_MS,
          updatedAt: now,
        })
        .where(owned(customerId, endpointId))
        .returning(),
    }),
  });
  const [row] = rotated.endpoint.write;
  return row ? ok(row) : refuse("not_found");
}

/**
 * Deletes the endpoint and every delivery to it, in one batch: deliveries reference their endpoint, so none can
 * outlive it, and a pending one is thereby cancelled (the consumer finds no delivery for its message). The events
 * stay: they are the account's, listed by the events API.
 */
export async function deleteEndpoint(
  db: Database,
  audit: AuditContext,
  customerId: string,
  endpointId: string,
  now: number,
): Promise<Outcome<WebhookEndpointRow, "not_found">> {
  const { endpoint } = await batchByName(db, {
    endpoint: writeInPhases({
      before: {
        audit: auditBeforeWrite(
          db,
          { ...audit, now },
          {
            action: "webhook_endpoint.deleted",
            target: endpointTarget(endpointId),
            customerId: webhookEndpoints.customerId,
            changes: { url: [webhookEndpoints.url, null], status: [webhookEndpoints.status, null] },
          },
          { from: webhookEndpoints, guard: owned(customerId, endpointId) },
        ),
        deliveries: db
          .delete(webhookDeliveries)
          .where(and(eq(webhookDeliveries.endpointId, endpointId), eq(webhookDeliveries.customerId, customerId))),
      },
      write: db.delete(webhookEndpoints).where(owned(customerId, endpointId)).returning(),
    }),
  });
  const [removed] = endpoint.write;
  return removed ? ok(removed) : refuse("not_found");
}

const enabled = eq(webhookEndpoints.status, "enabled" satisfies WebhookEndpointStatus);

/** Deliveries of this endpoint of the account (and `where`), each with its event's type. */
function deliveriesWithEvent(db: Database, customerId: string, endpointId: string, where?: SQL) {
  return db
    .select({ delivery: webhookDeliveries, eventType: events.type })
    .from(webhookDeliveries)
    .innerJoin(events, eq(events.id, webhookDeliveries.eventId))
    .where(and(eq(webhookDeliveries.endpointId, endpointId), eq(webhookDeliveries.customerId, customerId), where));
}

/**
 * A webhook.test event and its one delivery, to this endpoint only (whatever the types it takes), in one batch that
 * reads the delivery back; only an enabled endpoint gets one, as a disabled one is sent nothing. The delivery goes to
 * the outbox.
 */
export async function sendTestEvent(
  db: Database,
  outbox: Outbox,
  customerId: string,
  endpointId: string,
  now: number,
): Promise<Outcome<DeliveryWithEvent, "not_found" | "wrong_state">> {
  const { eventId, statements } = eventStatements(
    db,
    {
      type: "webhook.test",
      customerId: webhookEndpoints.customerId,
      data: testEventData(webhookEndpoints.id),
      from: webhookEndpoints,
      where: and(owned(customerId, endpointId), enabled)!,
      endpointId,
    },
    now,
  );
  const sent = await batchByName(db, {
    test: statements,
    delivery: deliveriesWithEvent(db, customerId, endpointId, eq(webhookDeliveries.eventId, eventId)),
  });
  outbox.add(sent.test.deliveries);
  const [created] = sent.delivery;
  return created ? ok(created) : refusalByState(await findEndpoint(db, customerId, endpointId));
}

interface DeliveryListQuery {
  statuses?: readonly DeliveryStatus[] | undefined;
}

/** A page of the endpoint's deliveries, newest first; not_found when the endpoint is not the account's. */
export async function listDeliveries(
  db: Database,
  customerId: string,
  endpointId: string,
  q: DeliveryListQuery,
  window: PageWindow,
): Promise<Outcome<{ rows: DeliveryWithEvent[]; total: number }, "not_found">> {
  const statuses = q.statuses && inArray(webhookDeliveries.status, q.statuses);
  const found = await batchByName(db, {
    endpoint: db.select({ id: webhookEndpoints.id }).from(webhookEndpoints).where(owned(customerId, endpointId)),
    rows: deliveriesWithEvent(db, customerId, endpointId, statuses)
      .orderBy(...stableOrder({ key: webhookDeliveries.createdAt, nullable: false }, webhookDeliveries.id, "desc"))
      .limit(window.limit)
      .offset(window.offset),
    totals: db
      .select({ total: count() })
      .from(webhookDeliveries)
      .where(and(eq(webhookDeliveries.endpointId, endpointId), eq(webhookDeliveries.customerId, customerId), statuses)),
  });
  if (found.endpoint.length === 0) return refuse("not_found");
  return ok({ rows: found.rows, total: found.totals[0]!.total });
}

/**
 * Sends a finished delivery (succeeded or failed) again, now: one guarded UPDATE makes it pending and due, its attempt
 * count going on, and goes to the outbox. A pending delivery is on its way already, and a disabled endpoint is sent
 * nothing: both refused.
 */
export async function retryDelivery(
  db: Database,
  outbox: Outbox,
  customerId: string,
  endpointId: string,
  deliveryId: string,
  now: number,
): Promise<Outcome<DeliveryWithEvent, "not_found" | "wrong_state">> {
  const endpointEnabled = sql`EXISTS (SELECT 1 FROM ${webhookEndpoints} WHERE ${and(owned(customerId, endpointId), enabled)})`;
  const retried = await batchByName(db, {
    updated: db
      .update(webhookDeliveries)
      .set({ status: "pending", nextAttemptAt: now, leaseExpiresAt: null })
      .where(
        and(
          eq(webhookDeliveries.id, deliveryId),
          eq(webhookDeliveries.endpointId, endpointId),
          eq(webhookDeliveries.customerId, customerId),
          inArray(webhookDeliveries.status, ["succeeded", "failed"] satisfies DeliveryStatus[]),
          endpointEnabled,
        ),
      )
      .returning({ id: webhookDeliveries.id }),
    delivery: deliveriesWithEvent(db, customerId, endpointId, eq(webhookDeliveries.id, deliveryId)),
    endpoint: db.select({ status: webhookEndpoints.status }).from(webhookEndpoints).where(owned(customerId, endpointId)),
  });
  const { updated } = retried;
  const [current] = retried.delivery;
  const [endpoint] = retried.endpoint;
  outbox.add(updated);
  if (!current || !endpoint) return refuse("not_found");
  if (updated.length === 0) {
    return refuse("wrong_state", { state: endpoint.status === "disabled" ? "disabled" : current.delivery.status });
  }
  return ok(current);
}
