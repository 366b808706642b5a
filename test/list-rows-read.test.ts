// Rows read by the benchmark's list scenarios on two accounts alike but for size (1,500 and 15,000 orders from the
// bench's generator, over the same two years, 1,000 and 10,000 numbers): a page must read no more in the large one (issue 29), within the bench's goals,
// and answer right (meta and the page against a plain SQL recount), so a cheap wrong answer cannot pass.
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { AWAITING_VERIFICATION_COLUMNS } from "../scripts/bench/compliance.ts";
import {
  END,
  generateOrders,
  insertRows,
  NUMBER_COLUMNS,
  ORDER_COLUMNS,
  type OrderSeed,
  orderRow,
  SPAN,
} from "../scripts/bench/generate.ts";
import { OPEN_ORDER_STATUSES, type OrderStatus } from "../src/db/schema.ts";
import { bodyOf, call, createCustomer, type TestCustomer, withLogs } from "./helpers.ts";
import { type StaffMember, staffMember } from "./staff.ts";

/** In the notes of exactly RARE_ORDERS orders of each account, so a search for it has the same hits in both. */
const RARE_TAG = "ticket QX-4471";
const RARE_ORDERS = 30;
const SIZES = {
  small: { orders: 1_500, numbers: 1_000, verifications: 10 },
  large: { orders: 15_000, numbers: 10_000, verifications: 100 },
} as const;
type Size = keyof typeof SIZES;

/** The large account may read this many times the small one's rows, plus GROWTH_SLACK: anything more grows with size. */
const GROWTH_FACTOR = 1.5;
const GROWTH_SLACK = 50;
/** The bench's goal for a list page (scripts/bench/scenarios.ts, maxRowsRead). */
const PAGE_CEILING = 1_000;
/**
 * A deep page in the large account (20 orders a day): the days before it and part of one, fewer than the 1,200 rows
 * before it. In the small one (2 a day) its days outnumber its rows, which the growth check allows.
 */
const DEEP_PAGE_CEILING = 1_000;

/** An account's orders from the bench's generator (its own seed per size), RARE_ORDERS of them evenly spread tagged. */
function accountOrders(count: number, firstSeq: number): OrderSeed[] {
  const rareEvery = Math.floor(count / RARE_ORDERS);
  return generateOrders(count, firstSeq, count).map((order, i) =>
    i % rareEvery === 0 && i / rareEvery < RARE_ORDERS
      ? { ...order, notes: `${order.notes ?? "Berlin field team"}, ${RARE_TAG}` }
      : order,
  );
}

/** Apart from other files' numbers (+1555…, +4420…): the files of a workerd share its database. */
const phonePrefix = `+1557${String(Math.floor(Math.random() * 1000)).padStart(3, "0")}`;

/** Orders newer than every seeded one and outside the quantity range, and older ones in it, put in the large account last. */
const NEWER_ORDERS = 1_000;
const OLDER_IN_RANGE = 5_000;

/** The numbers of each account's oldest fulfilled order: the list of one order's numbers pages through them. */
const ONE_ORDERS_NUMBERS = 300;
/** Rows a page of one order's numbers may read: its page and counts, not the order's numbers one by one. */
const ONE_ORDER_CEILING = 100;

/** Per account, its oldest fulfilled order: it holds the first ONE_ORDERS_NUMBERS of the account's numbers. */
const firstFulfilledOrder = new Map<string, string>();

