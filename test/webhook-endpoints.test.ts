// Webhook endpoints: create (secret shown once, default and named event types, the 10-endpoint limit), list, read,
// change, delete with its deliveries, secret rotation, the test event, the delivery log and a delivery's retry; the URL
// rules (each refused form, the insecure allowance only with its variable), other accounts' ids, idempotent replays.
import { applyD1Migrations } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, beforeEach, describe, expect, it, type MockInstance, vi } from "vitest";
import { EVENT_TYPES } from "../src/db/schema.ts";
import { addEndpoint, changeEndpoint } from "../src/webhooks/use-cases.ts";
import {
  bodyOf,
  callInIsolate,
  createCustomer,
  createWebhookEndpoint,
  expectStatus,
  json,
  makeOrderable,
  problem,
  type TestCustomer,
  testWork,
} from "./helpers.ts";

const SECRET = /^whsec_[A-Za-z0-9+/]{43}=$/;
const DAY_MS = 86_400_000;

/** What the requests of a test put on the delivery queue (the queue itself is not used: no consumer runs here). */
let enqueued: MockInstance<Queue<string>["sendBatch"]>;

beforeEach(() => {
  enqueued = vi
    .spyOn(env.WEBHOOK_DELIVERIES, "sendBatch")
    .mockResolvedValue({ metadata: { metrics: { backlogCount: 0, backlogBytes: 0 } } });
});

afterEach(() => {
  vi.restoreAllMocks();
});

function enqueuedIds(): string[] {
  return enqueued.mock.calls.flatMap(([messages]) => [...messages].map((message) => message.body));
}

const bare = (id: string) => id.replace(/^[a-z]+_/, "");

function endpoints(customer: TestCustomer) {
  return customer.account["webhook-endpoints"];
}

function endpointParam(customer: TestCustomer, endpointId: string) {
  return { customer_slug: customer.slug, endpoint_id: endpointId };
}

async function sendTest(customer: TestCustomer, endpointId: string) {
  return json(await endpoints(customer)[":endpoint_id"].test.$post({ param: endpointParam(customer, endpointId) }), 202);
}

async function listDeliveries(customer: TestCustomer, endpointId: string, query: Record<string, string> = {}) {
  return json(
    await endpoints(customer)[":endpoint_id"].deliveries.$get({ param: endpointParam(customer, endpointId), query }),
    200,
  );
}

interface EndpointRow {
  secret: string;
  event_types: string;
  previous_secret: string | null;
  previous_secret_expires_at: number | null;
  updated_at: number;
}

async function endpointRow(endpointId: string): Promise<EndpointRow | null> {
  return env.DB.prepare("SELECT * FROM webhook_endpoints WHERE id = ?").bind(bare(endpointId)).first<EndpointRow>();
}

async function deliveryRows(where: string, ...values: string[]) {
  const { results } = await env.DB.prepare(`SELECT * FROM webhook_deliveries WHERE ${where}`)
    .bind(...values)
    .all<{
      id: string;
      endpoint_id: string;
      event_id: string;
      status: string;
      attempts: number;
      next_attempt_at: number | null;
    }>();
  return results;
}

/** Moves a delivery on as the consumer would: finished, after some attempts. */
async function finishDelivery(deliveryId: string, status: "succeeded" | "failed", attempts: number): Promise<void> {
  await env.DB.prepare(
    "UPDATE webhook_deliveries SET status = ?, attempts = ?, last_status_code = ?, last_error = ?, next_attempt_at = NULL, delivered_at = ? WHERE id = ?",
  )
    .bind(
      status,
      attempts,
      status === "succeeded" ? 204 : 500,
      status === "succeeded" ? null : "HTTP 500",
      status === "succeeded" ? Date.now() : null,
      bare(deliveryId),
    )
    .run();
}

