// A number's own details: GET and PATCH of one number, tags on many, the list's new filters, and the operator's reads
// of numbers across accounts. Releases are written in SQL here (their endpoints have tests of their own).
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { DAY_MS } from "../src/lib/time.ts";
import { TEST_ADMIN_TOKEN } from "./constants.ts";
import { allocateNumbers, bodyOf, call, createCustomer, problem, type TestCustomer } from "./helpers.ts";
import { UNTOUCHED_TENURE_FIELDS } from "./number-life-helpers.ts";

type NumberItem = { number_id: string; phone_number: string; status: string; tags: string[] } & Record<string, unknown>;
type TagReport = { updated: number; results: { number_id: string; phone_number: string | null; outcome: string }[] };

const numberPath = (customer: TestCustomer, id: string) => `/api/customers/${customer.slug}/numbers/${id}`;
const tagsPath = (customer: TestCustomer) => `/api/customers/${customer.slug}/numbers/tags`;

/** A customer with `count` allocated numbers (their ids). */
async function withNumbers(count: number) {
  const customer = await createCustomer("details");
  const numbers = await allocateNumbers(customer, count);
  return { customer, ids: numbers.map((n) => n.number_id), phones: numbers.map((n) => n.phone_number) };
}

async function released(id: string, releasedAt = Date.UTC(2026, 10, 1, 12)) {
  await env.DB.prepare(
    "UPDATE numbers SET status = 'released', released_at = ?, restorable_until = ?, release_reason = 'customer' WHERE id = ?",
  )
    .bind(releasedAt, releasedAt + 10 * DAY_MS, id)
    .run();
}

/** The account's numbers, number.* events and audit events as stored: a refused request changes none of them. */
async function snapshot(customerId: string) {
  const rows = async (query: string) => (await env.DB.prepare(query).bind(customerId).all()).results;
  return {
    numbers: await rows("SELECT * FROM numbers WHERE customer_id = ? ORDER BY id"),
    tags: await rows("SELECT * FROM number_tags WHERE customer_id = ? ORDER BY number_id, tag_key"),
    events: await rows("SELECT id FROM events WHERE customer_id = ? ORDER BY id"),
    audit: await rows("SELECT id FROM audit_events WHERE customer_id = ? ORDER BY id"),
  };
}

async function eventsOf(customerId: string, type: string) {
  const { results } = await env.DB.prepare("SELECT data FROM events WHERE customer_id = ? AND type = ? ORDER BY rowid")
    .bind(customerId, type)
    .all<{ data: string }>();
  return results.map((row) => JSON.parse(row.data) as { numbers: NumberItem[] });
}

async function auditOf(customerId: string, action: string) {
  const { results } = await env.DB.prepare(
    "SELECT target_id, changes, actor_type FROM audit_events WHERE customer_id = ? AND action = ? ORDER BY rowid",
  )
    .bind(customerId, action)
    .all<{ target_id: string; changes: string; actor_type: string }>();
  return results.map((row) => ({ ...row, changes: JSON.parse(row.changes) }));
}

const ADMIN = { headers: { Authorization: `Bearer ${TEST_ADMIN_TOKEN}` } };

const patch = (customer: TestCustomer, id: string, body: unknown) => customer.callJson("PATCH", numberPath(customer, id), body);
const tag = (customer: TestCustomer, body: unknown) => customer.callJson("POST", tagsPath(customer), body);

