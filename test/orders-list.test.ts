// The orders list: pagination meta, every filter, search, status_counts, every sort, paging stability, the query plan.
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { createDatabase } from "../src/db/client.ts";
import { pageWindow } from "../src/http/pagination.ts";
import { listOrdersQuery, ORDER_SORT_KEYS } from "../src/orders/schemas.ts";
import { orderListStatements } from "../src/orders/list.ts";
import { adminCall, createCustomer, json, makeOrderable, problem, type TestCustomer } from "./helpers.ts";

interface Order {
  order_id: string;
  order_number: string;
  number_type: string;
  country_code: string;
  quantity: number;
  status: string;
  notes: string | null;
  requested_at: string;
  fulfilled_at: string | null;
  created_at: string;
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
  const current = await env.DB.prepare("SELECT requested_at, created_at, fulfilled_at FROM orders WHERE id = ?")
    .bind(orderId)
    .first<{ requested_at: number; created_at: number; fulfilled_at: number | null }>();
  await env.DB.prepare("UPDATE orders SET requested_at = ?, created_at = ?, fulfilled_at = ? WHERE id = ?")
    .bind(
      times.requestedAt ?? current!.requested_at,
      times.createdAt ?? current!.created_at,
      times.fulfilledAt === undefined ? current!.fulfilled_at : times.fulfilledAt,
      orderId,
    )
    .run();
}

async function setStatus(orderId: string, status: string) {
  await env.DB.prepare("UPDATE orders SET status = ? WHERE id = ?").bind(status, orderId).run();
}

async function list(customer: TestCustomer, query = "") {
  return json<{ data: Order[]; meta: Record<string, any> }>(
    await customer.call("GET", `/api/customers/${customer.slug}/orders${query}`),
    200,
  );
}

async function place(customer: TestCustomer, body: Record<string, unknown>): Promise<Order> {
  return json(await customer.call("POST", `/api/customers/${customer.slug}/orders`, body), 201);
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
    const status = statuses[i % 4]!;
    await setStatus(order.order_id, status);
    // Pairs of orders share a day and a creation time, so sorts must break ties by id.
    const day = base + Math.floor(i / 2) * DAY;
    await setTimes(order.order_id, {
      requestedAt: day + (i % 2) * (DAY - 1),
      createdAt: day,
      fulfilledAt: status === "fulfilled" ? day + 3 * DAY + (i % 3) * 1000 : null,
    });
  }
  const fresh = (await list(customer, "?limit=100")).data;
  return { customer, orders: fresh };
}

describe("pagination", () => {
  it("defaults to page 1, limit 10, newest created first", async () => {
    const customer = await createCustomer();
    for (let i = 0; i < 12; i++) {
      const order = await place(customer, { number_type: "mobile", country_code: "US", quantity: i + 1 });
      await setTimes(order.order_id, { createdAt: Date.parse("2026-01-01T00:00:00.000Z") + i * 1000 });
    }
    const page = await list(customer);
    expect(page.data).toHaveLength(10);
    expect(page.data.map((o) => o.quantity)).toEqual([12, 11, 10, 9, 8, 7, 6, 5, 4, 3]);
    expect(page.meta).toEqual({
      total: 12,
      page: 1,
      limit: 10,
      totalPages: 2,
      hasNextPage: true,
      hasPreviousPage: false,
      status_counts: { pending: 12, processing: 0, fulfilled: 0, cancelled: 0 },
    });
    const second = await list(customer, "?page=2");
    expect(second.data.map((o) => o.quantity)).toEqual([2, 1]);
    expect(second.meta).toMatchObject({ page: 2, totalPages: 2, hasNextPage: false, hasPreviousPage: true });
  });

  it("answers a page past the last with no data, the true total and hasPreviousPage", async () => {
    const customer = await createCustomer();
    await place(customer, { number_type: "mobile", country_code: "US", quantity: 1 });
    const beyond = await list(customer, "?page=5&limit=1");
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
    const body = await problem(await customer.call("GET", `/api/customers/${customer.slug}/orders${query}`), 400, "validation_error");
    expect(body.errors?.map((e) => `${e.location}:${e.pointer}`)).toContain(`query:${name}`);
  });

  it("lists a cross-field error together with the other bad fields", async () => {
    const customer = await createCustomer();
    const body = await problem(
      await customer.call("GET", `/api/customers/${customer.slug}/orders?limit=500&quantity_min=9&quantity_max=1&requested_from=2026-01-02&requested_to=2026-01-01`),
      400,
      "validation_error",
    );
    expect(body.errors?.map((e) => e.pointer).sort()).toEqual(["limit", "quantity_min", "requested_from"]);
  });

  it("accepts the bounds: limit 1 and 100, search of 50 characters, 20 distinct list items", async () => {
    const customer = await createCustomer();
    const twenty = Array.from({ length: 20 }, (_, i) => `type_${i}`);
    await list(customer, `?number_type=${[...twenty, ...twenty].join(",")}`);
    await list(customer, "?limit=1");
    await list(customer, "?limit=100");
    await list(customer, `?search=${"x".repeat(50)}`);
  });
});

