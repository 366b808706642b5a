// Failed authentication, limited per client address: past 30 failures a minute an address is answered 429 before any
// D1 read; customer keys and admin-token guesses spend the same budget; other addresses are unaffected.
import { describe, expect, it } from "vitest";
import { generateApiKey } from "../src/lib/api-key.ts";
import { TEST_ADMIN_TOKEN } from "./constants.ts";
import {
  awaitFreshRateWindow,
  call,
  callWithoutAddress,
  clientAddress,
  createCustomer,
  expectStatus,
  FRESH_RATE_WINDOW_TIMEOUT,
  operator,
  problem,
  type TestCustomer,
  withLogs,
} from "./helpers.ts";

/** Failures an address may make in a minute (wrangler.toml's AUTH_FAILURE_LIMITER). */
const FAILURE_BUDGET = 30;

/** A budget's worth of failures takes well under this long here. */
const awaitFreshWindow = () => awaitFreshRateWindow(5_000);

/** A request with these headers, from `address` (none: no CF-Connecting-IP header). */
function from(address: string | undefined, path: string, headers: Record<string, string>): Promise<Response> {
  return address === undefined
    ? callWithoutAddress(path, { headers })
    : call(path, { headers: { ...headers, "CF-Connecting-IP": address } });
}

/** A made-up, well-formed API key: the kind that costs a D1 read when nothing limits it. */
const guessKey = (address: string | undefined) =>
  from(address, "/api/customers/anyone/orders", { Authorization: `Bearer ${generateApiKey()}` });
const guessAdminToken = (address: string | undefined) =>
  from(address, "/admin/customers", { Authorization: `Bearer ${crypto.randomUUID()}` });
const listOwnOrders = (address: string | undefined, customer: TestCustomer) =>
  from(address, `/api/customers/${customer.slug}/orders`, { Authorization: `Bearer ${customer.key}` });
const listCustomers = (address: string | undefined) =>
  from(address, "/admin/customers", { Authorization: `Bearer ${TEST_ADMIN_TOKEN}` });

/** Spends `count` failures from `address`, each answered 401. */
async function fail(count: number, guess: (address: string | undefined) => Promise<Response>, address: string | undefined) {
  for (let i = 0; i < count; i++) await problem(await guess(address), 401, "unauthorized");
}

async function expectLimited(response: Response): Promise<void> {
  const retryAfter = Number(response.headers.get("Retry-After"));
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(60);
  await problem(response, 429, "rate_limited");
}

describe("failed authentication per client address", () => {
  it("answers the 31st failure from one address 429 rate_limited with Retry-After", {
    timeout: FRESH_RATE_WINDOW_TIMEOUT,
  }, async () => {
    const address = clientAddress();
    await awaitFreshWindow();
    await fail(FAILURE_BUDGET, guessKey, address);
    await expectLimited(await guessKey(address));
  });

  it("then refuses the address before any D1 read, even with a valid key", { timeout: FRESH_RATE_WINDOW_TIMEOUT }, async () => {
    const customer = await createCustomer();
    const address = clientAddress();
    await awaitFreshWindow();
    await fail(FAILURE_BUDGET, guessKey, address);
    // The failure that finds the budget spent was looked up like the ones before it; what follows is not.
    await expectLimited(await guessKey(address));
    const { lines } = await withLogs(async () => {
      await expectLimited(await guessKey(address));
      await expectLimited(await listOwnOrders(address, customer));
    });
    expect(lines.map((line) => [line.status, line.d1_calls])).toEqual([
      [429, 0],
      [429, 0],
    ]);
  });

  it("leaves other addresses alone", { timeout: FRESH_RATE_WINDOW_TIMEOUT }, async () => {
    const customer = await createCustomer();
    const refused = clientAddress();
    const other = clientAddress();
    await awaitFreshWindow();
    await fail(FAILURE_BUDGET, guessKey, refused);
    await expectLimited(await guessKey(refused));
    await problem(await guessKey(other), 401, "unauthorized");
    await expectStatus(await listOwnOrders(other, customer), 200);
  });

  it("counts admin-token guesses too, in the same budget as API keys", { timeout: FRESH_RATE_WINDOW_TIMEOUT }, async () => {
    const customer = await createCustomer();
    const admin = clientAddress();
    await awaitFreshWindow();
    await fail(FAILURE_BUDGET, guessAdminToken, admin);
    await expectLimited(await guessAdminToken(admin));
    await expectLimited(await listCustomers(admin));
    await expectLimited(await listOwnOrders(admin, customer));

    const mixed = clientAddress();
    await fail(FAILURE_BUDGET / 2, guessAdminToken, mixed);
    await fail(FAILURE_BUDGET / 2, guessKey, mixed);
    await expectLimited(await guessAdminToken(mixed));
  });

  it("counts a revoked key's refusal, also when the isolate knew the key", { timeout: FRESH_RATE_WINDOW_TIMEOUT }, async () => {
    const customer = await createCustomer();
    const address = clientAddress();
    await awaitFreshWindow();
    await expectStatus(await listOwnOrders(address, customer), 200);
    await expectStatus(await operator.admin["api-keys"][":id"].$delete({ param: { id: customer.keyId } }), 200);
    await problem(await listOwnOrders(address, customer), 401, "unauthorized");
    await fail(FAILURE_BUDGET - 1, guessKey, address);
    await expectLimited(await listOwnOrders(address, customer));
  });

  it("keys an IPv6 client by its /64: one network, one budget", { timeout: FRESH_RATE_WINDOW_TIMEOUT }, async () => {
    const customer = await createCustomer();
    await awaitFreshWindow();
    await fail(FAILURE_BUDGET / 2, guessKey, "2001:db8:aa:1::1");
    await fail(FAILURE_BUDGET / 2, guessKey, "2001:DB8:AA:1:ffff:0:0:2");
    await expectLimited(await guessKey("2001:db8:aa:1:0:0:0:3"));
    await expectStatus(await listOwnOrders("2001:db8:aa:2::1", customer), 200);
    await problem(await guessKey("2001:db8:aa:2::1"), 401, "unauthorized");
  });

  it("is declared: every authenticated operation of /openapi.json lists 429", async () => {
    const response = await call("/openapi.json");
    const document: { paths: Record<string, Record<string, { security: unknown[]; responses: object }>> } = await response.json();
    const secured = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([, operation]) => operation.security.length > 0)
        .map(([method, operation]) => ({ operation: `${method} ${path}`, statuses: Object.keys(operation.responses) })),
    );
    expect(secured.length).toBeGreaterThan(20);
    for (const { operation, statuses } of secured) expect(statuses, operation).toContain("429");
  });

  // Last in the file: once the shared bucket is spent, every request without an address (the helpers' own) is refused.
  it("puts every request without CF-Connecting-IP in one shared bucket", { timeout: FRESH_RATE_WINDOW_TIMEOUT }, async () => {
    const customer = await createCustomer();
    await awaitFreshWindow();
    await fail(FAILURE_BUDGET / 2, guessKey, undefined);
    await fail(FAILURE_BUDGET / 2, guessAdminToken, undefined);
    await expectLimited(await guessKey(undefined));
    await expectLimited(await listOwnOrders(undefined, customer));
    await expectStatus(await listOwnOrders(clientAddress(), customer), 200);
  });
});
