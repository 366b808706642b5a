// Test helpers: the Worker called through its typed client (hc<AppType> over its own fetch handler), raw requests for
// what the types would refuse to send, and a fresh customer account per test.
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { type ClientResponse, hc, type InferRequestType } from "hono/client";
import { expect } from "vitest";
import { type AppType, createApp } from "../src/app.ts";
import { createDatabase } from "../src/db/client.ts";
import { Outbox } from "../src/db/outbox.ts";
import type { Work } from "../src/env.ts";
import type { ProblemCode } from "../src/lib/problem.ts";
import { TEST_ADMIN_TOKEN, TEST_RATE_LIMIT } from "./constants.ts";

export const ORIGIN = "https://vn.test";

/** A client address in 198.19.0.0/16 (RFC 2544's range for tests of network devices; clientAddress() uses 198.18). */
const randomAddress = () => `198.19.${crypto.getRandomValues(new Uint8Array(2)).join(".")}`;

/**
 * The client address (CF-Connecting-IP) of this test's requests that name none, new for every test
 * (test/fresh-address.ts). Failed authentication is limited per address, the files of one workerd share its limiter,
 * and requests without an address share one bucket, so a test that spends a bucket (the throttle's own test of it,
 * through callWithoutAddress) would otherwise refuse another test's failures as 429.
 */
let testAddress = randomAddress();

/** Gives the next test a client address of its own. */
export function renewTestAddress(): void {
  testAddress = randomAddress();
}

/** The request, from this test's client address unless it names one (every request of a test goes through here). */
export function addressed(input: RequestInfo | URL, init?: RequestInit): Request {
  const request = new Request(input, init);
  if (!request.headers.has("CF-Connecting-IP")) request.headers.set("CF-Connecting-IP", testAddress);
  return request;
}

function workerFetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
  return exports.default.fetch(addressed(input, init));
}

/** A typed client of the whole API, sending `headers` with every request. */
export function client(headers: Record<string, string> = {}) {
  return hc<AppType>(ORIGIN, { fetch: workerFetch, headers });
}

export type Client = ReturnType<typeof client>;

/** The operator's automation: the admin token (ADMIN_TOKEN) as a Bearer token. */
const OPERATOR_HEADERS = { Authorization: `Bearer ${TEST_ADMIN_TOKEN}` };
/** The operator's client. */
export const operator = client(OPERATOR_HEADERS);
/** A client with no credential. */
export const anonymous = client();

/** A raw request, for what the typed client does not send: malformed bodies, odd headers, unknown paths. */
export function call(path: string, init: RequestInit = {}): Promise<Response> {
  return workerFetch(`${ORIGIN}${path}`, init);
}

/** A raw request without CF-Connecting-IP, as only local tools send: it spends the one bucket all such requests share. */
export function callWithoutAddress(path: string, init: RequestInit = {}): Promise<Response> {
  return exports.default.fetch(new Request(`${ORIGIN}${path}`, init));
}

let app: AppType | undefined;

/** The app as src/index.ts has it: built once (3 ms with its router), then serving every request made in this isolate. */
export function appInIsolate(): AppType {
  app ??= createApp();
  return app;
}

/**
 * A raw request handled by the app inside this isolate, not across the Worker's boundary: for streamed bodies the app
 * stops reading part way, which across the boundary aborts a pipe that workerd then reports on the console; and every
 * header reaches the app as it was built. `origin` stands in for the Host a client sent, `bindings` for the Worker's
 * variables of another deployment.
 */
export async function callInIsolate(
  path: string,
  init: RequestInit,
  { origin = ORIGIN, bindings = {} }: { origin?: string; bindings?: Partial<Record<keyof Env, unknown>> } = {},
): Promise<Response> {
  const ctx = createExecutionContext();
  const response = await appInIsolate().fetch(addressed(`${origin}${path}`, init), { ...env, ...bindings }, ctx);
  await waitOnExecutionContext(ctx);
  return response;
}

/**
 * Local workerd's rate limiters count in windows aligned to the clock's minutes; a budget spent across two windows
 * would never run out. So a test that must see a budget run out starts, when the minute has less than `needMs` left,
 * in the next.
 */