describe("filters and status_counts", () => {
  let account: Awaited<ReturnType<typeof variedAccount>>;
  beforeAll(async () => {
    account = await variedAccount();
  });

  const ids = (orders: Order[]) => orders.map((o) => o.order_id).sort();
  const expectMatch = async (query: string, predicate: (o: Order) => boolean) => {
    const page = await list(account.customer, `${query}${query ? "&" : "?"}limit=100`);
    const expected = account.orders.filter(predicate);
    expect(ids(page.data)).toEqual(ids(expected));
    expect(page.meta.total).toBe(expected.length);
    return page;
  };

  it("filters by comma-separated number types, countries and statuses, ignoring repeats", async () => {
    await expectMatch("?number_type=landline,toll_free,landline", (o) => ["landline", "toll_free"].includes(o.number_type));
    await expectMatch("?country_code=DE,GB", (o) => ["DE", "GB"].includes(o.country_code));
    await expectMatch("?status=fulfilled,cancelled", (o) => ["fulfilled", "cancelled"].includes(o.status));
    await expectMatch("?status=pending&country_code=US&number_type=mobile", (o) => o.status === "pending" && o.country_code === "US" && o.number_type === "mobile");
    await expectMatch("?number_type=national", () => false);
  });

  it("filters by quantity bounds, inclusive", async () => {
    await expectMatch("?quantity_min=10&quantity_max=75", (o) => o.quantity >= 10 && o.quantity <= 75);
    await expectMatch("?quantity_min=10000", (o) => o.quantity === 10_000);
    await expectMatch("?quantity_max=1", (o) => o.quantity === 1);
    await expectMatch("?quantity_min=42&quantity_max=42", (o) => o.quantity === 42);
  });

  it("filters by requested and fulfilled dates, whole UTC days inclusive", async () => {
    const day = (iso: string) => iso.slice(0, 10);
    await expectMatch("?requested_from=2026-03-02&requested_to=2026-03-03", (o) => ["2026-03-02", "2026-03-03"].includes(day(o.requested_at)));
    await expectMatch("?requested_to=2026-03-01", (o) => day(o.requested_at) === "2026-03-01");
    await expectMatch("?requested_from=2026-03-06", (o) => day(o.requested_at) >= "2026-03-06");
    // The last millisecond of a day counts as that day.
    expect(account.orders.some((o) => o.requested_at.endsWith("T23:59:59.999Z"))).toBe(true);
    await expectMatch("?fulfilled_from=2026-03-04&fulfilled_to=2026-03-06", (o) => o.fulfilled_at !== null && day(o.fulfilled_at) >= "2026-03-04" && day(o.fulfilled_at) <= "2026-03-06");
    await expectMatch("?fulfilled_to=2026-12-31", (o) => o.fulfilled_at !== null);
  });

  it("searches order numbers (with or without #) and notes, case-insensitively, with % and _ literal", async () => {
    const target = account.orders[4]!;
    await expectMatch(`?search=${encodeURIComponent(target.order_number)}`, (o) => o.order_number.includes(target.order_number));
    await expectMatch(`?search=${target.order_number.slice(1)}`, (o) => o.order_number.includes(target.order_number.slice(1)));
    await expectMatch("?search=austin", (o) => (o.notes ?? "").toLowerCase().includes("austin"));
    await expectMatch(`?search=${encodeURIComponent("100%")}`, (o) => (o.notes ?? "").includes("100%"));
    await expectMatch(`?search=${encodeURIComponent("%")}`, (o) => (o.notes ?? "").includes("%"));
    await expectMatch("?search=_", (o) => (o.notes ?? "").includes("_"));
    await expectMatch("?search=zzz-nothing", () => false);
  });

  it("counts every status over the other filters, ignoring the status filter", async () => {
    const page = await expectMatch("?status=pending&country_code=US", (o) => o.status === "pending" && o.country_code === "US");
    const us = account.orders.filter((o) => o.country_code === "US");
    const count = (s: string) => us.filter((o) => o.status === s).length;
    expect(page.meta.status_counts).toEqual({
      pending: count("pending"),
      processing: count("processing"),
      fulfilled: count("fulfilled"),
      cancelled: count("cancelled"),
    });
    const all = await list(account.customer, "?status=cancelled");
    expect(all.meta.status_counts).toEqual({ pending: 3, processing: 3, fulfilled: 3, cancelled: 3 });
    expect(all.meta.total).toBe(3);
  });

  it("never shows another account's orders", async () => {
    const other = await createCustomer();
    await place(other, { number_type: "mobile", country_code: "US", quantity: 10 });
    const page = await list(account.customer, "?limit=100");
    expect(page.meta.total).toBe(12);
    expect((await list(other)).meta.total).toBe(1);
  });
});