describe("POST /api/customers/{slug}/webhook-endpoints", () => {
  it("creates an enabled endpoint for every type, present and future, with its secret shown and a Location", async () => {
    const customer = await createCustomer();
    const response = await endpoints(customer).$post({
      param: { customer_slug: customer.slug },
      json: { url: "https://hooks.test/orders", description: "Order service" },
    });
    const body = await json(response, 201);
    expect(body).toEqual({
      id: expect.stringMatching(/^we_[0-9a-f-]{36}$/),
      url: "https://hooks.test/orders",
      description: "Order service",
      event_types: [...EVENT_TYPES],
      every_event_type: true,
      status: "enabled",
      secret: expect.stringMatching(SECRET),
      created_at: expect.any(String),
      updated_at: body.created_at,
    });
    // Stored as every type, so types added later reach it too.
    expect((await endpointRow(body.id))?.event_types).toBe('["*"]');
    expect(atob(body.secret.slice("whsec_".length))).toHaveLength(32);
    expect(response.headers.get("Location")).toBe(`/api/customers/${customer.slug}/webhook-endpoints/${body.id}`);
    expect((await endpointRow(body.id))?.secret).toBe(body.secret);
    // Each endpoint its own secret.
    expect((await createWebhookEndpoint(customer)).secret).not.toBe(body.secret);
  });

  it("takes the named event types, repeats collapsed, in the catalogue's order; description absent is null", async () => {
    const customer = await createCustomer();
    const body = await createWebhookEndpoint(customer, {
      url: "https://hooks.test/a",
      event_types: ["kyc.approved", "order.created", "kyc.approved"],
    });
    expect(body.event_types).toEqual(["order.created", "kyc.approved"]);
    expect(body.description).toBeNull();
  });

  it.each([
    ["an unknown type", { url: "https://hooks.test/a", event_types: ["order.shipped"] }, "/event_types/0"],
    ['"*" beside a type', { url: "https://hooks.test/a", event_types: ["*", "order.created"] }, "/event_types"],
    ["an empty list", { url: "https://hooks.test/a", event_types: [] }, "/event_types"],
    ["event_types not a list", { url: "https://hooks.test/a", event_types: "order.created" }, "/event_types"],
    ["no url", { description: "x" }, "/url"],
    ["a url that is not a string", { url: 42 }, "/url"],
    ["an unknown field", { url: "https://hooks.test/a", secret: "whsec_mine" }, "/secret"],
    ["a status (always enabled at first)", { url: "https://hooks.test/a", status: "disabled" }, "/status"],
    ["a description with a line break", { url: "https://hooks.test/a", description: "a\nb" }, "/description"],
    ["a description over 500 characters", { url: "https://hooks.test/a", description: "x".repeat(501) }, "/description"],
  ])("refuses %s (400)", async (_, body, pointer) => {
    const customer = await createCustomer();
    const refused = await problem(
      await customer.callJson("POST", `/api/customers/${customer.slug}/webhook-endpoints`, body),
      400,
      "validation_error",
    );
    expect(refused.errors).toEqual([expect.objectContaining({ location: "body", pointer })]);
    expect(await endpointCount(customer)).toBe(0);
  });

  it("reports a refused url with every other invalid field at once", async () => {
    const customer = await createCustomer();
    const refused = await problem(
      await customer.callJson("POST", `/api/customers/${customer.slug}/webhook-endpoints`, {
        url: "https://localhost/",
        event_types: ["nope"],
      }),
      400,
      "validation_error",
    );
    expect(refused.errors?.map((e) => e.pointer).sort()).toEqual(["/event_types/0", "/url"]);
  });

  it("allows at most 10 endpoints per account (409 conflict), and counts only the account's own", async () => {
    const customer = await createCustomer();
    const other = await createCustomer();
    await createWebhookEndpoint(other);
    for (let i = 0; i < 10; i++) await createWebhookEndpoint(customer, { url: `https://hooks.test/${i}` });
    const refused = await problem(
      await endpoints(customer).$post({ param: { customer_slug: customer.slug }, json: { url: "https://hooks.test/11" } }),
      409,
      "conflict",
    );
    expect(refused.detail).toContain("10");
    expect(await endpointCount(customer)).toBe(10);
    // Room again once one is deleted.
    const [first] = (await json(await endpoints(customer).$get({ param: { customer_slug: customer.slug }, query: {} }), 200))
      .data;
    await expectStatus(await endpoints(customer)[":endpoint_id"].$delete({ param: endpointParam(customer, first!.id) }), 200);
    await createWebhookEndpoint(customer);
  });

  it("never passes 10 under concurrent creates", async () => {
    const customer = await createCustomer();
    const responses = await Promise.all(
      Array.from({ length: 16 }, (_, i) =>
        endpoints(customer).$post({ param: { customer_slug: customer.slug }, json: { url: `https://hooks.test/${i}` } }),
      ),
    );
    const statuses = await Promise.all(
      responses.map(async (r): Promise<number> => {
        await r.text();
        return r.status;
      }),
    );
    expect(statuses.filter((s) => s === 201)).toHaveLength(10);
    expect(statuses.filter((s) => s === 409)).toHaveLength(6);
    expect(await endpointCount(customer)).toBe(10);
  });

  it("replays a create with the same Idempotency-Key: the same endpoint and secret, one row", async () => {
    const customer = await createCustomer();
    const send = () =>
      customer.call(`/api/customers/${customer.slug}/webhook-endpoints`, {
        method: "POST",
        headers: { "Content-Type": "application/json", "Idempotency-Key": "create-endpoint-1" },
        body: JSON.stringify({ url: "https://hooks.test/once" }),
      });
    const first = await send();
    const firstBody = await first.text();
    expect(first.status, firstBody).toBe(201);
    const again = await send();
    expect(again.status).toBe(201);
    expect(again.headers.get("Idempotent-Replayed")).toBe("true");
    expect(again.headers.get("Location")).toBe(first.headers.get("Location"));
    expect(await again.text()).toBe(firstBody);
    expect(await endpointCount(customer)).toBe(1);
  });
});

async function endpointCount(customer: TestCustomer): Promise<number> {
  const row = await env.DB.prepare("SELECT count(*) AS n FROM webhook_endpoints WHERE customer_id = ?")
    .bind(customer.customerId)
    .first<{ n: number }>();
  return row?.n ?? -1;
}

