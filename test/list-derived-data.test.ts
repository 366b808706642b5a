// The lists' derived data (order_counts, order_day_counts, order_quantity_counts, number_counts, user_counts,
// order_time_lags, order_search_grams) stays exact
// whatever writes the rows: random inserts, updates and deletes in plain SQL, as an operator or a backfill would.
import { applyD1Migrations } from "cloudflare:test";
import { env } from "cloudflare:workers";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ORDER_STATUSES } from "../src/db/schema.ts";
import { MAX_NOTES_LENGTH } from "../src/orders/schemas.ts";
import { createCustomer, json, type TestCustomer } from "./helpers.ts";

const TYPES = ["mobile", "landline", "toll_free"];
const COUNTRIES = ["US", "GB", "DE"];
const NOTES = [
  null,
  "Berlin support line",
  "campaign 123",
  "ZÜRICH field team",
  "Malmö 50% off_site",
  'say "hi"',
  "ümlaut Ärger",
  "abab abab aaaa",
  "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
];
const DAY = 86_400_000;

type Row = Record<string, unknown>;

async function all(sql: string, ...params: unknown[]): Promise<Row[]> {
  return (
    await env.DB.prepare(sql)
      .bind(...params)
      .all<Row>()
  ).results;
}

async function run(sql: string, ...params: unknown[]): Promise<void> {
  await env.DB.prepare(sql)
    .bind(...params)
    .run();
}

/** The item at `index`, which the test knows is there. */
function at<T>(items: readonly T[], index: number): T {
  const item = items[index];
  if (item === undefined) throw new Error(`no item at index ${index}`);
  return item;
}

/** Rows as sorted JSON lines, so two result sets compare whatever their order. */
const canonical = (rows: Row[]) => rows.map((row) => JSON.stringify(row)).sort();

/** order_counts must equal a recount of the orders: the same segments, the same counts, no segment at zero. */
async function expectOrderCountsExact(customerIds: string[]) {
  const ids = JSON.stringify(customerIds);
  const stored = await all(
    "SELECT customer_id, number_type, country_code, status, count FROM order_counts WHERE customer_id IN (SELECT value FROM json_each(?))",
    ids,
  );
  const recount = await all(
    `SELECT customer_id, number_type, country_code, status, count(*) AS count FROM orders
     WHERE customer_id IN (SELECT value FROM json_each(?)) GROUP BY customer_id, number_type, country_code, status`,
    ids,
  );
  expect(canonical(stored)).toEqual(canonical(recount));
}

/** The recount of order_day_counts: orders per account, field, UTC day and status (no fulfilled day when not fulfilled). */
const ORDER_DAY_RECOUNT = ["created", "requested", "fulfilled"]
  .map(
    (field) => `SELECT customer_id, '${field}' AS field, ${field}_at / ${DAY} AS day, status, count(*) AS count FROM orders
      WHERE ${field}_at IS NOT NULL AND customer_id IN (SELECT value FROM json_each(?1)) GROUP BY 1, 2, 3, 4`,
  )
  .join(" UNION ALL ");

/** order_day_counts must equal a recount of the orders: the same days and statuses, the same counts, none at zero. */
async function expectOrderDayCountsExact(customerIds: string[]) {
  const ids = JSON.stringify(customerIds);
  const stored = await all(
    "SELECT customer_id, field, day, status, count FROM order_day_counts WHERE customer_id IN (SELECT value FROM json_each(?1))",
    ids,
  );
  expect(canonical(stored)).toEqual(canonical(await all(ORDER_DAY_RECOUNT, ids)));
}

/** The recount of order_quantity_counts: orders per account, quantity and status. */
const ORDER_QUANTITY_RECOUNT = `SELECT customer_id, quantity, status, count(*) AS count FROM orders
  WHERE customer_id IN (SELECT value FROM json_each(?1)) GROUP BY 1, 2, 3`;

/** order_quantity_counts must equal a recount of the orders: the same quantities and statuses, none at zero. */
async function expectOrderQuantityCountsExact(customerIds: string[]) {
  const ids = JSON.stringify(customerIds);
  const stored = await all(
    "SELECT customer_id, quantity, status, count FROM order_quantity_counts WHERE customer_id IN (SELECT value FROM json_each(?1))",
    ids,
  );
  expect(canonical(stored)).toEqual(canonical(await all(ORDER_QUANTITY_RECOUNT, ids)));
}

