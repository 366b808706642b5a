// Webhook delivery: the queue consumer (claim, signed POST, outcome, retry schedule) and the scheduled sweep and purge.
// Rows are written straight into D1 and no message is really sent (the queue's sendBatch is a spy), so the Worker's own
// consumer, which runs in the background for real messages, never races the consumer under test.
import {
  createExecutionContext,
  createMessageBatch,
  createScheduledController,
  getQueueResult,
  waitOnExecutionContext,
} from "cloudflare:test";
import { env } from "cloudflare:workers";
import { eq, sql } from "drizzle-orm";
import { Webhook } from "standardwebhooks";
import { afterEach, beforeEach, describe, expect, it, type MockInstance, vi } from "vitest";
import { createDatabase } from "../src/db/client.ts";
import { eventCounts, events, webhookDeliveries, webhookEndpoints } from "../src/db/schema.ts";
import worker from "../src/index.ts";
import { ATTEMPT_TIMEOUT_MS, consumeDeliveries, type DeliveryDeps, LEASE_MS } from "../src/webhooks/delivery.ts";
import { OVERDUE_MS, SWEEP_LIMIT } from "../src/webhooks/maintenance.ts";
import { MAX_QUEUE_DELAY_SECONDS } from "../src/webhooks/queue.ts";
import { MAX_RETRY_AFTER_SECONDS, RETRY_DELAYS_SECONDS } from "../src/webhooks/retry-schedule.ts";
import { FaultPlan, faultyD1 } from "./faulty-storage.ts";
import { createCustomer, type LogLine, withLogs } from "./helpers.ts";
import { receivedRequests } from "./outbound-fetch.ts";

const db = createDatabase(env.DB);
const QUEUE = "virtual-numbers-webhook-deliveries";
const HOOK_URL = "https://hooks.test/receive";
const realTimeout = AbortSignal.timeout.bind(AbortSignal);
/** How long events are kept (WEBHOOKS.md). */
const THIRTY_DAYS_MS = 30 * 86_400_000;

function newSecret(): string {
  return `whsec_${btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32))))}`;
}

interface Fixture {
  customerId: string;
  endpointId: string;
  eventId: string;
  deliveryId: string;
  secret: string;
  eventCreatedAt: number;
  data: unknown;
}

/** A new account with one endpoint, one event and one pending delivery of it, due now unless told otherwise. */
async function fixture(
  options: {
    endpoint?: Partial<typeof webhookEndpoints.$inferInsert>;
    delivery?: Partial<typeof webhookDeliveries.$inferInsert>;
    createdAt?: number;
  } = {},
): Promise<Fixture> {
  const { customerId } = await createCustomer("wh");
  const createdAt = options.createdAt ?? Date.now() - 1_234;
  const secret = newSecret();
  const endpointId = crypto.randomUUID();
  const eventId = crypto.randomUUID();
  const data = { order_id: crypto.randomUUID(), status: "fulfilled", notes: "ünïcode ✓", quantity: 3, fulfilled_at: null };
  await db.batch([
    db.insert(webhookEndpoints).values({
      id: endpointId,
      customerId,
      url: HOOK_URL,
      description: null,
      eventTypes: JSON.stringify(["order.fulfilled"]),
      status: "enabled",
      secret,
      createdAt,
      updatedAt: createdAt,
      ...options.endpoint,
    }),
    db.insert(events).values({ id: eventId, customerId, type: "order.fulfilled", data: JSON.stringify(data), createdAt }),
  ]);
  // Due since its creation, a little while ago.
  const deliveryId = await addDelivery(
    { customerId, endpointId, eventId },
    { createdAt, nextAttemptAt: createdAt, ...options.delivery },
  );
  return { customerId, endpointId, eventId, deliveryId, secret, eventCreatedAt: createdAt, data };
}

/** Another delivery of a fixture's event to its endpoint. */
async function addDelivery(
  to: Pick<Fixture, "customerId" | "endpointId" | "eventId">,
  values: Partial<typeof webhookDeliveries.$inferInsert> = {},
): Promise<string> {
  const id = crypto.randomUUID();
  const now = Date.now();
  await db
    .insert(webhookDeliveries)
    .values({ id, ...to, status: "pending", attempts: 0, nextAttemptAt: now, createdAt: now, ...values });
  return id;
}

async function deliveryRow(id: string) {
  const [row] = await db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, id));
  return row;
}

async function endpointRow(id: string) {
  const [row] = await db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, id));
  return row;
}