describe("URL rules", () => {
  // Each form with the rule that refuses it (the start of its message).
  const HTTPS = "must be an https:// URL";
  const ABSOLUTE = "must be an absolute URL";
  const USER_INFO = "must not contain a user name or password";
  const IP = "must name its host, not an IP address";
  const LOCAL =
    "must name a public host: not localhost, a name without a dot, nor a .local, .internal, .localhost or .home.arpa name";
  const SPACES = "must not contain spaces or control characters";
  const INVISIBLE = "must not contain invisible format characters such as zero-width spaces, joiners or direction marks";
  const REFUSED: [string, string, string][] = [
    ["http://hooks.test/a", "http", HTTPS],
    ["ftp://hooks.test/a", "another scheme", HTTPS],
    ["HTTP://hooks.test/a", "http in capitals", HTTPS],
    ["https:hooks.test/a", "without //", HTTPS],
    ["https:\\\\hooks.test/a", "with backslashes", HTTPS],
    ["hooks.test/a", "relative", ABSOLUTE],
    ["//hooks.test/a", "scheme-relative", ABSOLUTE],
    ["", "empty", ABSOLUTE],
    ["https://", "without host", ABSOLUTE],
    [
      `https://hooks.test/${"a".repeat(2048 - "https://hooks.test/".length + 1)}`,
      "2,049 characters",
      "must be at most 2048 characters",
    ],
    ["https://user:pass@hooks.test/a", "user and password", USER_INFO],
    ["https://user@hooks.test/a", "user", USER_INFO],
    ["https://:pass@hooks.test/a", "password", USER_INFO],
    ["https://@hooks.test/a", "empty user info", USER_INFO],
    // The parser skips slashes after the scheme's: the user info is past the first one.
    ["https:///user@hooks.test/a", "user after a third slash", USER_INFO],
    ["https:///:pass@hooks.test/a", "password after a third slash", USER_INFO],
    ["https://127.0.0.1/a", "IPv4", IP],
    ["https://93.184.216.34/a", "public IPv4", IP],
    ["https://2130706433/a", "IPv4 as one number", IP],
    ["https://0x7f.0.0.1/a", "IPv4 in hex", IP],
    ["https://0177.0.0.1/a", "IPv4 in octal", IP],
    ["https://127.1/a", "IPv4 shortened", IP],
    ["https://0/a", "IPv4 zero", IP],
    ["https://10.0.0.1/a", "private IPv4", IP],
    ["https://127.0.0.1./a", "IPv4 with a trailing dot", IP],
    ["https://[::1]/a", "IPv6 loopback", IP],
    ["https://[2606:4700::1111]/a", "public IPv6", IP],
    ["https://[::ffff:127.0.0.1]/a", "IPv4-mapped IPv6", IP],
    ["https://localhost/a", "localhost", LOCAL],
    ["https://LocalHost/a", "localhost in capitals", LOCAL],
    ["https://localhost./a", "localhost with a trailing dot", LOCAL],
    ["https://localhost:8443/a", "localhost with a port", LOCAL],
    ["https://%6Cocalhost/a", "localhost percent-encoded", LOCAL],
    ["https://localhost\u3002/a", "localhost with an ideographic full stop", LOCAL],
    ["https://printer.local/a", ".local", LOCAL],
    ["https://db.corp.INTERNAL/a", ".internal in capitals", LOCAL],
    ["https://api.internal./a", ".internal with a trailing dot", LOCAL],
    ["https://app.localhost/a", ".localhost", LOCAL],
    ["https://app.localhost../a", ".localhost with trailing dots", LOCAL],
    ["https://internal/a", "a single label", LOCAL],
    ["https://metadata./a", "a single label with a trailing dot", LOCAL],
    ["https://router.home.arpa/a", ".home.arpa", LOCAL],
    ["https://NAS.Home.Arpa./a", ".home.arpa in capitals, with a trailing dot", LOCAL],
    ["https://home.arpa/a", "home.arpa itself", LOCAL],
    ["https://hooks.test/\u202efdp.exe", "a right-to-left override", `${INVISIBLE} (found U+202E)`],
    ["https://hoo\u200bks.test/a", "a zero-width space", `${INVISIBLE} (found U+200B)`],
    ["https://hooks.test/\ud800", "a lone surrogate", "must be valid Unicode text (no unpaired surrogates)"],
    [" https://hooks.test/a", "a leading space", SPACES],
    ["https://hooks.test/a b", "a space", SPACES],
    ["https://hooks.test/a\n", "a line break", SPACES],
    ["https://hooks.test/a\t", "a tab", SPACES],
    ["https://hooks.test/\u0000", "NUL", SPACES],
    ["https://hooks.test/\u007f", "DEL", SPACES],
  ];

  it.each(REFUSED)("refuses %j (%s) with 400 at /url, on create and on update", async (url, _, message) => {
    const customer = await createCustomer();
    const refused = await problem(
      await customer.callJson("POST", `/api/customers/${customer.slug}/webhook-endpoints`, { url }),
      400,
      "validation_error",
    );
    expect(refused.errors).toEqual([{ location: "body", pointer: "/url", message }]);
    expect(refused.detail).toBe(`url ${message}`);
    const endpoint = await createWebhookEndpoint(customer);
    const onUpdate = await problem(
      await customer.callJson("PATCH", `/api/customers/${customer.slug}/webhook-endpoints/${endpoint.id}`, { url }),
      400,
      "validation_error",
    );
    expect(onUpdate.errors).toEqual([{ location: "body", pointer: "/url", message }]);
    expect(await endpointCount(customer)).toBe(1);
  });

  const ACCEPTED = [
    "https://hooks.test",
    "https://hooks.test/a",
    "https://HOOKS.test/a",
    "https://hooks.test:8443/a?b=c#d",
    "https://xn--bcher-kva.test/a",
    "https://hooks.test./a",
    "https://local.hooks.test/internal",
    "https://localhost.hooks.test/a",
    `https://hooks.test/${"a".repeat(2048 - "https://hooks.test/".length)}`,
  ];

  it.each(ACCEPTED)("takes %s as written", async (url) => {
    const customer = await createCustomer();
    const created = await createWebhookEndpoint(customer, { url });
    expect(created.url).toBe(url);
  });

  const insecure = { bindings: { WEBHOOK_ALLOW_INSECURE_URLS: "true" } };

  it("is judged by the endpoint's actions themselves, so a front end that validates nothing cannot skip it", async () => {
    const customer = await createCustomer();
    const workIn = (allowsInsecureWebhookUrls: boolean) => testWork({ deployment: { allowsInsecureWebhookUrls } });
    const endpoint = { url: "http://127.0.0.1:8788/", eventTypes: [...EVENT_TYPES] };
    const refused = await addEndpoint(workIn(false), customer.customerId, endpoint);
    expect(refused.ok ? refused.value : refused.problem).toMatchObject({
      code: "validation_error",
      errors: [{ location: "body", pointer: "/url", message: "must be an https:// URL" }],
    });
    expect(await endpointCount(customer)).toBe(0);
    const created = await addEndpoint(workIn(true), customer.customerId, endpoint);
    if (!created.ok) throw new Error(created.problem.message);
    const changed = await changeEndpoint(workIn(false), customer.customerId, created.value.id, { url: "https://localhost/" });
    expect(changed.ok ? changed.value : changed.problem).toMatchObject({ code: "validation_error" });
    const stored = await env.DB.prepare("SELECT url FROM webhook_endpoints WHERE id = ?").bind(created.value.id).first();
    expect(stored).toEqual({ url: "http://127.0.0.1:8788/" });
  });

  function createInIsolate(customer: TestCustomer, url: string, bindings = insecure) {
    return callInIsolate(
      `/api/customers/${customer.slug}/webhook-endpoints`,
      {
        method: "POST",
        headers: { Authorization: `Bearer ${customer.key}`, "Content-Type": "application/json" },
        body: JSON.stringify({ url }),
      },
      bindings,
    );
  }

  const INSECURE = [
    "http://hooks.test/a",
    "http://127.0.0.1:8788/",
    "http://127.255.0.1/",
    "http://localhost:8788/",
    "http://LOCALHOST./",
    "http://[::1]:8788/",
    "https://localhost/a",
    "https://127.0.0.1/a",
  ];

  it.each(INSECURE)("takes %s only where WEBHOOK_ALLOW_INSECURE_URLS is true", async (url) => {
    const customer = await createCustomer();
    await problem(
      await createInIsolate(customer, url, { bindings: { WEBHOOK_ALLOW_INSECURE_URLS: "" } }),
      400,
      "validation_error",
    );
    await problem(
      await createInIsolate(customer, url, { bindings: { WEBHOOK_ALLOW_INSECURE_URLS: "1" } }),
      400,
      "validation_error",
    );
    const created = await createInIsolate(customer, url);
    const text = await created.text();
    expect(created.status, text).toBe(201);
    expect(JSON.parse(text).url).toBe(url);
    const patched = await callInIsolate(
      `/api/customers/${customer.slug}/webhook-endpoints/${JSON.parse(text).id}`,
      {
        method: "PATCH",
        headers: { Authorization: `Bearer ${customer.key}`, "Content-Type": "application/json" },
        body: JSON.stringify({ url }),
      },
      insecure,
    );
    await expectStatus(patched, 200);
  });

  const STILL_REFUSED = [
    "ftp://localhost/",
    "http://user@localhost:8788/",
    "http://10.0.0.1/",
    "http://192.168.1.20/",
    "http://[fe80::1]/",
    "http://[::ffff:127.0.0.1]/",
    "http://printer.local/",
    "http://db.internal/",
    "http://app.localhost/",
    "localhost:8788",
  ];

  it.each(STILL_REFUSED)("refuses %s even where insecure URLs are allowed", async (url) => {
    const customer = await createCustomer();
    const refused = await problem(await createInIsolate(customer, url), 400, "validation_error");
    expect(refused.errors).toEqual([expect.objectContaining({ pointer: "/url" })]);
  });
});