/** Orders, numbers (of fulfilled orders) and verifications awaiting review for the account, at its size. */
async function seed(customer: TestCustomer, size: Size): Promise<void> {
  const { orders: orderCount, numbers: numberCount, verifications } = SIZES[size];
  // Order numbers are unique across accounts; a workerd runs its files one after another, so none is taken meanwhile.
  const top = await env.DB.prepare("SELECT coalesce(max(order_seq), 0) AS seq FROM orders").first<{ seq: number }>();
  const orders = accountOrders(orderCount, (top?.seq ?? 0) + 1);
  await insertRows(
    env.DB,
    "orders",
    ORDER_COLUMNS,
    orders.map((order) => orderRow(customer.customerId, order)),
  );
  const fulfilled = orders.filter((order) => order.status === "fulfilled");
  firstFulfilledOrder.set(customer.customerId, fulfilled[0]!.id);
  const numbers = Array.from({ length: numberCount }, (_, i) => {
    const order = (i < ONE_ORDERS_NUMBERS ? fulfilled[0] : fulfilled[i % fulfilled.length])!;
    const phone = `${phonePrefix}${size === "small" ? 0 : 1}${String(i).padStart(5, "0")}`;
    const status = i % 10 === 0 ? "suspended" : "active";
    return [
      crypto.randomUUID(),
      customer.customerId,
      order.id,
      phone,
      order.countryCode,
      order.numberType,
      status,
      order.fulfilledAt,
      order.fulfilledAt,
    ];
  });
  await insertRows(env.DB, "numbers", NUMBER_COLUMNS, numbers);
  await insertRows(
    env.DB,
    "kyc_verifications",
    AWAITING_VERIFICATION_COLUMNS,
    numbers
      .slice(0, verifications)
      .map((number, i) => [
        crypto.randomUUID(),
        customer.customerId,
        number[0],
        i % 3 ? "pending" : "under_review",
        "individual",
        "1 Market St",
        "San Francisco",
        "CA",
        "94105",
        "US",
        END - i * 1000,
      ]),
  );
}

/** A list request's body and the D1 rows it read (from the request's log line). */
async function rowsReadOfList(path: string, headers: Record<string, string>): Promise<{ rowsRead: number; body: ListBody }> {
  const { result: body, lines } = await withLogs(async () => bodyOf<ListBody>(await call(path, { headers })));
  const [line] = lines.filter((l) => l.path === path.split("?")[0]);
  expect(line, `the log line of ${path}`).toBeDefined();
  return { rowsRead: line!.d1_rows_read as number, body };
}

interface ListBody {
  data: Record<string, unknown>[];
  meta: { total: number; status_counts?: Record<string, number> };
}

async function sqlAll<T>(query: string, ...params: unknown[]): Promise<T[]> {
  return (
    await env.DB.prepare(query)
      .bind(...params)
      .all<T>()
  ).results;
}

const accounts = {} as Record<Size, TestCustomer>;
let staff: StaffMember;
/** The cross-account queues' rows read with only the small account's data seeded, by path. */
const queueBeforeLarge = new Map<string, number>();

/** A list scenario of the bench (scripts/bench/scenarios.ts), requested for an account. */
interface Scenario {
  name: string;
  path: (customer: TestCustomer) => string;
  staff?: boolean;
  /** Across every account (the operator's queues): the small figure is the one before the large account was seeded. */
  acrossAccounts?: boolean;
  /** The bench's goal of rows read, where it has one. */
  ceiling?: number;
  /**
   * A range counted from derived rows (order_day_counts, order_quantity_counts): at most one per day (or quantity) and
   * status in the range, so a busier account reads more of them until each day has every status, and then no more.
   * Held to its ceiling in both accounts rather than to the small one's figure.
   */
  derivedRange?: boolean;
  /** Asserts the answer against a plain SQL recount. */
  check: (customer: TestCustomer, body: ListBody) => Promise<void>;
}

/** Every filter but status (SQL on orders, ?1 the account); the status filter; the page's order and window. */
interface OrdersRecount {
  where?: string;
  statuses?: readonly OrderStatus[];
  orderBy?: string;
  offset?: number;
  limit?: number;
}

function ordersScenario(name: string, query: string, recount: OrdersRecount, ceiling?: number, derivedRange?: boolean): Scenario {
  const { where = "1", statuses, orderBy = "created_at DESC, id DESC", offset = 0, limit = 10 } = recount;
  const statusFilter = statuses ? `AND status IN (${statuses.map((s) => `'${s}'`).join(", ")})` : "";
  return {
    name: `orders: ${name}`,
    path: (c) => `/api/customers/${c.slug}/orders${query ? `?${query}` : ""}`,
    ceiling,
    derivedRange,
    check: async (customer, body) => {
      const counted = await sqlAll<{ status: OrderStatus; n: number }>(
        `SELECT status, count(*) AS n FROM orders WHERE customer_id = ?1 AND (${where}) GROUP BY status`,
        customer.customerId,
      );
      const statusCounts = { pending: 0, processing: 0, fulfilled: 0, cancelled: 0 };
      for (const { status, n } of counted) statusCounts[status] = n;
      expect(body.meta.status_counts).toEqual(statusCounts);
      const total = Object.entries(statusCounts).reduce(
        (sum, [s, n]) => sum + (!statuses || statuses.includes(s as OrderStatus) ? n : 0),
        0,
      );
      expect(body.meta.total).toBe(total);
      const page = await sqlAll<{ id: string }>(
        `SELECT id FROM orders WHERE customer_id = ?1 AND (${where}) ${statusFilter} ORDER BY ${orderBy} LIMIT ${limit} OFFSET ${offset}`,
        customer.customerId,
      );
      expect(body.data.map((order) => order.order_id)).toEqual(page.map((row) => row.id));
    },
  };
}

