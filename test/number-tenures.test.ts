// Tenures: a phone number is held while an unclosed tenure (a numbers row without closed_at) holds it, released or
// not; a closed tenure stays in its account's list and frees the phone number for stock and a new tenure elsewhere.
// Allocation from stock takes available numbers only. Releases and closing are written in SQL here (their endpoints
// and job have tests of their own).
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { inEventChunks, NUMBERS_PER_NUMBER_EVENT } from "../src/db/outbox.ts";
import { DAY_MS } from "../src/lib/time.ts";
import { customerReferenceSchema, tagListSchema } from "../src/numbers/schemas.ts";
import { allocateNumbers, call, createCustomer, json, makeOrderable, problem, uniquePhoneNumber } from "./helpers.ts";
import { type StaffMember, staffMember } from "./staff.ts";

let fulfilment: StaffMember;

beforeAll(async () => {
  fulfilment = await staffMember("fulfilment");
});

async function run(sql: string, ...params: unknown[]): Promise<void> {
  await env.DB.prepare(sql)
    .bind(...params)
    .run();
}

async function importStock(rows: { phone_number: string; country_code: string; number_type: string }[]) {
  const answer = await call("/admin/stock", {
    method: "POST",
    headers: { ...fulfilment.headers, "Content-Type": "application/json" },
    body: JSON.stringify({ numbers: rows }),
  });
  expect(answer.status).toBe(201);
  return (await answer.json()) as { imported: number; duplicates: string[] };
}

