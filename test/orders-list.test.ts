// The orders list: pagination meta, every filter, search, status_counts, every sort, paging stability, the query plan.
import { env } from "cloudflare:workers";
import type { z } from "@hono/zod-openapi";
import fc from "fast-check";
import type { InferRequestType } from "hono/client";
import { beforeAll, describe, expect, it } from "vitest";
import { createDatabase } from "../src/db/client.ts";
import { pageWindow } from "../src/db/paging.ts";
import type { OrderStatus } from "../src/db/schema.ts";
import { orderListStatements, type Segment } from "../src/orders/list.ts";
import { ORDER_SORT_KEYS } from "../src/orders/list-query.ts";
import { listOrdersQuery, type orderSchema, toOrderListQuery } from "../src/orders/schemas.ts";
import {
  allPages,
  type Client,
  client,
  contractOrder,
  createCustomer,
  json,
  keyRing,
  makeOrderable,
  operator,
  problem,
  type TestCustomer,
} from "./helpers.ts";

type Order = z.infer<typeof orderSchema>;
/** The list's query parameters, as the typed client takes them. */
type OrderQuery = InferRequestType<TestCustomer["account"]["orders"]["$get"]>["query"];
type OrderSortKey = (typeof ORDER_SORT_KEYS)[number];

/** The value a test knows is there: fails loudly instead of going on with undefined. */
function present<T>(value: T | undefined | null, what = "value"): T {
  if (value === undefined || value === null) throw new Error(`expected a ${what}`);
  return value;
}

beforeAll(async () => {
  for (const [country, type] of [
    ["US", "mobile"],
    ["US", "toll_free"],
    ["GB", "landline"],
    ["DE", "mobile"],
  ] as const) {
    await makeOrderable(country, type);
  }
});

const DAY = 86_400_000;

/** Sets the stored times of an order, for tests of the date filters and time sorts. */
async function setTimes(orderId: string, times: { requestedAt?: number; createdAt?: number; fulfilledAt?: number | null }) {
  const current = present(
    await env.DB.prepare("SELECT requested_at, created_at, fulfilled_at FROM orders WHERE id = ?")
      .bind(orderId)
      .first<{ requested_at: number; created_at: number; fulfilled_at: number | null }>(),
    "stored order",
  );
  await env.DB.prepare("UPDATE orders SET requested_at = ?, created_at = ?, fulfilled_at = ? WHERE id = ?")
    .bind(
      times.requestedAt ?? current.requested_at,
      times.createdAt ?? current.created_at,
      times.fulfilledAt === undefined ? current.fulfilled_at : times.fulfilledAt,
      orderId,
    )
    .run();
}

async function setStatus(orderId: string, status: string) {
  await env.DB.prepare("UPDATE orders SET status = ? WHERE id = ?").bind(status, orderId).run();
}

async function list(customer: TestCustomer, query: OrderQuery = {}) {
  return json(await customer.account.orders.$get({ param: { customer_slug: customer.slug }, query }), 200);
}

async function place(customer: TestCustomer, body: InferRequestType<TestCustomer["account"]["orders"]["$post"]>["json"]) {
  return json(await customer.account.orders.$post({ param: { customer_slug: customer.slug }, json: body }), 201);
}

/** A varied account: 12 orders over types, countries, quantities, statuses, notes and dates, with ties. */
async function variedAccount() {
  const customer = await createCustomer();
  const specs = [
    { number_type: "mobile", country_code: "US", quantity: 10, notes: "Austin office" },
    { number_type: "mobile", country_code: "US", quantity: 10, notes: "100% coverage" },
    { number_type: "toll_free", country_code: "US", quantity: 500, notes: "support_line" },
    { number_type: "landline", country_code: "GB", quantity: 1, notes: null },
    { number_type: "landline", country_code: "GB", quantity: 75, notes: "London AUSTIN branch" },
    { number_type: "mobile", country_code: "DE", quantity: 10_000, notes: null },
    { number_type: "mobile", country_code: "DE", quantity: 42, notes: "Berlin" },
    { number_type: "toll_free", country_code: "US", quantity: 3, notes: null },
    { number_type: "mobile", country_code: "US", quantity: 250, notes: "batch 2" },
    { number_type: "landline", country_code: "GB", quantity: 10, notes: null },
    { number_type: "mobile", country_code: "DE", quantity: 10, notes: "Munich" },
    { number_type: "mobile", country_code: "US", quantity: 60, notes: null },
  ];
  const orders: Order[] = [];
  for (const spec of specs) orders.push(await place(customer, spec));
  const statuses = ["pending", "processing", "fulfilled", "cancelled"];
  const base = Date.parse("2026-03-01T00:00:00.000Z");
  for (const [i, order] of orders.entries()) {
    const status = present(statuses[i % 4]);
    await setStatus(order.order_id, status);
    // Pairs of orders share a day and a creation time, so sorts must break ties by id.
    const day = base + Math.floor(i / 2) * DAY;
    await setTimes(order.order_id, {
      requestedAt: day + (i % 2) * (DAY - 1),
      createdAt: day,
      fulfilledAt: status === "fulfilled" ? day + 3 * DAY + (i % 3) * 1000 : null,
    });
  }
  const fresh = (await list(customer, { limit: "100" })).data;
  return { customer, orders: fresh };
}