const sortColumns = {
  order_number: "order_seq",
  number_type: "number_type",
  country_code: "country_code",
  quantity: "quantity",
  status: "status",
  requested_at: "requested_at",
  fulfilled_at: "fulfilled_at IS NULL, fulfilled_at",
} as const;
const quarter = (field: string) => `${field} BETWEEN ${Date.parse("2026-04-01")} AND ${Date.parse("2026-07-01") - 1}`;

/** A numbers list filtered by `query`, its total against a recount (`where` on numbers, ?1 the account, ?2 its value). */
function numbersScenario(
  name: string,
  query: (customer: TestCustomer) => string,
  where: (customer: TestCustomer) => [string, string],
  ceiling = PAGE_CEILING,
): Scenario {
  return {
    name: `numbers: ${name}`,
    path: (c) => `/api/customers/${c.slug}/numbers?${query(c)}`,
    ceiling,
    check: async (customer, body) => {
      const [condition, value] = where(customer);
      const [counted] = await sqlAll<{ n: number }>(
        `SELECT count(*) AS n FROM numbers WHERE customer_id = ?1 AND ${condition}`,
        customer.customerId,
        value,
      );
      expect(counted?.n).toBeGreaterThan(0);
      expect(body.meta.total).toBe(counted?.n);
    },
  };
}

/** The queue's total against a recount of `from` (a SQL table and filter), for one account (?1) or every account. */
function queueScenario(name: string, path: string, recount: string, perAccount: boolean): Scenario {
  return {
    name: `queue: ${name}`,
    path: (c) => (perAccount ? `${path}?customer_slug=${c.slug}` : path),
    staff: true,
    acrossAccounts: !perAccount,
    ceiling: PAGE_CEILING,
    check: async (customer, body) => {
      const query = `SELECT count(*) AS n FROM ${recount}${perAccount ? " AND customer_id = ?1" : ""}`;
      const [counted] = await sqlAll<{ n: number }>(query, ...(perAccount ? [customer.customerId] : []));
      expect(body.meta.total).toBe(counted?.n);
    },
  };
}

const openOrders = `orders WHERE status IN (${OPEN_ORDER_STATUSES.map((s) => `'${s}'`).join(", ")})`;
// A released number's verification is not in the queue (other files of the workerd may have left one).
const awaitingReview = "kyc_verifications WHERE status IN ('pending', 'under_review') AND number_released = 0";

