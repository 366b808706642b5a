// Authentication: API key format and storage, both headers, revocation, last_used_at, scoping, admin separation, 429.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { API_KEY_PREFIX, generateApiKey, isWellFormedApiKey, sha256Hex } from "../src/lib/api-key.ts";
import { TEST_ADMIN_TOKEN, TEST_RATE_LIMIT } from "./constants.ts";
import { createdDocument, pdf, uploadFile } from "./files.ts";
import {
  allocateNumbers,
  anonymous,
  type Client,
  callInIsolate,
  client,
  clientAddress,
  createCustomer,
  expectStatus,
  INDIVIDUAL_ADDRESS,
  json,
  makeOrderable,
  operator,
  problem,
  type TestCustomer,
  withLogs,
} from "./helpers.ts";

type Answer = { status: number; headers: Headers; text(): Promise<string> };

async function expectUnauthorized(response: Answer) {
  const body = await problem(response, 401, "unauthorized");
  expect(response.headers.get("WWW-Authenticate")).toMatch(/^Bearer/);
  expect(body.detail).toBe("A valid credential is required");
}

/** The key with its last character changed: a typo, never the key itself. */
const mistyped = (key: string) => key.slice(0, -1) + (key.endsWith("X") ? "Y" : "X");

/** The account's orders, as `api` (a client with some credential, or none) asks for them. */
const listOrders = (api: Client, slug: string) =>
  api.api.customers[":customer_slug"].orders.$get({ param: { customer_slug: slug }, query: {} });

/** A new key for the customer's account, made by the operator. */
async function secondKey(customer: TestCustomer) {
  return json(
    await operator.admin.customers[":slug"]["api-keys"].$post({ param: { slug: customer.slug }, json: { name: "second" } }),
    201,
  );
}

const getKey = (id: string) => operator.admin["api-keys"][":id"].$get({ param: { id } });
const revokeKey = (id: string) => operator.admin["api-keys"][":id"].$delete({ param: { id } });

describe("API key format", () => {
  it("has the vnk_ prefix, at least 128 random bits and a checksum that catches a typo", () => {
    const keys = new Set(Array.from({ length: 200 }, generateApiKey));
    expect(keys.size).toBe(200);
    for (const key of keys) {
      expect(key.startsWith(API_KEY_PREFIX)).toBe(true);
      expect(key).toMatch(/^vnk_[0-9A-Za-z]{38}$/);
      expect(isWellFormedApiKey(key)).toBe(true);
    }
    const [key = ""] = keys;
    expect(key).not.toBe("");
    const position = 10;
    const typo = key.slice(0, position) + (key[position] === "a" ? "b" : "a") + key.slice(position + 1);
    expect(isWellFormedApiKey(typo)).toBe(false);
    expect(isWellFormedApiKey(key.slice(0, -1))).toBe(false);
    expect(isWellFormedApiKey(`xyz_${key.slice(4)}`)).toBe(false);
  });

  it("stores only the SHA-256 of a key, never the key", async () => {
    const customer = await createCustomer();
    const row = await env.DB.prepare("SELECT * FROM api_keys WHERE id = ?").bind(customer.keyId).first<Record<string, unknown>>();
    expect(row?.key_hash).toBe(await sha256Hex(customer.key));
    expect(JSON.stringify(row)).not.toContain(customer.key);
    expect(JSON.stringify(row)).not.toContain(customer.key.slice(8, 30));
  });
});