describe("GET and PATCH of a number", () => {
  it("answers the account's number, and 404 for another account's", async () => {
    const { customer, ids } = await withNumbers(1);
    const other = await createCustomer("details");
    const got = await bodyOf<NumberItem>(await customer.call(numberPath(customer, `num_${ids[0]}`)));
    expect(got).toMatchObject({ number_id: ids[0], status: "active", ...UNTOUCHED_TENURE_FIELDS });
    await problem(await other.call(numberPath(other, ids[0]!)), 404, "not_found");
    await problem(await customer.call(numberPath(customer, crypto.randomUUID())), 404, "not_found");
  });

  it("sets only the fields given, emits number.updated when something changed, audits a change of protection", async () => {
    const { customer, ids } = await withNumbers(1);
    const id = ids[0]!;
    const first = await bodyOf<NumberItem>(
      await patch(customer, id, { tags: ["VIP", "team:support"], customer_reference: "CRM-1" }),
    );
    expect(first).toMatchObject({ tags: ["VIP", "team:support"], customer_reference: "CRM-1", release_protected: false });
    expect(await auditOf(customer.customerId, "number.protection_changed")).toEqual([]);

    const second = await bodyOf<NumberItem>(await patch(customer, id, { release_protected: true, customer_reference: null }));
    expect(second).toMatchObject({ tags: ["VIP", "team:support"], customer_reference: null, release_protected: true });
    expect(await auditOf(customer.customerId, "number.protection_changed")).toEqual([
      { target_id: `num_${id}`, changes: { release_protected: [false, true] }, actor_type: "api_key" },
    ]);
    const events = await eventsOf(customer.customerId, "number.updated");
    expect(events.map((e) => e.numbers)).toEqual([[first], [second]]);

    // The same values again: nothing changed, so no event and no audit.
    const same = await snapshot(customer.customerId);
    expect(
      await bodyOf<NumberItem>(await patch(customer, id, { release_protected: true, tags: ["VIP", "team:support"] })),
    ).toEqual(second);
    expect(await snapshot(customer.customerId)).toEqual(same);
  });

  it("refuses bad input and a released number, changing nothing", async () => {
    const { customer, ids } = await withNumbers(2);
    const [id, gone] = ids as [string, string];
    await released(gone);
    const cases: [body: unknown, status: number, code: "validation_error" | "number_released", pointer?: string][] = [
      [{}, 400, "validation_error", ""],
      [{ status: "suspended" }, 400, "validation_error", ""],
      [{ tags: [" leading"] }, 400, "validation_error", "/tags/0"],
      [{ tags: ["x".repeat(65)] }, 400, "validation_error", "/tags/0"],
      [{ tags: ["café"] }, 400, "validation_error", "/tags/0"],
      [{ tags: ["a\u0007b"] }, 400, "validation_error", "/tags/0"],
      [{ tags: Array.from({ length: 21 }, (_, i) => `t${i}`) }, 400, "validation_error", "/tags"],
      [{ tags: ["vip", "VIP"] }, 400, "validation_error", "/tags"],
      [{ customer_reference: "r".repeat(101) }, 400, "validation_error", "/customer_reference"],
      [{ customer_reference: "a\u0001b" }, 400, "validation_error", "/customer_reference"],
      [{ customer_reference: "a\u200bb" }, 400, "validation_error", "/customer_reference"],
      [{ customer_reference: "" }, 400, "validation_error", "/customer_reference"],
      [{ release_protected: "yes" }, 400, "validation_error", "/release_protected"],
    ];
    const before = await snapshot(customer.customerId);
    for (const [body, status, code, pointer] of cases) {
      const refused = await problem(await patch(customer, id, body), status, code);
      if (pointer !== undefined)
        expect(
          refused.errors?.map((e) => e.pointer),
          JSON.stringify(body),
        ).toContain(pointer);
    }
    const refused = await problem(await patch(customer, gone, { tags: ["late"] }), 409, "number_released");
    expect(refused.detail).toContain("restore");
    expect(await snapshot(customer.customerId)).toEqual(before);
  });
});

