// The operator's admin API: customers, API keys, the orderable catalog, order status moves.
import { describe, expect, it } from "vitest";
import { adminCall, createCustomer, json, makeOrderable, problem } from "./helpers.ts";

describe("customers", () => {
  it("creates an account (201, Location) and finds it by slug", async () => {
    const slug = `acme-${crypto.randomUUID().slice(0, 8)}`;
    const response = await adminCall("POST", "/admin/customers", { slug, name: "Acme Telecom" });
    expect(response.headers.get("Location")).toBe(`/admin/customers/${slug}`);
    const created = await json(response, 201);
    expect(created).toMatchObject({ slug, name: "Acme Telecom" });
    expect(created.customer_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(created.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(await json(await adminCall("GET", `/admin/customers/${slug}`), 200)).toEqual(created);
    await problem(await adminCall("GET", "/admin/customers/no-such-customer"), 404, "not_found");
  });

  it("answers a duplicate slug with 409 conflict", async () => {
    const slug = `dup-${crypto.randomUUID().slice(0, 8)}`;
    await json(await adminCall("POST", "/admin/customers", { slug, name: "First" }), 201);
    await problem(await adminCall("POST", "/admin/customers", { slug, name: "Second" }), 409, "conflict");
  });

  it("validates the slug and name, naming every bad field", async () => {
    for (const slug of ["ab", "-abc", "abc-", "ABC", "a_b_c", "a".repeat(41), ""]) {
      const body = await problem(await adminCall("POST", "/admin/customers", { slug, name: "x" }), 400, "validation_error");
      expect(body.errors?.map((e) => e.pointer)).toEqual(["/slug"]);
    }
    expect(await json(await adminCall("POST", "/admin/customers", { slug: `a${"b".repeat(38)}c`, name: "x" }), 201)).toBeTruthy();
    const body = await problem(await adminCall("POST", "/admin/customers", { slug: "A", extra: 1 }), 400, "validation_error");
    expect(body.errors?.map((e) => `${e.location}:${e.pointer}`).sort()).toEqual(["body:/extra", "body:/name", "body:/slug"]);
  });

  it("lists accounts with pagination meta", async () => {
    await createCustomer();
    await createCustomer();
    const page = await json(await adminCall("GET", "/admin/customers?limit=1"), 200);
    expect(page.data).toHaveLength(1);
    expect(page.meta).toMatchObject({ page: 1, limit: 1, hasPreviousPage: false, hasNextPage: true });
    expect(page.meta.total).toBeGreaterThanOrEqual(2);
    await problem(await adminCall("GET", "/admin/customers?limit=101"), 400, "validation_error");
  });
});

describe("API keys", () => {
  it("shows the key once, at creation; lists keys without secrets", async () => {
    const customer = await createCustomer();
    const response = await adminCall("POST", `/admin/customers/${customer.slug}/api-keys`, { name: "ci" });
    const created = await json(response, 201);
    expect(response.headers.get("Location")).toBe(`/admin/api-keys/${created.id}`);
    expect(Object.keys(created).sort()).toEqual(["created_at", "id", "key", "name", "prefix"]);
    expect(created.key.startsWith(created.prefix)).toBe(true);

    const list = await json(await adminCall("GET", `/admin/customers/${customer.slug}/api-keys`), 200);
    expect(list.meta.total).toBe(2);
    expect(JSON.stringify(list)).not.toContain(created.key);
    const listed = list.data.find((k: { id: string }) => k.id === created.id);
    expect(listed).toEqual({
      id: created.id,
      name: "ci",
      prefix: created.prefix,
      last_four: created.key.slice(-4),
      created_at: created.created_at,
      last_used_at: null,
      revoked_at: null,
    });
  });

  it("answers keys of an unknown account and unknown keys with 404", async () => {
    await problem(await adminCall("POST", "/admin/customers/nobody-here/api-keys", { name: "x" }), 404, "not_found");
    await problem(await adminCall("GET", "/admin/customers/nobody-here/api-keys"), 404, "not_found");
    await problem(await adminCall("DELETE", `/admin/api-keys/${crypto.randomUUID()}`), 404, "not_found");
    await problem(await adminCall("DELETE", "/admin/api-keys/not-a-uuid"), 400, "validation_error");
  });

  it("revokes idempotently, keeping the first revocation time", async () => {
    const customer = await createCustomer();
    const first = await json(await adminCall("DELETE", `/admin/api-keys/${customer.keyId}`), 200);
    const second = await json(await adminCall("DELETE", `/admin/api-keys/${customer.keyId}`), 200);
    expect(second.revoked_at).toBe(first.revoked_at);
  });
});

describe("catalog", () => {
  it("makes a pair orderable (201 then 200), lists it, and removes it (then 404)", async () => {
    const first = await adminCall("PUT", "/admin/catalog/SE/mobile");
    expect(first.headers.get("Location")).toBe("/admin/catalog/SE/mobile");
    expect(await json(first, 201)).toMatchObject({ country_code: "SE", number_type: "mobile" });
    expect(await json(await adminCall("PUT", "/admin/catalog/SE/mobile"), 200)).toMatchObject({ country_code: "SE" });

    const list = await json(await adminCall("GET", "/admin/catalog?limit=100"), 200);
    expect(list.data).toContainEqual(expect.objectContaining({ country_code: "SE", number_type: "mobile" }));

    expect(await json(await adminCall("DELETE", "/admin/catalog/SE/mobile"), 200)).toEqual({
      country_code: "SE",
      number_type: "mobile",
      orderable: false,
    });
    await problem(await adminCall("DELETE", "/admin/catalog/SE/mobile"), 404, "not_found");
  });

  it("validates the pair", async () => {
    const body = await problem(await adminCall("PUT", "/admin/catalog/se/Mobile"), 400, "validation_error");
    expect(body.errors?.map((e) => `${e.location}:${e.pointer}`).sort()).toEqual(["path:country_code", "path:number_type"]);
  });

  it("decides what customers can order", async () => {
    const customer = await createCustomer();
    const order = { number_type: "national", country_code: "PT", quantity: 3 };
    await problem(await customer.call("POST", `/api/customers/${customer.slug}/orders`, order), 400, "not_orderable");
    await makeOrderable("PT", "national");
    await json(await customer.call("POST", `/api/customers/${customer.slug}/orders`, order), 201);
    await json(await adminCall("DELETE", "/admin/catalog/PT/national"), 200);
    await problem(await customer.call("POST", `/api/customers/${customer.slug}/orders`, order), 400, "not_orderable");
  });
});

describe("order status moves", () => {
  async function pendingOrder() {
    await makeOrderable("US", "mobile");
    const customer = await createCustomer();
    const order = await json(
      await customer.call("POST", `/api/customers/${customer.slug}/orders`, { number_type: "mobile", country_code: "US", quantity: 2 }),
      201,
    );
    return { customer, order };
  }

  it("allows pending→processing→cancelled and pending→cancelled", async () => {
    const { order } = await pendingOrder();
    const processing = await json(await adminCall("POST", `/admin/orders/${order.order_id}/status`, { status: "processing" }), 200);
    expect(processing.status).toBe("processing");
    const cancelled = await json(await adminCall("POST", `/admin/orders/${order.order_id}/status`, { status: "cancelled" }), 200);
    expect(cancelled.status).toBe("cancelled");

    const second = await pendingOrder();
    const direct = await json(await adminCall("POST", `/admin/orders/${second.order.order_id}/status`, { status: "cancelled" }), 200);
    expect(direct.status).toBe("cancelled");
  });

  it("answers every other move with 409 conflict and leaves the order as it was", async () => {
    const { customer, order } = await pendingOrder();
    const move = (status: string) => adminCall("POST", `/admin/orders/${order.order_id}/status`, { status });
    await problem(await move("pending"), 409, "conflict");
    await problem(await move("fulfilled"), 409, "conflict");
    await json(await move("processing"), 200);
    await problem(await move("processing"), 409, "conflict");
    await problem(await move("pending"), 409, "conflict");
    await json(await move("cancelled"), 200);
    for (const status of ["pending", "processing", "fulfilled", "cancelled"]) {
      await problem(await move(status), 409, "conflict");
    }
    const current = await json(await customer.call("GET", `/api/customers/${customer.slug}/orders/${order.order_id}`), 200);
    expect(current.status).toBe("cancelled");
  });

  it("validates the order id and status, and answers an unknown order with 404", async () => {
    await problem(await adminCall("POST", `/admin/orders/${crypto.randomUUID()}/status`, { status: "processing" }), 404, "not_found");
    await problem(await adminCall("POST", "/admin/orders/nope/status", { status: "processing" }), 400, "validation_error");
    const { order } = await pendingOrder();
    const body = await problem(await adminCall("POST", `/admin/orders/${order.order_id}/status`, { status: "shipped" }), 400, "validation_error");
    expect(body.errors?.[0]?.pointer).toBe("/status");
  });
});