/** order_time_lags must bound every order's created_at − requested_at and created_at − fulfilled_at. */
async function expectTimeLagsBound(customerIds: string[]) {
  const violations = await all(
    `SELECT o.id FROM orders o LEFT JOIN order_time_lags l ON l.customer_id = o.customer_id
     WHERE o.customer_id IN (SELECT value FROM json_each(?)) AND (
       l.customer_id IS NULL
       OR o.created_at - o.requested_at NOT BETWEEN l.requested_min AND l.requested_max
       OR (o.fulfilled_at IS NOT NULL AND (l.fulfilled_min IS NULL OR o.created_at - o.fulfilled_at NOT BETWEEN l.fulfilled_min AND l.fulfilled_max)))`,
    JSON.stringify(customerIds),
  );
  expect(violations).toEqual([]);
}

/**
 * Needles for the grams: a gram's length (16) and one more, repeats within one text (an order counted once), case,
 * non-ASCII, LIKE's wildcards, order numbers.
 */
const GRAM_NEEDLES = [
  "a",
  "aa",
  "aaaaaaaaaaaaaaaa",
  "aaaaaaaaaaaaaaaaa",
  "ab",
  "abab",
  "bab a",
  " ",
  "berlin",
  "BERLIN SUPPORT L",
  "campaign 1",
  "ü",
  "Ü",
  "zürich",
  "ärger",
  "%",
  "_site",
  '"',
  "#",
  "#00",
  "0001",
  "1",
  "q",
];

/**
 * The grams' index-only count (as the list reads it for a needle of up to 16 characters) equals a recount of the
 * orders by the contract's test, per account, needle and status, for the accounts of `customerIds`. A longer needle's
 * entries are its candidates: every matching order has one, once. Each account's grams are read by their key, as the
 * list reads them (CROSS JOIN keeps the joins in the order written), whatever else the workerd's database holds.
 */
async function expectGramsFindEveryMatch(db: D1Database, customerIds: string[]) {
  const params = [JSON.stringify(GRAM_NEEDLES), JSON.stringify(customerIds)];
  const fromGrams = await db
    .prepare(
      `WITH needles AS (SELECT value AS needle, lower(substr(value, 1, 16)) AS low, length(value) AS len FROM json_each(?1)),
         accounts AS (SELECT number FROM customer_numbers WHERE customer_id IN (SELECT value FROM json_each(?2)))
       SELECT needle, g.account, g.status, count(*) AS n FROM needles CROSS JOIN accounts CROSS JOIN order_search_grams g
         ON g.account = accounts.number AND g.gram >= low
           AND g.gram < substr(low, 1, length(low) - 1) || char(unicode(substr(low, -1)) + 1) AND g.lcp < length(low)
       CROSS JOIN orders o ON o.order_seq = g.order_seq
       WHERE len <= 16 OR instr(lower(coalesce(o.notes, '')), lower(needle)) > 0
         OR instr(lower('#' || printf('%06d', o.order_seq)), lower(needle)) > 0
       GROUP BY 1, 2, 3`,
    )
    .bind(...params)
    .all<Row>();
  const recount = await db
    .prepare(
      `WITH needles AS (SELECT value AS needle FROM json_each(?1))
       SELECT needle, n.number AS account, c.code AS status, count(*) AS n
       FROM customer_numbers n CROSS JOIN orders o ON o.customer_id = n.customer_id CROSS JOIN needles
       JOIN order_status_codes c ON c.status = o.status
       WHERE n.customer_id IN (SELECT value FROM json_each(?2))
         AND (instr(lower('#' || printf('%06d', o.order_seq)), lower(needle)) > 0 OR instr(lower(coalesce(o.notes, '')), lower(needle)) > 0)
       GROUP BY 1, 2, 3`,
    )
    .bind(...params)
    .all<Row>();
  expect(canonical(fromGrams.results)).toEqual(canonical(recount.results));
  return recount.results.length;
}

