// The delivery queue consumer: each message names a delivery, which is claimed, attempted as one signed POST, recorded,
// and re-queued for its next attempt.
import { and, eq, isNull, lte, or, sql } from "drizzle-orm";
import { batchByName, writeInPhases } from "../db/batch.ts";
import { createDatabase, type Database } from "../db/client.ts";
import {
  type DeliveryStatus,
  type EventType,
  events,
  type WebhookEndpointStatus,
  webhookDeliveries,
  webhookEndpoints,
} from "../db/schema.ts";
import type { Bindings } from "../env.ts";
import { describeError } from "../lib/describe-error.ts";
import { withPrefix } from "../lib/ids.ts";
import { eventObject } from "./payloads.ts";
import { enqueueDeliveries } from "./queue.ts";
import { retryAfterSeconds, retryDelaySeconds } from "./retry-schedule.ts";
import { signatureHeader, signingSecrets } from "./signing.ts";

/** A receiver has this long to answer (Standard Webhooks asks for 15 to 30 s). */
export const ATTEMPT_TIMEOUT_MS = 15_000;
/**
 * How long a claimed attempt keeps other consumers off its delivery: the timeout (which also bounds reading the
 * answer), plus ample time to sign before and record after. Past it, the attempt is presumed lost with its consumer.
 */
export const LEASE_MS = 30_000;
/** The most of a receiver's answer that is read and kept. */
const RESPONSE_LIMIT_BYTES = 1024;
const USER_AGENT = "virtual-numbers-webhooks/1";
/** A last_error is a short line, whatever a network error's message says. */
const ERROR_LIMIT = 500;
/**
 * Messages handled at once: a Worker keeps at most six connections open, and a request waiting for one would spend
 * its 15 s timeout waiting.
 */
const CONCURRENCY = 5;

/** What the consumer takes from its surroundings, so tests can decide the receiver's answers, the jitter and the time. */
export interface DeliveryDeps {
  fetch: (url: string, init: RequestInit) => Promise<Response>;
  /** In [0, 1), like Math.random: picks each retry's jitter. */
  random: () => number;
  now: () => number;
}

/** The Worker's own: the global fetch (looked up at each call), Math.random and the clock. */
const liveDeps: DeliveryDeps = { fetch: (url, init) => fetch(url, init), random: () => Math.random(), now: () => Date.now() };

/**
 * Handles a batch of the delivery queue. Each message is acked once its delivery's outcome is recorded (or there is
 * nothing to do); it goes back to the queue only when that could not be recorded, after the lease it may hold expired.
 */
export async function consumeDeliveries(
  batch: MessageBatch<string>,
  env: Bindings,
  deps: DeliveryDeps = liveDeps,
): Promise<void> {
  const db = createDatabase(env.DB);
  const queue = [...batch.messages];
  const worker = async () => {
    for (let message = queue.shift(); message !== undefined; message = queue.shift()) {
      try {
        await deliver(db, env.WEBHOOK_DELIVERIES, message.body, deps);
        message.ack();
      } catch (error) {
        log("error", { event: "delivery_failed", delivery_id: message.body, error: describeError(error) });
        message.retry({ delaySeconds: LEASE_MS / 1000 });
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, queue.length) }, worker));
}

/** What an attempt needs: where to, the secrets to sign with, and the event. */
interface Target {
  url: string;
  secret: string;
  previousSecret: string | null;
  previousSecretExpiresAt: number | null;
  eventId: string;
  eventType: EventType;
  eventData: string;
  eventCreatedAt: number;
}