const SCENARIOS: Scenario[] = [
  ordersScenario("default page", "", {}, PAGE_CEILING),
  ordersScenario(
    "pending, US+GB, mobile",
    "status=pending&country_code=US,GB&number_type=mobile",
    { where: "country_code IN ('US', 'GB') AND number_type = 'mobile'", statuses: ["pending"] },
    PAGE_CEILING,
  ),
  ordersScenario(
    "pending, US+GB, by quantity, 50",
    "status=pending&country_code=US,GB&sort_by=quantity&limit=50",
    { where: "country_code IN ('US', 'GB')", statuses: ["pending"], orderBy: "quantity DESC, id DESC", limit: 50 },
    PAGE_CEILING,
  ),
  ordersScenario("cancelled", "status=cancelled", { statuses: ["cancelled"] }, PAGE_CEILING),
  ordersScenario("toll_free", "number_type=toll_free", { where: "number_type = 'toll_free'" }, PAGE_CEILING),
  ordersScenario(
    "JP, processing (rare)",
    "country_code=JP&status=processing",
    { where: "country_code = 'JP'", statuses: ["processing"] },
    PAGE_CEILING,
  ),
  ...Object.entries(sortColumns).map(([sort, column]) =>
    ordersScenario(`sort_by=${sort}`, `sort_by=${sort}`, { orderBy: `${column} DESC, id DESC` }, PAGE_CEILING),
  ),
  ordersScenario(
    "sort_by=fulfilled_at asc",
    "sort_by=fulfilled_at&sort_order=asc",
    { orderBy: "fulfilled_at IS NULL, fulfilled_at ASC, id ASC" },
    PAGE_CEILING,
  ),
  ordersScenario(
    "requested in one quarter",
    "requested_from=2026-04-01&requested_to=2026-06-30",
    { where: quarter("requested_at") },
    PAGE_CEILING,
    true,
  ),
  ordersScenario(
    "fulfilled in one quarter",
    "fulfilled_from=2026-04-01&fulfilled_to=2026-06-30",
    { where: quarter("fulfilled_at") },
    PAGE_CEILING,
    true,
  ),
  ordersScenario(
    "quantity 100-200",
    "quantity_min=100&quantity_max=200",
    { where: "quantity BETWEEN 100 AND 200" },
    PAGE_CEILING,
    true,
  ),
  ordersScenario(`search rare (${RARE_TAG})`, `search=${encodeURIComponent("QX-4471")}`, { where: `notes LIKE '%QX-4471%'` }),
  // Below the offset in the large account: skipping the 1,200 rows before the page would read more.
  ordersScenario("deep page (offset 1,200)", "page=121", { offset: 1_200 }, DEEP_PAGE_CEILING),
  ordersScenario(
    "deep page by requested_at (offset 1,200)",
    "page=121&sort_by=requested_at",
    { orderBy: "requested_at DESC, id DESC", offset: 1_200 },
    DEEP_PAGE_CEILING,
  ),
  {
    name: "numbers: default page",
    path: (c) => `/api/customers/${c.slug}/numbers`,
    ceiling: PAGE_CEILING,
    check: async (customer, body) => {
      const [counted] = await sqlAll<{ n: number }>(
        "SELECT count(*) AS n FROM numbers WHERE customer_id = ?1",
        customer.customerId,
      );
      expect(body.meta.total).toBe(counted?.n);
      expect(body.data).toHaveLength(10);
    },
  },
  numbersScenario(
    `one order's (${ONE_ORDERS_NUMBERS})`,
    (c) => `order_id=${firstFulfilledOrder.get(c.customerId)}`,
    (c) => ["order_id = ?2", firstFulfilledOrder.get(c.customerId)!],
    ONE_ORDER_CEILING,
  ),
  numbersScenario(
    "JP toll-free",
    () => "country_code=JP&number_type=toll_free",
    () => ["country_code = 'JP' AND number_type = ?2", "toll_free"],
  ),
  queueScenario("open orders, default page", "/admin/orders", openOrders, false),
  queueScenario("open orders of one account", "/admin/orders", openOrders, true),
  queueScenario("reviews, default page", "/admin/kyc", awaitingReview, false),
  queueScenario("reviews of one account", "/admin/kyc", awaitingReview, true),
];

const headersOf = (scenario: Scenario, customer: TestCustomer): Record<string, string> =>
  scenario.staff ? staff.headers : { Authorization: `Bearer ${customer.key}` };

/** The most rows either of two requests read: the first may pick its plan without the account's segments. */
async function rowsReadTwice(scenario: Scenario, customer: TestCustomer): Promise<{ rowsRead: number; body: ListBody }> {
  const first = await rowsReadOfList(scenario.path(customer), headersOf(scenario, customer));
  const second = await rowsReadOfList(scenario.path(customer), headersOf(scenario, customer));
  return { rowsRead: Math.max(first.rowsRead, second.rowsRead), body: second.body };
}

beforeAll(async () => {
  staff = await staffMember("fulfilment");
  accounts.small = await createCustomer("rows-small");
  accounts.large = await createCustomer("rows-large");
  await seed(accounts.small, "small");
  // A key's and a token's first request looks them up: out of the figures.
  await rowsReadOfList(`/api/customers/${accounts.small.slug}/orders`, { Authorization: `Bearer ${accounts.small.key}` });
  for (const scenario of SCENARIOS.filter((s) => s.acrossAccounts)) {
    const path = scenario.path(accounts.small);
    queueBeforeLarge.set(path, (await rowsReadTwice(scenario, accounts.small)).rowsRead);
  }
  await seed(accounts.large, "large");
  await rowsReadOfList(`/api/customers/${accounts.large.slug}/orders`, { Authorization: `Bearer ${accounts.large.key}` });
}, 60_000);