function allocate(orderId: string, body: unknown) {
  return call(`/admin/orders/${orderId}/numbers`, {
    method: "POST",
    headers: { ...fulfilment.headers, "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
}

async function pendingOrder(numberType: string, quantity: number) {
  await makeOrderable("US", numberType);
  const customer = await createCustomer("tenure");
  const order = await json(
    await customer.account.orders.$post({
      param: { customer_slug: customer.slug },
      json: { number_type: numberType, country_code: "US", quantity },
    }),
    201,
  );
  return { customer, order };
}

describe("tenures", () => {
  it("hold a phone number until closed, released or not; a closed tenure stays listed and frees it", async () => {
    const holder = await createCustomer("tenure");
    const [held] = await allocateNumbers(holder, 1);
    if (!held) expect.fail("no number allocated");
    const phone = held.phone_number;
    const releasedAt = Date.UTC(2026, 10, 1);
    await run(
      "UPDATE numbers SET status = 'released', released_at = ?, restorable_until = ?, release_reason = 'customer' WHERE id = ?",
      releasedAt,
      releasedAt + 10 * DAY_MS,
      held.number_id,
    );
    const { customer, order } = await pendingOrder("mobile", 1);
    // Released, in its restore window: still held.
    const refused = await problem(await allocate(order.order_id, { phone_numbers: [phone] }), 409, "conflict");
    expect(refused.detail).toContain(phone);
    expect(await importStock([{ phone_number: phone, country_code: "US", number_type: "mobile" }])).toMatchObject({
      imported: 0,
      duplicates: [phone],
    });

    await run("UPDATE numbers SET closed_at = ? WHERE id = ?", releasedAt + 10 * DAY_MS + 1, held.number_id);
    expect(await importStock([{ phone_number: phone, country_code: "US", number_type: "mobile" }])).toMatchObject({
      imported: 1,
    });
    const allocated = await json(
      await fulfilment.api.admin.orders[":order_id"].numbers.$post({
        param: { order_id: order.order_id },
        json: { phone_numbers: [phone] },
      }),
      201,
    );
    expect(allocated.numbers).toHaveLength(1);
    // The new tenure starts clean; the closed one is still its holder's, released.
    expect(allocated.numbers[0]).toMatchObject({
      phone_number: phone,
      status: "active",
      released_at: null,
      restorable_until: null,
      release_reason: null,
      suspended_at: null,
      suspension_reason: null,
      release_protected: false,
      tags: [],
      customer_reference: null,
    });
    const listed = await json(
      await holder.account.numbers.$get({ param: { customer_slug: holder.slug }, query: { status: "released" } }),
      200,
    );
    expect(listed.data).toEqual([
      expect.objectContaining({
        number_id: held.number_id,
        status: "released",
        released_at: new Date(releasedAt).toISOString(),
        restorable_until: new Date(releasedAt + 10 * DAY_MS).toISOString(),
        release_reason: "customer",
      }),
    ]);
    const rows = await env.DB.prepare("SELECT customer_id, closed_at IS NULL AS open FROM numbers WHERE phone_number = ?")
      .bind(phone)
      .all<{ customer_id: string; open: number }>();
    expect(rows.results.toSorted((a, b) => a.open - b.open)).toEqual([
      { customer_id: holder.customerId, open: 0 },
      { customer_id: customer.customerId, open: 1 },
    ]);
    // D1 itself refuses a second unclosed tenure of one phone number.
    await expect(
      run(
        `INSERT INTO numbers (id, customer_id, order_id, phone_number, country_code, number_type, status, created_at, updated_at)
         VALUES (?, ?, ?, ?, 'US', 'mobile', 'active', 0, 0)`,
        crypto.randomUUID(),
        holder.customerId,
        held.order_id,
        phone,
      ),
    ).rejects.toThrow(/UNIQUE/);
  });

  it("allocate from stock available numbers only, oldest available_at first, then import time, then number", async () => {
    const type = `tn${crypto.randomUUID().slice(0, 8)}`;
    const phones = Array.from({ length: 4 }, uniquePhoneNumber).sort();
    await importStock(phones.map((phone) => ({ phone_number: phone, country_code: "US", number_type: type })));
    const [first, second, quarantined, later] = phones as [string, string, string, string];
    // The last by number is available earliest; one is quarantined.
    await run("UPDATE stock_numbers SET available_at = available_at - 1000 WHERE phone_number = ?", later);
    await run(
      "UPDATE stock_numbers SET status = 'quarantined', available_at = available_at - 2000 WHERE phone_number = ?",
      quarantined,
    );
    const { order } = await pendingOrder(type, 4);
    const short = await problem(await allocate(order.order_id, { from_stock: 4 }), 409, "insufficient_stock");
    expect(short.detail).toContain("3");
    const allocated = await json(
      await fulfilment.api.admin.orders[":order_id"].numbers.$post({
        param: { order_id: order.order_id },
        json: { from_stock: 2 },
      }),
      201,
    );
    expect(allocated.numbers.map((n) => n.phone_number).sort()).toEqual([first, later].sort());
    const left = await env.DB.prepare("SELECT phone_number FROM stock_numbers WHERE number_type = ? ORDER BY phone_number")
      .bind(type)
      .all<{ phone_number: string }>();
    expect(left.results.map((r) => r.phone_number)).toEqual([second, quarantined]);
  });
});

describe("the number's shared rules", () => {
  it("tags: the pattern, at most 20, unique ignoring case; a reference: one visible line of at most 100", () => {
    expect(tagListSchema.safeParse(["a", "team:support", "x.y-z_1", "two words", "A".repeat(64)]).success).toBe(true);
    for (const bad of [" a", "a ", "é", "a\tb", "A".repeat(65), "", "a/b"]) {
      expect(tagListSchema.safeParse([bad]).success, JSON.stringify(bad)).toBe(false);
    }
    expect(tagListSchema.safeParse(["Team", "team"]).success).toBe(false);
    expect(tagListSchema.safeParse(Array.from({ length: 20 }, (_, i) => `t${i}`)).success).toBe(true);
    expect(tagListSchema.safeParse(Array.from({ length: 21 }, (_, i) => `t${i}`)).success).toBe(false);
    expect(customerReferenceSchema.safeParse("CRM-4411 ü").success).toBe(true);
    expect(customerReferenceSchema.safeParse("x".repeat(100)).success).toBe(true);
    for (const bad of ["x".repeat(101), "a\u0000b", "a\nb", "a\u200bb", ""]) {
      expect(customerReferenceSchema.safeParse(bad).success, JSON.stringify(bad)).toBe(false);
    }
  });

  it("a number.* event names at most 250 numbers", () => {
    const ids = Array.from({ length: 2 * NUMBERS_PER_NUMBER_EVENT + 10 }, (_, i) => i);
    expect(inEventChunks(ids, NUMBERS_PER_NUMBER_EVENT).map((chunk) => chunk.length)).toEqual([250, 250, 10]);
    expect(inEventChunks(ids).map((chunk) => chunk.length)).toEqual([510]);
  });
});