export async function awaitFreshRateWindow(needMs: number): Promise<void> {
  // A test that calls this waits up to needMs before its requests: give it FRESH_RATE_WINDOW_TIMEOUT.
  const left = 60_000 - (Date.now() % 60_000);
  if (left < needMs) await new Promise((resolve) => setTimeout(resolve, left + 100));
}

/** The timeout of a test that waits for a fresh rate window (up to 5 s) and then spends a budget's worth of requests. */
export const FRESH_RATE_WINDOW_TIMEOUT = 20_000;

let addressCounter = 0;

/**
 * A client address (CF-Connecting-IP) no other test in this file uses. Failed authentication is limited per address,
 * and requests without one share a bucket, so a test that fails authentication many times sends its own address.
 */
export function clientAddress(): string {
  addressCounter++;
  // 198.18.0.0/16 of the range set aside for tests of network devices (RFC 2544, 198.18.0.0/15); a test's own address is in 198.19.
  return `198.18.${(addressCounter >> 8) & 255}.${addressCounter & 255}`;
}

/** A raw JSON request (any body, even one the API must refuse), with these headers. */
export function callJson(method: string, path: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return call(path, { method, headers: { ...headers, "Content-Type": "application/json" }, body: JSON.stringify(body) });
}

type BodyOf<R> = R extends ClientResponse<infer T, number, string> ? T : never;

/** Reads the JSON body of a typed answer, asserting its status first (so a failure shows the body). */
export async function json<R extends ClientResponse<unknown, number, string>, S extends R["status"]>(
  response: R,
  status: S,
): Promise<BodyOf<Extract<R, { status: S }>>> {
  const text = await response.text();
  expect(response.status, text).toBe(status);
  return JSON.parse(text);
}

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: ProblemCode;
  request_id: string;
  errors?: { location: string; pointer: string; message: string }[];
}

/** Asserts a problem+json answer with this status and code, and returns its body. */
export async function problem(
  response: { status: number; headers: Headers; text(): Promise<string> },
  status: number,
  code: ProblemCode,
): Promise<Problem> {
  const text = await response.text();
  expect(response.status, text).toBe(status);
  expect(response.headers.get("Content-Type")).toBe("application/problem+json");
  const body: Problem = JSON.parse(text);
  expect(body.code).toBe(code);
  expect(body.status).toBe(status);
  expect(body.request_id).toBe(response.headers.get("X-Request-Id"));
  return body;
}

/** Asserts the status and drops the body (every test consumes the bodies it gets). */
export async function expectStatus(response: { status: number; text(): Promise<string> }, status: number): Promise<void> {
  const text = await response.text();
  expect(response.status, text).toBe(status);
}

export interface TestCustomer {
  slug: string;
  customerId: string;
  key: string;
  keyId: string;
  /** The typed client with this customer's key as a Bearer token. */
  api: Client;
  /** The customer's own part of the API: orders, numbers and users under /api/customers/{slug}. */
  account: Client["api"]["customers"][":customer_slug"];
  /** A raw request with this customer's key, for what the types would refuse (odd queries, malformed bodies). */
  call(path: string, init?: RequestInit): Promise<Response>;
  /** A raw JSON request with this customer's key, for bodies the types would refuse. */
  callJson(method: string, path: string, body: unknown): Promise<Response>;
}

let counter = 0;

export async function createCustomer(prefix = "c"): Promise<TestCustomer> {
  const slug = `${prefix}-${crypto.randomUUID().slice(0, 8)}-${++counter}`;
  const customer = await json(await operator.admin.customers.$post({ json: { slug, name: `Customer ${slug}` } }), 201);
  const created = await json(
    await operator.admin.customers[":slug"]["api-keys"].$post({ param: { slug }, json: { name: "test" } }),
    201,
  );
  const headers = { Authorization: `Bearer ${created.key}` };
  const api = client(headers);
  return {
    slug,
    customerId: customer.customer_id,
    key: created.key,
    keyId: created.id,
    api,
    account: api.api.customers[":customer_slug"],
    call: (path, init = {}) => call(path, { ...init, headers: { ...headers, ...Object.fromEntries(new Headers(init.headers)) } }),
    callJson: (method, path, body) => callJson(method, path, body, headers),
  };
}