describe("rows read do not grow with the account's size for a fixed page", () => {
  it.each(SCENARIOS.map((scenario) => [scenario.name, scenario] as const))("%s", async (_, scenario) => {
    const large = await rowsReadTwice(scenario, accounts.large);
    const small = scenario.acrossAccounts
      ? queueBeforeLarge.get(scenario.path(accounts.small))!
      : (await rowsReadTwice(scenario, accounts.small)).rowsRead;
    await scenario.check(accounts.large, large.body);
    const figures = `small ${small}, large ${large.rowsRead}`;
    if (scenario.derivedRange) expect(small, figures).toBeLessThanOrEqual(scenario.ceiling!);
    else expect(large.rowsRead, figures).toBeLessThanOrEqual(small * GROWTH_FACTOR + GROWTH_SLACK);
    if (scenario.ceiling !== undefined) expect(large.rowsRead, figures).toBeLessThanOrEqual(scenario.ceiling);
  });

  it("counts a common search from one index entry per match and walks its page, reading none of the matches' orders", async () => {
    const common = ordersScenario("search common (berlin)", "search=berlin", {
      where: "instr(lower(coalesce(notes, '')), 'berlin') > 0",
    });
    for (const customer of Object.values(accounts)) {
      const { rowsRead, body } = await rowsReadTwice(common, customer);
      await common.check(customer, body);
      // A fifth of the account or more: reading their orders for the page would take thrice the rows.
      expect(body.meta.total).toBeGreaterThan(customer === accounts.large ? 3_000 : 300);
      expect(rowsRead, `${body.meta.total} matches`).toBeLessThanOrEqual(body.meta.total + 200);
    }
  });

  it("walks a quantity range's page past the newest orders when none of them is in the range", async () => {
    // What the bench's create scenario leaves: a thousand new orders, none of them in the range, before the older orders
    // in it. Walking on past them costs a thousand entries; reading the range's orders instead costs each of them, which
    // grows with the account (154,000 in the bench's million): here 5,000 more old ones make that the dearer plan.
    const customer = accounts.large;
    const quantity = SCENARIOS.find((scenario) => scenario.name === "orders: quantity 100-200")!;
    const top = await env.DB.prepare("SELECT max(order_seq) AS seq FROM orders").first<{ seq: number }>();
    const at = (time: number) => ({ requestedAt: time, updatedAt: time, fulfilledAt: null, status: "pending" as const });
    const older = generateOrders(OLDER_IN_RANGE, top!.seq + 1, 5).map((order, i) => ({
      ...order,
      ...at(END - SPAN - (i + 1) * 1000),
      quantity: 150,
      fulfilledQuantity: 0,
    }));
    const newer = generateOrders(NEWER_ORDERS, top!.seq + 1 + OLDER_IN_RANGE, 7).map((order, i) => ({
      ...order,
      ...at(END + (i + 1) * 1000),
      quantity: 1,
      fulfilledQuantity: 0,
    }));
    await insertRows(
      env.DB,
      "orders",
      ORDER_COLUMNS,
      [...older, ...newer].map((order) => orderRow(customer.customerId, order)),
    );
    const { rowsRead, body } = await rowsReadTwice(quantity, customer);
    await quantity.check(customer, body);
    expect(body.meta.total).toBeGreaterThan(OLDER_IN_RANGE);
    // The newest thousand walked twice (the first walk, then the longer one), the page's share of the range, the
    // range's counts twice (the meta's, the plan's) and the account's; nothing per order in the range.
    expect(rowsRead).toBeLessThanOrEqual(2 * NEWER_ORDERS + 2 * PAGE_CEILING);
  });

  it("seeds the same rare hits in both accounts, so the search's figures compare", async () => {
    for (const customer of Object.values(accounts)) {
      const [counted] = await sqlAll<{ n: number }>(
        "SELECT count(*) AS n FROM orders WHERE customer_id = ?1 AND notes LIKE ?2",
        customer.customerId,
        `%${RARE_TAG}%`,
      );
      expect(counted?.n).toBe(RARE_ORDERS);
    }
  });
});