describe("pagination", () => {
  it("defaults to page 1, limit 10, newest created first", async () => {
    const customer = await createCustomer();
    // Creation times in another order than the order numbers', so a default of any other sort shows.
    const createdRank = (i: number) => (i * 7) % 12;
    for (let i = 0; i < 12; i++) {
      const order = await place(customer, { number_type: "mobile", country_code: "US", quantity: i + 1 });
      await setTimes(order.order_id, { createdAt: Date.parse("2026-01-01T00:00:00.000Z") + createdRank(i) * 1000 });
    }
    const newestFirst = Array.from({ length: 12 }, (_, i) => i)
      .sort((a, b) => createdRank(b) - createdRank(a))
      .map((i) => i + 1);
    expect(newestFirst).not.toEqual([12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1]);
    const page = await list(customer);
    expect(page.data).toHaveLength(10);
    expect(page.data.map((o) => o.quantity)).toEqual(newestFirst.slice(0, 10));
    expect(page.meta).toEqual({
      total: 12,
      page: 1,
      limit: 10,
      totalPages: 2,
      hasNextPage: true,
      hasPreviousPage: false,
      status_counts: { pending: 12, processing: 0, fulfilled: 0, cancelled: 0 },
    });
    const second = await list(customer, { page: "2" });
    expect(second.data.map((o) => o.quantity)).toEqual(newestFirst.slice(10));
    expect(second.meta).toMatchObject({ page: 2, totalPages: 2, hasNextPage: false, hasPreviousPage: true });
  });

  it("answers a page past the last with no data, the true total and hasPreviousPage", async () => {
    const customer = await createCustomer();
    await place(customer, { number_type: "mobile", country_code: "US", quantity: 1 });
    const beyond = await list(customer, { page: "5", limit: "1" });
    expect(beyond.data).toEqual([]);
    expect(beyond.meta).toMatchObject({ total: 1, page: 5, limit: 1, totalPages: 1, hasNextPage: false, hasPreviousPage: true });
  });

  it("reports zero pages for an empty result, with every status count present", async () => {
    const customer = await createCustomer();
    expect((await list(customer)).meta).toEqual({
      total: 0,
      page: 1,
      limit: 10,
      totalPages: 0,
      hasNextPage: false,
      hasPreviousPage: false,
      status_counts: { pending: 0, processing: 0, fulfilled: 0, cancelled: 0 },
    });
  });

  // Raw query strings: some of these (an empty page, an unknown sort key) the typed client would not send.
  it.each([
    ["?limit=0", "limit"],
    ["?limit=101", "limit"],
    ["?limit=abc", "limit"],
    ["?limit=2.5", "limit"],
    ["?page=0", "page"],
    ["?page=-1", "page"],
    ["?page=", "page"],
    ["?sort_by=notes", "sort_by"],
    ["?sort_order=up", "sort_order"],
    ["?search=", "search"],
    [`?search=${"x".repeat(51)}`, "search"],
    ["?quantity_min=0", "quantity_min"],
    ["?quantity_max=0", "quantity_max"],
    ["?quantity_min=10&quantity_max=5", "quantity_min"],
    ["?requested_from=2026-13-01", "requested_from"],
    ["?requested_from=2026-02-30", "requested_from"],
    ["?requested_to=yesterday", "requested_to"],
    ["?requested_from=2026-03-02&requested_to=2026-03-01", "requested_from"],
    ["?fulfilled_from=2026-03-02&fulfilled_to=2026-03-01", "fulfilled_from"],
    ["?status=pending,shipped", "status"],
    ["?status=pending,", "status"],
    ["?country_code=US,gb", "country_code"],
    ["?country_code=", "country_code"],
    [`?number_type=mobile,${"x".repeat(51)}`, "number_type"],
    ["?number_type=mobile,,landline", "number_type"],
    [`?number_type=${Array.from({ length: 21 }, (_, i) => `type_${i}`).join(",")}`, "number_type"],
  ])("rejects %s with 400 naming %s", async (query, name) => {
    const customer = await createCustomer();
    const body = await problem(await customer.call(`/api/customers/${customer.slug}/orders${query}`), 400, "validation_error");
    expect(body.errors?.map((e) => `${e.location}:${e.pointer}`)).toContain(`query:${name}`);
  });

  it("lists a cross-field error together with the other bad fields", async () => {
    const customer = await createCustomer();
    const body = await problem(
      await customer.account.orders.$get({
        param: { customer_slug: customer.slug },
        query: { limit: "500", quantity_min: "9", quantity_max: "1", requested_from: "2026-01-02", requested_to: "2026-01-01" },
      }),
      400,
      "validation_error",
    );
    expect(body.errors?.map((e) => e.pointer).sort()).toEqual(["limit", "quantity_min", "requested_from"]);
  });

  it("accepts the bounds: limit 1 and 100, search of 50 characters, 20 distinct list items", async () => {
    const customer = await createCustomer();
    const twenty = Array.from({ length: 20 }, (_, i) => `type_${i}`);
    await list(customer, { number_type: [...twenty, ...twenty].join(",") });
    await list(customer, { limit: "1" });
    await list(customer, { limit: "100" });
    await list(customer, { search: "x".repeat(50) });
  });
});