describe("GET webhook endpoints", () => {
  it("lists the account's endpoints newest first, paginated, never with a secret", async () => {
    const customer = await createCustomer();
    const other = await createCustomer();
    await createWebhookEndpoint(other);
    const created = [];
    for (let i = 0; i < 3; i++) created.push(await createWebhookEndpoint(customer, { url: `https://hooks.test/${i}` }));
    const response = await endpoints(customer).$get({ param: { customer_slug: customer.slug }, query: { limit: "2" } });
    const text = await response.clone().text();
    const page = await json(response, 200);
    expect(page.meta).toEqual({ total: 3, page: 1, limit: 2, totalPages: 2, hasNextPage: true, hasPreviousPage: false });
    const second = await json(
      await endpoints(customer).$get({ param: { customer_slug: customer.slug }, query: { limit: "2", page: "2" } }),
      200,
    );
    const listed = [...page.data, ...second.data];
    const newestFirst = [...created].sort((a, b) => b.created_at.localeCompare(a.created_at) || b.id.localeCompare(a.id));
    expect(listed.map((e) => e.id)).toEqual(newestFirst.map((e) => e.id));
    for (const endpoint of listed) expect(endpoint).not.toHaveProperty("secret");
    for (const { secret } of created) expect(text).not.toContain(secret.slice("whsec_".length));
  });

  it("reads one endpoint by we_ id or bare uuid, never with its secret", async () => {
    const customer = await createCustomer();
    const { secret, ...endpoint } = await createWebhookEndpoint(customer);
    for (const id of [endpoint.id, bare(endpoint.id), endpoint.id.toUpperCase().replace("WE_", "we_")]) {
      const response = await endpoints(customer)[":endpoint_id"].$get({ param: endpointParam(customer, id) });
      const text = await response.text();
      expect(response.status).toBe(200);
      expect(JSON.parse(text)).toEqual(endpoint);
      expect(text).not.toContain(secret.slice("whsec_".length));
    }
  });

  it("answers 400 for a malformed id and 404 for an unknown one", async () => {
    const customer = await createCustomer();
    await problem(
      await endpoints(customer)[":endpoint_id"].$get({ param: endpointParam(customer, "we_nope") }),
      400,
      "validation_error",
    );
    await problem(
      await endpoints(customer)[":endpoint_id"].$get({ param: endpointParam(customer, `whd_${crypto.randomUUID()}`) }),
      400,
      "validation_error",
    );
    await problem(
      await endpoints(customer)[":endpoint_id"].$get({ param: endpointParam(customer, crypto.randomUUID()) }),
      404,
      "not_found",
    );
  });
});