describe("customer credentials", () => {
  it("rejects a missing credential", async () => {
    const customer = await createCustomer();
    await expectUnauthorized(await listOrders(anonymous, customer.slug));
  });

  it("rejects a malformed, mistyped, unknown or non-Bearer credential with the same body", async () => {
    const customer = await createCustomer();
    const unknownButValid = generateApiKey();
    for (const authorization of [
      "Bearer nonsense",
      `Bearer ${mistyped(customer.key)}`,
      `Bearer ${unknownButValid}`,
      `Basic ${btoa(`${customer.key}:`)}`,
      `Token ${customer.key}`,
      "Bearer",
    ]) {
      await expectUnauthorized(await listOrders(client({ Authorization: authorization }), customer.slug));
    }
    await expectUnauthorized(await listOrders(client({ "X-API-Key": unknownButValid }), customer.slug));
  });

  it("accepts the key as Bearer or as X-API-Key, and both headers when they agree", async () => {
    const customer = await createCustomer();
    await json(await listOrders(client({ Authorization: `Bearer ${customer.key}` }), customer.slug), 200);
    await json(await listOrders(client({ Authorization: `bearer ${customer.key}` }), customer.slug), 200);
    await json(await listOrders(client({ "X-API-Key": customer.key }), customer.slug), 200);
    await json(
      await listOrders(client({ Authorization: `Bearer ${customer.key}`, "X-API-Key": customer.key }), customer.slug),
      200,
    );
  });

  it("rejects Authorization and X-API-Key with different values, even when both are valid keys", async () => {
    const customer = await createCustomer();
    const second = await secondKey(customer);
    await expectUnauthorized(
      await listOrders(client({ Authorization: `Bearer ${customer.key}`, "X-API-Key": second.key }), customer.slug),
    );
  });

  it("rejects a revoked key from the moment it is revoked", async () => {
    const customer = await createCustomer();
    await json(await listOrders(customer.api, customer.slug), 200);
    const revoked = await json(await revokeKey(customer.keyId), 200);
    expect(revoked.revoked_at).toMatch(/Z$/);
    await expectUnauthorized(await listOrders(customer.api, customer.slug));
  });

  it("records last_used_at, at most once a minute", async () => {
    const customer = await createCustomer();
    const before = await json(await getKey(customer.keyId), 200);
    expect(before.last_used_at).toBeNull();
    await json(await listOrders(customer.api, customer.slug), 200);
    let after = before;
    for (let i = 0; i < 50 && after.last_used_at === null; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      after = await json(await getKey(customer.keyId), 200);
    }
    expect(after.last_used_at).not.toBeNull();
    await json(await listOrders(customer.api, customer.slug), 200);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const again = await json(await getKey(customer.keyId), 200);
    expect(again.last_used_at).toBe(after.last_used_at);
  });

  it("answers another account's slug with 404, and an unknown slug the same way", async () => {
    const alice = await createCustomer("alice");
    const bob = await createCustomer("bob");
    const other = await problem(await listOrders(alice.api, bob.slug), 404, "not_found");
    const unknown = await problem(await listOrders(alice.api, "no-such-account"), 404, "not_found");
    expect(other.detail).toBe(unknown.detail);
    await problem(
      await alice.account.orders.$post({
        param: { customer_slug: bob.slug },
        json: { number_type: "mobile", country_code: "US", quantity: 1 },
      }),
      404,
      "not_found",
    );
  });
});

