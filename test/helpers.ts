// Test helpers: requests through the Worker's own fetch handler, and a fresh customer account per test.
import { exports } from "cloudflare:workers";
import { expect } from "vitest";
import { TEST_ADMIN_TOKEN } from "./constants.ts";

export const ORIGIN = "https://vn.test";

export function call(path: string, init: RequestInit = {}): Promise<Response> {
  return exports.default.fetch(new Request(`${ORIGIN}${path}`, init));
}

function jsonInit(method: string, headers: Record<string, string>, body?: unknown): RequestInit {
  if (body === undefined) return { method, headers };
  return { method, headers: { ...headers, "Content-Type": "application/json" }, body: JSON.stringify(body) };
}

export function adminCall(method: string, path: string, body?: unknown): Promise<Response> {
  return call(path, jsonInit(method, { Authorization: `Bearer ${TEST_ADMIN_TOKEN}` }, body));
}

/** Reads a JSON body, asserting the status first so a failure shows the body. */
export async function json<T = any>(response: Response, status: number): Promise<T> {
  const text = await response.text();
  expect(response.status, text).toBe(status);
  return JSON.parse(text) as T;
}

/** Asserts a problem+json answer and returns its body. */
export async function problem(response: Response, status: number, code: string) {
  expect(response.headers.get("Content-Type")).toBe("application/problem+json");
  const body = await json<{
    type: string;
    title: string;
    status: number;
    detail: string;
    code: string;
    request_id: string;
    errors?: { location: string; pointer: string; message: string }[];
  }>(response, status);
  expect(body.code).toBe(code);
  expect(body.status).toBe(status);
  expect(body.request_id).toBe(response.headers.get("X-Request-Id"));
  return body;
}

export interface TestCustomer {
  slug: string;
  customerId: string;
  key: string;
  keyId: string;
  /** A request with this customer's key as a Bearer token. */
  call(method: string, path: string, body?: unknown): Promise<Response>;
}

let counter = 0;

export async function createCustomer(prefix = "c"): Promise<TestCustomer> {
  const slug = `${prefix}-${crypto.randomUUID().slice(0, 8)}-${++counter}`;
  const customer = await json(await adminCall("POST", "/admin/customers", { slug, name: `Customer ${slug}` }), 201);
  const created = await json(await adminCall("POST", `/admin/customers/${slug}/api-keys`, { name: "test" }), 201);
  return {
    slug,
    customerId: customer.customer_id,
    key: created.key,
    keyId: created.id,
    call: (method, path, body) => call(path, jsonInit(method, { Authorization: `Bearer ${created.key}` }, body)),
  };
}

export async function makeOrderable(countryCode: string, numberType: string): Promise<void> {
  const response = await adminCall("PUT", `/admin/catalog/${countryCode}/${numberType}`);
  expect([200, 201]).toContain(response.status);
  await response.body?.cancel();
}

let phoneCounter = 0;

/** A phone number no other test in this file uses. */
export function uniquePhoneNumber(): string {
  phoneCounter++;
  return `+1555${String(Date.now() % 1000).padStart(3, "0")}${String(phoneCounter).padStart(4, "0")}`;
}

/** Orders `count` US mobile numbers for the customer and has the operator allocate them; returns the numbers. */
export async function allocateNumbers(customer: TestCustomer, count = 1): Promise<{ number_id: string; phone_number: string }[]> {
  await makeOrderable("US", "mobile");
  const order = await json(
    await customer.call("POST", `/api/customers/${customer.slug}/orders`, { number_type: "mobile", country_code: "US", quantity: count }),
    201,
  );
  const phoneNumbers = Array.from({ length: count }, uniquePhoneNumber);
  const allocated = await json(await adminCall("POST", `/admin/orders/${order.order_id}/numbers`, { phone_numbers: phoneNumbers }), 201);
  return allocated.numbers;
}

/** A complete address submission for an individual verification. */
export const INDIVIDUAL_ADDRESS = {
  address_line_1: "1 Market St",
  city: "San Francisco",
  state_province: "CA",
  postal_code: "94105",
  country: "US",
  verification_type: "individual",
};

/** What `run` returns, and the JSON lines the Worker logged (one per request) while it ran. */
export async function withLogs<T>(run: () => Promise<T>): Promise<{ result: T; lines: Record<string, any>[] }> {
  const lines: Record<string, any>[] = [];
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