describe("filters and status_counts", () => {
  let account: Awaited<ReturnType<typeof variedAccount>>;
  beforeAll(async () => {
    account = await variedAccount();
  });

  const ids = (orders: Order[]) => orders.map((o) => o.order_id).sort();
  const expectMatch = async (query: OrderQuery, predicate: (o: Order) => boolean) => {
    const page = await list(account.customer, { ...query, limit: "100" });
    const expected = account.orders.filter(predicate);
    expect(ids(page.data)).toEqual(ids(expected));
    expect(page.meta.total).toBe(expected.length);
    return page;
  };

  it("filters by comma-separated number types, countries and statuses, ignoring repeats", async () => {
    await expectMatch({ number_type: "landline,toll_free,landline" }, (o) => ["landline", "toll_free"].includes(o.number_type));
    await expectMatch({ country_code: "DE,GB" }, (o) => ["DE", "GB"].includes(o.country_code));
    await expectMatch({ status: "fulfilled,cancelled" }, (o) => ["fulfilled", "cancelled"].includes(o.status));
    await expectMatch(
      { status: "pending", country_code: "US", number_type: "mobile" },
      (o) => o.status === "pending" && o.country_code === "US" && o.number_type === "mobile",
    );
    await expectMatch({ number_type: "national" }, () => false);
  });

  it("filters by quantity bounds, inclusive", async () => {
    await expectMatch({ quantity_min: "10", quantity_max: "75" }, (o) => o.quantity >= 10 && o.quantity <= 75);
    await expectMatch({ quantity_min: "10000" }, (o) => o.quantity === 10_000);
    await expectMatch({ quantity_max: "1" }, (o) => o.quantity === 1);
    await expectMatch({ quantity_min: "42", quantity_max: "42" }, (o) => o.quantity === 42);
  });

  it("filters by requested and fulfilled dates, whole UTC days inclusive", async () => {
    const day = (iso: string) => iso.slice(0, 10);
    await expectMatch({ requested_from: "2026-03-02", requested_to: "2026-03-03" }, (o) =>
      ["2026-03-02", "2026-03-03"].includes(day(o.requested_at)),
    );
    await expectMatch({ requested_to: "2026-03-01" }, (o) => day(o.requested_at) === "2026-03-01");
    await expectMatch({ requested_from: "2026-03-06" }, (o) => day(o.requested_at) >= "2026-03-06");
    // The last millisecond of a day counts as that day.
    expect(account.orders.some((o) => o.requested_at.endsWith("T23:59:59.999Z"))).toBe(true);
    await expectMatch(
      { fulfilled_from: "2026-03-04", fulfilled_to: "2026-03-06" },
      (o) => o.fulfilled_at !== null && day(o.fulfilled_at) >= "2026-03-04" && day(o.fulfilled_at) <= "2026-03-06",
    );
    await expectMatch({ fulfilled_to: "2026-12-31" }, (o) => o.fulfilled_at !== null);
  });

  it("searches order numbers (with or without #) and notes, case-insensitively, with % and _ literal", async () => {
    const target = present(account.orders[4], "fifth order");
    await expectMatch({ search: target.order_number }, (o) => o.order_number.includes(target.order_number));
    await expectMatch({ search: target.order_number.slice(1) }, (o) => o.order_number.includes(target.order_number.slice(1)));
    await expectMatch({ search: "austin" }, (o) => (o.notes ?? "").toLowerCase().includes("austin"));
    await expectMatch({ search: "100%" }, (o) => (o.notes ?? "").includes("100%"));
    await expectMatch({ search: "%" }, (o) => (o.notes ?? "").includes("%"));
    await expectMatch({ search: "_" }, (o) => (o.notes ?? "").includes("_"));
    await expectMatch({ search: "zzz-nothing" }, () => false);
  });

  it("finds notes that end in the last code point, which bounds no range of the search index", async () => {
    const customer = await createCustomer();
    const last = String.fromCodePoint(0x10ffff);
    const notes = [`end ${last}`, `end ${last}${last} twice`, `a sixteen-char n${last}otes`, "end"];
    for (const text of notes) await place(customer, { number_type: "mobile", country_code: "US", quantity: 1, notes: text });
    for (const search of [last, `d ${last}`, `${last}${last}`, `a sixteen-char n${last}`, `sixteen-char n${last}o`]) {
      const page = await list(customer, { search, limit: "100" });
      const expected = notes.filter((text) => text.includes(search));
      expect(page.data.map((o) => o.notes).sort(), search).toEqual(expected.sort());
      expect(page.meta.total, search).toBe(expected.length);
    }
  });

  it("counts every status over the other filters, ignoring the status filter", async () => {
    const page = await expectMatch(
      { status: "pending", country_code: "US" },
      (o) => o.status === "pending" && o.country_code === "US",
    );
    const us = account.orders.filter((o) => o.country_code === "US");
    const count = (s: string) => us.filter((o) => o.status === s).length;
    expect(page.meta.status_counts).toEqual({
      pending: count("pending"),
      processing: count("processing"),
      fulfilled: count("fulfilled"),
      cancelled: count("cancelled"),
    });
    const all = await list(account.customer, { status: "cancelled" });
    expect(all.meta.status_counts).toEqual({ pending: 3, processing: 3, fulfilled: 3, cancelled: 3 });
    expect(all.meta.total).toBe(3);
  });

  it("never shows another account's orders", async () => {
    const other = await createCustomer();
    await place(other, { number_type: "mobile", country_code: "US", quantity: 10 });
    const page = await list(account.customer, { limit: "100" });
    expect(page.meta.total).toBe(12);
    expect((await list(other)).meta.total).toBe(1);
  });
});