describe("a key the isolate knows: its check rides on the request's own D1 call", () => {
  const order = { number_type: "mobile", country_code: "US", quantity: 3 };
  const placeOrder = (customer: TestCustomer) =>
    customer.account.orders.$post({ param: { customer_slug: customer.slug }, json: order });

  it("looks a new key up first (two round trips), then needs one round trip per read and per write (two to place an order)", async () => {
    await makeOrderable("US", "mobile");
    const customer = await createCustomer();
    const { lines } = await withLogs(async () => {
      await (await listOrders(customer.api, customer.slug)).text();
      await (await listOrders(customer.api, customer.slug)).text();
      const placed = await json(await placeOrder(customer), 201);
      const param = { customer_slug: customer.slug, order_id: placed.order_id };
      await json(await customer.account.orders[":order_id"].$put({ param, json: { quantity: 4 } }), 200);
      await json(await customer.account.orders[":order_id"].$get({ param }), 200);
    });
    // Placing an order reads first whether its pair fulfils it at once (auto_fulfil), then writes.
    expect(lines.map((line) => line.d1_calls)).toEqual([2, 1, 2, 1, 1]);
    for (const line of lines) {
      expect(line.d1_rows_read).toBeGreaterThan(0);
      expect(line.d1_ms).toBeGreaterThanOrEqual(0);
    }
    expect(lines[2]?.d1_rows_written).toBeGreaterThan(0);
  });

  it("refuses a revoked key's write and rolls it back whole, even after the key was known", async () => {
    await makeOrderable("US", "mobile");
    const customer = await createCustomer();
    await json(await placeOrder(customer), 201);
    await json(await revokeKey(customer.keyId), 200);
    const { lines } = await withLogs(async () => expectUnauthorized(await placeOrder(customer)));
    // Refused, not failed: the rolled-back batch is no error of the service's.
    expect(lines).toEqual([expect.objectContaining({ level: "info", status: 401 })]);
    expect(lines[0]).not.toHaveProperty("error");
    const placed = await secondKey(customer);
    const list = await json(await listOrders(client({ Authorization: `Bearer ${placed.key}` }), customer.slug), 200);
    expect(list.meta.total).toBe(1);
  });

  it("answers a revoked key with 401 whatever the request would have answered", async () => {
    await makeOrderable("US", "mobile");
    const customer = await createCustomer();
    const [number] = await allocateNumbers(customer);
    expect(number).toBeDefined();
    const param = { number_id: `num_${number?.number_id}` };
    const kyc = customer.api.v1.numbers[":number_id"].KYC;
    const submit = () => kyc.address.$post({ param, json: INDIVIDUAL_ADDRESS });
    const badList = () => customer.account.orders.$get({ param: { customer_slug: customer.slug }, query: { limit: "0" } });
    await json(await submit(), 201);
    // Known and active: the handler's own failure is the answer (its batch failed after the key's check passed).
    await problem(await submit(), 409, "kyc_exists");
    await problem(await badList(), 400, "validation_error");
    await json(await revokeKey(customer.keyId), 200);
    await expectUnauthorized(await submit());
    await expectUnauthorized(await badList());
    await expectUnauthorized(await kyc.$get({ param }));
  });

  it("answers a revoked key's download with a bare 401: nothing of the file, not even its headers", async () => {
    await makeOrderable("US", "mobile");
    const customer = await createCustomer();
    const [number] = await allocateNumbers(customer);
    const numberId = `num_${number?.number_id}`;
    await json(
      await customer.api.v1.numbers[":number_id"].KYC.address.$post({ param: { number_id: numberId }, json: INDIVIDUAL_ADDRESS }),
      201,
    );
    const document = await createdDocument(await uploadFile(customer, numberId, pdf(), "secret-name.pdf"));
    const download = (headers: Record<string, string> = {}) =>
      customer.call(`/v1/kyc/documents/${document.id}/download`, { headers });
    const first = await download();
    expect(first.status).toBe(200);
    const etag = first.headers.get("ETag") ?? "";
    await first.arrayBuffer();
    expect((await download({ "If-None-Match": etag })).status).toBe(304);
    await json(await revokeKey(customer.keyId), 200);
    for (const answer of [await download(), await download({ "If-None-Match": etag })]) {
      const text = await answer.clone().text();
      expect(
        [...answer.headers.keys()].filter((name) => ["content-disposition", "etag"].includes(name)),
        text,
      ).toEqual([]);
      expect(answer.headers.get("Content-Length") ?? String(new TextEncoder().encode(text).byteLength)).toBe(
        String(new TextEncoder().encode(text).byteLength),
      );
      await expectUnauthorized(answer);
    }
  });
});