/** One message: claim the delivery's attempt, make it, record its outcome and queue the next one. */
async function deliver(db: Database, queue: Queue<string>, id: string, deps: DeliveryDeps): Promise<void> {
  const now = deps.now();
  const lease = now + LEASE_MS;
  // One guarded UPDATE takes the attempt: two messages for one delivery (a duplicate, the sweep's) never both do.
  const taken = await batchByName(db, {
    claimed: db
      .update(webhookDeliveries)
      .set({ leaseExpiresAt: lease })
      .where(
        and(
          eq(webhookDeliveries.id, id),
          eq(webhookDeliveries.status, "pending" satisfies DeliveryStatus),
          lte(webhookDeliveries.nextAttemptAt, now),
          or(isNull(webhookDeliveries.leaseExpiresAt), lte(webhookDeliveries.leaseExpiresAt, now)),
        ),
      )
      .returning({ id: webhookDeliveries.id }),
    target: db
      .select({
        status: webhookDeliveries.status,
        attempts: webhookDeliveries.attempts,
        nextAttemptAt: webhookDeliveries.nextAttemptAt,
        endpointId: webhookDeliveries.endpointId,
        url: webhookEndpoints.url,
        // Named apart from the delivery's status: a D1 batch answers rows as objects, where one name holds one value.
        endpointStatus: sql<WebhookEndpointStatus>`${webhookEndpoints.status}`.as("endpoint_status"),
        secret: webhookEndpoints.secret,
        previousSecret: webhookEndpoints.previousSecret,
        previousSecretExpiresAt: webhookEndpoints.previousSecretExpiresAt,
        eventId: events.id,
        eventType: events.type,
        eventData: events.data,
        eventCreatedAt: events.createdAt,
      })
      .from(webhookDeliveries)
      .innerJoin(webhookEndpoints, eq(webhookEndpoints.id, webhookDeliveries.endpointId))
      .innerJoin(events, eq(events.id, webhookDeliveries.eventId))
      .where(eq(webhookDeliveries.id, id)),
  });
  const { claimed } = taken;
  const [target] = taken.target;
  // Gone (purged, its endpoint deleted), succeeded or failed: nothing to do.
  if (target === undefined || target.status !== "pending") return;
  if (claimed.length === 0) {
    // Not due yet (one hop of a wait longer than the queue's longest delay, or an early duplicate): wait the rest.
    // Due but leased: the consumer holding it attempts it now and queues what follows.
    if (target.nextAttemptAt !== null && target.nextAttemptAt > now) {
      await enqueueDeliveries(queue, [id], (target.nextAttemptAt - now) / 1000);
    }
    return;
  }

  const held = and(eq(webhookDeliveries.id, id), eq(webhookDeliveries.leaseExpiresAt, lease));
  if (target.endpointStatus === "disabled") {
    // Disabled by its owner or by a 410: the delivery fails unattempted; a retry after re-enabling sends it again.
    await db
      .update(webhookDeliveries)
      .set({ status: "failed", lastError: "endpoint disabled", nextAttemptAt: null, leaseExpiresAt: null })
      .where(held);
    log("info", { event: "delivery_attempt", delivery_id: id, outcome: "failed", error: "endpoint disabled" });
    return;
  }

  const result = await attempt(target, now, deps);
  const finished = deps.now();
  const attempts = target.attempts + 1;
  const succeeded = result.error === null;
  const gone = result.statusCode === 410;
  const wait = succeeded || gone ? null : retryDelaySeconds(attempts, deps.random);
  const delaySeconds = wait === null ? null : Math.max(wait, result.retryAfterSeconds ?? 0);
  const status: DeliveryStatus = succeeded ? "succeeded" : delaySeconds === null ? "failed" : "pending";

  const recordOutcome = db
    .update(webhookDeliveries)
    .set({
      status,
      attempts,
      lastStatusCode: result.statusCode,
      lastError: result.error,
      lastResponse: result.response,
      nextAttemptAt: delaySeconds === null ? null : finished + delaySeconds * 1000,
      leaseExpiresAt: null,
      deliveredAt: succeeded ? finished : null,
    })
    .where(held)
    .returning({ id: webhookDeliveries.id });
  // 410 Gone: the receiver wants no more deliveries, to this endpoint at all.
  const written = gone
    ? (
        await batchByName(db, {
          outcome: writeInPhases({
            write: recordOutcome,
            record: (recorded) =>
              db
                .update(webhookEndpoints)
                .set({ status: "disabled" satisfies WebhookEndpointStatus, updatedAt: finished })
                .where(and(eq(webhookEndpoints.id, target.endpointId), recorded)),
          }),
        })
      ).outcome.write
    : await recordOutcome;
  log("info", {
    event: "delivery_attempt",
    delivery_id: id,
    attempt: attempts,
    outcome: status,
    status_code: result.statusCode,
    error: result.error,
    // The lease ran out before the outcome was written: another consumer took the delivery over and records its own.
    ...(written.length === 0 && { lease_lost: true }),
  });
  if (written.length > 0 && delaySeconds !== null) await enqueueDeliveries(queue, [id], delaySeconds);
}

