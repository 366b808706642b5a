// Events: every change of an order or a verification writes its event, with the resource exactly as the API answered
// it; nothing else writes one, and a refused request writes none. The events API lists them newest first.
import { env } from "cloudflare:workers";
import { sql } from "drizzle-orm";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createDatabase } from "../src/db/client.ts";
import { pageWindow } from "../src/db/paging.ts";
import { EVENT_TYPES } from "../src/db/schema.ts";
import { iso } from "../src/db/sql.ts";
import { EVENT_TYPES_BY_DATA, type Event } from "../src/events/schemas.ts";
import { eventPageQuery } from "../src/events/store.ts";
import { toIso } from "../src/lib/time.ts";
import { createdDocument, pdf, uploadFile } from "./files.ts";
import {
  allocateNumbers,
  createCustomer,
  INDIVIDUAL_ADDRESS,
  json,
  makeOrderable,
  operator,
  problem,
  type TestCustomer,
  uniquePhoneNumber,
} from "./helpers.ts";

/** Every event of the account, oldest first (the API lists newest first). */
async function eventsOf(customer: TestCustomer): Promise<Event[]> {
  const body = await json(
    await customer.account.events.$get({ param: { customer_slug: customer.slug }, query: { limit: "100" } }),
    200,
  );
  expect(body.meta.total).toBe(body.data.length);
  return body.data.reverse() as Event[];
}

/** Runs `change` and returns the events it wrote, oldest first. */
async function eventsWrittenBy(customer: TestCustomer, change: () => Promise<unknown>): Promise<Event[]> {
  const before = (await eventsOf(customer)).length;
  await change();
  return (await eventsOf(customer)).slice(before);
}

async function newOrder(customer: TestCustomer, quantity = 3) {
  await makeOrderable("US", "mobile");
  return json(
    await customer.account.orders.$post({
      param: { customer_slug: customer.slug },
      json: { number_type: "mobile", country_code: "US", quantity },
    }),
    201,
  );
}

function allocate(orderId: string, count: number) {
  return operator.admin.orders[":order_id"].numbers.$post({
    param: { order_id: orderId },
    json: { phone_numbers: Array.from({ length: count }, uniquePhoneNumber) },
  });
}

function moveOrder(orderId: string, status: "processing" | "cancelled") {
  return operator.admin.orders[":order_id"].status.$post({ param: { order_id: orderId }, json: { status } });
}

function review(kycId: string, status: "under_review" | "approved" | "rejected", rejection_reason?: string) {
  const body = rejection_reason === undefined ? { status } : { status, rejection_reason };
  return operator.admin.kyc[":kyc_id"].review.$post({ param: { kyc_id: kycId }, json: body });
}

function submit(customer: TestCustomer, numberId: string) {
  return customer.api.v1.numbers[":number_id"].KYC.address.$post({ param: { number_id: numberId }, json: INDIVIDUAL_ADDRESS });
}

function amend(customer: TestCustomer, numberId: string, city: string) {
  return customer.api.v1.numbers[":number_id"].KYC.address.$patch({ param: { number_id: numberId }, json: { city } });
}

async function verificationOf(customer: TestCustomer, numberId: string) {
  return json(await customer.api.v1.numbers[":number_id"].KYC.$get({ param: { number_id: numberId } }), 200);
}

/** The one event a change wrote, of this type, with its data. */
function only(written: Event[], type: Event["type"]): Event {
  expect(written.map((e) => e.type)).toEqual([type]);
  return written[0]!;
}