describe("a present but empty or unusable credential header beside another credential is a conflict", () => {
  // Built in this isolate, so every header surely reaches the Worker (workerd's own fetch drops an empty Authorization).
  const request = (path: string, headers: Record<string, string>) =>
    callInIsolate(path, { headers: { ...headers, "CF-Connecting-IP": clientAddress() } });

  it("refuses a valid X-API-Key beside an empty, blank or unusable Authorization, and a Bearer key beside an empty X-API-Key", async () => {
    const customer = await createCustomer();
    const orders = `/api/customers/${customer.slug}/orders`;
    for (const authorization of ["", "   ", "Bearer", "Bearer ", "Basic x", `Basic ${btoa(`${customer.key}:`)}`]) {
      const response = await request(orders, { Authorization: authorization, "X-API-Key": customer.key });
      expect(response.status, `Authorization ${JSON.stringify(authorization)}`).toBe(401);
      await expectUnauthorized(response);
    }
    for (const apiKey of ["", "   "]) {
      const response = await request(orders, { Authorization: `Bearer ${customer.key}`, "X-API-Key": apiKey });
      expect(response.status, `X-API-Key ${JSON.stringify(apiKey)}`).toBe(401);
      await expectUnauthorized(response);
    }
    await json(await listOrders(client({ "X-API-Key": customer.key }), customer.slug), 200);
  });

  it("refuses the admin token beside any X-API-Key header, empty or not", async () => {
    const customer = await createCustomer();
    for (const apiKey of ["", "   ", customer.key, TEST_ADMIN_TOKEN]) {
      const response = await request("/admin/customers", { Authorization: `Bearer ${TEST_ADMIN_TOKEN}`, "X-API-Key": apiKey });
      expect(response.status, `X-API-Key ${JSON.stringify(apiKey)}`).toBe(401);
      await expectUnauthorized(response);
    }
    await expectStatus(await request("/admin/customers", { Authorization: `Bearer ${TEST_ADMIN_TOKEN}` }), 200);
  });
});

describe("admin and customer credentials are separate", () => {
  it("answers the admin token on customer routes with 401", async () => {
    const customer = await createCustomer();
    await expectUnauthorized(await listOrders(client({ Authorization: `Bearer ${TEST_ADMIN_TOKEN}` }), customer.slug));
  });

  it("answers an API key, a wrong token or no token on admin routes with 401", async () => {
    const customer = await createCustomer();
    const listCustomers = (api: Client) => api.admin.customers.$get({ query: {} });
    await expectUnauthorized(await listCustomers(client({ Authorization: `Bearer ${customer.key}` })));
    await expectUnauthorized(await listCustomers(client({ "X-API-Key": customer.key })));
    await expectUnauthorized(await listCustomers(client({ Authorization: `Bearer ${TEST_ADMIN_TOKEN}x` })));
    await expectUnauthorized(await listCustomers(anonymous));
  });
});

describe("rate limiting", () => {
  it("answers 429 rate_limited with Retry-After once a key spends its budget; the account's other keys and other accounts are unaffected", async () => {
    const busy = await createCustomer();
    const calm = await createCustomer();
    const sibling = client({ Authorization: `Bearer ${(await secondKey(busy)).key}` });
    const param = { customer_slug: busy.slug, order_id: crypto.randomUUID() };
    let limited: Answer | undefined;
    // Three budgets' worth: the limiter's window may turn over once while the loop runs.
    for (let i = 0; i < 3 * TEST_RATE_LIMIT && !limited; i++) {
      // Typed by the statuses the handler answers itself; the guard's 429 is not one of them.
      const response: Answer & { body: ReadableStream | null } = await busy.account.orders[":order_id"].$get({ param });
      if (response.status === 429) limited = response;
      else await response.body?.cancel();
    }
    if (!limited) expect.fail(`no 429 after ${3 * TEST_RATE_LIMIT} requests`);
    expect(Number(limited.headers.get("Retry-After"))).toBeGreaterThan(0);
    await problem(limited, 429, "rate_limited");
    // The budget is the key's, not the account's: another key of the same account still answers.
    await json(await listOrders(sibling, busy.slug), 200);
    await problem(await listOrders(busy.api, busy.slug), 429, "rate_limited");
    await json(await listOrders(calm.api, calm.slug), 200);
  });
});
