// Orders: create, retrieve, update and cancel (only while pending), the global order number sequence, account isolation.
import { env } from "cloudflare:workers";
import type { InferRequestType } from "hono/client";
import { beforeAll, describe, expect, it } from "vitest";
import { formatOrderNumber } from "../src/orders/schemas.ts";
import {
  anonymous,
  createCustomer,
  expectStatus,
  json,
  makeOrderable,
  operator,
  problem,
  type TestCustomer,
  uniqueNumberType,
} from "./helpers.ts";

type CreateOrder = InferRequestType<TestCustomer["account"]["orders"]["$post"]>["json"];
type UpdateOrder = InferRequestType<TestCustomer["account"]["orders"][":order_id"]["$put"]>["json"];

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const valid = { number_type: "mobile", country_code: "US", quantity: 25 } satisfies CreateOrder;

beforeAll(async () => {
  await makeOrderable("US", "mobile");
  await makeOrderable("US", "toll_free");
  await makeOrderable("GB", "landline");
});

const ordersPath = (c: TestCustomer) => `/api/customers/${c.slug}/orders`;
const orderPath = (c: TestCustomer, id: string) => `${ordersPath(c)}/${id}`;

function createOrder(customer: TestCustomer, body: CreateOrder) {
  return customer.account.orders.$post({ param: { customer_slug: customer.slug }, json: body });
}

async function placeOrder(customer: TestCustomer, body: CreateOrder = valid) {
  return json(await createOrder(customer, body), 201);
}

function listOrders(customer: TestCustomer) {
  return customer.account.orders.$get({ param: { customer_slug: customer.slug }, query: {} });
}

/** `owner`'s order `orderId`, asked for by `caller` (the owner unless given). */
function getOrder(owner: TestCustomer, orderId: string, caller: TestCustomer = owner) {
  return caller.account.orders[":order_id"].$get({ param: { customer_slug: owner.slug, order_id: orderId } });
}

function updateOrder(customer: TestCustomer, orderId: string, body: UpdateOrder) {
  return customer.account.orders[":order_id"].$put({ param: { customer_slug: customer.slug, order_id: orderId }, json: body });
}

function moveOrder(orderId: string, status: "processing" | "cancelled") {
  return operator.admin.orders[":order_id"].status.$post({ param: { order_id: orderId }, json: { status } });
}

