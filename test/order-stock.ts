// What the tests of orders from reservations and of instant fulfilment share: a pair of their own with stock, a
// reservation made by SQL (the plan's shape: a reservations row, its numbers, their stock rows reserved naming it),
// and reads of the stock rows, the account's events and an order's audit events.
import { env } from "cloudflare:workers";
import { expect } from "vitest";
import type { Event } from "../src/events/schemas.ts";
import { TEST_ADMIN_TOKEN } from "./constants.ts";
import {
  bodyOf,
  call,
  createCustomer,
  json,
  makeOrderable,
  type TestCustomer,
  uniqueNumberType,
  uniquePhoneNumber,
} from "./helpers.ts";

const ADMIN = { Authorization: `Bearer ${TEST_ADMIN_TOKEN}`, "Content-Type": "application/json" };
const MINUTE = 60_000;

/** The operator's JSON request (ADMIN_TOKEN). */
export function asOperator(method: string, path: string, body?: unknown): Promise<Response> {
  return call(path, { method, headers: ADMIN, body: body === undefined ? undefined : JSON.stringify(body) });
}

/** Adds these numbers to the stock of US/`type` in one import. */
export async function stockNumbers(type: string, phones: string[]): Promise<void> {
  const rows = phones.map((phone) => ({ phone_number: phone, country_code: "US", number_type: type }));
  const report = await bodyOf<{ imported: number }>(await asOperator("POST", "/admin/stock", { numbers: rows }), 201);
  expect(report.imported).toBe(phones.length);
}

/** An account, a pair of its own (US and a new type, orderable) and `count` numbers of it in stock. */
export async function pairWithStock(count: number, prefix = "ord") {
  const type = uniqueNumberType();
  await makeOrderable("US", type);
  const customer = await createCustomer(prefix);
  const phones = Array.from({ length: count }, uniquePhoneNumber).sort();
  if (count > 0) await stockNumbers(type, phones);
  return { type, customer, phones };
}

/** Sets the pair's auto_fulfil. */
export async function setAutoFulfil(type: string, autoFulfil: boolean): Promise<void> {
  await bodyOf(await asOperator("PUT", `/admin/catalog/US/${type}`, { auto_fulfil: autoFulfil }));
}

/**
 * A reservation of the customer's holding these stock numbers of US/`type`, made by SQL as a reservation is: active
 * until `expiresAt` (default in 30 minutes), held through `holdForProfile` (a bare profile id) when given.
 */
export async function reserveBySql(
  customer: TestCustomer,
  type: string,
  phones: string[],
  { expiresAt = Date.now() + 30 * MINUTE, holdForProfile = null as string | null, status = "active" } = {},
): Promise<string> {
  const id = crypto.randomUUID();
  const now = Date.now();
  const list = JSON.stringify(phones);
  await env.DB.batch([
    env.DB.prepare(
      `INSERT INTO reservations (id, customer_id, country_code, number_type, status, quantity, expires_at, hold_for_profile,
         order_id, created_at, updated_at) VALUES (?1, ?2, 'US', ?3, ?4, ?5, ?6, ?7, NULL, ?8, ?8)`,
    ).bind(id, customer.customerId, type, status, phones.length, expiresAt, holdForProfile, now),
    env.DB.prepare("INSERT INTO reservation_numbers (reservation_id, phone_number) SELECT ?1, value FROM json_each(?2)").bind(
      id,
      list,
    ),
    ...(status === "active"
      ? [
          env.DB.prepare(
            "UPDATE stock_numbers SET status = 'reserved', reservation_id = ?1, held_until = ?2 WHERE phone_number IN (SELECT value FROM json_each(?3))",
          ).bind(id, expiresAt, list),
        ]
      : []),
  ]);
  return id;
}

export interface StockState {
  phone_number: string;
  status: string;
  reservation_id: string | null;
  held_until: number | null;
}

/** The stock rows of these numbers (absent: allocated, or never stocked), by phone number. */
export async function stockState(phones: string[]): Promise<StockState[]> {
  const { results } = await env.DB.prepare(
    `SELECT phone_number, status, reservation_id, held_until FROM stock_numbers
       WHERE phone_number IN (SELECT value FROM json_each(?)) ORDER BY phone_number`,
  )
    .bind(JSON.stringify(phones))
    .all<StockState>();
  return results;
}

/** The reservation's row: status and order. */
export async function reservationRow(id: string) {
  return env.DB.prepare("SELECT status, order_id, updated_at FROM reservations WHERE id = ?")
    .bind(id)
    .first<{ status: string; order_id: string | null; updated_at: number }>();
}

/** The phone numbers allocated to the order (its numbers' tenures). */
export async function numbersOfOrder(orderId: string): Promise<string[]> {
  const { results } = await env.DB.prepare("SELECT phone_number FROM numbers WHERE order_id = ? ORDER BY phone_number")
    .bind(orderId)
    .all<{ phone_number: string }>();
  return results.map((row) => row.phone_number);
}

/** Every event of the account, oldest first (the API lists newest first; one batch's in their order). */
export async function eventsOf(customer: TestCustomer): Promise<Event[]> {
  const body = await json(
    await customer.account.events.$get({ param: { customer_slug: customer.slug }, query: { limit: "100" } }),
    200,
  );
  return body.data.reverse() as Event[];
}

/** The order's audit events: action and actor. */
export async function auditOfOrder(orderId: string) {
  const { results } = await env.DB.prepare(
    "SELECT action, actor_type, actor_id, changes FROM audit_events WHERE target_type = 'order' AND target_id = ? ORDER BY created_at",
  )
    .bind(orderId)
    .all<{ action: string; actor_type: string; actor_id: string | null; changes: string }>();
  return results;
}

/** The account's orders, as its list counts them. */
export async function orderCount(customer: TestCustomer): Promise<number> {
  const list = await json(await customer.account.orders.$get({ param: { customer_slug: customer.slug }, query: {} }), 200);
  return list.meta.total;
}