interface AttemptResult {
  /** The receiver's status code; null when no answer came. */
  statusCode: number | null;
  /** Why the attempt failed; null when it succeeded. */
  error: string | null;
  /** The first RESPONSE_LIMIT_BYTES of the answer's body; null when it had none. */
  response: string | null;
  retryAfterSeconds: number | null;
}

/** One POST of the event to the endpoint, signed at `now`, redirects not followed, within the timeout. */
async function attempt(target: Target, now: number, deps: DeliveryDeps): Promise<AttemptResult> {
  const webhookId = withPrefix("evt", target.eventId);
  // The event object exactly as the events API answers it.
  const body = JSON.stringify(
    eventObject({ id: target.eventId, type: target.eventType, data: target.eventData, createdAt: target.eventCreatedAt }),
  );
  const timestamp = Math.floor(now / 1000);
  const headers = {
    "Content-Type": "application/json",
    "User-Agent": USER_AGENT,
    "webhook-id": webhookId,
    "webhook-timestamp": String(timestamp),
    "webhook-signature": await signatureHeader(signingSecrets(target, now), webhookId, timestamp, body),
  };
  const signal = AbortSignal.timeout(ATTEMPT_TIMEOUT_MS);
  let answer: Response;
  try {
    answer = await deps.fetch(target.url, { method: "POST", headers, body, redirect: "manual", signal });
  } catch (error) {
    return { statusCode: null, error: failureOf(error, target.url), response: null, retryAfterSeconds: null };
  }
  const statusCode = answer.status;
  const response = await readPrefix(answer, signal);
  const error =
    statusCode >= 200 && statusCode < 300
      ? null
      : statusCode >= 300 && statusCode < 400
        ? `redirect (${statusCode}) not followed`
        : `HTTP ${statusCode}`;
  const retryAfter = statusCode === 429 || statusCode === 503 ? retryAfterSeconds(answer.headers.get("Retry-After"), now) : null;
  return { statusCode, error, response, retryAfterSeconds: retryAfter };
}

/**
 * Why an attempt that got no answer failed, as its owner reads it: the timeout, or the host that could not be reached,
 * with the runtime's words when they say more than workerd's "internal error; reference = …" (which says nothing).
 */
function failureOf(error: unknown, url: string): string {
  if (error instanceof Error && error.name === "TimeoutError") return `timeout after ${ATTEMPT_TIMEOUT_MS / 1000} s`;
  const message = error instanceof Error ? error.message : String(error);
  const detail = message === "" || /^internal error\b/i.test(message) ? "" : ` (${message})`;
  return `could not reach ${new URL(url).host}${detail}`.slice(0, ERROR_LIMIT);
}

/**
 * The first RESPONSE_LIMIT_BYTES of an answer's body as text (a character cut at the limit is left out), then the
 * body is cancelled: the rest is never read. An answer cut short (the timeout, the network) keeps what arrived.
 */
async function readPrefix(answer: Response, signal: AbortSignal): Promise<string | null> {
  if (answer.body === null) return null;
  const reader = answer.body.getReader();
  const decoder = new TextDecoder();
  // A body that stalls after the headers is bounded by the attempt's timeout too, whatever the runtime does.
  let onAbort = () => {};
  const timedOut = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason);
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort);
  });
  let text = "";
  let size = 0;
  try {
    while (size < RESPONSE_LIMIT_BYTES) {
      const { done, value } = await Promise.race([reader.read(), timedOut]);
      if (done) break;
      const part = value.subarray(0, RESPONSE_LIMIT_BYTES - size);
      size += part.byteLength;
      text += decoder.decode(part, { stream: true });
    }
  } catch {
    // What arrived is kept.
  } finally {
    signal.removeEventListener("abort", onAbort);
    await reader.cancel().catch(() => {});
  }
  return text;
}

function log(level: "info" | "error", fields: Record<string, unknown>): void {
  console.log(JSON.stringify({ level, ...fields }));
}