describe("sorting and paging", () => {
  let account: Awaited<ReturnType<typeof variedAccount>>;
  beforeAll(async () => {
    account = await variedAccount();
  });

  /** An order's sort key: order numbers sort by their number, the rest by their field. */
  const keyOf = (o: Order, sortBy: OrderSortKey): string | number | null =>
    sortBy === "order_number" ? Number(o.order_number.slice(1)) : o[sortBy];

  for (const sortBy of ORDER_SORT_KEYS) {
    for (const direction of ["asc", "desc"] as const) {
      it(`pages through sort_by=${sortBy}&sort_order=${direction} with limit 5, visiting each order once in order`, async () => {
        const { items, pages } = await allPages(async (page) => {
          const body = await list(account.customer, { sort_by: sortBy, sort_order: direction, limit: "5", page: String(page) });
          expect(body.meta.totalPages).toBe(3);
          return body;
        });
        expect(pages).toBe(3);
        expect(items.map((o) => o.order_id)).toEqual(
          contractOrder(
            account.orders,
            (o) => keyOf(o, sortBy),
            (o) => o.order_id,
            direction,
          ),
        );
      });
    }
  }

  it("sorts order numbers numerically", async () => {
    const body = await list(account.customer, { sort_by: "order_number", sort_order: "asc", limit: "100" });
    const numbers = body.data.map((o) => Number(o.order_number.slice(1)));
    expect(numbers).toEqual([...numbers].sort((a, b) => a - b));
  });

  it("puts orders that are not fulfilled last in both directions", async () => {
    for (const direction of ["asc", "desc"] as const) {
      const body = await list(account.customer, { sort_by: "fulfilled_at", sort_order: direction, limit: "100" });
      const firstNull = body.data.findIndex((o) => o.fulfilled_at === null);
      expect(firstNull).toBe(3);
      expect(body.data.slice(firstNull).every((o) => o.fulfilled_at === null)).toBe(true);
    }
  });
});