describe("PATCH webhook endpoints", () => {
  it("changes only the fields named; null clears the description; status disables and enables", async () => {
    const customer = await createCustomer();
    const endpoint = await createWebhookEndpoint(customer, { url: "https://hooks.test/a", description: "first" });
    const patch = (body: object) =>
      customer.callJson("PATCH", `/api/customers/${customer.slug}/webhook-endpoints/${endpoint.id}`, body);
    const moved = JSON.parse(await (await patch({ url: "https://hooks.test/b" })).text());
    expect(moved).toMatchObject({
      url: "https://hooks.test/b",
      description: "first",
      event_types: [...EVENT_TYPES],
      every_event_type: true,
      status: "enabled",
    });
    expect(moved.updated_at >= endpoint.updated_at).toBe(true);
    const cleared = JSON.parse(
      await (await patch({ description: null, event_types: ["order.fulfilled", "order.fulfilled"] })).text(),
    );
    expect(cleared).toMatchObject({
      url: "https://hooks.test/b",
      description: null,
      event_types: ["order.fulfilled"],
      every_event_type: false,
    });
    const every = JSON.parse(await (await patch({ event_types: ["*", "*"] })).text());
    expect(every).toMatchObject({ event_types: [...EVENT_TYPES], every_event_type: true });
    const off = await json(
      await endpoints(customer)[":endpoint_id"].$patch({
        param: endpointParam(customer, endpoint.id),
        json: { status: "disabled" },
      }),
      200,
    );
    expect(off.status).toBe("disabled");
    expect(off).not.toHaveProperty("secret");
    const on = await json(
      await endpoints(customer)[":endpoint_id"].$patch({
        param: endpointParam(customer, endpoint.id),
        json: { status: "enabled" },
      }),
      200,
    );
    expect(on).toEqual({ ...off, status: "enabled", updated_at: on.updated_at });
    // The secret is not changed by an update.
    expect((await endpointRow(endpoint.id))?.secret).toBe(endpoint.secret);
  });

  it.each([
    ["an empty body", {}, ""],
    ["an unknown status", { status: "paused" }, "/status"],
    ["an empty event_types", { event_types: [] }, "/event_types"],
    ["an unknown event type", { event_types: ["order.shipped"] }, "/event_types/0"],
    ["a secret", { secret: "whsec_x" }, "/secret"],
    ["a null url", { url: null }, "/url"],
  ])("refuses %s (400) and changes nothing", async (_, body, pointer) => {
    const customer = await createCustomer();
    const endpoint = await createWebhookEndpoint(customer);
    const refused = await problem(
      await customer.callJson("PATCH", `/api/customers/${customer.slug}/webhook-endpoints/${endpoint.id}`, body),
      400,
      "validation_error",
    );
    expect(refused.errors?.[0]?.pointer).toBe(pointer);
    const { secret, ...unchanged } = endpoint;
    expect(
      await json(await endpoints(customer)[":endpoint_id"].$get({ param: endpointParam(customer, endpoint.id) }), 200),
    ).toEqual(unchanged);
  });
});

describe("POST …/{endpoint_id}/rotate-secret", () => {
  it("answers a new secret and keeps the old one signing for 24 hours", async () => {
    const customer = await createCustomer();
    const endpoint = await createWebhookEndpoint(customer);
    const before = Date.now();
    const rotated = await json(
      await endpoints(customer)[":endpoint_id"]["rotate-secret"].$post({ param: endpointParam(customer, endpoint.id) }),
      200,
    );
    expect(Object.keys(rotated)).toEqual(["secret"]);
    expect(rotated.secret).toMatch(SECRET);
    expect(rotated.secret).not.toBe(endpoint.secret);
    const row = await endpointRow(endpoint.id);
    expect(row).toMatchObject({ secret: rotated.secret, previous_secret: endpoint.secret });
    expect(row?.previous_secret_expires_at).toBeGreaterThanOrEqual(before + DAY_MS);
    expect(row?.previous_secret_expires_at).toBeLessThanOrEqual(Date.now() + DAY_MS);
    // A second rotation: the secret it replaces is the one that keeps signing.
    const again = await json(
      await endpoints(customer)[":endpoint_id"]["rotate-secret"].$post({ param: endpointParam(customer, endpoint.id) }),
      200,
    );
    expect(await endpointRow(endpoint.id)).toMatchObject({ secret: again.secret, previous_secret: rotated.secret });
    // Never shown anywhere else.
    const read = await endpoints(customer)[":endpoint_id"].$get({ param: endpointParam(customer, endpoint.id) });
    expect(await read.text()).not.toContain(again.secret.slice("whsec_".length));
  });
});