describe("tags on many numbers", () => {
  it("add and remove ignoring case, keep the order, and report each number's outcome in request order", async () => {
    const { customer, ids, phones } = await withNumbers(4);
    const [a, b, c, d] = ids as [string, string, string, string];
    const other = await withNumbers(1);
    await bodyOf(await patch(customer, a, { tags: ["Red", "blue"] }));
    await bodyOf(await patch(customer, b, { tags: Array.from({ length: 20 }, (_, i) => `t${i}`) }));
    await released(c);
    const unknown = crypto.randomUUID();
    const report = await bodyOf<TagReport>(
      await tag(customer, {
        number_ids: [`num_${a}`, b, c, d, unknown, other.ids[0], a.toUpperCase()],
        add: ["BLUE", "green", "Yellow"],
        remove: ["red"],
      }),
    );
    expect(report).toEqual({
      updated: 2,
      results: [
        { number_id: a, phone_number: phones[0], outcome: "updated" },
        { number_id: b, phone_number: phones[1], outcome: "too_many_tags" },
        { number_id: c, phone_number: phones[2], outcome: "number_released" },
        { number_id: d, phone_number: phones[3], outcome: "updated" },
        { number_id: unknown, phone_number: null, outcome: "not_found" },
        { number_id: other.ids[0], phone_number: null, outcome: "not_found" },
      ],
    });
    const tagsOf = async (id: string) => (await bodyOf<NumberItem>(await customer.call(numberPath(customer, id)))).tags;
    expect(await tagsOf(a)).toEqual(["blue", "green", "Yellow"]);
    expect(await tagsOf(d)).toEqual(["BLUE", "green", "Yellow"]);
    expect(await tagsOf(c)).toEqual([]);
    // One event naming the changed numbers as they now stand.
    const [event, ...more] = (await eventsOf(customer.customerId, "number.updated")).slice(2);
    expect(more).toEqual([]);
    expect(event?.numbers.map((n) => [n.number_id, n.tags])).toEqual(
      [
        [a, ["blue", "green", "Yellow"]],
        [d, ["BLUE", "green", "Yellow"]],
      ].sort(([x], [y]) => (phones[ids.indexOf(x as string)]! < phones[ids.indexOf(y as string)]! ? -1 : 1)),
    );
    // Again: nothing left to change.
    const again = await bodyOf<TagReport>(await tag(customer, { number_ids: [a], add: ["GREEN"], remove: ["RED"] }));
    expect(again).toEqual({ updated: 0, results: [{ number_id: a, phone_number: phones[0], outcome: "unchanged" }] });
    // Not audited.
    expect(await auditOf(customer.customerId, "number.protection_changed")).toEqual([]);
  });

  it("refuses bad bodies, changing nothing", async () => {
    const { customer, ids } = await withNumbers(1);
    const id = ids[0]!;
    const before = await snapshot(customer.customerId);
    const cases: [unknown, string][] = [
      [{ number_ids: [], add: ["a"] }, "/number_ids"],
      [{ number_ids: Array.from({ length: 1001 }, () => id), add: ["a"] }, "/number_ids"],
      [{ number_ids: [id] }, ""],
      [{ number_ids: [id], add: ["a"], remove: ["A"] }, "/add"],
      [{ number_ids: [id], add: ["a", "A"] }, "/add"],
      [{ number_ids: [id], add: [" a"] }, "/add/0"],
      [{ number_ids: [id], add: [] }, "/add"],
      [{ number_ids: ["nope"], add: ["a"] }, "/number_ids/0"],
      [{ number_ids: [id], add: ["a"], status: "active" }, "/status"],
    ];
    for (const [body, pointer] of cases) {
      const refused = await problem(await tag(customer, body), 400, "validation_error");
      expect(
        refused.errors?.map((e) => e.pointer),
        JSON.stringify(body).slice(0, 80),
      ).toContain(pointer);
    }
    expect(await snapshot(customer.customerId)).toEqual(before);
  });
});