/** Every order can be found by a search for each of its notes' substrings, exactly as the instr test finds it. */
async function expectSearchMatchesInstr(customer: TestCustomer, needles: string[]) {
  for (const needle of needles) {
    const page = await json(
      await customer.account.orders.$get({ param: { customer_slug: customer.slug }, query: { limit: "100", search: needle } }),
      200,
    );
    const expected = await all(
      `SELECT id FROM orders WHERE customer_id = ? AND (instr(lower('#' || printf('%06d', order_seq)), lower(?)) > 0
         OR instr(lower(coalesce(notes, '')), lower(?)) > 0)`,
      customer.customerId,
      needle,
      needle,
    );
    expect(page.meta.total, needle).toBe(expected.length);
    expect(page.data.map((o) => o.order_id).sort(), needle).toEqual(expected.map((r) => r.id).sort());
  }
}

const orderWrite = fc.oneof(
  fc.record({
    kind: fc.constant("insert" as const),
    account: fc.nat(1),
    type: fc.constantFrom(...TYPES),
    country: fc.constantFrom(...COUNTRIES),
    status: fc.constantFrom(...ORDER_STATUSES),
    notes: fc.constantFrom(...NOTES),
    quantity: fc.integer({ min: 1, max: 4 }),
    requestedDay: fc.integer({ min: 0, max: 60 }),
    lagMs: fc.integer({ min: -3 * DAY, max: 3 * DAY }),
    fulfilled: fc.boolean(),
  }),
  // One column per update, as the API and an operator's SQL write them: a trigger must notice each on its own.
  fc.record({
    kind: fc.constant("update" as const),
    pick: fc.nat(),
    change: fc.oneof(
      fc.record({ column: fc.constant("customer_id" as const), account: fc.nat(1) }),
      fc.record({ column: fc.constant("number_type" as const), value: fc.constantFrom(...TYPES) }),
      fc.record({ column: fc.constant("country_code" as const), value: fc.constantFrom(...COUNTRIES) }),
      fc.record({ column: fc.constant("status" as const), value: fc.constantFrom(...ORDER_STATUSES) }),
      fc.record({ column: fc.constant("quantity" as const), value: fc.integer({ min: 1, max: 4 }) }),
      fc.record({ column: fc.constant("notes" as const), value: fc.constantFrom(...NOTES) }),
      fc.record({ column: fc.constant("created_at" as const), shift: fc.integer({ min: -5 * DAY, max: 5 * DAY }) }),
      fc.record({ column: fc.constant("requested_at" as const), shift: fc.integer({ min: -5 * DAY, max: 5 * DAY }) }),
      fc.record({
        column: fc.constant("fulfilled_at" as const),
        shift: fc.option(fc.integer({ min: 0, max: 5 * DAY }), { nil: null }),
      }),
    ),
  }),
  fc.record({ kind: fc.constant("delete" as const), pick: fc.nat() }),
);

type OrderWrite = typeof orderWrite extends fc.Arbitrary<infer T> ? T : never;

async function applyOrderWrite(write: OrderWrite, customers: TestCustomer[]) {
  const base = Date.parse("2026-01-01T00:00:00.000Z");
  if (write.kind === "insert") {
    const requestedAt = base + write.requestedDay * DAY;
    const createdAt = requestedAt + write.lagMs;
    await run(
      `INSERT INTO orders (id, customer_id, order_seq, number_type, country_code, quantity, status, fulfilled_quantity, notes,
         requested_at, fulfilled_at, created_at, updated_at)
       SELECT ?, ?, coalesce(max(order_seq), 0) + 1, ?, ?, ?, ?, 0, ?, ?, ?, ?, ? FROM orders`,
      crypto.randomUUID(),
      at(customers, write.account).customerId,
      write.type,
      write.country,
      write.quantity,
      write.status,
      write.notes,
      requestedAt,
      write.fulfilled ? createdAt + DAY : null,
      createdAt,
      createdAt,
    );
    return;
  }
  const owned = await all(
    "SELECT id FROM orders WHERE customer_id IN (?, ?) ORDER BY order_seq",
    at(customers, 0).customerId,
    at(customers, 1).customerId,
  );
  if (owned.length === 0) return;
  const id = at(owned, write.pick % owned.length).id;
  if (write.kind === "delete") {
    await run("DELETE FROM orders WHERE id = ?", id);
    return;
  }
  const { change } = write;
  switch (change.column) {
    case "customer_id":
      return run("UPDATE orders SET customer_id = ? WHERE id = ?", at(customers, change.account).customerId, id);
    case "number_type":
    case "country_code":
    case "status":
    case "quantity":
    case "notes":
      return run(`UPDATE orders SET ${change.column} = ? WHERE id = ?`, change.value, id);
    case "created_at":
    case "requested_at":
      return run(`UPDATE orders SET ${change.column} = ${change.column} + ? WHERE id = ?`, change.shift, id);
    case "fulfilled_at":
      return run("UPDATE orders SET fulfilled_at = created_at + ? WHERE id = ?", change.shift, id);
  }
}