describe("POST …/{endpoint_id}/test", () => {
  it("records one webhook.test event delivered to this endpoint only, put on the queue", async () => {
    const customer = await createCustomer();
    const endpoint = await createWebhookEndpoint(customer, { url: "https://hooks.test/a", event_types: ["order.created"] });
    const sibling = await createWebhookEndpoint(customer, { url: "https://hooks.test/b" });
    const other = await createCustomer();
    await createWebhookEndpoint(other);
    const delivery = await sendTest(customer, endpoint.id);
    expect(delivery).toEqual({
      id: expect.stringMatching(/^whd_[0-9a-f-]{36}$/),
      event_id: expect.stringMatching(/^evt_[0-9a-f-]{36}$/),
      event_type: "webhook.test",
      status: "pending",
      attempts: 0,
      last_status_code: null,
      last_error: null,
      next_attempt_at: delivery.created_at,
      created_at: expect.any(String),
      delivered_at: null,
    });
    const { results: events } = await env.DB.prepare("SELECT id, type, data FROM events WHERE customer_id = ?")
      .bind(customer.customerId)
      .all<{ id: string; type: string; data: string }>();
    expect(events).toEqual([{ id: bare(delivery.event_id), type: "webhook.test", data: expect.any(String) }]);
    expect(JSON.parse(events[0]!.data)).toEqual({ webhook_endpoint_id: endpoint.id });
    const deliveries = await deliveryRows("event_id = ?", bare(delivery.event_id));
    expect(deliveries.map((d) => [d.id, d.endpoint_id])).toEqual([[bare(delivery.id), bare(endpoint.id)]]);
    expect(enqueuedIds()).toEqual([bare(delivery.id)]);
    expect((await listDeliveries(customer, sibling.id)).data).toEqual([]);
    expect((await listDeliveries(customer, endpoint.id)).data).toEqual([delivery]);
  });

  it("takes webhook.test like any type: an endpoint subscribed to it alone is sent test events only", async () => {
    const customer = await createCustomer();
    await makeOrderable("US", "mobile");
    const tests = await createWebhookEndpoint(customer, { url: "https://hooks.test/t", event_types: ["webhook.test"] });
    expect(tests).toMatchObject({ event_types: ["webhook.test"], every_event_type: false });
    const every = await createWebhookEndpoint(customer, { url: "https://hooks.test/all" });
    await json(
      await customer.account.orders.$post({
        param: { customer_slug: customer.slug },
        json: { number_type: "mobile", country_code: "US", quantity: 1 },
      }),
      201,
    );
    expect((await listDeliveries(customer, tests.id)).data).toEqual([]);
    expect((await listDeliveries(customer, every.id)).data.map((d) => d.event_type)).toEqual(["order.created"]);
    const delivery = await sendTest(customer, tests.id);
    expect((await listDeliveries(customer, tests.id)).data).toEqual([delivery]);
    // A test event goes to the endpoint it was sent to, never to another that takes every type.
    expect((await listDeliveries(customer, every.id)).data.map((d) => d.event_type)).toEqual(["order.created"]);
    // The events list filters by it as by any type.
    const events = async (type: string) =>
      bodyOf<{ data: { type: string }[] }>(await customer.call(`/api/customers/${customer.slug}/events?type=${type}`));
    expect((await events("webhook.test")).data.map((event) => event.type)).toEqual(["webhook.test"]);
    expect((await events("order.created,webhook.test")).data.map((event) => event.type)).toEqual([
      "webhook.test",
      "order.created",
    ]);
  });

  it("refuses a disabled endpoint (409) and records nothing", async () => {
    const customer = await createCustomer();
    const endpoint = await createWebhookEndpoint(customer);
    await expectStatus(
      await endpoints(customer)[":endpoint_id"].$patch({
        param: endpointParam(customer, endpoint.id),
        json: { status: "disabled" },
      }),
      200,
    );
    const refused = await problem(
      await endpoints(customer)[":endpoint_id"].test.$post({ param: endpointParam(customer, endpoint.id) }),
      409,
      "conflict",
    );
    expect(refused.detail).toContain("disabled");
    const row = await env.DB.prepare("SELECT count(*) AS n FROM events WHERE customer_id = ?")
      .bind(customer.customerId)
      .first<{ n: number }>();
    expect(row?.n).toBe(0);
    expect(enqueued).not.toHaveBeenCalled();
  });

  it("replays a test with the same Idempotency-Key: one event, one delivery, one message", async () => {
    const customer = await createCustomer();
    const endpoint = await createWebhookEndpoint(customer);
    const send = () =>
      customer.call(`/api/customers/${customer.slug}/webhook-endpoints/${endpoint.id}/test`, {
        method: "POST",
        headers: { "Idempotency-Key": "test-event-1" },
      });
    const first = await send();
    const firstBody = await first.text();
    expect(first.status, firstBody).toBe(202);
    const again = await send();
    expect(again.status).toBe(202);
    expect(again.headers.get("Idempotent-Replayed")).toBe("true");
    expect(await again.text()).toBe(firstBody);
    expect(await deliveryRows("endpoint_id = ?", bare(endpoint.id))).toHaveLength(1);
    expect(enqueuedIds()).toEqual([bare(JSON.parse(firstBody).id)]);
  });
});