describe("order events", () => {
  it("order.created and order.updated carry the order as the API answered it", async () => {
    const customer = await createCustomer("ev");
    let created: unknown;
    const [createdEvent] = await eventsWrittenBy(customer, async () => {
      created = await newOrder(customer);
    });
    expect(createdEvent).toMatchObject({ type: "order.created", data: created });
    expect(createdEvent!.id).toMatch(/^evt_[0-9a-f-]{36}$/);

    const { order_id } = created as { order_id: string };
    let updated: unknown;
    const written = await eventsWrittenBy(customer, async () => {
      updated = await json(
        await customer.account.orders[":order_id"].$put({
          param: { customer_slug: customer.slug, order_id },
          json: { quantity: 4, notes: "second floor" },
        }),
        200,
      );
    });
    expect(only(written, "order.updated").data).toEqual(updated);
    expect(written[0]!.timestamp).toBe((updated as { updated_at: string }).updated_at);
  });

  it("the operator's moves write order.processing and order.cancelled", async () => {
    const customer = await createCustomer("ev");
    const order = await newOrder(customer);
    let moved: unknown;
    let written = await eventsWrittenBy(customer, async () => {
      moved = await json(await moveOrder(order.order_id, "processing"), 200);
    });
    expect(only(written, "order.processing").data).toEqual(moved);
    written = await eventsWrittenBy(customer, async () => {
      moved = await json(await moveOrder(order.order_id, "cancelled"), 200);
    });
    expect(only(written, "order.cancelled").data).toEqual(moved);
  });

  it("a first partial allocation writes order.processing then order.numbers_allocated; the last one order.fulfilled", async () => {
    const customer = await createCustomer("ev");
    const order = await newOrder(customer, 3);
    let allocation = await json(await allocate(order.order_id, 1), 201);
    let written = await eventsWrittenBy(customer, async () => undefined);
    expect(written).toEqual([]);
    const all = await eventsOf(customer);
    expect(all.map((e) => e.type)).toEqual(["order.created", "order.processing", "order.numbers_allocated"]);
    expect(all[1]!.data).toEqual(allocation.order);
    expect(all[2]!.data).toEqual(allocation);
    expect(allocation.order.status).toBe("processing");

    written = await eventsWrittenBy(customer, async () => {
      allocation = await json(await allocate(order.order_id, 2), 201);
    });
    expect(written.map((e) => e.type)).toEqual(["order.numbers_allocated", "order.fulfilled"]);
    expect(written[0]!.data).toEqual(allocation);
    expect(written[1]!.data).toEqual(allocation.order);
    expect(allocation.order.status).toBe("fulfilled");
    // The numbers as the numbers list shows them.
    const listed = await json(await customer.account.numbers.$get({ param: { customer_slug: customer.slug }, query: {} }), 200);
    for (const number of allocation.numbers) expect(listed.data).toContainEqual(number);
  });

  it("an allocation of a processing order writes no order.processing; one that fulfils a pending order at once none either", async () => {
    const customer = await createCustomer("ev");
    const moved = await newOrder(customer, 2);
    await json(await moveOrder(moved.order_id, "processing"), 200);
    let written = await eventsWrittenBy(customer, async () => json(await allocate(moved.order_id, 1), 201));
    expect(written.map((e) => e.type)).toEqual(["order.numbers_allocated"]);

    const atOnce = await newOrder(customer, 2);
    written = await eventsWrittenBy(customer, async () => json(await allocate(atOnce.order_id, 2), 201));
    expect(written.map((e) => e.type)).toEqual(["order.numbers_allocated", "order.fulfilled"]);
  });
});

describe("KYC events", () => {
  it("submit, uploads, amend, delete and every review move each write their event with the API's answer", async () => {
    const customer = await createCustomer("ev");
    const [number] = await allocateNumbers(customer, 1);
    const numberId = number!.number_id;

    let answer: unknown;
    let written = await eventsWrittenBy(customer, async () => {
      answer = await json(await submit(customer, numberId), 201);
    });
    expect(only(written, "kyc.submitted").data).toEqual(answer);
    const { id: kycId, number_id: kycNumberId } = answer as { id: string; number_id: string };
    expect(kycNumberId).toBe(`num_${numberId}`);

    let uploaded!: Awaited<ReturnType<typeof createdDocument>>;
    written = await eventsWrittenBy(customer, async () => {
      uploaded = await createdDocument(await uploadFile(customer, numberId, pdf(), "passport.pdf"));
    });
    const summary = (await verificationOf(customer, numberId)).documents[0];
    expect(only(written, "kyc.document_uploaded").data).toEqual({ kyc_id: kycId, number_id: kycNumberId, document: summary });
    expect(summary).toMatchObject({ id: uploaded.id, filename: "passport.pdf", status: "uploaded" });

    written = await eventsWrittenBy(customer, async () => {
      answer = await json(await amend(customer, numberId, "Oakland"), 200);
    });
    expect(only(written, "kyc.updated").data).toEqual(answer);

    const second = await createdDocument(await uploadFile(customer, numberId, pdf(), "bill.pdf"));
    const secondSummary = (await verificationOf(customer, numberId)).documents[1];
    written = await eventsWrittenBy(customer, async () => {
      json(await customer.api.v1.kyc.documents[":document_id"].$delete({ param: { document_id: second.id } }), 200);
    });
    expect(only(written, "kyc.document_deleted").data).toEqual({
      kyc_id: kycId,
      number_id: kycNumberId,
      document: secondSummary,
    });

    for (const status of ["under_review", "approved"] as const) {
      written = await eventsWrittenBy(customer, async () => {
        answer = await json(await review(kycId, status), 200);
      });
      expect(only(written, `kyc.${status}`).data).toEqual(answer);
    }
    // The documents followed the verification, in the event's data too.
    expect(written[0]!.data).toMatchObject({ status: "approved", documents: [{ status: "verified" }] });
  });

  it("a rejection writes kyc.rejected; the amend that re-opens it kyc.updated, with the documents following", async () => {
    const customer = await createCustomer("ev");
    const [number] = await allocateNumbers(customer, 1);
    const numberId = number!.number_id;
    const { id: kycId } = await json(await submit(customer, numberId), 201);
    await createdDocument(await uploadFile(customer, numberId, pdf(), "passport.pdf"));
    await json(await review(kycId, "under_review"), 200);

    let answer: unknown;
    let written = await eventsWrittenBy(customer, async () => {
      answer = await json(await review(kycId, "rejected", "blurred"), 200);
    });
    expect(only(written, "kyc.rejected").data).toEqual(answer);
    expect(answer).toMatchObject({ rejection_reason: "blurred", documents: [{ status: "rejected" }] });

    written = await eventsWrittenBy(customer, async () => {
      answer = await json(await amend(customer, numberId, "Oakland"), 200);
    });
    expect(only(written, "kyc.updated").data).toEqual(answer);
    expect(answer).toMatchObject({ status: "pending", documents: [{ status: "uploaded" }] });
  });
});

