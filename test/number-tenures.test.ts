// Tenures: a phone number is held while an unclosed tenure (a numbers row without closed_at) holds it, released or
// not; a closed tenure stays in its account's list and frees the phone number for stock and a new tenure elsewhere.
// Allocation from stock takes available numbers only. Releases and closing are written in SQL here (their endpoints
// and job have tests of their own).
import { env } from "cloudflare:workers";
import { and, eq, inArray, sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { auditEachBeforeWrite } from "../src/db/audit.ts";
import { batchByName, writeInPhases } from "../src/db/batch.ts";
import { createDatabase } from "../src/db/client.ts";
import { inEventChunks, NUMBERS_PER_NUMBER_EVENT } from "../src/db/outbox.ts";
import { auditEvents, numbers } from "../src/db/schema.ts";
import { DAY_MS } from "../src/lib/time.ts";
import { customerReferenceSchema, tagKey, tagListSchema, tagSchema } from "../src/numbers/schemas.ts";
import { numbersData } from "../src/webhooks/payloads.ts";
import { allocateNumbers, call, createCustomer, json, makeOrderable, problem, uniquePhoneNumber } from "./helpers.ts";
import { UNTOUCHED_TENURE_FIELDS } from "./number-life-helpers.ts";
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
      ...UNTOUCHED_TENURE_FIELDS,
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

  it("tags compare ignoring case", () => {
    expect(tagSchema.safeParse("Team:Support").success).toBe(true);
    expect(tagKey("Team:Support")).toBe(tagKey("team:SUPPORT"));
  });

  it("a number.* event names at most 250 numbers", () => {
    const ids = Array.from({ length: 2 * NUMBERS_PER_NUMBER_EVENT + 10 }, (_, i) => i);
    expect(inEventChunks(ids, NUMBERS_PER_NUMBER_EVENT).map((chunk) => chunk.length)).toEqual([250, 250, 10]);
    expect(inEventChunks(ids).map((chunk) => chunk.length)).toEqual([510]);
  });
});

describe("a number in an event and in the audit log", () => {
  it("a number.* event's data holds each number as the API answers it", async () => {
    const customer = await createCustomer("tenure");
    const allocated = await allocateNumbers(customer, 3);
    const [released, suspended, tagged] = allocated.map((n) => n.number_id) as [string, string, string];
    await run(
      `UPDATE numbers SET status = 'released', released_at = 1795000000123, restorable_until = 1795864000123,
         release_reason = 'operator', suspended_at = 1794000000000, suspension_reason = 'abuse' WHERE id = ?`,
      released,
    );
    await run(
      "UPDATE numbers SET status = 'suspended', suspended_at = 1794000000000, suspension_reason = 'non_payment' WHERE id = ?",
      suspended,
    );
    await run(
      `UPDATE numbers SET release_protected = 1, tags = '["b","A a","c:d"]', customer_reference = 'Ref "1" ü' WHERE id = ?`,
      tagged,
    );
    const db = createDatabase(env.DB);
    const [row] = await db.all<{ data: string }>(sql`SELECT ${numbersData([released, suspended, tagged])} AS data`);
    const listed = await json(
      await customer.account.numbers.$get({
        param: { customer_slug: customer.slug },
        query: { sort_by: "phone_number", sort_order: "asc" },
      }),
      200,
    );
    expect(JSON.parse(row!.data)).toEqual({ numbers: listed.data });
  });

  it("auditEachBeforeWrite records one event per row the write changes, each with its own id, none for the others", async () => {
    const customer = await createCustomer("tenure");
    const ids = (await allocateNumbers(customer, 3)).map((n) => n.number_id);
    const db = createDatabase(env.DB);
    const requestId = crypto.randomUUID();
    const guard = and(inArray(numbers.id, ids), eq(numbers.releaseProtected, false))!;
    await run("UPDATE numbers SET release_protected = 1 WHERE id = ?", ids[0]);
    await batchByName(db, {
      protect: writeInPhases({
        before: {
          audit: auditEachBeforeWrite(
            db,
            { actor: { type: "token" }, requestId, now: 1 },
            {
              action: "number.protection_changed",
              target: { type: "number", id: sql`'num_' || ${numbers.id}` },
              customerId: numbers.customerId,
              changes: {
                release_protected: [
                  sql`json(CASE WHEN ${numbers.releaseProtected} THEN 'true' ELSE 'false' END)`,
                  sql`json('true')`,
                ],
              },
            },
            { from: numbers, guard },
          ),
        },
        write: db.update(numbers).set({ releaseProtected: true }).where(guard),
      }),
    });
    const written = await db.select().from(auditEvents).where(eq(auditEvents.requestId, requestId));
    expect(written.map((e) => e.targetId).sort()).toEqual(
      ids
        .slice(1)
        .map((id) => `num_${id}`)
        .sort(),
    );
    expect(new Set(written.map((e) => e.id)).size).toBe(2);
    for (const event of written) {
      expect(event).toMatchObject({ action: "number.protection_changed", targetType: "number", customerId: customer.customerId });
      expect(JSON.parse(event.changes)).toEqual({ release_protected: [false, true] });
    }
  });
});