describe("orders' derived data", () => {
  it("matches a recount, bounds every lag and finds every match after random inserts, updates and deletes", async () => {
    // Fresh accounts for each run, so the time lags start from nothing and a missed widening shows.
    let customers: TestCustomer[] = [];
    await fc.assert(
      fc.asyncProperty(fc.array(orderWrite, { minLength: 1, maxLength: 25 }), async (writes) => {
        customers = [await createCustomer(), await createCustomer()];
        const ids = customers.map((c) => c.customerId);
        for (const write of writes) await applyOrderWrite(write, customers);
        await expectOrderCountsExact(ids);
        await expectOrderDayCountsExact(ids);
        await expectOrderQuantityCountsExact(ids);
        await expectTimeLagsBound(ids);
        await expectGramsFindEveryMatch(env.DB, ids);
      }),
      { numRuns: 40 },
    );
    const needles = [
      "Berlin",
      "berlin",
      "campaign 1",
      "zürich",
      "ZÜRICH FIELD",
      "ärger",
      "50%",
      "%",
      "off_site",
      "_",
      '"hi"',
      "#00",
      "0001",
      "x",
    ];
    for (const customer of customers) await expectSearchMatchesInstr(customer, needles);
  });
});

describe("numbers' and users' derived data", () => {
  it("number_counts, number_order_counts and user_counts match a recount after random writes", async () => {
    const customer = await createCustomer();
    const other = await createCustomer();
    const orderOf = async (c: TestCustomer) => {
      const id = crypto.randomUUID();
      await run(
        `INSERT INTO orders (id, customer_id, order_seq, number_type, country_code, quantity, status, fulfilled_quantity,
           requested_at, created_at, updated_at)
         SELECT ?, ?, coalesce(max(order_seq), 0) + 1, 'mobile', 'US', 100, 'processing', 0, 0, 0, 0 FROM orders`,
        id,
        c.customerId,
      );
      return id;
    };
    const orderIds = [await orderOf(customer), await orderOf(other)];
    const accounts = [customer, other];
    let serial = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            table: fc.constantFrom("numbers" as const, "users" as const),
            kind: fc.constantFrom("insert" as const, "update" as const, "delete" as const),
            account: fc.nat(1),
            pick: fc.nat(),
            status: fc.nat(2),
            variant: fc.nat(2),
            column: fc.nat(4),
          }),
          { minLength: 1, maxLength: 25 },
        ),
        async (writes) => {
          for (const w of writes) {
            const customerId = at(accounts, w.account).customerId;
            serial++;
            if (w.table === "numbers") {
              const status = at(["active", "suspended", "released"], w.status);
              if (w.kind === "insert") {
                await run(
                  `INSERT INTO numbers (id, customer_id, order_id, phone_number, country_code, number_type, status, created_at, updated_at)
                   VALUES (?, ?, ?, ?, ?, ?, ?, 0, 0)`,
                  crypto.randomUUID(),
                  customerId,
                  orderIds[w.account],
                  `+4420${String(serial).padStart(8, "0")}`,
                  COUNTRIES[w.variant],
                  TYPES[w.variant],
                  status,
                );
              } else {
                const rows = await all(
                  "SELECT id FROM numbers WHERE customer_id IN (?, ?) ORDER BY id",
                  customer.customerId,
                  other.customerId,
                );
                const target = rows[w.pick % Math.max(1, rows.length)]?.id;
                if (target === undefined) continue;
                if (w.kind === "delete") await run("DELETE FROM numbers WHERE id = ?", target);
                else if (w.column === 0) await run("UPDATE numbers SET status = ? WHERE id = ?", status, target);
                else if (w.column === 1)
                  await run("UPDATE numbers SET country_code = ? WHERE id = ?", COUNTRIES[w.variant], target);
                else if (w.column === 2) await run("UPDATE numbers SET number_type = ? WHERE id = ?", TYPES[w.variant], target);
                else if (w.column === 3) await run("UPDATE numbers SET order_id = ? WHERE id = ?", orderIds[w.account], target);
                else await run("UPDATE numbers SET customer_id = ? WHERE id = ?", customerId, target);
              }
            } else {
              const status = at(["active", "inactive", "locked"], w.status);
              const role = at(["owner", "admin", "member"], w.variant);
              if (w.kind === "insert") {
                await run(
                  `INSERT INTO users (id, customer_id, email, name, role, status, created_at, updated_at) VALUES (?, ?, ?, 'User', ?, ?, 0, 0)`,
                  crypto.randomUUID(),
                  customerId,
                  `user${serial}@example.com`,
                  role,
                  status,
                );
              } else {
                const rows = await all(
                  "SELECT id FROM users WHERE customer_id IN (?, ?) ORDER BY id",
                  customer.customerId,
                  other.customerId,
                );
                const target = rows[w.pick % Math.max(1, rows.length)]?.id;
                if (target === undefined) continue;
                if (w.kind === "delete") await run("DELETE FROM users WHERE id = ?", target);
                else if (w.column === 0) await run("UPDATE users SET status = ? WHERE id = ?", status, target);
                else if (w.column === 1) await run("UPDATE users SET role = ? WHERE id = ?", role, target);
                else await run("UPDATE users SET customer_id = ? WHERE id = ?", customerId, target);
              }
            }
          }
          const ids = JSON.stringify([customer.customerId, other.customerId]);
          expect(
            canonical(
              await all(
                "SELECT customer_id, country_code, number_type, status, count FROM number_counts WHERE customer_id IN (SELECT value FROM json_each(?))",
                ids,
              ),
            ),
          ).toEqual(
            canonical(
              await all(
                `SELECT customer_id, country_code, number_type, status, count(*) AS count FROM numbers
                 WHERE customer_id IN (SELECT value FROM json_each(?)) GROUP BY customer_id, country_code, number_type, status`,
                ids,
              ),
            ),
          );
          expect(
            canonical(
              await all(
                "SELECT customer_id, order_id, status, count FROM number_order_counts WHERE customer_id IN (SELECT value FROM json_each(?))",
                ids,
              ),
            ),
          ).toEqual(
            canonical(
              await all(
                `SELECT customer_id, order_id, status, count(*) AS count FROM numbers
                 WHERE customer_id IN (SELECT value FROM json_each(?)) GROUP BY customer_id, order_id, status`,
                ids,
              ),
            ),
          );
          expect(
            canonical(
              await all(
                "SELECT customer_id, role, status, count FROM user_counts WHERE customer_id IN (SELECT value FROM json_each(?))",
                ids,
              ),
            ),
          ).toEqual(
            canonical(
              await all(
                "SELECT customer_id, role, status, count(*) AS count FROM users WHERE customer_id IN (SELECT value FROM json_each(?)) GROUP BY customer_id, role, status",
                ids,
              ),
            ),
          );
        },
      ),
      { numRuns: 30 },
    );
  });
});