describe("the list's filters", () => {
  it("tag (all of them, ignoring case), customer_reference (exact), released days (inclusive), and released numbers", async () => {
    const { customer, ids } = await withNumbers(4);
    const [a, b, c, d] = ids as [string, string, string, string];
    await bodyOf(await patch(customer, a, { tags: ["Red", "Blue"], customer_reference: "CRM-1" }));
    await bodyOf(await patch(customer, b, { tags: ["red"], customer_reference: "crm-1" }));
    await released(c, Date.UTC(2026, 10, 1, 0, 0));
    await released(d, Date.UTC(2026, 10, 3, 23, 59, 59, 999));
    const list = async (query: string) =>
      (
        await bodyOf<{ data: NumberItem[] }>(await customer.call(`/api/customers/${customer.slug}/numbers?${query}&limit=100`))
      ).data
        .map((n) => n.number_id)
        .sort();
    expect(await list("tag=RED")).toEqual([a, b].sort());
    expect(await list("tag=red,BLUE")).toEqual([a]);
    // A tag named twice, in two cases, is one tag.
    expect(await list("tag=RED,red")).toEqual([a, b].sort());
    expect(await list("tag=red,green")).toEqual([]);
    expect(await list("customer_reference=CRM-1")).toEqual([a]);
    expect(await list("released_from=2026-11-01&released_to=2026-11-03")).toEqual([c, d].sort());
    expect(await list("released_from=2026-11-02")).toEqual([d]);
    expect(await list("released_to=2026-11-01")).toEqual([c]);
    expect(await list("status=released")).toEqual([c, d].sort());
    expect(await list("")).toEqual(ids.slice().sort());
    const meta = await bodyOf<{ meta: { total: number } }>(
      await customer.call(`/api/customers/${customer.slug}/numbers?tag=red`),
    );
    expect(meta.meta.total).toBe(2);
    const refused = await problem(
      await customer.call(`/api/customers/${customer.slug}/numbers?released_from=2026-11-04&released_to=2026-11-03`),
      400,
      "validation_error",
    );
    expect(refused.errors?.map((e) => e.pointer)).toEqual(["released_from"]);
  });

  it("a released number is in no profile and never matches kyc_expires_before", async () => {
    const { customer, ids } = await withNumbers(2);
    const [kept, gone] = ids as [string, string];
    const expires = Date.UTC(2026, 0, 10);
    await env.DB.prepare("UPDATE numbers SET kyc_expires_at = ? WHERE id IN (?, ?)").bind(expires, kept, gone).run();
    await released(gone);
    const found = (
      await bodyOf<{ data: NumberItem[] }>(
        await customer.call(`/api/customers/${customer.slug}/numbers?kyc_expires_before=2026-02-01`),
      )
    ).data.map((n) => n.number_id);
    expect(found).toEqual([kept]);
  });
});

describe("the operator's numbers", () => {
  it("lists every account's numbers newest first, filtered by account, status and phone prefix with or without +", async () => {
    const { customer, ids, phones } = await withNumbers(3);
    await released(ids[2]!);
    const page = async (query: string) =>
      bodyOf<{ data: (NumberItem & { customer_slug: string })[]; meta: { total: number } }>(
        await call(`/admin/numbers?${query}`, ADMIN),
      );
    const all = await page(`customer_slug=${customer.slug}`);
    expect(all.meta.total).toBe(3);
    expect(all.data.every((n) => n.customer_slug === customer.slug)).toBe(true);
    const created = all.data.map((n) => n.created_at as string);
    expect(created).toEqual([...created].sort().reverse());
    expect((await page(`customer_slug=${customer.slug}&status=released`)).data.map((n) => n.number_id)).toEqual([ids[2]]);
    const phone = phones[0]!;
    // A + left unencoded reads as a space, and is taken as the +.
    for (const search of [encodeURIComponent(phone), phone, phone.slice(1), encodeURIComponent(phone.slice(0, -1))]) {
      const found = await page(`search=${search}&customer_slug=${customer.slug}`);
      expect(found.data.map((n) => n.phone_number)).toContain(phone);
    }
    expect((await page(`search=${encodeURIComponent(phone)}`)).data.map((n) => n.number_id)).toEqual([ids[0]]);
    await problem(await call("/admin/numbers?search=12a", ADMIN), 400, "validation_error");
  });

  it("shows one number with its account, order, verification and history; 404 for none", async () => {
    const { customer, ids } = await withNumbers(1);
    const id = ids[0]!;
    await bodyOf(await patch(customer, id, { release_protected: true }));
    const got = await bodyOf<{
      number: NumberItem;
      customer_slug: string;
      order: { order_id: string };
      verification: unknown;
      history: { action: string; target: { id: string } }[];
    }>(await call(`/admin/numbers/num_${id}`, ADMIN));
    expect(got).toMatchObject({
      customer_slug: customer.slug,
      verification: null,
      number: { number_id: id, release_protected: true },
    });
    expect(got.order.order_id).toBe(got.number.order_id);
    expect(got.history).toMatchObject([{ action: "number.protection_changed", target: { type: "number", id: `num_${id}` } }]);
    await problem(await call(`/admin/numbers/${crypto.randomUUID()}`, ADMIN), 404, "not_found");
  });
});
