// Authentication: API key format and storage, both headers, revocation, last_used_at, scoping, admin separation, 429.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { API_KEY_PREFIX, generateApiKey, isWellFormedApiKey, sha256Hex } from "../src/lib/api-key.ts";
import { TEST_ADMIN_TOKEN, TEST_RATE_LIMIT } from "./constants.ts";
import { adminCall, allocateNumbers, call, createCustomer, INDIVIDUAL_ADDRESS, json, makeOrderable, problem, withLogs } from "./helpers.ts";

const ordersPath = (slug: string) => `/api/customers/${slug}/orders`;

async function expectUnauthorized(response: Response) {
  expect(response.headers.get("WWW-Authenticate")).toMatch(/^Bearer/);
  const body = await problem(response, 401, "unauthorized");
  expect(body.detail).toBe("A valid credential is required");
}

describe("API key format", () => {
  it("has the vnk_ prefix, at least 128 random bits and a checksum that catches a typo", () => {
    const keys = new Set(Array.from({ length: 200 }, generateApiKey));
    expect(keys.size).toBe(200);
    for (const key of keys) {
      expect(key.startsWith(API_KEY_PREFIX)).toBe(true);
      expect(key).toMatch(/^vnk_[0-9A-Za-z]{38}$/);
      expect(isWellFormedApiKey(key)).toBe(true);
    }
    const key = [...keys][0]!;
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
    await expectUnauthorized(await call(ordersPath(customer.slug)));
  });

  it("rejects a malformed, mistyped, unknown or non-Bearer credential with the same body", async () => {
    const customer = await createCustomer();
    const unknownButValid = generateApiKey();
    for (const authorization of [
      "Bearer nonsense",
      `Bearer ${customer.key.slice(0, -1)}X`,
      `Bearer ${unknownButValid}`,
      `Basic ${btoa(`${customer.key}:`)}`,
      `Token ${customer.key}`,
      "Bearer",
    ]) {
      await expectUnauthorized(await call(ordersPath(customer.slug), { headers: { Authorization: authorization } }));
    }
    await expectUnauthorized(await call(ordersPath(customer.slug), { headers: { "X-API-Key": unknownButValid } }));
  });

  it("accepts the key as Bearer or as X-API-Key, and both headers when they agree", async () => {
    const customer = await createCustomer();
    await json(await call(ordersPath(customer.slug), { headers: { Authorization: `Bearer ${customer.key}` } }), 200);
    await json(await call(ordersPath(customer.slug), { headers: { Authorization: `bearer ${customer.key}` } }), 200);
    await json(await call(ordersPath(customer.slug), { headers: { "X-API-Key": customer.key } }), 200);
    await json(
      await call(ordersPath(customer.slug), { headers: { Authorization: `Bearer ${customer.key}`, "X-API-Key": customer.key } }),
      200,
    );
  });

  it("rejects Authorization and X-API-Key with different values, even when both are valid keys", async () => {
    const customer = await createCustomer();
    const second = await json(await adminCall("POST", `/admin/customers/${customer.slug}/api-keys`, { name: "second" }), 201);
    await expectUnauthorized(
      await call(ordersPath(customer.slug), { headers: { Authorization: `Bearer ${customer.key}`, "X-API-Key": second.key } }),
    );
  });

  it("rejects a revoked key from the moment it is revoked", async () => {
    const customer = await createCustomer();
    await json(await customer.call("GET", ordersPath(customer.slug)), 200);
    const revoked = await json(await adminCall("DELETE", `/admin/api-keys/${customer.keyId}`), 200);
    expect(revoked.revoked_at).toMatch(/Z$/);
    await expectUnauthorized(await customer.call("GET", ordersPath(customer.slug)));
  });

  it("records last_used_at, at most once a minute", async () => {
    const customer = await createCustomer();
    const before = await json(await adminCall("GET", `/admin/api-keys/${customer.keyId}`), 200);
    expect(before.last_used_at).toBeNull();
    await json(await customer.call("GET", ordersPath(customer.slug)), 200);
    let after = before;
    for (let i = 0; i < 50 && after.last_used_at === null; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      after = await json(await adminCall("GET", `/admin/api-keys/${customer.keyId}`), 200);
    }
    expect(after.last_used_at).not.toBeNull();
    await json(await customer.call("GET", ordersPath(customer.slug)), 200);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const again = await json(await adminCall("GET", `/admin/api-keys/${customer.keyId}`), 200);
    expect(again.last_used_at).toBe(after.last_used_at);
  });

  it("answers another account's slug with 404, and an unknown slug the same way", async () => {
    const alice = await createCustomer("alice");
    const bob = await createCustomer("bob");
    const other = await problem(await alice.call("GET", ordersPath(bob.slug)), 404, "not_found");
    const unknown = await problem(await alice.call("GET", ordersPath("no-such-account")), 404, "not_found");
    expect(other.detail).toBe(unknown.detail);
    await problem(
      await alice.call("POST", ordersPath(bob.slug), { number_type: "mobile", country_code: "US", quantity: 1 }),
      404,
      "not_found",
    );
  });
});