describe("refused requests write no event", () => {
  it("not one, whatever refuses them", async () => {
    const customer = await createCustomer("ev");
    const stranger = await createCustomer("ev");
    const pending = await newOrder(customer, 2);
    const fulfilled = await newOrder(customer, 1);
    const allocation = await json(await allocate(fulfilled.order_id, 1), 201);
    const [number] = await allocateNumbers(customer, 1);
    const numberId = number!.number_id;
    const { id: kycId } = await json(await submit(customer, numberId), 201);
    const doc = await createdDocument(await uploadFile(customer, numberId, pdf(), "a.pdf"));
    await json(await review(kycId, "under_review"), 200);
    await json(await review(kycId, "approved"), 200);
    const [strangerNumber] = await allocateNumbers(stranger, 1);

    const before = await eventsOf(customer);
    const strangerBefore = await eventsOf(stranger);
    const orderPath = `/api/customers/${customer.slug}/orders`;
    await problem(
      await customer.callJson("POST", orderPath, { number_type: "mobile", country_code: "ZZ", quantity: 1 }),
      400,
      "not_orderable",
    );
    await problem(
      await customer.call(orderPath, { method: "POST", headers: { "Content-Type": "application/json" }, body: "{" }),
      400,
      "malformed_json",
    );
    const put = (orderId: string, body: unknown) => customer.callJson("PUT", `${orderPath}/${orderId}`, body);
    await problem(await put(fulfilled.order_id, { quantity: 2 }), 403, "order_not_pending");
    await problem(await put(pending.order_id, { quantity: 0 }), 400, "validation_error");
    await problem(await moveOrder(fulfilled.order_id, "cancelled"), 409, "conflict");
    await problem(await moveOrder(pending.order_id, "fulfilled" as "processing"), 409, "conflict");
    await problem(await allocate(pending.order_id, 3), 400, "validation_error");
    await problem(
      await operator.admin.orders[":order_id"].numbers.$post({
        param: { order_id: pending.order_id },
        json: { phone_numbers: [allocation.numbers[0]!.phone_number] },
      }),
      409,
      "conflict",
    );
    await problem(await submit(customer, numberId), 409, "kyc_exists");
    await problem(await amend(customer, numberId, "Oakland"), 409, "verification_locked");
    await problem(await review(kycId, "rejected", "late"), 409, "conflict");
    await problem(await uploadFile(customer, numberId, pdf(), "b.pdf"), 409, "verification_locked");
    await problem(
      await customer.api.v1.kyc.documents[":document_id"].$delete({ param: { document_id: doc.id } }),
      409,
      "verification_completed",
    );
    // Another account's things, through this account's key.
    await problem(await submit(customer, strangerNumber!.number_id), 404, "not_found");
    await problem(await uploadFile(customer, strangerNumber!.number_id, pdf(), "c.pdf"), 404, "not_found");

    expect(await eventsOf(customer)).toEqual(before);
    expect(await eventsOf(stranger)).toEqual(strangerBefore);
  });
});