describe("query plan", () => {
  it("uses an index led by customer_id for the list query and never scans the whole orders table", async () => {
    const db = createDatabase(env.DB);
    const customer = await createCustomer();
    for (const search of ["", "&search=abc&status=pending&quantity_min=2&requested_from=2026-01-01"]) {
      for (const sortBy of ORDER_SORT_KEYS) {
        const query = listOrdersQuery.parse(Object.fromEntries(new URLSearchParams(`sort_by=${sortBy}${search}`)));
        const [statement] = await orderListStatements(
          db,
          customer.customerId,
          toOrderListQuery(query),
          pageWindow(query.page, query.limit),
        );
        const { sql, params } = present(statement, "list statement").toSQL();
        const plan = await env.DB.prepare(`EXPLAIN QUERY PLAN ${sql}`)
          .bind(...params)
          .all<{ detail: string }>();
        const details = plan.results.map((r) => r.detail).join("\n");
        expect(details).toMatch(/SEARCH orders USING (COVERING )?INDEX orders_customer_\w+ \(customer_id=/);
        expect(details).not.toMatch(/SCAN orders(?! USING)/);
      }
    }
  });
});

/** The sweeps below send hundreds of requests; on a busy 2-vCPU machine that takes longer than vitest's default 5 s. */
const SWEEP_TIMEOUT_MS = 60_000;

describe("every shape of query plan, against the contract's reference query", () => {
  const TYPES = ["mobile", "landline", "toll_free", "national"];
  const COUNTRIES = ["US", "GB", "DE", "JP"];
  const STATUSES = ["pending", "processing", "fulfilled", "cancelled"];
  const NOTES = [
    null,
    "Berlin support line",
    "campaign 123 for Austin",
    "ZÜRICH field team",
    "Malmö 50% off_site",
    'say "hi"',
    "ümlaut Ärger",
    "campaign 1234",
  ];
  const START = Date.parse("2026-01-01T00:00:00.000Z");
  let customer: TestCustomer;

  /** 1,200 orders over segments from a few orders to hundreds, so each plan gets its turn, and times that disagree. */
  beforeAll(async () => {
    customer = await createCustomer();
    const other = await createCustomer();
    let random = 7;
    const next = () => {
      random = (random * 48271) % 2147483647;
      return random / 2147483647;
    };
    for (const [owner, count] of [
      [customer, 1200],
      [other, 200],
    ] as const) {
      const rows = Array.from({ length: count }, () => {
        // Skewed on purpose: mobile and US dominate, national and JP are rare, as are cancelled and processing.
        const type = present(TYPES[Math.min(3, Math.floor(next() ** 2 * 4))]);
        const country = present(COUNTRIES[Math.min(3, Math.floor(next() ** 2 * 4))]);
        const status = present(STATUSES[Math.min(3, Math.floor(next() ** 1.5 * 4))]);
        const requestedAt = START + Math.floor(next() * 180) * DAY + Math.floor(next() * DAY);
        // created_at mostly equals requested_at, as the API writes it; some orders disagree either way.
        const createdAt = next() < 0.8 ? requestedAt : requestedAt + Math.floor((next() - 0.5) * 20 * DAY);
        const fulfilledAt = status === "fulfilled" ? createdAt + Math.floor(next() * 5 * DAY) : null;
        const quantity = 1 + Math.floor(next() ** 3 * 10_000);
        return [
          crypto.randomUUID(),
          owner.customerId,
          type,
          country,
          Math.min(quantity, 10_000),
          status,
          NOTES[Math.floor(next() * NOTES.length)],
          requestedAt,
          fulfilledAt,
          createdAt,
        ];
      });
      await env.DB.prepare(
        `INSERT INTO orders (id, customer_id, order_seq, number_type, country_code, quantity, status, fulfilled_quantity, notes,
           requested_at, fulfilled_at, created_at, updated_at)
         SELECT value ->> 0, value ->> 1, (SELECT coalesce(max(order_seq), 0) FROM orders) + key + 1, value ->> 2, value ->> 3,
           value ->> 4, value ->> 5, 0, value ->> 6, value ->> 7, value ->> 8, value ->> 9, value ->> 9
         FROM json_each(?)`,
      )
        .bind(JSON.stringify(rows))
        .run();
    }
  });

  /** The account's segments, as the Worker reads them to pick a plan. */
  async function accountSegments(): Promise<Segment[]> {
    const { results } = await env.DB.prepare(
      "SELECT number_type, country_code, status, count FROM order_counts WHERE customer_id = ?",
    )
      .bind(customer.customerId)
      .all<{ number_type: string; country_code: string; status: OrderStatus; count: number }>();
    return results.map((r) => ({ numberType: r.number_type, countryCode: r.country_code, status: r.status, count: r.count }));
  }

  /** A client with the next key of the account's ring, so hundreds of requests stay under the per-key budget. */
  function clientsInTurn(): () => Promise<Client> {
    const keys = keyRing(customer.slug);
    return async () => client({ Authorization: `Bearer ${await keys.next()}` });
  }

  const day = (offset: number) => new Date(START + offset * DAY).toISOString().slice(0, 10);
  /** Present with the given odds, else absent: ranges and searches are rarer, so every shape of query comes up. */
  const sometimes = <T>(arbitrary: fc.Arbitrary<T>, odds: number) =>
    fc.oneof({ arbitrary: fc.constant(undefined), weight: 100 - odds }, { arbitrary, weight: odds });
  const subset = <T>(items: T[]) => sometimes(fc.uniqueArray(fc.constantFrom(...items), { minLength: 1 }), 60);
  const range = (bound: fc.Arbitrary<number>) =>
    sometimes(fc.tuple(fc.option(bound, { nil: undefined }), fc.option(bound, { nil: undefined })), 20);
  const listQuery = fc.record({
    number_type: subset(TYPES),
    country_code: subset(COUNTRIES),
    status: subset(STATUSES),
    quantity: range(fc.integer({ min: 1, max: 10_000 })),
    requested: range(fc.integer({ min: -5, max: 190 })),
    fulfilled: range(fc.integer({ min: -5, max: 190 })),
    search: sometimes(
      fc.oneof(
        fc.constantFrom(
          "Berlin",
          "BERLIN",
          "campaign 12",
          "campaign 123",
          "zürich",
          "ärger",
          "50%",
          "off_site",
          "%",
          "_",
          '"hi"',
          "#0",
          "#000001",
          "00",
          "xyz",
          "ä",
        ),
        fc.string({
          unit: fc.constantFrom("a", "e", "r", "n", " ", "1", "2", "%", "_", "ü", "Ü", '"'),
          minLength: 1,
          maxLength: 6,
        }),
      ),
      25,
    ),
    sort_by: fc.constantFrom(...ORDER_SORT_KEYS),
    sort_order: fc.constantFrom("asc" as const, "desc" as const),
    page: fc.oneof(fc.integer({ min: 1, max: 4 }), fc.integer({ min: 1, max: 200 })),
    limit: fc.oneof(fc.constant(10), fc.integer({ min: 1, max: 100 })),
  });
  type ListQuery = typeof listQuery extends fc.Arbitrary<infer T> ? T : never;

  const ordered = (pair: [number | undefined, number | undefined] | undefined): [number | undefined, number | undefined] => {
    const [a, b] = pair ?? [undefined, undefined];
    return a !== undefined && b !== undefined && a > b ? [b, a] : [a, b];
  };

  /** `q` as the list's query parameters; absent ones are undefined, which the client leaves out. */
  function queryParams(q: ListQuery): OrderQuery {
    const [qMin, qMax] = ordered(q.quantity);
    const [requestedFrom, requestedTo] = ordered(q.requested);
    const [fulfilledFrom, fulfilledTo] = ordered(q.fulfilled);
    const text = (n: number | undefined) => (n === undefined ? undefined : String(n));
    const date = (offset: number | undefined) => (offset === undefined ? undefined : day(offset));
    return {
      sort_by: q.sort_by,
      sort_order: q.sort_order,
      page: String(q.page),
      limit: String(q.limit),
      number_type: q.number_type?.join(","),
      country_code: q.country_code?.join(","),
      status: q.status?.join(","),
      quantity_min: text(qMin),
      quantity_max: text(qMax),
      requested_from: date(requestedFrom),
      requested_to: date(requestedTo),
      fulfilled_from: date(fulfilledFrom),
      fulfilled_to: date(fulfilledTo),
      search: q.search,
    };
  }

  /** The query string the client sends for `q`. */
  function queryString(q: ListQuery): string {
    const params = new URLSearchParams();
    for (const [name, value] of Object.entries(queryParams(q))) if (value !== undefined) params.set(name, String(value));
    return params.toString();
  }

  /** The SQL of the page's statement for `q`, as the Worker plans it with the account's segments. */
  async function pageStatementSql(q: ListQuery): Promise<string> {
    const parsed = listOrdersQuery.parse(Object.fromEntries(new URLSearchParams(queryString(q))));
    const [pageStatement] = await orderListStatements(
      createDatabase(env.DB),
      customer.customerId,
      toOrderListQuery(parsed),
      pageWindow(parsed.page, parsed.limit),
      await accountSegments(),
    );
    return present(pageStatement, "page statement").toSQL().sql;
  }

  /** A query with no filter, to spread the filters of a test over. */
  const NO_FILTERS = {
    number_type: undefined,
    country_code: undefined,
    status: undefined,
    quantity: undefined,
    requested: undefined,
    fulfilled: undefined,
    search: undefined,
  } satisfies Partial<ListQuery>;

  /** The list as the contract defines it, written as plainly as SQL allows: every filter, then sort and page. */
  async function reference(q: ListQuery) {
    const where: string[] = ["customer_id = ?"];
    const params: unknown[] = [customer.customerId];
    const listFilter = (column: string, values: string[] | undefined) => {
      if (!values) return;
      where.push(`${column} IN (SELECT value FROM json_each(?))`);
      params.push(JSON.stringify(values));
    };
    listFilter("number_type", q.number_type);
    listFilter("country_code", q.country_code);
    const [qMin, qMax] = ordered(q.quantity);
    if (qMin !== undefined) where.push(`quantity >= ${qMin}`);
    if (qMax !== undefined) where.push(`quantity <= ${qMax}`);
    for (const name of ["requested", "fulfilled"] as const) {
      const [from, to] = ordered(q[name]);
      if (from !== undefined) where.push(`${name}_at >= ${START + from * DAY}`);
      if (to !== undefined) where.push(`${name}_at <= ${START + (to + 1) * DAY - 1}`);
    }
    if (q.search !== undefined) {
      where.push(
        `(instr(lower('#' || printf('%06d', order_seq)), lower(?)) > 0 OR instr(lower(coalesce(notes, '')), lower(?)) > 0)`,
      );
      params.push(q.search, q.search);
    }
    const counts = await env.DB.prepare(`SELECT status, count(*) AS n FROM orders WHERE ${where.join(" AND ")} GROUP BY status`)
      .bind(...params)
      .all<{ status: string; n: number }>();
    listFilter("status", q.status);
    const key = q.sort_by === "order_number" ? "order_seq" : q.sort_by;
    const rows = await env.DB.prepare(
      `SELECT id FROM orders WHERE ${where.join(" AND ")} ORDER BY ${key} ${q.sort_order} NULLS LAST, id ${q.sort_order} LIMIT ? OFFSET ?`,
    )
      .bind(...params, q.limit, (q.page - 1) * q.limit)
      .all<{ id: string }>();
    const statusCounts = Object.fromEntries(STATUSES.map((s) => [s, counts.results.find((c) => c.status === s)?.n ?? 0]));
    const total = (q.status ?? STATUSES).reduce((sum, s) => sum + present(statusCounts[s], `count of ${s}`), 0);
    return { ids: rows.results.map((r) => r.id), total, statusCounts };
  }

  /** The list's answer to `q` must be the reference's: rows, order, total and status_counts. */
  async function expectAsReference(q: ListQuery, api: Client) {
    const response = await api.api.customers[":customer_slug"].orders.$get({
      param: { customer_slug: customer.slug },
      query: queryParams(q),
    });
    const page = await json(response, 200);
    const expected = await reference(q);
    expect(
      page.data.map((o) => o.order_id),
      queryString(q),
    ).toEqual(expected.ids);
    expect(page.meta.total, queryString(q)).toBe(expected.total);
    expect(page.meta.status_counts, queryString(q)).toEqual(expected.statusCounts);
  }

  it(
    "answers random queries with the reference's rows, order, total and status_counts",
    async () => {
      const nextClient = clientsInTurn();
      await fc.assert(
        fc.asyncProperty(listQuery, async (q) => expectAsReference(q, await nextClient())),
        { numRuns: 300 },
      );
    },
    SWEEP_TIMEOUT_MS,
  );

  it(
    "pages through rare, medium and broad enumeration filters in every sort exactly as the reference",
    async () => {
      const nextClient = clientsInTurn();
      const filters: Partial<Pick<ListQuery, "number_type" | "country_code" | "status">>[] = [
        { number_type: ["national"], country_code: ["JP", "DE"] },
        { status: ["cancelled"], country_code: ["GB", "JP"] },
        { status: ["pending", "fulfilled"] },
      ];
      const plans = new Set<string>();
      for (const filter of filters) {
        for (const sort_by of ORDER_SORT_KEYS) {
          for (const sort_order of ["asc", "desc"] as const) {
            for (let pageNumber = 1; pageNumber <= 6; pageNumber++) {
              const q: ListQuery = {
                ...NO_FILTERS,
                ...filter,
                sort_by,
                sort_order,
                page: pageNumber,
                limit: 7,
              };
              plans.add((await pageStatementSql(q)).includes("WITH segments") ? "segments" : "scan");
              await expectAsReference(q, await nextClient());
            }
          }
        }
      }
      // The rare filters take the page from the segments and the broad one from a scan: both plans were checked.
      expect(plans).toEqual(new Set(["segments", "scan"]));
    },
    SWEEP_TIMEOUT_MS,
  );

  it(
    "finds a deep page's first row by its day in the created and requested sorts, exactly as the reference",
    async () => {
      const nextClient = clientsInTurn();
      const filters: Partial<Pick<ListQuery, "number_type" | "country_code" | "status" | "requested">>[] = [
        {},
        { status: ["pending", "fulfilled"] },
        { number_type: ["mobile", "national"], country_code: ["US", "JP"] },
        { requested: [20, 150] },
      ];
      // Offsets from 1,000 (the first deep page) to past the last row, at page sizes that cut days in varied places.
      const windows = [
        { page: 11, limit: 100 },
        { page: 12, limit: 100 },
        { page: 13, limit: 100 },
        { page: 144, limit: 7 },
        { page: 160, limit: 7 },
        { page: 40, limit: 30 },
      ];
      let deepPlans = 0;
      for (const filter of filters) {
        for (const sort_by of ["created_at", "requested_at"] as const) {
          for (const sort_order of ["asc", "desc"] as const) {
            for (const window of windows) {
              const q: ListQuery = {
                ...NO_FILTERS,
                ...filter,
                sort_by,
                sort_order,
                ...window,
              };
              if ((await pageStatementSql(q)).includes("order_day_counts")) deepPlans++;
              await expectAsReference(q, await nextClient());
            }
          }
        }
      }
      // The unfiltered and the status-filtered lists took the day plan in every window; the days are counted per status
      // only, so a country or type filter skips rows as before, and a range filter's page is SQLite's own plan.
      expect(deepPlans).toBe(2 * 2 * 2 * windows.length);
    },
    SWEEP_TIMEOUT_MS,
  );

  it("pages a quantity range in the default sort by walking it or by the quantity index, exactly as the reference", async () => {
    const nextClient = clientsInTurn();
    // The whole span fills any page from the walk; a rare span cannot, and falls back; the deep page skips the walk.
    const spans: [number, number][] = [
      [1, 10_000],
      [2, 40],
      [9_000, 10_000],
    ];
    const filters: Partial<Pick<ListQuery, "status" | "country_code">>[] = [{}, { status: ["pending"], country_code: ["GB"] }];
    for (const quantity of spans) {
      for (const filter of filters) {
        for (const sort_order of ["asc", "desc"] as const) {
          for (const window of [
            { page: 1, limit: 10 },
            { page: 3, limit: 100 },
            { page: 12, limit: 100 },
          ]) {
            await expectAsReference(
              {
                ...NO_FILTERS,
                ...filter,
                quantity,
                sort_by: "created_at",
                sort_order,
                ...window,
              },
              await nextClient(),
            );
          }
        }
      }
    }
  });

  it("pages a search by walking the default sort, from the grams' matches, or by testing each candidate, exactly as the reference", async () => {
    const nextClient = clientsInTurn();
    // A common needle fills the page from the walk; a rare or absent one, or one with a rare status, is read from its
    // matches (a status filter with a page of 100 starts the walk and falls short); one longer than a gram (16
    // characters) is looked up by its first 16 and tested; in another sort there is no walk.
    const needles = ["Berlin", "campaign 1234", "xyz", "#000", "berlin support line", "campaign 123 for"];
    const filters: Partial<Pick<ListQuery, "status" | "country_code">>[] = [
      {},
      { status: ["cancelled"] },
      { status: ["pending", "fulfilled"], country_code: ["GB"] },
    ];
    for (const search of needles) {
      for (const filter of filters) {
        for (const [sort_by, sort_order] of [
          ["created_at", "desc"],
          ["created_at", "asc"],
          ["quantity", "asc"],
        ] as const) {
          for (const window of [
            { page: 1, limit: 10 },
            { page: 2, limit: 100 },
            { page: 40, limit: 3 },
          ]) {
            await expectAsReference({ ...NO_FILTERS, ...filter, search, sort_by, sort_order, ...window }, await nextClient());
          }
        }
      }
    }
  });

  it("never scans the orders table, whatever the shape of the query", async () => {
    const db = createDatabase(env.DB);
    const segments = await accountSegments();
    const shapes = [
      "",
      "status=cancelled&country_code=JP",
      "status=pending,fulfilled",
      "number_type=mobile&sort_by=quantity&limit=50",
      "requested_from=2026-02-01&requested_to=2026-03-31",
      "fulfilled_from=2026-02-01&sort_order=asc",
      "quantity_min=100&quantity_max=200",
      "search=campaign%20123",
      "search=ab&status=pending",
      "page=50",
      "page=150&status=pending",
      "requested_from=2026-02-01&requested_to=2026-03-31&number_type=mobile",
    ];
    for (const shape of shapes) {
      for (const sortBy of ["", "&sort_by=fulfilled_at&sort_order=asc", "&sort_by=order_number"]) {
        const query = listOrdersQuery.parse(Object.fromEntries(new URLSearchParams(`${shape}${sortBy}`)));
        for (const statement of await orderListStatements(
          db,
          customer.customerId,
          toOrderListQuery(query),
          pageWindow(query.page, query.limit),
          segments,
        )) {
          const { sql, params } = statement.toSQL();
          const plan = await env.DB.prepare(`EXPLAIN QUERY PLAN ${sql}`)
            .bind(...params)
            .all<{ detail: string }>();
          const details = plan.results.map((r) => r.detail).join("\n");
          expect(details, `${shape}${sortBy}`).not.toMatch(/SCAN (orders|segment_orders)(?! USING)/);
          expect(details, `${shape}${sortBy}`).not.toMatch(/SCAN \w+ USING (COVERING )?INDEX/);
        }
      }
    }
  });
});

describe("lists need the account's own key", () => {
  it("answers another account's slug with 404", async () => {
    const alice = await createCustomer();
    const bob = await createCustomer();
    await problem(await alice.account.orders.$get({ param: { customer_slug: bob.slug }, query: {} }), 404, "not_found");
    await json(await operator.admin.customers[":slug"].$get({ param: { slug: bob.slug } }), 200);
  });
});