describe("create an order", () => {
  it("answers 201 with the pending order and its Location", async () => {
    const customer = await createCustomer();
    const before = Date.now();
    const response = await createOrder(customer, { ...valid, notes: "For the Austin office" });
    const order = await json(response, 201);
    expect(response.headers.get("Location")).toBe(orderPath(customer, order.order_id));
    expect(order).toEqual({
      order_id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
      order_number: expect.stringMatching(/^#\d{6,}$/),
      number_type: "mobile",
      country_code: "US",
      quantity: 25,
      status: "pending",
      fulfilled_quantity: 0,
      notes: "For the Austin office",
      requested_at: expect.stringMatching(ISO_MS),
      fulfilled_at: null,
      created_at: order.requested_at,
      updated_at: order.requested_at,
      kyc_profile_id: null,
      reservation_id: null,
    });
    expect(Date.parse(order.requested_at)).toBeGreaterThanOrEqual(before);
    const notesOmitted = await placeOrder(customer);
    expect(notesOmitted.notes).toBeNull();
  });

  it("accepts the limits exactly: quantity 1 and 10000, number_type of 50, notes of 1000 characters", async () => {
    const customer = await createCustomer();
    await makeOrderable("US", "a".repeat(50));
    await placeOrder(customer, { ...valid, quantity: 1 });
    await placeOrder(customer, { ...valid, quantity: 10_000, notes: "n".repeat(1000) });
    await placeOrder(customer, { ...valid, number_type: "a".repeat(50) });
  });

  it("names every invalid field at once", async () => {
    const customer = await createCustomer();
    // status is not a field of the request: only a raw request sends it.
    const body = await problem(
      await customer.callJson("POST", ordersPath(customer), {
        number_type: "",
        country_code: "usa",
        quantity: 10_001,
        notes: "n".repeat(1001),
        status: "fulfilled",
      }),
      400,
      "validation_error",
    );
    expect(body.errors?.map((e) => e.pointer).sort()).toEqual([
      "/country_code",
      "/notes",
      "/number_type",
      "/quantity",
      "/status",
    ]);
    expect(body.errors?.every((e) => e.location === "body")).toBe(true);
    expect(body.errors?.find((e) => e.pointer === "/quantity")?.message).toBe("must be at most 10000");
    expect(body.errors?.find((e) => e.pointer === "/status")?.message).toBe("is not allowed");
    expect(body.detail).toMatch(/\(and 4 more\)$/);
  });

  // Raw requests: some of these bodies miss required fields or have values of the wrong type.
  it.each([
    [{ country_code: "US", quantity: 1 }, "/number_type", "is required"],
    [{ ...valid, number_type: "x".repeat(51) }, "/number_type", "must be at most 50 characters"],
    [{ ...valid, country_code: "us" }, "/country_code", "must be 2 uppercase letters (ISO 3166-1 alpha-2)"],
    [{ ...valid, country_code: "U" }, "/country_code", "must be 2 uppercase letters (ISO 3166-1 alpha-2)"],
    [{ ...valid, quantity: 0 }, "/quantity", "must be at least 1"],
    [{ ...valid, quantity: 2.5 }, "/quantity", "must be an integer"],
    [{ ...valid, quantity: "5" }, "/quantity", "must be a number"],
    [{ number_type: "mobile", country_code: "US" }, "/quantity", "is required"],
    [{ ...valid, notes: 42 }, "/notes", "must be a string"],
  ])("rejects %j at %s", async (payload, pointer, message) => {
    const customer = await createCustomer();
    const body = await problem(await customer.callJson("POST", ordersPath(customer), payload), 400, "validation_error");
    expect(body.errors).toEqual([{ location: "body", pointer, message }]);
  });

  it("rejects a body that is not an object", async () => {
    const customer = await createCustomer();
    for (const payload of [[], "mobile", 7, null]) {
      await problem(await customer.callJson("POST", ordersPath(customer), payload), 400, "validation_error");
    }
  });

  it("answers a pair that is not orderable with 400 not_orderable and creates nothing", async () => {
    const customer = await createCustomer();
    const body = await problem(
      await createOrder(customer, { ...valid, country_code: "GB", number_type: uniqueNumberType() }),
      400,
      "not_orderable",
    );
    expect(body.detail).toContain("GB");
    const list = await json(await listOrders(customer), 200);
    expect(list.meta.total).toBe(0);
  });
});

describe("order numbers", () => {
  it("formats the sequence as # and at least six digits", () => {
    expect(formatOrderNumber(1)).toBe("#000001");
    expect(formatOrderNumber(999_999)).toBe("#999999");
    expect(formatOrderNumber(1_000_000)).toBe("#1000000");
  });

  it("gives 50 concurrent creates 50 distinct, consecutive numbers", async () => {
    const [even, odd] = await Promise.all([createCustomer(), createCustomer()]);
    const created = await Promise.all(
      Array.from({ length: 50 }, (_, i) => placeOrder(i % 2 === 0 ? even : odd, { ...valid, quantity: i + 1 })),
    );
    const numbers = created.map((o) => Number(o.order_number.slice(1)));
    expect(new Set(numbers).size).toBe(50);
    expect(Math.max(...numbers) - Math.min(...numbers)).toBe(49);
  });

  it("continues the one global sequence across accounts, with no gap after a refused create", async () => {
    const alice = await createCustomer("alice");
    const bob = await createCustomer("bob");
    const first = await placeOrder(alice);
    await problem(await createOrder(bob, { ...valid, quantity: 0 }), 400, "validation_error");
    await problem(await createOrder(bob, { ...valid, country_code: "ZZ" }), 400, "not_orderable");
    const second = await placeOrder(bob);
    expect(Number(second.order_number.slice(1))).toBe(Number(first.order_number.slice(1)) + 1);
  });
});

describe("retrieve an order", () => {
  it("returns the order", async () => {
    const customer = await createCustomer();
    const order = await placeOrder(customer);
    expect(await json(await getOrder(customer, order.order_id), 200)).toEqual(order);
  });

  it("accepts the order id in upper case", async () => {
    const customer = await createCustomer();
    const order = await placeOrder(customer);
    expect(await json(await getOrder(customer, order.order_id.toUpperCase()), 200)).toEqual(order);
    await json(await operator.admin.orders[":order_id"].$get({ param: { order_id: order.order_id.toUpperCase() } }), 200);
  });

  it("answers an unknown order with 404 and a malformed id with 400", async () => {
    const customer = await createCustomer();
    await problem(await getOrder(customer, crypto.randomUUID()), 404, "not_found");
    const body = await problem(await getOrder(customer, "12345"), 400, "validation_error");
    expect(body.errors).toEqual([{ location: "path", pointer: "order_id", message: "must be a valid UUID" }]);
  });

  it("answers another account's order with 404, under either slug", async () => {
    const alice = await createCustomer("alice");
    const bob = await createCustomer("bob");
    const order = await placeOrder(bob);
    await problem(await getOrder(alice, order.order_id), 404, "not_found");
    await problem(await getOrder(bob, order.order_id, alice), 404, "not_found");
    await problem(await updateOrder(alice, order.order_id, { quantity: 1 }), 404, "not_found");
    const unchanged = await json(await getOrder(bob, order.order_id), 200);
    expect(unchanged).toEqual(order);
  });
});

describe("update an order", () => {
  it("replaces only the supplied fields and moves updated_at", async () => {
    const customer = await createCustomer();
    const order = await placeOrder(customer, { ...valid, notes: "keep me" });
    await new Promise((resolve) => setTimeout(resolve, 5));
    const updated = await json(await updateOrder(customer, order.order_id, { quantity: 99 }), 200);
    expect(updated).toEqual({ ...order, quantity: 99, updated_at: updated.updated_at });
    expect(Date.parse(updated.updated_at)).toBeGreaterThan(Date.parse(order.updated_at));

    const changed = await json(
      await updateOrder(customer, order.order_id, { number_type: "landline", country_code: "GB", notes: "new notes" }),
      200,
    );
    expect(changed).toMatchObject({ number_type: "landline", country_code: "GB", quantity: 99, notes: "new notes" });
    expect(changed.order_number).toBe(order.order_number);
    expect(changed.requested_at).toBe(order.requested_at);
  });

  it("clears notes with null", async () => {
    const customer = await createCustomer();
    const order = await placeOrder(customer, { ...valid, notes: "temporary" });
    const cleared = await json(await updateOrder(customer, order.order_id, { notes: null }), 200);
    expect(cleared.notes).toBeNull();
  });

  it("rejects an empty body, unknown or read-only fields, and bad values, changing nothing", async () => {
    const customer = await createCustomer();
    const order = await placeOrder(customer);
    const path = orderPath(customer, order.order_id);
    const empty = await problem(await updateOrder(customer, order.order_id, {}), 400, "validation_error");
    expect(empty.errors).toEqual([{ location: "body", pointer: "", message: "must contain at least one field to change" }]);
    // No body at all, and fields the request does not have: only raw requests send them.
    await problem(await customer.call(path, { method: "PUT" }), 400, "validation_error");
    for (const field of ["status", "fulfilled_quantity", "order_number", "requested_at", "order_id", "updated_at"]) {
      const body = await problem(await customer.callJson("PUT", path, { quantity: 5, [field]: "x" }), 400, "validation_error");
      expect(body.errors?.map((e) => e.pointer)).toContain(`/${field}`);
    }
    await problem(await updateOrder(customer, order.order_id, { quantity: 10_001 }), 400, "validation_error");
    await problem(await updateOrder(customer, order.order_id, { number_type: "" }), 400, "validation_error");
    await problem(await updateOrder(customer, "not-a-uuid", { quantity: 1 }), 400, "validation_error");
    expect(await json(await getOrder(customer, order.order_id), 200)).toEqual(order);
  });

  it("checks the resulting pair is orderable when it changes, and only then", async () => {
    const customer = await createCustomer();
    // Types of this test's own: the files of one workerd share the catalog.
    const type = uniqueNumberType();
    await makeOrderable("FR", type);
    const order = await placeOrder(customer, { ...valid, country_code: "FR", number_type: type });
    const id = order.order_id;
    await problem(await updateOrder(customer, id, { country_code: "GB" }), 400, "not_orderable");
    await problem(await updateOrder(customer, id, { number_type: uniqueNumberType(), quantity: 3 }), 400, "not_orderable");
    expect(await json(await getOrder(customer, id), 200)).toEqual(order);

    await json(
      await operator.admin.catalog[":country_code"][":number_type"].$delete({
        param: { country_code: "FR", number_type: type },
      }),
      200,
    );
    const quantityOnly = await json(await updateOrder(customer, id, { quantity: 7 }), 200);
    expect(quantityOnly.quantity).toBe(7);
    const samePair = await json(await updateOrder(customer, id, { country_code: "FR", number_type: type }), 200);
    expect(samePair.country_code).toBe("FR");
    await json(await updateOrder(customer, id, { country_code: "US", number_type: "mobile" }), 200);
  });

  it("answers 403 order_not_pending for processing, fulfilled and cancelled orders, leaving them unchanged", async () => {
    const customer = await createCustomer();
    const processing = await placeOrder(customer);
    await json(await moveOrder(processing.order_id, "processing"), 200);
    const cancelled = await placeOrder(customer);
    await json(await moveOrder(cancelled.order_id, "cancelled"), 200);
    const fulfilled = await placeOrder(customer);
    await env.DB.prepare("UPDATE orders SET status = 'fulfilled', fulfilled_quantity = quantity, fulfilled_at = ? WHERE id = ?")
      .bind(Date.now(), fulfilled.order_id)
      .run();

    for (const order of [processing, cancelled, fulfilled]) {
      const before = await json(await getOrder(customer, order.order_id), 200);
      await problem(await updateOrder(customer, order.order_id, { quantity: 1, notes: "changed?" }), 403, "order_not_pending");
      await problem(await updateOrder(customer, order.order_id, { country_code: "ZZ" }), 403, "order_not_pending");
      expect(await json(await getOrder(customer, order.order_id), 200)).toEqual(before);
    }
  });

  it("never half-applies an update racing a status change", async () => {
    const customer = await createCustomer();
    const order = await placeOrder(customer);
    const [update, move] = await Promise.all([
      updateOrder(customer, order.order_id, { quantity: 2, notes: "raced" }),
      moveOrder(order.order_id, "processing"),
    ]);
    await json(move, 200);
    const final = await json(await getOrder(customer, order.order_id), 200);
    if (update.status === 200) {
      await expectStatus(update, 200);
      expect(final).toMatchObject({ quantity: 2, notes: "raced", status: "processing" });
    } else {
      await problem(update, 403, "order_not_pending");
      expect(final).toMatchObject({ quantity: order.quantity, notes: null, status: "processing" });
    }
  });
});

describe("cancel an order", () => {
  function cancelOrder(customer: TestCustomer, orderId: string, headers: Record<string, string> = {}) {
    return customer.account.orders[":order_id"].cancel.$post(
      { param: { customer_slug: customer.slug, order_id: orderId } },
      { headers },
    );
  }

  /** The account's order events, oldest first. */
  async function orderEvents(customer: TestCustomer) {
    const page = await json(
      await customer.account.events.$get({ param: { customer_slug: customer.slug }, query: { limit: "100" } }),
      200,
    );
    return page.data.filter((event) => event.type.startsWith("order.")).reverse();
  }

  it("cancels a pending order: 200 with the order cancelled, and one order.cancelled event carrying it", async () => {
    const customer = await createCustomer();
    const order = await placeOrder(customer);
    const cancelled = await json(await cancelOrder(customer, order.order_id), 200);
    expect(cancelled).toMatchObject({ order_id: order.order_id, status: "cancelled", quantity: order.quantity });
    expect(cancelled.updated_at >= order.updated_at).toBe(true);
    expect(await json(await getOrder(customer, order.order_id), 200)).toEqual(cancelled);
    const events = await orderEvents(customer);
    expect(events.map((event) => event.type)).toEqual(["order.created", "order.cancelled"]);
    expect(events[1]!.data).toEqual(cancelled);
  });

  it("answers 403 order_not_pending for processing, fulfilled and cancelled orders, changing nothing", async () => {
    const customer = await createCustomer();
    const processing = await placeOrder(customer);
    await json(await moveOrder(processing.order_id, "processing"), 200);
    const cancelled = await placeOrder(customer);
    await json(await cancelOrder(customer, cancelled.order_id), 200);
    const fulfilled = await placeOrder(customer);
    await env.DB.prepare("UPDATE orders SET status = 'fulfilled', fulfilled_quantity = quantity, fulfilled_at = ? WHERE id = ?")
      .bind(Date.now(), fulfilled.order_id)
      .run();
    const eventsBefore = await orderEvents(customer);

    for (const [order, status] of [
      [processing, "processing"],
      [cancelled, "cancelled"],
      [fulfilled, "fulfilled"],
    ] as const) {
      const before = await json(await getOrder(customer, order.order_id), 200);
      const refusal = await problem(await cancelOrder(customer, order.order_id), 403, "order_not_pending");
      expect(refusal.detail).toBe(`Only pending orders can be cancelled; this order is ${status}`);
      expect(await json(await getOrder(customer, order.order_id), 200)).toEqual(before);
    }
    expect(await orderEvents(customer)).toEqual(eventsBefore);
  });

  it("answers another account's order, an unknown one, with 404 under either slug, and a malformed id with 400", async () => {
    const owner = await createCustomer();
    const other = await createCustomer();
    const order = await placeOrder(owner);
    await problem(await cancelOrder(other, order.order_id), 404, "not_found");
    await problem(
      await other.account.orders[":order_id"].cancel.$post({ param: { customer_slug: owner.slug, order_id: order.order_id } }),
      404,
      "not_found",
    );
    await problem(await cancelOrder(owner, crypto.randomUUID()), 404, "not_found");
    await problem(await cancelOrder(owner, "not-an-id"), 400, "validation_error");
    expect((await json(await getOrder(owner, order.order_id), 200)).status).toBe("pending");
  });

  it("replays a repeated Idempotency-Key with the first answer, cancelling once", async () => {
    const customer = await createCustomer();
    const order = await placeOrder(customer);
    const headers = { "Idempotency-Key": `cancel-${order.order_id}` };
    const first = await cancelOrder(customer, order.order_id, headers);
    expect(first.headers.get("Idempotent-Replayed")).toBeNull();
    const cancelled = await json(first, 200);
    const again = await cancelOrder(customer, order.order_id, headers);
    expect(again.headers.get("Idempotent-Replayed")).toBe("true");
    expect(await json(again, 200)).toEqual(cancelled);
    // Without the key, the retry is a new request: the order is no longer pending.
    await problem(await cancelOrder(customer, order.order_id), 403, "order_not_pending");
    expect((await orderEvents(customer)).map((event) => event.type)).toEqual(["order.created", "order.cancelled"]);
  });

  it("never half-applies a cancel racing the operator's move to processing", async () => {
    const customer = await createCustomer();
    const order = await placeOrder(customer);
    const [cancel, move] = await Promise.all([cancelOrder(customer, order.order_id), moveOrder(order.order_id, "processing")]);
    const final = await json(await getOrder(customer, order.order_id), 200);
    if (cancel.status === 200) {
      await expectStatus(cancel, 200);
      await problem(move, 409, "conflict");
      expect(final.status).toBe("cancelled");
    } else {
      await problem(cancel, 403, "order_not_pending");
      await json(move, 200);
      expect(final.status).toBe("processing");
    }
  });
});

describe("customer routes need the customer's own key", () => {
  it("answers an unauthenticated create with 401 and creates nothing", async () => {
    const customer = await createCustomer();
    const response = await anonymous.api.customers[":customer_slug"].orders.$post({
      param: { customer_slug: customer.slug },
      json: valid,
    });
    await problem(response, 401, "unauthorized");
    expect((await json(await listOrders(customer), 200)).meta.total).toBe(0);
  });
});