describe("the events API", () => {
  it("lists newest first (events of one change latest first), filters by type, pages, and reads one", async () => {
    const customer = await createCustomer("ev");
    const order = await newOrder(customer, 2);
    await json(await allocate(order.order_id, 2), 201);
    const page = (query: Record<string, string>) =>
      customer.account.events.$get({ param: { customer_slug: customer.slug }, query });

    const all = await json(await page({}), 200);
    expect(all.data.map((e) => e.type)).toEqual(["order.fulfilled", "order.numbers_allocated", "order.created"]);
    expect(all.meta).toEqual({ total: 3, page: 1, limit: 10, totalPages: 1, hasNextPage: false, hasPreviousPage: false });

    const filtered = await json(await page({ type: "order.created,order.fulfilled" }), 200);
    expect(filtered.data.map((e) => e.type)).toEqual(["order.fulfilled", "order.created"]);
    expect(filtered.meta.total).toBe(2);

    const second = await json(await page({ limit: "2", page: "2" }), 200);
    expect(second.data.map((e) => e.id)).toEqual([all.data[2]!.id]);
    expect(second.meta).toMatchObject({ total: 3, totalPages: 2, hasNextPage: false, hasPreviousPage: true });

    const first = all.data[2]!;
    const one = (event_id: string) =>
      customer.account.events[":event_id"].$get({ param: { customer_slug: customer.slug, event_id } });
    expect(await json(await one(first.id), 200)).toEqual(first);
    expect(await json(await one(first.id.replace("evt_", "")), 200)).toEqual(first);
  });

  it("refuses an unknown type and a malformed id, and never shows another account's event", async () => {
    const customer = await createCustomer("ev");
    const stranger = await createCustomer("ev");
    await newOrder(stranger, 1);
    const [theirs] = (await eventsOf(stranger)) as [Event];
    await problem(await customer.call(`/api/customers/${customer.slug}/events?type=order.shipped`), 400, "validation_error");
    await problem(await customer.call(`/api/customers/${customer.slug}/events/evt_42`), 400, "validation_error");
    await problem(
      await customer.account.events[":event_id"].$get({ param: { customer_slug: customer.slug, event_id: theirs.id } }),
      404,
      "not_found",
    );
    await problem(await customer.call(`/api/customers/${stranger.slug}/events`), 404, "not_found");
  });

  it("describes every event type exactly once, by the shape of its data", () => {
    expect(Object.values(EVENT_TYPES_BY_DATA).flat().sort()).toEqual([...EVENT_TYPES].sort());
  });
});

describe("event data built in SQL", () => {
  it("renders timestamps as toIso does, to the millisecond", async () => {
    const db = createDatabase(env.DB);
    // From 1970 to the last millisecond of 9999, with the edges of seconds and days.
    const ms = fc.oneof(
      fc.integer({ min: 0, max: 253_402_300_799_999 }),
      fc.integer({ min: 0, max: 2_000_000 }).map((s) => s * 86_400_000 + 86_399_999),
      fc.integer({ min: 0, max: 9_999_999_999 }).map((s) => s * 1000 + 999),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(ms, { minLength: 1, maxLength: 200 }), async (values) => {
        const rows = await db.all<{ t: string }>(sql`SELECT ${iso(sql`value`)} AS t FROM json_each(${JSON.stringify(values)})`);
        expect(rows.map((r) => r.t)).toEqual(values.map(toIso));
      }),
      { numRuns: 50 },
    );
  });
});

describe("the events list's query plan", () => {
  it("walks an index led by customer_id in the list's order: no scan of events, no sort", async () => {
    const db = createDatabase(env.DB);
    const customer = await createCustomer("ev");
    const plans: Record<string, string> = {};
    for (const types of [undefined, ["order.created"], ["order.created", "kyc.approved"]] as const) {
      const { sql: text, params } = eventPageQuery(db, customer.customerId, types, pageWindow(3, 10)).toSQL();
      const plan = await env.DB.prepare(`EXPLAIN QUERY PLAN ${text}`)
        .bind(...params)
        .all<{ detail: string }>();
      plans[String(types)] = plan.results.map((r) => r.detail).join("\n");
    }
    for (const details of Object.values(plans)) {
      expect(details).toMatch(/SEARCH events USING INDEX events_customer_\w+ \(customer_id=/);
      expect(details).not.toMatch(/SCAN events|TEMP B-TREE/);
    }
    // One type has an index of its own; several walk the account's events newest first, keeping theirs.
    expect(plans["order.created"]).toMatch(/events_customer_type_created_idx \(customer_id=\? AND type=\?\)/);
  });
});