describe("sorting and paging", () => {
  let account: Awaited<ReturnType<typeof variedAccount>>;
  beforeAll(async () => {
    account = await variedAccount();
  });

  const keyOf = (o: Order, sortBy: string): string | number | null => {
    if (sortBy === "order_number") return Number(o.order_number.slice(1));
    return o[sortBy as keyof Order] as string | number | null;
  };

  /** The order the contract promises: key in the direction, NULLs last either way, then id in the same direction. */
  function expectedOrder(sortBy: string, direction: "asc" | "desc"): string[] {
    const sign = direction === "asc" ? 1 : -1;
    return [...account.orders]
      .sort((a, b) => {
        const ka = keyOf(a, sortBy);
        const kb = keyOf(b, sortBy);
        if (ka === null || kb === null) {
          if (ka !== kb) return ka === null ? 1 : -1;
        } else if (ka !== kb) {
          return (ka < kb ? -1 : 1) * sign;
        }
        return (a.order_id < b.order_id ? -1 : 1) * sign;
      })
      .map((o) => o.order_id);
  }

  for (const sortBy of ORDER_SORT_KEYS) {
    for (const direction of ["asc", "desc"] as const) {
      it(`pages through sort_by=${sortBy}&sort_order=${direction} with limit 5, visiting each order once in order`, async () => {
        const seen: string[] = [];
        let page = 1;
        for (;;) {
          const body = await list(account.customer, `?sort_by=${sortBy}&sort_order=${direction}&limit=5&page=${page}`);
          seen.push(...body.data.map((o) => o.order_id));
          expect(body.meta.totalPages).toBe(3);
          if (!body.meta.hasNextPage) break;
          page++;
        }
        expect(page).toBe(3);
        expect(seen).toEqual(expectedOrder(sortBy, direction));
      });
    }
  }

  it("sorts order numbers numerically", async () => {
    const body = await list(account.customer, "?sort_by=order_number&sort_order=asc&limit=100");
    const numbers = body.data.map((o) => Number(o.order_number.slice(1)));
    expect(numbers).toEqual([...numbers].sort((a, b) => a - b));
  });

  it("puts orders that are not fulfilled last in both directions", async () => {
    for (const direction of ["asc", "desc"]) {
      const body = await list(account.customer, `?sort_by=fulfilled_at&sort_order=${direction}&limit=100`);
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
        const { sql, params } = orderListStatements(db, customer.customerId, query, pageWindow(query))[0]!.toSQL();
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

describe("lists need the account's own key", () => {
  it("answers another account's slug with 404", async () => {
    const alice = await createCustomer();
    const bob = await createCustomer();
    await problem(await alice.call("GET", `/api/customers/${bob.slug}/orders`), 404, "not_found");
    await json(await adminCall("GET", `/admin/customers/${bob.slug}`), 200);
  });
});