/** Requests one key may send before the tests' per-key rate limit could answer 429. */
const KEY_BUDGET = TEST_RATE_LIMIT - 10;

/** An account's API keys, used in turn. */
export interface KeyRing {
  /** The key for the next request. */
  next(): Promise<string>;
  /** Keys made so far: each one a row written between the requests under test. */
  readonly made: number;
}

/**
 * A key ring for an account: a new key (made by the operator) every KEY_BUDGET requests, so hundreds of requests stay
 * under the per-key rate limit. It starts with `unusedKey` when given (a new account's), else with a key of its own.
 */
export function keyRing(slug: string, unusedKey?: string): KeyRing {
  let key = unusedKey ?? "";
  let used = unusedKey === undefined ? KEY_BUDGET : 0;
  let made = 0;
  return {
    get made() {
      return made;
    },
    async next() {
      if (used >= KEY_BUDGET) {
        const created = await json(
          await operator.admin.customers[":slug"]["api-keys"].$post({ param: { slug }, json: { name: "property run" } }),
          201,
        );
        key = created.key;
        used = 0;
        made++;
      }
      used++;
      return key;
    },
  };
}

/**
 * Puts the pair in the catalog as SPEC has it, requiring no verification and creating its orders pending (no
 * auto_fulfil): another file of the workerd (the operations' random walk) may have removed it, given it requirements,
 * or made it fulfil from the stock it imported.
 */
export async function makeOrderable(countryCode: string, numberType: string): Promise<void> {
  const param = { country_code: countryCode, number_type: numberType };
  const pair = operator.admin.catalog[":country_code"][":number_type"];
  // The typed client sends no body to this route (it reads its own body), so the setting goes as raw JSON.
  const settings = { auto_fulfil: false };
  const response = await callJson("PUT", `/admin/catalog/${countryCode}/${numberType}`, settings, OPERATOR_HEADERS);
  expect([200, 201]).toContain(response.status);
  await response.text();
  await expectStatus(await pair.requirements.$delete({ param }), 200);
}

let phoneCounter = 0;

/** A number type no other test uses: a pair with it is in the catalog only if the test puts it there. */
export function uniqueNumberType(): string {
  return `type_${crypto.randomUUID().slice(0, 8)}`;
}

/** A phone number no other test uses (the files of one workerd share this module and its database). */
export function uniquePhoneNumber(): string {
  phoneCounter++;
  return `+1555${String(Date.now() % 1000).padStart(3, "0")}${String(phoneCounter).padStart(4, "0")}`;
}

/** Options of the helpers that order US mobile numbers. */
export interface UsMobileOptions {
  /**
   * The calling file put US mobile in the catalog once (makeOrderable in its beforeAll) and changes that pair nowhere, so
   * the two requests that put it there are not sent again for every call (the files of a workerd run one at a time).
   */
  orderable?: "made-by-file";
}

/** Orders `count` US mobile numbers for the customer and has the operator allocate them; returns the numbers. */
export async function allocateNumbers(customer: TestCustomer, count = 1, { orderable }: UsMobileOptions = {}) {
  if (orderable !== "made-by-file") await makeOrderable("US", "mobile");
  const order = await json(
    await customer.account.orders.$post({
      param: { customer_slug: customer.slug },
      json: { number_type: "mobile", country_code: "US", quantity: count },
    }),
    201,
  );
  const numbers = [];
  // An allocation lists at most 1,000 numbers.
  for (let done = 0; done < count; done += 1000) {
    const phoneNumbers = Array.from({ length: Math.min(1000, count - done) }, uniquePhoneNumber);
    const allocated = await json(
      await operator.admin.orders[":order_id"].numbers.$post({
        param: { order_id: order.order_id },
        json: { phone_numbers: phoneNumbers },
      }),
      201,
    );
    numbers.push(...allocated.numbers);
  }
  return numbers;
}