/** A receiver that answers every request alike, recording what it got. */
function receiver(answer: () => Response | Promise<Response>) {
  const requests: { url: string; init: RequestInit }[] = [];
  const fetch = vi.fn(async (url: string, init: RequestInit) => {
    requests.push({ url, init });
    return answer();
  });
  return { fetch, requests };
}

let sendBatch: MockInstance<Queue<string>["sendBatch"]>;

beforeEach(() => {
  // What the consumer and the sweep put back on the queue, kept off the real queue.
  sendBatch = vi
    .spyOn(env.WEBHOOK_DELIVERIES as Queue<string>, "sendBatch")
    .mockResolvedValue({ metadata: { metrics: { backlogCount: 0, backlogBytes: 0, oldestMessageTimestamp: new Date() } } });
});

afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
});

/** The messages sent to the queue so far: each delivery id with its delay. */
function queued(): { id: string; delaySeconds: number | undefined }[] {
  return sendBatch.mock.calls.flatMap(([messages, options]) =>
    [...messages].map((m) => ({ id: m.body, delaySeconds: options?.delaySeconds })),
  );
}

function batchOf(ids: readonly string[]): MessageBatch<string> {
  return createMessageBatch<string>(
    QUEUE,
    ids.map((body, i) => ({ id: `msg-${i}`, timestamp: new Date(), attempts: 1, body })),
  );
}

/** Runs the consumer over one message per id, with these receiver, jitter and clock; returns what it acked or retried. */
async function consume(ids: readonly string[], deps: Partial<DeliveryDeps> = {}, bindings: Partial<Env> = {}) {
  const batch = batchOf(ids);
  const ctx = createExecutionContext();
  const { lines } = await withLogs(() =>
    consumeDeliveries(
      batch,
      { ...env, ...bindings },
      { fetch: receiver(() => new Response("ok")).fetch, random: () => 0.5, now: Date.now, ...deps },
    ),
  );
  return { result: await getQueueResult(batch, ctx), lines };
}

/** The webhook body the receiver must get for a fixture, byte for byte. */
function expectedBody(f: Fixture): string {
  return JSON.stringify({
    id: `evt_${f.eventId}`,
    type: "order.fulfilled",
    timestamp: new Date(f.eventCreatedAt).toISOString(),
    data: f.data,
  });
}