describe("a key the isolate knows: its check rides on the request's own D1 call", () => {
  const order = { number_type: "mobile", country_code: "US", quantity: 3 };

  it("looks a new key up first (two round trips), then needs one round trip per read and per write", async () => {
    await makeOrderable("US", "mobile");
    const customer = await createCustomer();
    const { lines } = await withLogs(async () => {
      await (await customer.call("GET", ordersPath(customer.slug))).text();
      await (await customer.call("GET", ordersPath(customer.slug))).text();
      const placed = await json(await customer.call("POST", ordersPath(customer.slug), order), 201);
      await json(await customer.call("PUT", `${ordersPath(customer.slug)}/${placed.order_id}`, { quantity: 4 }), 200);
      await json(await customer.call("GET", `${ordersPath(customer.slug)}/${placed.order_id}`), 200);
    });
    expect(lines.map((line) => line.d1_calls)).toEqual([2, 1, 1, 1, 1]);
    for (const line of lines) {
      expect(line.d1_rows_read).toBeGreaterThan(0);
      expect(line.d1_ms).toBeGreaterThanOrEqual(0);
    }
    expect(lines[2]?.d1_rows_written).toBeGreaterThan(0);
  });

  it("refuses a revoked key's write and rolls it back whole, even after the key was known", async () => {
    await makeOrderable("US", "mobile");
    const customer = await createCustomer();
    await json(await customer.call("POST", ordersPath(customer.slug), order), 201);
    await json(await adminCall("DELETE", `/admin/api-keys/${customer.keyId}`), 200);
    const { lines } = await withLogs(async () => expectUnauthorized(await customer.call("POST", ordersPath(customer.slug), order)));
    // Refused, not failed: the rolled-back batch is no error of the service's.
    expect(lines).toEqual([expect.objectContaining({ level: "info", status: 401 })]);
    expect(lines[0]).not.toHaveProperty("error");
    const placed = await json(await adminCall("POST", `/admin/customers/${customer.slug}/api-keys`, { name: "second" }), 201);
    const list = await json(await call(ordersPath(customer.slug), { headers: { Authorization: `Bearer ${placed.key}` } }), 200);
    expect(list.meta.total).toBe(1);
  });

  it("answers a revoked key with 401 whatever the request would have answered", async () => {
    await makeOrderable("US", "mobile");
    const customer = await createCustomer();
    const [number] = await allocateNumbers(customer);
    const kyc = `/v1/numbers/num_${number!.number_id}/KYC/address`;
    await json(await customer.call("POST", kyc, INDIVIDUAL_ADDRESS), 201);
    // Known and active: the handler's own failure is the answer (its batch failed after the key's check passed).
    await problem(await customer.call("POST", kyc, INDIVIDUAL_ADDRESS), 409, "kyc_exists");
    await problem(await customer.call("GET", `${ordersPath(customer.slug)}?limit=0`), 400, "validation_error");
    await json(await adminCall("DELETE", `/admin/api-keys/${customer.keyId}`), 200);
    await expectUnauthorized(await customer.call("POST", kyc, INDIVIDUAL_ADDRESS));
    await expectUnauthorized(await customer.call("GET", `${ordersPath(customer.slug)}?limit=0`));
    await expectUnauthorized(await customer.call("GET", `/v1/numbers/num_${number!.number_id}/KYC`));
  });
});

describe("admin and customer credentials are separate", () => {
  it("answers the admin token on customer routes with 401", async () => {
    const customer = await createCustomer();
    await expectUnauthorized(await call(ordersPath(customer.slug), { headers: { Authorization: `Bearer ${TEST_ADMIN_TOKEN}` } }));
  });

  it("answers an API key, a wrong token or no token on admin routes with 401", async () => {
    const customer = await createCustomer();
    await expectUnauthorized(await call("/admin/customers", { headers: { Authorization: `Bearer ${customer.key}` } }));
    await expectUnauthorized(await call("/admin/customers", { headers: { "X-API-Key": customer.key } }));
    await expectUnauthorized(await call("/admin/customers", { headers: { Authorization: `Bearer ${TEST_ADMIN_TOKEN}x` } }));
    await expectUnauthorized(await call("/admin/customers"));
  });
});

describe("rate limiting", () => {
  it("answers 429 rate_limited with Retry-After once a key spends its budget, and other keys are unaffected", async () => {
    const busy = await createCustomer();
    const calm = await createCustomer();
    const path = `${ordersPath(busy.slug)}/${crypto.randomUUID()}`;
    let limited: Response | undefined;
    // Three budgets' worth: the limiter's window may turn over once while the loop runs.
    for (let i = 0; i < 3 * TEST_RATE_LIMIT && !limited; i++) {
      const response = await busy.call("GET", path);
      if (response.status === 429) limited = response;
      else await response.body?.cancel();
    }
    expect(limited).toBeDefined();
    expect(Number(limited!.headers.get("Retry-After"))).toBeGreaterThan(0);
    await problem(limited!, 429, "rate_limited");
    await json(await calm.call("GET", ordersPath(calm.slug)), 200);
  });
});