describe("GET …/{endpoint_id}/deliveries", () => {
  it("lists the endpoint's deliveries newest first, paginated, filtered by status", async () => {
    const customer = await createCustomer();
    const endpoint = await createWebhookEndpoint(customer);
    const sent: Awaited<ReturnType<typeof sendTest>>[] = [];
    for (let i = 0; i < 3; i++) sent.push(await sendTest(customer, endpoint.id));
    await finishDelivery(sent[0]!.id, "succeeded", 1);
    await finishDelivery(sent[1]!.id, "failed", 10);
    const all = await listDeliveries(customer, endpoint.id);
    const newestFirst = [...sent].sort((a, b) => b.created_at.localeCompare(a.created_at) || b.id.localeCompare(a.id));
    expect(all.data.map((d) => d.id)).toEqual(newestFirst.map((d) => d.id));
    expect(all.meta).toMatchObject({ total: 3, totalPages: 1 });
    const failed = all.data.find((d) => d.id === sent[1]!.id);
    expect(failed).toMatchObject({
      status: "failed",
      attempts: 10,
      last_status_code: 500,
      last_error: "HTTP 500",
      next_attempt_at: null,
    });
    const succeeded = all.data.find((d) => d.id === sent[0]!.id);
    expect(succeeded?.delivered_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

    const finished = await listDeliveries(customer, endpoint.id, { status: "failed,succeeded,failed" });
    expect(finished.data.map((d) => d.id).sort()).toEqual([sent[0]!.id, sent[1]!.id].sort());
    expect(finished.meta.total).toBe(2);
    expect((await listDeliveries(customer, endpoint.id, { status: "pending" })).data.map((d) => d.id)).toEqual([sent[2]!.id]);
    const page2 = await listDeliveries(customer, endpoint.id, { limit: "2", page: "2" });
    expect(page2.data.map((d) => d.id)).toEqual([newestFirst[2]!.id]);
    expect(page2.meta).toMatchObject({ total: 3, totalPages: 2, hasNextPage: false, hasPreviousPage: true });
  });

  it("refuses an unknown status (400)", async () => {
    const customer = await createCustomer();
    const endpoint = await createWebhookEndpoint(customer);
    const refused = await problem(
      await customer.call(`/api/customers/${customer.slug}/webhook-endpoints/${endpoint.id}/deliveries?status=pending,lost`),
      400,
      "validation_error",
    );
    expect(refused.errors?.[0]).toMatchObject({ location: "query", pointer: "status" });
  });
});

describe("POST …/deliveries/{delivery_id}/retry", () => {
  it("makes a failed or succeeded delivery pending and due now, its attempts going on, and queues it", async () => {
    const customer = await createCustomer();
    const endpoint = await createWebhookEndpoint(customer);
    for (const status of ["failed", "succeeded"] as const) {
      const delivery = await sendTest(customer, endpoint.id);
      await finishDelivery(delivery.id, status, 4);
      enqueued.mockClear();
      const before = Date.now();
      const retried = await json(
        await endpoints(customer)[":endpoint_id"].deliveries[":delivery_id"].retry.$post({
          param: { ...endpointParam(customer, endpoint.id), delivery_id: delivery.id },
        }),
        202,
      );
      expect(retried).toMatchObject({ id: delivery.id, event_id: delivery.event_id, status: "pending", attempts: 4 });
      expect(Date.parse(retried.next_attempt_at ?? "")).toBeGreaterThanOrEqual(before);
      expect(Date.parse(retried.next_attempt_at ?? "")).toBeLessThanOrEqual(Date.now());
      expect(enqueuedIds()).toEqual([bare(delivery.id)]);
      const [row] = await deliveryRows("id = ?", bare(delivery.id));
      expect(row).toMatchObject({ status: "pending", attempts: 4 });
    }
  });

  it("refuses a pending delivery (409): it is on its way already", async () => {
    const customer = await createCustomer();
    const endpoint = await createWebhookEndpoint(customer);
    const delivery = await sendTest(customer, endpoint.id);
    enqueued.mockClear();
    const refused = await problem(
      await customer.call(`/api/customers/${customer.slug}/webhook-endpoints/${endpoint.id}/deliveries/${delivery.id}/retry`, {
        method: "POST",
      }),
      409,
      "conflict",
    );
    expect(refused.detail).toContain("pending");
    expect(enqueued).not.toHaveBeenCalled();
  });

  it("refuses a delivery of a disabled endpoint (409), leaving it as it was", async () => {
    const customer = await createCustomer();
    const endpoint = await createWebhookEndpoint(customer);
    const delivery = await sendTest(customer, endpoint.id);
    await finishDelivery(delivery.id, "failed", 10);
    await expectStatus(
      await endpoints(customer)[":endpoint_id"].$patch({
        param: endpointParam(customer, endpoint.id),
        json: { status: "disabled" },
      }),
      200,
    );
    await problem(
      await customer.call(`/api/customers/${customer.slug}/webhook-endpoints/${endpoint.id}/deliveries/${delivery.id}/retry`, {
        method: "POST",
      }),
      409,
      "conflict",
    );
    const [row] = await deliveryRows("id = ?", bare(delivery.id));
    expect(row?.status).toBe("failed");
  });

  it("answers 404 for a delivery of another endpoint of the account, and 400 for a malformed id", async () => {
    const customer = await createCustomer();
    const endpoint = await createWebhookEndpoint(customer);
    const sibling = await createWebhookEndpoint(customer);
    const delivery = await sendTest(customer, endpoint.id);
    await finishDelivery(delivery.id, "failed", 10);
    const retry = (endpointId: string, deliveryId: string) =>
      customer.call(`/api/customers/${customer.slug}/webhook-endpoints/${endpointId}/deliveries/${deliveryId}/retry`, {
        method: "POST",
      });
    await problem(await retry(sibling.id, delivery.id), 404, "not_found");
    await problem(await retry(endpoint.id, `evt_${bare(delivery.id)}`), 400, "validation_error");
    const [row] = await deliveryRows("id = ?", bare(delivery.id));
    expect(row?.status).toBe("failed");
  });
});

describe("DELETE webhook endpoints", () => {
  it("deletes the endpoint and every delivery to it, pending ones too; the events and other endpoints stay", async () => {
    const customer = await createCustomer();
    const endpoint = await createWebhookEndpoint(customer);
    const kept = await createWebhookEndpoint(customer);
    const pending = await sendTest(customer, endpoint.id);
    const done = await sendTest(customer, endpoint.id);
    await finishDelivery(done.id, "succeeded", 1);
    const keptDelivery = await sendTest(customer, kept.id);
    const before = Date.now();
    const deleted = await json(
      await endpoints(customer)[":endpoint_id"].$delete({ param: endpointParam(customer, endpoint.id) }),
      200,
    );
    expect(deleted.message).toBe(`Webhook endpoint ${endpoint.id} deleted`);
    expect(Date.parse(deleted.deleted_at)).toBeGreaterThanOrEqual(before);
    expect(await endpointRow(endpoint.id)).toBeNull();
    expect(await deliveryRows("endpoint_id = ?", bare(endpoint.id))).toEqual([]);
    expect((await deliveryRows("endpoint_id = ?", bare(kept.id))).map((d) => d.id)).toEqual([bare(keptDelivery.id)]);
    const events = await env.DB.prepare("SELECT id FROM events WHERE id IN (?, ?)")
      .bind(bare(pending.event_id), bare(done.event_id))
      .all();
    expect(events.results).toHaveLength(2);
    await problem(
      await endpoints(customer)[":endpoint_id"].$get({ param: endpointParam(customer, endpoint.id) }),
      404,
      "not_found",
    );
    await problem(
      await endpoints(customer)[":endpoint_id"].$delete({ param: endpointParam(customer, endpoint.id) }),
      404,
      "not_found",
    );
  });
});

describe("another account's endpoints and deliveries", () => {
  it("answers 404 on every route and changes nothing", async () => {
    const owner = await createCustomer();
    const intruder = await createCustomer();
    const endpoint = await createWebhookEndpoint(owner);
    const delivery = await sendTest(owner, endpoint.id);
    await finishDelivery(delivery.id, "failed", 10);
    const base = `/api/customers/${intruder.slug}/webhook-endpoints/${endpoint.id}`;
    const attempts: [string, string, object?][] = [
      ["GET", base],
      ["PATCH", base, { status: "disabled" }],
      ["POST", `${base}/rotate-secret`],
      ["POST", `${base}/test`],
      ["GET", `${base}/deliveries`],
      ["POST", `${base}/deliveries/${delivery.id}/retry`],
      ["DELETE", base],
    ];
    for (const [method, path, body] of attempts) {
      const response = body ? await intruder.callJson(method, path, body) : await intruder.call(path, { method });
      await problem(response, 404, "not_found");
    }
    // The owner's slug with the intruder's key is a 404 too, before anything is looked up.
    await problem(await intruder.call(`/api/customers/${owner.slug}/webhook-endpoints/${endpoint.id}`), 404, "not_found");
    const row = await endpointRow(endpoint.id);
    expect(row).toMatchObject({ secret: endpoint.secret, previous_secret: null });
    expect(await deliveryRows("endpoint_id = ?", bare(endpoint.id))).toEqual([expect.objectContaining({ status: "failed" })]);
    const { secret, ...unchanged } = endpoint;
    expect(await json(await endpoints(owner)[":endpoint_id"].$get({ param: endpointParam(owner, endpoint.id) }), 200)).toEqual(
      unchanged,
    );
  });
});

describe("the migration to every event type", () => {
  it("makes an endpoint made with the full list of its day take every type, present and future, and leaves others", async () => {
    const db = env.EVENT_TYPES_MIGRATION_DB;
    await applyD1Migrations(
      db,
      env.TEST_MIGRATIONS.filter((m) => m.name < "0009"),
    );
    await db
      .prepare("INSERT INTO customers (id, slug, name, created_at, updated_at) VALUES ('c', 'legacy', 'Legacy', 0, 0)")
      .run();
    const insert = (id: string, types: readonly string[]) =>
      db
        .prepare(
          `INSERT INTO webhook_endpoints (id, customer_id, url, event_types, secret, created_at, updated_at)
           VALUES (?, 'c', 'https://hooks.test/', ?, 'whsec_x', 0, 0)`,
        )
        .bind(id, JSON.stringify(types))
        .run();
    // The full list of the day migration 0009 ran: the types before webhook.test and those of later migrations.
    await insert("full", EVENT_TYPES.slice(0, EVENT_TYPES.indexOf("kyc.document_deleted") + 1));
    await insert("some", ["order.created", "kyc.approved"]);
    await applyD1Migrations(db, env.TEST_MIGRATIONS);
    const { results } = await db.prepare("SELECT id, event_types FROM webhook_endpoints ORDER BY id").all();
    expect(results).toEqual([
      { id: "full", event_types: '["*"]' },
      { id: "some", event_types: '["order.created","kyc.approved"]' },
    ]);
  });
});