describe("a successful delivery", () => {
  it("POSTs the signed event through the Worker's queue handler and the global fetch, and records the success", async () => {
    const f = await fixture();
    const before = receivedRequests.length;
    const batch = batchOf([f.deliveryId]);
    const ctx = createExecutionContext();
    const started = Math.floor(Date.now() / 1000);
    const { lines } = await withLogs(() => worker.queue(batch, env));
    const result = await getQueueResult(batch, ctx);
    expect(result.explicitAcks).toEqual(["msg-0"]);
    expect(result.retryMessages).toEqual([]);

    // The setup file's receiver for .test hosts got it (and answered 204).
    // This delivery's (a delivery of an earlier file of the workerd may land in between, from the queue's consumer).
    const received = receivedRequests.slice(before).filter((r) => r.headers["webhook-id"] === `evt_${f.eventId}`);
    expect(received).toHaveLength(1);
    const [request] = received;
    expect(request!.url).toBe(HOOK_URL);
    expect(request!.method).toBe("POST");
    expect(request!.body).toBe(expectedBody(f));
    expect(request!.headers["content-type"]).toBe("application/json");
    expect(request!.headers["user-agent"]).toBe("virtual-numbers-webhooks/1");
    expect(request!.headers["webhook-id"]).toBe(`evt_${f.eventId}`);
    const timestamp = Number(request!.headers["webhook-timestamp"]);
    expect(timestamp).toBeGreaterThanOrEqual(started);
    expect(timestamp).toBeLessThanOrEqual(Math.floor(Date.now() / 1000));
    expect(request!.headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    // An independent verifier (the Standard Webhooks library) accepts it and reads the event back.
    expect(new Webhook(f.secret).verify(request!.body, request!.headers)).toEqual(JSON.parse(expectedBody(f)));

    const row = await deliveryRow(f.deliveryId);
    expect(row).toMatchObject({ status: "succeeded", attempts: 1, lastStatusCode: 204, lastError: null, lastResponse: null });
    expect(row!.nextAttemptAt).toBeNull();
    expect(row!.leaseExpiresAt).toBeNull();
    expect(row!.deliveredAt).toBeGreaterThanOrEqual(started * 1000);
    expect(queued()).toEqual([]);
    expect(lines).toContainEqual(
      expect.objectContaining({ event: "delivery_attempt", delivery_id: f.deliveryId, outcome: "succeeded" }),
    );
  });

  it("sends with a 15 s timeout and redirects not followed, and keeps the answer's body", async () => {
    const f = await fixture();
    const timeout = vi.spyOn(AbortSignal, "timeout");
    const hook = receiver(() => new Response("thanks", { status: 202 }));
    await consume([f.deliveryId], { fetch: hook.fetch });
    expect(timeout).toHaveBeenCalledWith(ATTEMPT_TIMEOUT_MS);
    expect(ATTEMPT_TIMEOUT_MS).toBe(15_000);
    const [{ url, init }] = hook.requests as [{ url: string; init: RequestInit }];
    expect(url).toBe(HOOK_URL);
    expect(init.method).toBe("POST");
    expect(init.redirect).toBe("manual");
    expect(init.signal).toBe(timeout.mock.results[0]!.value);
    expect(await deliveryRow(f.deliveryId)).toMatchObject({ status: "succeeded", lastStatusCode: 202, lastResponse: "thanks" });
  });

  it("signs with both secrets while the previous one is valid, then with the new one only", async () => {
    const previous = newSecret();
    const rotating = await fixture({ endpoint: { previousSecret: previous, previousSecretExpiresAt: Date.now() + 60_000 } });
    const expired = await fixture({ endpoint: { previousSecret: previous, previousSecretExpiresAt: Date.now() - 1 } });
    const hook = receiver(() => new Response(null, { status: 204 }));
    await consume([rotating.deliveryId], { fetch: hook.fetch });
    await consume([expired.deliveryId], { fetch: hook.fetch });
    const [during, after] = hook.requests.map(({ init }) => ({
      body: init.body as string,
      headers: init.headers as Record<string, string>,
    }));

    expect(during!.headers["webhook-signature"]!.split(" ")).toHaveLength(2);
    expect(new Webhook(rotating.secret).verify(during!.body, during!.headers)).toMatchObject({ id: `evt_${rotating.eventId}` });
    expect(new Webhook(previous).verify(during!.body, during!.headers)).toMatchObject({ id: `evt_${rotating.eventId}` });

    expect(after!.headers["webhook-signature"]!.split(" ")).toHaveLength(1);
    expect(new Webhook(expired.secret).verify(after!.body, after!.headers)).toMatchObject({ id: `evt_${expired.eventId}` });
    expect(() => new Webhook(previous).verify(after!.body, after!.headers)).toThrow("No matching signature found");
  });
});

describe("a failed attempt", () => {
  it("times out after 15 s: the signal aborts the request, and the retry is due 5 s later", async () => {
    const f = await fixture();
    const now = Date.now();
    // The attempt's own signal, made to fire at once instead of after 15 s; the receiver honours it as fetch does.
    vi.spyOn(AbortSignal, "timeout").mockImplementation(() => realTimeout(10));
    const hanging = (_url: string, init: RequestInit) =>
      new Promise<Response>((_, reject) => init.signal!.addEventListener("abort", () => reject(init.signal!.reason)));
    const { result } = await consume([f.deliveryId], { fetch: hanging, now: () => now });
    expect(result.explicitAcks).toEqual(["msg-0"]);
    const row = await deliveryRow(f.deliveryId);
    expect(row).toMatchObject({ status: "pending", attempts: 1, lastStatusCode: null, lastError: "timeout after 15 s" });
    expect(row).toMatchObject({ lastResponse: null, leaseExpiresAt: null, nextAttemptAt: now + 5_000 });
    expect(queued()).toEqual([{ id: f.deliveryId, delaySeconds: 5 }]);
  });

  it("keeps what arrived of an answer whose body stalls, once the timeout fires", async () => {
    const f = await fixture();
    vi.spyOn(AbortSignal, "timeout").mockImplementation(() => realTimeout(10));
    const stalled = () =>
      new Response(new ReadableStream({ start: (c) => c.enqueue(new TextEncoder().encode("partial")) }), { status: 200 });
    await consume([f.deliveryId], { fetch: receiver(stalled).fetch });
    expect(await deliveryRow(f.deliveryId)).toMatchObject({ status: "succeeded", lastStatusCode: 200, lastResponse: "partial" });
  });

  it("records a 5xx, its answer, and retries", async () => {
    const f = await fixture();
    const now = Date.now();
    await consume([f.deliveryId], { fetch: receiver(() => new Response("boom", { status: 500 })).fetch, now: () => now });
    const row = await deliveryRow(f.deliveryId);
    expect(row).toMatchObject({
      status: "pending",
      attempts: 1,
      lastStatusCode: 500,
      lastError: "HTTP 500",
      lastResponse: "boom",
    });
    expect(row!.nextAttemptAt).toBe(now + 5_000);
    expect(row!.deliveredAt).toBeNull();
    expect(queued()).toEqual([{ id: f.deliveryId, delaySeconds: 5 }]);
  });

  it("does not follow a redirect: it is a failure", async () => {
    const f = await fixture();
    // As fetch does: the 302 itself with redirect "manual", else the page it points to.
    const redirecting = async (_url: string, init: RequestInit) =>
      init.redirect === "manual"
        ? new Response(null, { status: 302, headers: { Location: "https://elsewhere.test/" } })
        : new Response("followed", { status: 200 });
    await consume([f.deliveryId], { fetch: redirecting });
    expect(await deliveryRow(f.deliveryId)).toMatchObject({
      status: "pending",
      attempts: 1,
      lastStatusCode: 302,
      lastError: "redirect (302) not followed",
    });
  });

  it("records that the host could not be reached, with the runtime's words only when they say something", async () => {
    const lost = await fixture();
    await consume([lost.deliveryId], {
      fetch: async () => {
        throw new TypeError("Network connection lost.");
      },
    });
    expect(await deliveryRow(lost.deliveryId)).toMatchObject({
      status: "pending",
      lastStatusCode: null,
      lastError: "could not reach hooks.test (Network connection lost.)",
    });
    // workerd's answer to a refused connection names nothing.
    const refused = await fixture();
    await consume([refused.deliveryId], {
      fetch: async () => {
        throw new Error("internal error; reference = 4k2hq9bmd7f1");
      },
    });
    expect(await deliveryRow(refused.deliveryId)).toMatchObject({
      lastStatusCode: null,
      lastError: "could not reach hooks.test",
    });
  });

  it("disables the endpoint on 410 Gone and fails the delivery; its other deliveries then fail unattempted", async () => {
    const f = await fixture();
    const other = await addDelivery(f);
    const now = Date.now() + 5_000;
    const hook = receiver(() => new Response("gone", { status: 410 }));
    await consume([f.deliveryId], { fetch: hook.fetch, now: () => now });
    expect(await deliveryRow(f.deliveryId)).toMatchObject({
      status: "failed",
      attempts: 1,
      lastStatusCode: 410,
      lastError: "HTTP 410",
      nextAttemptAt: null,
    });
    expect(await endpointRow(f.endpointId)).toMatchObject({ status: "disabled", updatedAt: now });
    expect(queued()).toEqual([]);

    await consume([other], { fetch: hook.fetch, now: () => now });
    expect(hook.fetch).toHaveBeenCalledTimes(1);
    expect(await deliveryRow(other)).toMatchObject({
      status: "failed",
      attempts: 0,
      lastError: "endpoint disabled",
      nextAttemptAt: null,
      leaseExpiresAt: null,
    });
  });

  describe("Retry-After on 429 and 503 delays the next attempt by at least that much", () => {
    const cases = [
      { name: "429 with delta-seconds", status: 429, header: () => "120", delay: 120 },
      {
        name: "503 with an HTTP-date",
        status: 503,
        header: (now: number) => new Date(now + 3_600_000).toUTCString(),
        delay: 3_600,
      },
      {
        name: "503 with a date in the past",
        status: 503,
        header: (now: number) => new Date(now - 60_000).toUTCString(),
        delay: 5,
      },
      { name: "429 asking less than the schedule", status: 429, header: () => "1", delay: 5 },
      { name: "500 (not honoured there)", status: 500, header: () => "120", delay: 5 },
      // A receiver cannot park a delivery beyond a week (nor past what a number or a date holds).
      { name: "429 asking a year (a week at most)", status: 429, header: () => "31536000", delay: MAX_RETRY_AFTER_SECONDS },
      { name: "429 with 400 digits", status: 429, header: () => "9".repeat(400), delay: MAX_RETRY_AFTER_SECONDS },
      {
        name: "503 with a date in 9999",
        status: 503,
        header: () => "Fri, 31 Dec 9999 23:59:59 GMT",
        delay: MAX_RETRY_AFTER_SECONDS,
      },
    ];
    for (const { name, status, header, delay } of cases) {
      it(name, async () => {
        const f = await fixture();
        // Whole seconds, as an HTTP-date is.
        const now = Math.floor(Date.now() / 1000) * 1000;
        const answer = () => new Response(null, { status, headers: { "Retry-After": header(now) } });
        await consume([f.deliveryId], { fetch: receiver(answer).fetch, now: () => now });
        expect(await deliveryRow(f.deliveryId)).toMatchObject({
          status: "pending",
          lastStatusCode: status,
          nextAttemptAt: now + delay * 1000,
        });
        // The queue delays a message 12 h at most: a longer wait is chained.
        expect(queued()).toEqual([{ id: f.deliveryId, delaySeconds: Math.min(delay, MAX_QUEUE_DELAY_SECONDS) }]);
      });
    }
  });
});

describe("the retry schedule", () => {
  // random() = 0 shrinks each wait by 10 %, 0.5 keeps it, just under 1 stretches it by 10 % (to whole seconds: 5 s ± 10 %
  // rounds to 5 s).
  const schedules = [
    { random: 0.5, waits: [5, 300, 1_800, 7_200, 18_000, 36_000, 50_400, 72_000, 86_400] },
    { random: 0, waits: [5, 270, 1_620, 6_480, 16_200, 32_400, 45_360, 64_800, 77_760] },
    { random: 0.999_999, waits: [5, 330, 1_980, 7_920, 19_800, 39_600, 55_440, 79_200, 95_040] },
  ];
  for (const { random, waits: expected } of schedules) {
    it(`waits 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h ± 10 % between 10 attempts, then fails (random ${random})`, async () => {
      const f = await fixture();
      let now = Date.now();
      const hook = receiver(() => new Response(null, { status: 500 }));
      const waits: number[] = [];
      for (let attempt = 1; attempt <= 10; attempt++) {
        sendBatch.mockClear();
        await consume([f.deliveryId], { fetch: hook.fetch, random: () => random, now: () => now });
        const row = await deliveryRow(f.deliveryId);
        expect(row!.attempts).toBe(attempt);
        if (attempt === 10) {
          expect(row).toMatchObject({ status: "failed", nextAttemptAt: null, leaseExpiresAt: null, lastError: "HTTP 500" });
          expect(queued()).toEqual([]);
          break;
        }
        expect(row!.status).toBe("pending");
        const wait = (row!.nextAttemptAt! - now) / 1000;
        waits.push(wait);
        // The queue delays a message 12 h at most: a longer wait is chained, next_attempt_at keeps the truth.
        expect(queued()).toEqual([{ id: f.deliveryId, delaySeconds: Math.min(wait, MAX_QUEUE_DELAY_SECONDS) }]);
        now = row!.nextAttemptAt!;
      }
      expect(hook.fetch).toHaveBeenCalledTimes(10);
      expect(waits).toEqual(expected);
    });
  }

  it("stays within ±10 % whatever the random source says", async () => {
    const f = await fixture();
    for (const random of [0, 0.123, 0.5, 0.777, 0.999_999]) {
      const id = await addDelivery(f, { attempts: 4 });
      const now = Date.now();
      await consume([id], {
        fetch: receiver(() => new Response(null, { status: 500 })).fetch,
        random: () => random,
        now: () => now,
      });
      const wait = ((await deliveryRow(id))!.nextAttemptAt! - now) / 1000;
      // After the 5th attempt: 5 h.
      expect(wait).toBeGreaterThanOrEqual(RETRY_DELAYS_SECONDS[4] * 0.9);
      expect(wait).toBeLessThanOrEqual(RETRY_DELAYS_SECONDS[4] * 1.1);
      expect(Number.isInteger(wait)).toBe(true);
    }
  });

  it("marks the delivery failed after the 10th attempt fails, whatever Retry-After asks", async () => {
    const f = await fixture({ delivery: { attempts: 9 } });
    const answer = () => new Response(null, { status: 503, headers: { "Retry-After": "60" } });
    await consume([f.deliveryId], { fetch: receiver(answer).fetch });
    expect(await deliveryRow(f.deliveryId)).toMatchObject({
      status: "failed",
      attempts: 10,
      lastStatusCode: 503,
      nextAttemptAt: null,
    });
    expect(queued()).toEqual([]);
  });
});

describe("the receiver's answer", () => {
  it("is read up to 1 KiB, then the body is cancelled, never read whole", async () => {
    const f = await fixture();
    const chunk = new TextEncoder().encode("x".repeat(400));
    let pulled = 0;
    let cancelled = false;
    const huge = () =>
      new Response(
        new ReadableStream({
          pull(controller) {
            pulled++;
            if (pulled > 10_000) controller.close();
            else controller.enqueue(chunk);
          },
          cancel() {
            cancelled = true;
          },
        }),
        { status: 500 },
      );
    await consume([f.deliveryId], { fetch: receiver(huge).fetch });
    const row = await deliveryRow(f.deliveryId);
    expect(row!.lastResponse).toBe("x".repeat(1024));
    expect(cancelled).toBe(true);
    expect(pulled).toBeLessThan(10);
  });

  it("keeps whole characters only: a character cut at 1 KiB is left out", async () => {
    const f = await fixture();
    // 1 byte, then 2-byte characters: the 1024th byte is the first half of one.
    const body = `a${"é".repeat(600)}`;
    await consume([f.deliveryId], { fetch: receiver(() => new Response(body, { status: 400 })).fetch });
    const stored = (await deliveryRow(f.deliveryId))!.lastResponse!;
    expect(stored).toBe(`a${"é".repeat(511)}`);
    expect(new TextEncoder().encode(stored).byteLength).toBe(1023);
  });
});

describe("claiming an attempt", () => {
  it("sends back a message that came early with the rest of the wait, attempting nothing", async () => {
    const f = await fixture({ delivery: { nextAttemptAt: Date.now() + 90_000 } });
    const now = Date.now();
    const hook = receiver(() => new Response(null, { status: 204 }));
    const { result } = await consume([f.deliveryId], { fetch: hook.fetch, now: () => now });
    expect(result.explicitAcks).toEqual(["msg-0"]);
    expect(hook.fetch).not.toHaveBeenCalled();
    const row = await deliveryRow(f.deliveryId);
    expect(queued()).toEqual([{ id: f.deliveryId, delaySeconds: Math.ceil((row!.nextAttemptAt! - now) / 1000) }]);
    expect(row).toMatchObject({ status: "pending", attempts: 0, leaseExpiresAt: null });
  });

  it("chains a wait longer than 12 h: each hop is at most the queue's longest delay", async () => {
    const now = Date.now();
    const f = await fixture({ delivery: { nextAttemptAt: now + 20 * 3_600_000, attempts: 8 } });
    await consume([f.deliveryId], { now: () => now });
    expect(queued()).toEqual([{ id: f.deliveryId, delaySeconds: MAX_QUEUE_DELAY_SECONDS }]);
    sendBatch.mockClear();
    const later = now + MAX_QUEUE_DELAY_SECONDS * 1000;
    await consume([f.deliveryId], { now: () => later });
    expect(queued()).toEqual([{ id: f.deliveryId, delaySeconds: 8 * 3_600 }]);
    expect((await deliveryRow(f.deliveryId))!.attempts).toBe(8);
  });

  it("does not attempt a delivery another consumer holds, and attempts it once its lease expired", async () => {
    const now = Date.now();
    const f = await fixture({ delivery: { nextAttemptAt: now, leaseExpiresAt: now + 10_000 } });
    const hook = receiver(() => new Response(null, { status: 204 }));
    const { result } = await consume([f.deliveryId], { fetch: hook.fetch, now: () => now });
    expect(result.explicitAcks).toEqual(["msg-0"]);
    expect(hook.fetch).not.toHaveBeenCalled();
    expect(queued()).toEqual([]);
    expect(await deliveryRow(f.deliveryId)).toMatchObject({ status: "pending", attempts: 0, leaseExpiresAt: now + 10_000 });

    await consume([f.deliveryId], { fetch: hook.fetch, now: () => now + 10_000 });
    expect(hook.fetch).toHaveBeenCalledTimes(1);
    expect(await deliveryRow(f.deliveryId)).toMatchObject({ status: "succeeded", attempts: 1 });
  });

  it("attempts a delivery once when two messages for it arrive together", async () => {
    const f = await fixture();
    const hook = receiver(() => new Response(null, { status: 500 }));
    const { result } = await consume([f.deliveryId, f.deliveryId], { fetch: hook.fetch });
    expect(result.explicitAcks.toSorted()).toEqual(["msg-0", "msg-1"]);
    expect(hook.fetch).toHaveBeenCalledTimes(1);
    expect(await deliveryRow(f.deliveryId)).toMatchObject({ attempts: 1, status: "pending" });
    expect(queued()).toHaveLength(1);
  });

  it("writes no outcome when its lease ran out and another consumer took the delivery over", async () => {
    const f = await fixture();
    // A consumer taking over claims after the lease expired, so its own lease ends later than the first one's.
    const takenOver = Date.now() + 2 * LEASE_MS;
    const slow = async () => {
      // Meanwhile the lease expired and another consumer claimed the delivery.
      await db.update(webhookDeliveries).set({ leaseExpiresAt: takenOver }).where(eq(webhookDeliveries.id, f.deliveryId));
      return new Response(null, { status: 500 });
    };
    const { lines } = await consume([f.deliveryId], { fetch: slow });
    expect(await deliveryRow(f.deliveryId)).toMatchObject({ status: "pending", attempts: 0, leaseExpiresAt: takenOver });
    expect(queued()).toEqual([]);
    expect(lines).toContainEqual(expect.objectContaining({ delivery_id: f.deliveryId, lease_lost: true }));
  });

  it("acks and drops a message for a delivery that is gone, succeeded or failed", async () => {
    const succeeded = await fixture({ delivery: { status: "succeeded", attempts: 1, nextAttemptAt: null } });
    const failed = await fixture({ delivery: { status: "failed", attempts: 10, nextAttemptAt: null } });
    const hook = receiver(() => new Response(null, { status: 204 }));
    const ids = [crypto.randomUUID(), succeeded.deliveryId, failed.deliveryId, "not-a-uuid"];
    const { result } = await consume(ids, { fetch: hook.fetch });
    expect(result.explicitAcks.toSorted()).toEqual(["msg-0", "msg-1", "msg-2", "msg-3"]);
    expect(hook.fetch).not.toHaveBeenCalled();
    expect(queued()).toEqual([]);
    expect(await deliveryRow(succeeded.deliveryId)).toMatchObject({ status: "succeeded", attempts: 1, leaseExpiresAt: null });
    expect(await deliveryRow(failed.deliveryId)).toMatchObject({ status: "failed", attempts: 10, leaseExpiresAt: null });
  });

  it("leaves the message to the queue's retry when the outcome cannot be recorded, after the lease", async () => {
    const f = await fixture();
    const now = Date.now();
    // Step 1 claims, the attempt is made, step 2 (recording its outcome) fails.
    const plan = new FaultPlan(2);
    const hook = receiver(() => new Response(null, { status: 204 }));
    const { result, lines } = await consume(
      [f.deliveryId],
      { fetch: hook.fetch, now: () => now },
      { DB: faultyD1(env.DB, plan) },
    );
    expect(plan.steps).toEqual(["D1 update webhook_deliveries + select webhook_deliveries", "D1 update webhook_deliveries"]);
    expect(hook.fetch).toHaveBeenCalledTimes(1);
    expect(result.explicitAcks).toEqual([]);
    expect(result.retryMessages).toEqual([{ msgId: "msg-0" }]);
    expect(lines).toContainEqual(
      expect.objectContaining({ level: "error", event: "delivery_failed", delivery_id: f.deliveryId }),
    );
    // The lease holds the delivery until the message comes back (its retry is delayed past the lease), then it is attempted again.
    expect(await deliveryRow(f.deliveryId)).toMatchObject({ status: "pending", attempts: 0, leaseExpiresAt: now + LEASE_MS });
    await consume([f.deliveryId], { fetch: hook.fetch, now: () => now + LEASE_MS });
    expect(await deliveryRow(f.deliveryId)).toMatchObject({ status: "succeeded", attempts: 1 });
  });
});

async function runScheduled(scheduledTime: number): Promise<LogLine[]> {
  const ctx = createExecutionContext();
  const { lines } = await withLogs(async () => {
    await worker.scheduled(createScheduledController({ scheduledTime, cron: "*/15 * * * *" }), env, ctx);
    await waitOnExecutionContext(ctx);
  });
  return lines;
}

describe("the scheduled sweep", () => {
  it("puts back on the queue the pending deliveries long overdue and not held, and only those", async () => {
    const now = Date.now();
    const lost = await fixture({ delivery: { nextAttemptAt: now - OVERDUE_MS - 1_000 } });
    const recent = await addDelivery(lost, { nextAttemptAt: now - OVERDUE_MS + 1_000 });
    const held = await addDelivery(lost, { nextAttemptAt: now - OVERDUE_MS - 1_000, leaseExpiresAt: now + 1_000 });
    const leaseExpired = await addDelivery(lost, { nextAttemptAt: now - OVERDUE_MS - 1_000, leaseExpiresAt: now - 1 });
    const done = await addDelivery(lost, { status: "succeeded", nextAttemptAt: now - OVERDUE_MS - 1_000 });
    const lines = await runScheduled(now);
    const ids = queued().map((m) => m.id);
    expect(ids).toContain(lost.deliveryId);
    expect(ids).toContain(leaseExpired);
    expect(ids).not.toContain(recent);
    expect(ids).not.toContain(held);
    expect(ids).not.toContain(done);
    expect(new Set(queued().map((m) => m.delaySeconds))).toEqual(new Set([0]));
    expect(lines).toContainEqual(
      expect.objectContaining({ level: "info", job: "requeue-overdue-deliveries", requeued: ids.length }),
    );
  });

  it(`sends at most ${SWEEP_LIMIT} a run, the most overdue first`, async () => {
    const now = Date.now();
    const f = await fixture({ delivery: { nextAttemptAt: now - 2 * THIRTY_DAYS_MS } });
    const backlog = SWEEP_LIMIT + 20;
    await db.run(sql`
      WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${backlog})
      INSERT INTO webhook_deliveries (id, customer_id, endpoint_id, event_id, status, attempts, next_attempt_at, created_at)
      SELECT lower(hex(randomblob(16))), ${f.customerId}, ${f.endpointId}, ${f.eventId}, 'pending', 1, ${now - THIRTY_DAYS_MS} + i, ${now}
      FROM n`);
    await runScheduled(now);
    const ids = queued().map((m) => m.id);
    expect(ids).toHaveLength(SWEEP_LIMIT);
    expect(ids[0]).toBe(f.deliveryId);
    // Out of the way of the next tests' sweeps.
    await db
      .update(webhookDeliveries)
      .set({ status: "failed", nextAttemptAt: null })
      .where(eq(webhookDeliveries.endpointId, f.endpointId));
  });

  it("delivers a delivery whose message was lost: through the real queue and the Worker's own consumer", async () => {
    sendBatch.mockRestore();
    // Only this test's delivery goes on the real queue: the earlier tests' are settled first.
    await db
      .update(webhookDeliveries)
      .set({ status: "failed", nextAttemptAt: null })
      .where(eq(webhookDeliveries.status, "pending"));
    const before = receivedRequests.length;
    const f = await fixture({ delivery: { nextAttemptAt: Date.now() - OVERDUE_MS - 60_000 } });
    await runScheduled(Date.now());
    await vi.waitUntil(async () => (await deliveryRow(f.deliveryId))?.status === "succeeded", { timeout: 10_000, interval: 100 });
    const received = receivedRequests.slice(before).filter((r) => r.headers["webhook-id"] === `evt_${f.eventId}`);
    expect(received).toHaveLength(1);
    expect(new Webhook(f.secret).verify(received[0]!.body, received[0]!.headers)).toMatchObject({ id: `evt_${f.eventId}` });
  });
});

describe("the scheduled purge", () => {
  it("deletes events and their deliveries older than 30 days, deliveries first, a few hundred a statement", async () => {
    const now = Date.now();
    const old = await fixture({
      createdAt: now - THIRTY_DAYS_MS - 1_000,
      delivery: { status: "succeeded", nextAttemptAt: null },
    });
    const young = await fixture({
      createdAt: now - THIRTY_DAYS_MS + 60_000,
      delivery: { status: "failed", nextAttemptAt: null },
    });
    // More old deliveries than one statement deletes.
    await db.run(sql`
      WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1200)
      INSERT INTO webhook_deliveries (id, customer_id, endpoint_id, event_id, status, attempts, next_attempt_at, created_at)
      SELECT lower(hex(randomblob(16))), ${old.customerId}, ${old.endpointId}, ${old.eventId}, 'failed', 10, NULL, ${old.eventCreatedAt}
      FROM n`);
    const count = async (customerId: string) => ({
      events: await db.$count(events, eq(events.customerId, customerId)),
      deliveries: await db.$count(webhookDeliveries, eq(webhookDeliveries.customerId, customerId)),
    });
    expect(await count(old.customerId)).toEqual({ events: 1, deliveries: 1201 });

    const lines = await runScheduled(now);
    expect(await count(old.customerId)).toEqual({ events: 0, deliveries: 0 });
    expect(await count(young.customerId)).toEqual({ events: 1, deliveries: 1 });
    expect(await db.select().from(eventCounts).where(eq(eventCounts.customerId, old.customerId))).toEqual([]);
    expect(lines).toContainEqual({ level: "info", job: "purge-expired-events", deliveries: 1201, events: 1 });
  });
});
