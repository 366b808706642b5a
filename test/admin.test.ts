// The operator's admin API: customers, API keys, the orderable catalog, order status moves.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { OrderStatus } from "../src/db/schema.ts";
import { TEST_ADMIN_TOKEN } from "./constants.ts";
import { allPages, callJson, contractOrder, createCustomer, json, makeOrderable, operator, problem } from "./helpers.ts";

/** The operator's credential, for the raw requests the typed client would refuse to send. */
const OPERATOR_HEADERS = { Authorization: `Bearer ${TEST_ADMIN_TOKEN}` };

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("customers", () => {
  it("creates an account (201, Location) and finds it by slug", async () => {
    const slug = `acme-${crypto.randomUUID().slice(0, 8)}`;
    const response = await operator.admin.customers.$post({ json: { slug, name: "Acme Telecom" } });
    expect(response.headers.get("Location")).toBe(`/admin/customers/${slug}`);
    const created = await json(response, 201);
    expect(created).toMatchObject({ slug, name: "Acme Telecom" });
    expect(created.customer_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(created.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(await json(await operator.admin.customers[":slug"].$get({ param: { slug } }), 200)).toEqual(created);
    await problem(await operator.admin.customers[":slug"].$get({ param: { slug: "no-such-customer" } }), 404, "not_found");
  });

  it("answers a duplicate slug with 409 conflict", async () => {
    const slug = `dup-${crypto.randomUUID().slice(0, 8)}`;
    await json(await operator.admin.customers.$post({ json: { slug, name: "First" } }), 201);
    await problem(await operator.admin.customers.$post({ json: { slug, name: "Second" } }), 409, "conflict");
  });

  it("validates the slug and name, naming every bad field", async () => {
    for (const slug of ["ab", "-abc", "abc-", "ABC", "a_b_c", "a".repeat(41), ""]) {
      const body = await problem(await operator.admin.customers.$post({ json: { slug, name: "x" } }), 400, "validation_error");
      expect(body.errors?.map((e) => e.pointer)).toEqual(["/slug"]);
    }
    expect(
      await json(await operator.admin.customers.$post({ json: { slug: `a${"b".repeat(38)}c`, name: "x" } }), 201),
    ).toBeTruthy();
    // No name and an unknown field: a body the typed client would refuse to send.
    const body = await problem(
      await callJson("POST", "/admin/customers", { slug: "A", extra: 1 }, OPERATOR_HEADERS),
      400,
      "validation_error",
    );
    expect(body.errors?.map((e) => `${e.location}:${e.pointer}`).sort()).toEqual(["body:/extra", "body:/name", "body:/slug"]);
  });

  it("lists accounts with pagination meta", async () => {
    await createCustomer();
    await createCustomer();
    const page = await json(await operator.admin.customers.$get({ query: { limit: "1" } }), 200);
    expect(page.data).toHaveLength(1);
    expect(page.meta).toMatchObject({ page: 1, limit: 1, hasPreviousPage: false, hasNextPage: true });
    expect(page.meta.total).toBeGreaterThanOrEqual(2);
    await problem(await operator.admin.customers.$get({ query: { limit: "101" } }), 400, "validation_error");
  });

  it("lists accounts newest first, then by id descending within one millisecond", async () => {
    const create = async () => {
      const slug = `order-${crypto.randomUUID().slice(0, 8)}`;
      return json(await operator.admin.customers.$post({ json: { slug, name: `Customer ${slug}` } }), 201);
    };
    // Three batches a little apart, each created at once.
    const batches: Awaited<ReturnType<typeof create>>[][] = [];
    for (let batch = 0; batch < 3; batch++) {
      if (batch > 0) await wait(5);
      batches.push(await Promise.all([create(), create(), create()]));
    }
    // Concurrent creations may share a millisecond; make sure the middle batch does, so the tie on id is tested.
    const tied = batches[1]?.map((customer) => customer.customer_id) ?? [];
    await env.DB.prepare(
      "UPDATE customers SET created_at = (SELECT min(created_at) FROM customers WHERE id IN (SELECT value FROM json_each(?1))) WHERE id IN (SELECT value FROM json_each(?1))",
    )
      .bind(JSON.stringify(tied))
      .run();

    const ids = new Set(batches.flat().map((customer) => customer.customer_id));
    const { items } = await allPages(async (page) =>
      json(await operator.admin.customers.$get({ query: { page: String(page), limit: "4" } }), 200),
    );
    const listed = items.filter((customer) => ids.has(customer.customer_id));
    expect(listed).toHaveLength(ids.size);
    const createdAt = (id: string) => listed.find((customer) => customer.customer_id === id)?.created_at;
    expect(new Set(tied.map(createdAt)).size).toBe(1);
    expect(new Set(listed.map((customer) => customer.created_at)).size).toBeGreaterThan(1);
    expect(listed.map((customer) => customer.customer_id)).toEqual(
      contractOrder(
        listed,
        (customer) => customer.created_at,
        (customer) => customer.customer_id,
        "desc",
      ),
    );
  });
});

describe("API keys", () => {
  it("shows the key once, at creation; lists keys without secrets", async () => {
    const customer = await createCustomer();
    const response = await operator.admin.customers[":slug"]["api-keys"].$post({
      param: { slug: customer.slug },
      json: { name: "ci" },
    });
    const created = await json(response, 201);
    expect(response.headers.get("Location")).toBe(`/admin/api-keys/${created.id}`);
    expect(Object.keys(created).sort()).toEqual(["created_at", "id", "key", "name", "prefix"]);
    expect(created.key.startsWith(created.prefix)).toBe(true);

    const list = await json(
      await operator.admin.customers[":slug"]["api-keys"].$get({ param: { slug: customer.slug }, query: {} }),
      200,
    );
    expect(list.meta.total).toBe(2);
    expect(JSON.stringify(list)).not.toContain(created.key);
    const listed = list.data.find((k) => k.id === created.id);
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
    const keysOf = operator.admin.customers[":slug"]["api-keys"];
    await problem(await keysOf.$post({ param: { slug: "nobody-here" }, json: { name: "x" } }), 404, "not_found");
    await problem(await keysOf.$get({ param: { slug: "nobody-here" }, query: {} }), 404, "not_found");
    await problem(await operator.admin["api-keys"][":id"].$delete({ param: { id: crypto.randomUUID() } }), 404, "not_found");
    await problem(await operator.admin["api-keys"][":id"].$delete({ param: { id: "not-a-uuid" } }), 400, "validation_error");
  });

  it("revokes idempotently, keeping the first revocation time", async () => {
    const customer = await createCustomer();
    const revoke = () => operator.admin["api-keys"][":id"].$delete({ param: { id: customer.keyId } });
    const first = await json(await revoke(), 200);
    const second = await json(await revoke(), 200);
    expect(second.revoked_at).toBe(first.revoked_at);
  });
});

describe("catalog", () => {
  const pair = operator.admin.catalog[":country_code"][":number_type"];

  it("makes a pair orderable (201 then 200), lists it, and removes it (then 404)", async () => {
    // A type of this test's own: the files of one workerd share the catalog.
    const param = { country_code: "SE", number_type: `m_${crypto.randomUUID().slice(0, 8)}` };
    const first = await pair.$put({ param });
    expect(first.headers.get("Location")).toBe(`/admin/catalog/SE/${param.number_type}`);
    expect(await json(first, 201)).toMatchObject(param);
    expect(await json(await pair.$put({ param }), 200)).toMatchObject({ country_code: "SE" });

    const { items } = await allPages(async (page) =>
      json(await operator.admin.catalog.$get({ query: { page: String(page), limit: "100" } }), 200),
    );
    expect(items).toContainEqual(expect.objectContaining(param));

    expect(await json(await pair.$delete({ param }), 200)).toEqual({ ...param, orderable: false });
    await problem(await pair.$delete({ param }), 404, "not_found");
  });

  it("lists pairs by country_code, then number_type, both ascending, across pages", async () => {
    // Added out of order, so that neither the order they were added in nor number_type first would match.
    const added = [
      { country_code: "ZW", number_type: "mobile" },
      { country_code: "AD", number_type: "toll_free" },
      { country_code: "AD", number_type: "landline" },
      { country_code: "ZW", number_type: "landline" },
      { country_code: "MM", number_type: "national" },
    ];
    for (const param of added) await json(await pair.$put({ param }), 201);
    const name = (listed: { country_code: string; number_type: string }) => `${listed.country_code}/${listed.number_type}`;
    const names = new Set(added.map(name));
    const { items, pages } = await allPages(async (page) =>
      json(await operator.admin.catalog.$get({ query: { page: String(page), limit: "2" } }), 200),
    );
    expect(pages).toBeGreaterThan(1);
    expect(items.map(name).filter((listed) => names.has(listed))).toEqual([
      "AD/landline",
      "AD/toll_free",
      "MM/national",
      "ZW/landline",
      "ZW/mobile",
    ]);
    for (const param of added) await json(await pair.$delete({ param }), 200);
  });

  it("validates the pair", async () => {
    const body = await problem(
      await pair.$put({ param: { country_code: "se", number_type: "Mobile" } }),
      400,
      "validation_error",
    );
    expect(body.errors?.map((e) => `${e.location}:${e.pointer}`).sort()).toEqual(["path:country_code", "path:number_type"]);
  });

  it("takes only a country ISO 3166-1 assigns, as the stock does; a pair of another added before can still be removed", async () => {
    const type = `u_${crypto.randomUUID().slice(0, 8)}`;
    const catalogRows = () =>
      env.DB.prepare("SELECT count(*) AS n FROM catalog WHERE number_type = ?").bind(type).first<{ n: number }>();
    for (const country_code of ["XX", "ZZ", "AA", "QM"]) {
      const body = await problem(await pair.$put({ param: { country_code, number_type: type } }), 400, "validation_error");
      expect(body.errors, country_code).toEqual([
        {
          location: "path",
          pointer: "country_code",
          message: "must be a country code that ISO 3166-1 assigns, such as US or GB",
        },
      ]);
    }
    expect((await catalogRows())?.n).toBe(0);
    const customer = await createCustomer();
    const order = customer.account.orders.$post({
      param: { customer_slug: customer.slug },
      json: { number_type: type, country_code: "XX", quantity: 1 },
    });
    await problem(await order, 400, "not_orderable");
    // A pair stored before the rule (as a database of then may hold one) is removed as any other.
    await env.DB.prepare("INSERT INTO catalog (country_code, number_type, created_at) VALUES ('XX', ?, ?)")
      .bind(type, Date.now())
      .run();
    expect(await json(await pair.$delete({ param: { country_code: "XX", number_type: type } }), 200)).toMatchObject({
      orderable: false,
    });
    expect((await catalogRows())?.n).toBe(0);
  });

  it("decides what customers can order", async () => {
    const customer = await createCustomer();
    const order = () =>
      customer.account.orders.$post({
        param: { customer_slug: customer.slug },
        json: { number_type: "national", country_code: "PT", quantity: 3 },
      });
    await problem(await order(), 400, "not_orderable");
    await makeOrderable("PT", "national");
    await json(await order(), 201);
    await json(await pair.$delete({ param: { country_code: "PT", number_type: "national" } }), 200);
    await problem(await order(), 400, "not_orderable");
  });
});

describe("order status moves", () => {
  const move = (order_id: string, status: OrderStatus) =>
    operator.admin.orders[":order_id"].status.$post({ param: { order_id }, json: { status } });

  async function pendingOrder() {
    await makeOrderable("US", "mobile");
    const customer = await createCustomer();
    const order = await json(
      await customer.account.orders.$post({
        param: { customer_slug: customer.slug },
        json: { number_type: "mobile", country_code: "US", quantity: 2 },
      }),
      201,
    );
    return { customer, order };
  }

  it("allows pending→processing→cancelled and pending→cancelled", async () => {
    const { order } = await pendingOrder();
    const processing = await json(await move(order.order_id, "processing"), 200);
    expect(processing.status).toBe("processing");
    const cancelled = await json(await move(order.order_id, "cancelled"), 200);
    expect(cancelled.status).toBe("cancelled");

    const second = await pendingOrder();
    const direct = await json(await move(second.order.order_id, "cancelled"), 200);
    expect(direct.status).toBe("cancelled");
  });

  it("answers every other move with 409 conflict and leaves the order as it was", async () => {
    const { customer, order } = await pendingOrder();
    const to = (status: OrderStatus) => move(order.order_id, status);
    await problem(await to("pending"), 409, "conflict");
    await problem(await to("fulfilled"), 409, "conflict");
    await json(await to("processing"), 200);
    await problem(await to("processing"), 409, "conflict");
    await problem(await to("pending"), 409, "conflict");
    await json(await to("cancelled"), 200);
    for (const status of ["pending", "processing", "fulfilled", "cancelled"] satisfies OrderStatus[]) {
      await problem(await to(status), 409, "conflict");
    }
    const current = await json(
      await customer.account.orders[":order_id"].$get({ param: { customer_slug: customer.slug, order_id: order.order_id } }),
      200,
    );
    expect(current.status).toBe("cancelled");
  });

  it("validates the order id and status, and answers an unknown order with 404", async () => {
    await problem(await move(crypto.randomUUID(), "processing"), 404, "not_found");
    await problem(await move("nope", "processing"), 400, "validation_error");
    const { order } = await pendingOrder();
    // A status that does not exist: a body the typed client would refuse to send.
    const body = await problem(
      await callJson("POST", `/admin/orders/${order.order_id}/status`, { status: "shipped" }, OPERATOR_HEADERS),
      400,
      "validation_error",
    );
    expect(body.errors?.[0]?.pointer).toBe("/status");
  });
});