/** A webhook endpoint of the customer's (every event type, on a `.test` host the test setup's receiver answers). */
export async function createWebhookEndpoint(
  customer: TestCustomer,
  body: InferRequestType<TestCustomer["account"]["webhook-endpoints"]["$post"]>["json"] = { url: "https://hooks.test/a" },
) {
  return json(await customer.account["webhook-endpoints"].$post({ param: { customer_slug: customer.slug }, json: body }), 201);
}

/** A complete address submission for an individual verification. */
export const INDIVIDUAL_ADDRESS = {
  address_line_1: "1 Market St",
  city: "San Francisco",
  state_province: "CA",
  postal_code: "94105",
  country: "US",
  verification_type: "individual",
} as const;

/** A new customer with one allocated number whose address is submitted: a pending verification, ready for files. */
export async function submittedVerification(
  prefix = "c",
  options: UsMobileOptions = {},
): Promise<{ customer: TestCustomer; numberId: string; kycId: string }> {
  const customer = await createCustomer(prefix);
  const [number] = await allocateNumbers(customer, 1, options);
  if (!number) expect.fail("no number allocated");
  const verification = await json(
    await customer.api.v1.numbers[":number_id"].KYC.address.$post({
      param: { number_id: number.number_id },
      json: INDIVIDUAL_ADDRESS,
    }),
    201,
  );
  return { customer, numberId: number.number_id, kycId: verification.id };
}

/** One JSON line the Worker logged. */
export type LogLine = Record<string, unknown>;

/** What `run` returns, and the JSON lines the Worker logged (one per request) while it ran. */
export async function withLogs<T>(run: () => Promise<T>): Promise<{ result: T; lines: LogLine[] }> {
  const lines: LogLine[] = [];
  const original = console.log;
  console.log = (line: unknown) => {
    if (typeof line === "string" && line.startsWith("{")) lines.push(JSON.parse(line));
  };

  try {
    return { result: await run(), lines };
  } finally {
    console.log = original;
  }
}

/** A raw answer's JSON body, after asserting its status (the body is shown when it differs). */
export async function bodyOf<T = Record<string, unknown>>(response: Response, status = 200): Promise<T> {
  const text = await response.text();
  expect(response.status, text).toBe(status);
  return JSON.parse(text) as T;
}

/**
 * The order every list promises: by the key in the direction with nulls last either way, then by id in the same
 * direction. `keyOf` gives an item's sort key (null when it has none), `idOf` its id.
 */
export function contractOrder<T>(
  items: readonly T[],
  keyOf: (item: T) => string | number | null,
  idOf: (item: T) => string,
  direction: "asc" | "desc",
): string[] {
  const sign = direction === "asc" ? 1 : -1;
  return [...items]
    .sort((a, b) => {
      const ka = keyOf(a);
      const kb = keyOf(b);
      if (ka === null || kb === null) {
        if (ka !== kb) return ka === null ? 1 : -1;
      } else if (ka !== kb) {
        return (ka < kb ? -1 : 1) * sign;
      }
      return (idOf(a) < idOf(b) ? -1 : 1) * sign;
    })
    .map(idOf);
}

/** Every page of a list, from page 1 until hasNextPage is false; returns the items in the order the pages gave them. */
export async function allPages<T>(
  fetchPage: (page: number) => Promise<{ data: T[]; meta: { hasNextPage: boolean; totalPages: number } }>,
): Promise<{ items: T[]; pages: number }> {
  const items: T[] = [];
  for (let page = 1; ; page++) {
    const body = await fetchPage(page);
    items.push(...body.data);
    if (!body.meta.hasNextPage) return { items, pages: page };
  }
}

/** A use case's Work as a request of the operator's token would give it, for tests that call a use case directly. */
export function testWork(overrides: Partial<Work> = {}): Work {
  return {
    db: createDatabase(env.DB),
    outbox: new Outbox(),
    documents: env.DOCUMENTS,
    now: Date.now(),
    actor: { type: "token" },
    requestId: crypto.randomUUID(),
    deployment: { allowsInsecureWebhookUrls: false },
    ...overrides,
  };
}