describe("the migration", () => {
  it("codes each order status by its place in ORDER_STATUSES and cuts grams at every position notes can have", async () => {
    const codes = await all("SELECT code, status FROM order_status_codes ORDER BY code");
    expect(codes).toEqual(ORDER_STATUSES.map((status, code) => ({ code, status })));
    const positions = await all("SELECT count(*) AS n, min(n) AS first, max(n) AS last FROM search_positions");
    expect(positions).toEqual([{ n: MAX_NOTES_LENGTH, first: 1, last: MAX_NOTES_LENGTH }]);
  });

  it("backfills the derived data from rows written before it", async () => {
    const db = env.DERIVED_DATA_MIGRATION_DB;
    const before = env.TEST_MIGRATIONS.filter((m) => m.name < "0002");
    await applyD1Migrations(db, before);
    const customers = ["c1", "c2"];
    for (const [i, id] of customers.entries()) {
      await db
        .prepare("INSERT INTO customers (id, slug, name, created_at, updated_at) VALUES (?, ?, 'Legacy', ?, 0)")
        .bind(id, `legacy-${i}`, i)
        .run();
    }
    for (let i = 0; i < 40; i++) {
      await db
        .prepare(
          `INSERT INTO orders (id, customer_id, order_seq, number_type, country_code, quantity, status, fulfilled_quantity, notes,
             requested_at, fulfilled_at, created_at, updated_at) VALUES (?, ?, ?, ?, ?, 1, ?, 0, ?, ?, ?, ?, 0)`,
        )
        .bind(
          `o${i}`,
          customers[i % 2],
          i + 1,
          TYPES[i % 3],
          COUNTRIES[i % 2],
          ORDER_STATUSES[i % 4],
          i % 5 ? `legacy note ${i}` : null,
          i * DAY,
          i % 4 === 2 ? i * DAY + 5 : null,
          i * DAY + (i % 7) - 3,
        )
        .run();
    }
    for (let i = 0; i < 12; i++) {
      await db
        .prepare(
          `INSERT INTO numbers (id, customer_id, order_id, phone_number, country_code, number_type, status, created_at, updated_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, 0, 0)`,
        )
        .bind(
          `n${i}`,
          customers[i % 2],
          `o${i % 2}`,
          `+4930${String(i).padStart(8, "0")}`,
          COUNTRIES[i % 3],
          TYPES[i % 2],
          ["active", "suspended", "released"][i % 3],
        )
        .run();
      await db
        .prepare(
          "INSERT INTO users (id, customer_id, email, name, role, status, created_at, updated_at) VALUES (?, ?, ?, 'U', ?, ?, 0, 0)",
        )
        .bind(
          `u${i}`,
          customers[i % 2],
          `u${i}@example.com`,
          ["owner", "admin", "member"][i % 3],
          ["active", "inactive", "locked"][i % 3],
        )
        .run();
    }
    await applyD1Migrations(db, env.TEST_MIGRATIONS);

    for (const [table, columns] of [
      ["number_counts", "customer_id, country_code, number_type, status"],
      ["number_order_counts", "customer_id, order_id, status"],
      ["user_counts", "customer_id, role, status"],
    ] as const) {
      const source = table === "user_counts" ? "users" : "numbers";
      const stored = await db.prepare(`SELECT ${columns}, count FROM ${table}`).all<Row>();
      const expected = await db.prepare(`SELECT ${columns}, count(*) AS count FROM ${source} GROUP BY ${columns}`).all<Row>();
      expect(canonical(stored.results), table).toEqual(canonical(expected.results));
    }
    const recount = await db
      .prepare("SELECT customer_id, number_type, country_code, status, count(*) AS count FROM orders GROUP BY 1, 2, 3, 4")
      .all<Row>();
    const stored = await db.prepare("SELECT customer_id, number_type, country_code, status, count FROM order_counts").all<Row>();
    expect(canonical(stored.results)).toEqual(canonical(recount.results));
    const days = await db.prepare("SELECT customer_id, field, day, status, count FROM order_day_counts").all<Row>();
    const dayRecount = await db.prepare(ORDER_DAY_RECOUNT).bind(JSON.stringify(customers)).all<Row>();
    expect(dayRecount.results.length).toBeGreaterThan(40);
    expect(canonical(days.results)).toEqual(canonical(dayRecount.results));
    const quantities = await db.prepare("SELECT customer_id, quantity, status, count FROM order_quantity_counts").all<Row>();
    const quantityRecount = await db.prepare(ORDER_QUANTITY_RECOUNT).bind(JSON.stringify(customers)).all<Row>();
    expect(quantityRecount.results.length).toBeGreaterThanOrEqual(4);
    expect(canonical(quantities.results)).toEqual(canonical(quantityRecount.results));
    const numbers = await db.prepare("SELECT customer_id FROM customer_numbers ORDER BY number").all<Row>();
    expect(numbers.results.map((r) => r.customer_id)).toEqual(customers);
    const lags = await db.prepare("SELECT * FROM order_time_lags ORDER BY customer_id").all<Row>();
    const truth = await db
      .prepare(
        `SELECT customer_id, min(created_at - requested_at) AS requested_min, max(created_at - requested_at) AS requested_max,
           min(created_at - fulfilled_at) AS fulfilled_min, max(created_at - fulfilled_at) AS fulfilled_max FROM orders GROUP BY customer_id ORDER BY customer_id`,
      )
      .all<Row>();
    expect(lags.results).toEqual(truth.results);
    expect(await expectGramsFindEveryMatch(db, customers)).toBeGreaterThan(0);
    const grams = await db.prepare("SELECT count(DISTINCT order_seq) AS orders FROM order_search_grams").first<Row>();
    expect(grams?.orders).toBe(40);
  });
});
