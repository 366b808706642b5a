// Back to stock (LIFECYCLE.md): the return-to-stock job closes released tenures past their restore window and puts
// their numbers in stock, quarantined for the pair's quarantine_days; allocation never takes a quarantined number
// unless an admin overrides it; the stock's counts per status; the catalog's settings and the customer's availability.
// Numbers are released here with SQL (releaseForTest) rather than through the release endpoint.
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { openRequestSession } from "../src/db/session.ts";
import { DAY_MS } from "../src/lib/time.ts";
import { returnNumbersToStock } from "../src/stock/returns.ts";
import { TEST_ADMIN_TOKEN } from "./constants.ts";
import {
  bodyOf,
  call,
  createCustomer,
  json,
  makeOrderable,
  problem,
  type TestCustomer,
  uniqueNumberType,
  uniquePhoneNumber,
} from "./helpers.ts";
import { type StaffMember, staffMember } from "./staff.ts";

const ADMIN = { Authorization: `Bearer ${TEST_ADMIN_TOKEN}` };
const RESTORE_WINDOW = 10 * DAY_MS;
let fulfilment: StaffMember;
let admin: StaffMember;

beforeAll(async () => {
  [fulfilment, admin] = await Promise.all([staffMember("fulfilment"), staffMember("admin")]);
});

function sendJson(method: string, path: string, body: unknown, headers: Record<string, string> = ADMIN) {
  return call(path, { method, headers: { ...headers, "Content-Type": "application/json" }, body: JSON.stringify(body) });
}

/** A pending order of `quantity` numbers of the pair, for the customer. */
async function placeOrder(customer: TestCustomer, numberType: string, quantity: number): Promise<string> {
  const order = await json(
    await customer.account.orders.$post({
      param: { customer_slug: customer.slug },
      json: { number_type: numberType, country_code: "US", quantity },
    }),
    201,
  );
  return order.order_id;
}

/** A pair of its own (US and a new type, orderable) and `count` numbers of it held by one customer. */
async function heldNumbers(count: number) {
  const type = uniqueNumberType();
  await makeOrderable("US", type);
  const customer = await createCustomer("quarantine");
  const phones = Array.from({ length: count }, uniquePhoneNumber);
  const orderId = await placeOrder(customer, type, count);
  await bodyOf(await sendJson("POST", `/admin/orders/${orderId}/numbers`, { phone_numbers: phones }), 201);
  return { type, customer, phones };
}

/** Releases the tenures of these phone numbers at `releasedAt`, as a customer's release does (the endpoint's SQL). */
async function releaseForTest(phones: string[], releasedAt: number): Promise<void> {
  await env.DB.prepare(
    `UPDATE numbers SET status = 'released', released_at = ?1, restorable_until = ?2, release_reason = 'customer',
       updated_at = ?1 WHERE closed_at IS NULL AND phone_number IN (SELECT value FROM json_each(?3))`,
  )
    .bind(releasedAt, releasedAt + RESTORE_WINDOW, JSON.stringify(phones))
    .run();
}

function runJob(now: number) {
  return returnNumbersToStock(openRequestSession(env.DB, "POST"), now);
}

interface StockRow {
  phone_number: string;
  status: string;
  available_at: number;
  source: string;
  import_id: string;
}

async function stockRows(phones: string[]): Promise<StockRow[]> {
  const { results } = await env.DB.prepare(
    `SELECT phone_number, status, available_at, source, import_id FROM stock_numbers
       WHERE phone_number IN (SELECT value FROM json_each(?)) ORDER BY phone_number`,
  )
    .bind(JSON.stringify(phones))
    .all<StockRow>();
  return results;
}

/** Each tenure of these phone numbers: its id, status and closed_at, oldest first. */
async function tenures(phones: string[]) {
  const { results } = await env.DB.prepare(
    `SELECT id, phone_number, status, closed_at FROM numbers WHERE phone_number IN (SELECT value FROM json_each(?))
       ORDER BY created_at, phone_number`,
  )
    .bind(JSON.stringify(phones))
    .all<{ id: string; phone_number: string; status: string; closed_at: number | null }>();
  return results;
}

async function setQuarantineDays(type: string, days: number): Promise<void> {
  await bodyOf(await sendJson("PUT", `/admin/catalog/US/${type}`, { quarantine_days: days }));
}

async function summaryOf(type: string) {
  const summary = await bodyOf<{ data: { number_type: string }[] }>(await call("/admin/stock/summary", { headers: ADMIN }));
  return summary.data.find((pair) => pair.number_type === type);
}

describe("the return-to-stock job", () => {
  it("closes released tenures past their window into quarantine, and a later run makes them available", async () => {
    const { type, phones } = await heldNumbers(3);
    const releasedAt = Date.now();
    await releaseForTest(phones.slice(0, 2), releasedAt);
    // At the deadline itself the window is still open: nothing moves.
    await runJob(releasedAt + RESTORE_WINDOW);
    expect(await stockRows(phones)).toEqual([]);

    await runJob(releasedAt + RESTORE_WINDOW + 1);
    const quarantineEnd = releasedAt + 90 * DAY_MS;
    const held = await tenures(phones);
    expect(held.filter((t) => t.closed_at !== null).map((t) => t.phone_number)).toEqual(phones.slice(0, 2));
    expect(held.every((t) => t.closed_at === null || t.status === "released")).toBe(true);
    expect(await stockRows(phones)).toEqual(
      phones.slice(0, 2).map((phone) => ({
        phone_number: phone,
        status: "quarantined",
        available_at: quarantineEnd,
        source: "released",
        import_id: held.find((t) => t.phone_number === phone)!.id,
      })),
    );
    expect(await summaryOf(type)).toEqual({
      country_code: "US",
      number_type: type,
      count: 2,
      available: 0,
      quarantined: 2,
      reserved: 0,
    });

    // Rerun before the quarantine ends: nothing changes.
    await runJob(quarantineEnd - 1);
    expect((await stockRows(phones)).map((row) => row.status)).toEqual(["quarantined", "quarantined"]);
    await runJob(quarantineEnd);
    expect((await stockRows(phones)).map((row) => row.status)).toEqual(["available", "available"]);
    expect(await summaryOf(type)).toMatchObject({ count: 2, available: 2, quarantined: 0 });
    // The number leaves its tenure's history as a new tenure may start: the closed one stays listed, released.
    const listed = await bodyOf<{ data: { phone_number: string; status: string }[] }>(
      await call(`/admin/stock?number_type=${type}&status=available`, { headers: ADMIN }),
    );
    expect(listed.data.map((row) => row.phone_number).toSorted()).toEqual(phones.slice(0, 2).toSorted());
  });

  it("closes each tenure once, however often and however overlapped it runs", async () => {
    const { type, phones } = await heldNumbers(4);
    const releasedAt = Date.now();
    await releaseForTest(phones, releasedAt);
    const at = releasedAt + RESTORE_WINDOW + 1;
    const [first, second] = await Promise.all([runJob(at), runJob(at)]);
    expect(first.closed + second.closed).toBeGreaterThanOrEqual(4);
    await runJob(at + 1);
    const held = await tenures(phones);
    expect(held).toHaveLength(4);
    expect(held.every((t) => t.closed_at === at)).toBe(true);
    expect(await stockRows(phones)).toHaveLength(4);
    expect(await summaryOf(type)).toMatchObject({ count: 4, quarantined: 4 });
  });

  it("reads the pair's quarantine_days when it closes the tenure: 0 is available at once, 365 a year after release", async () => {
    const { type, phones } = await heldNumbers(2);
    await setQuarantineDays(type, 30);
    const releasedAt = Date.now();
    await releaseForTest(phones.slice(0, 1), releasedAt);
    // Changed after the release, before the job: the job's reading counts.
    await setQuarantineDays(type, 0);
    await runJob(releasedAt + RESTORE_WINDOW + 1);
    expect(await stockRows(phones.slice(0, 1))).toMatchObject([
      { status: "available", available_at: releasedAt + RESTORE_WINDOW },
    ]);

    await setQuarantineDays(type, 365);
    await releaseForTest(phones.slice(1), releasedAt);
    await runJob(releasedAt + RESTORE_WINDOW + 2);
    expect(await stockRows(phones.slice(1))).toMatchObject([{ status: "quarantined", available_at: releasedAt + 365 * DAY_MS }]);
    expect(await summaryOf(type)).toMatchObject({ count: 2, available: 1, quarantined: 1 });
  });
});

/**
 * Numbers of a pair in stock: one imported and available, one quarantined (back from a closed tenure) whose
 * available_at has passed but that no run has made available yet, so it is the older by available_at.
 */
async function quarantinedStock() {
  const { type, phones } = await heldNumbers(1);
  const [quarantined] = phones as [string];
  const releasedAt = Date.now() - 95 * DAY_MS;
  await releaseForTest([quarantined], releasedAt);
  await runJob(releasedAt + RESTORE_WINDOW + 1);
  const imported = uniquePhoneNumber();
  await bodyOf(
    await sendJson("POST", "/admin/stock", { numbers: [{ phone_number: imported, country_code: "US", number_type: type }] }),
    201,
  );
  const customer = await createCustomer("alloc");
  return { type, quarantined, imported, customer };
}

async function overrideEvents(orderId: string) {
  const answer = await call(
    `/admin/audit-events?${new URLSearchParams({ action: "stock.quarantine_overridden", target_type: "order", target_id: orderId })}`,
    { headers: ADMIN },
  );
  return (await bodyOf<{ data: { changes: Record<string, unknown>; actor: { email?: string } }[] }>(answer)).data;
}

describe("allocation and quarantine", () => {
  it("from_stock takes available numbers only, and the queue's stock figure counts only them", async () => {
    const { type, quarantined, imported, customer } = await quarantinedStock();
    const orderId = await placeOrder(customer, type, 2);
    const queue = await bodyOf<{ data: { order_id: string; stock_available: number }[] }>(
      await call(`/admin/orders?number_type=${type}`, { headers: ADMIN }),
    );
    expect(queue.data).toEqual([expect.objectContaining({ order_id: orderId, stock_available: 1 })]);
    const first = await bodyOf<{ numbers: { phone_number: string }[] }>(
      await sendJson("POST", `/admin/orders/${orderId}/numbers`, { from_stock: 1 }, fulfilment.headers),
      201,
    );
    expect(first.numbers.map((n) => n.phone_number)).toEqual([imported]);
    await problem(
      await sendJson("POST", `/admin/orders/${orderId}/numbers`, { from_stock: 1 }, fulfilment.headers),
      409,
      "insufficient_stock",
    );
    expect(await stockRows([quarantined])).toMatchObject([{ status: "quarantined" }]);
  });

  it("refuses a listed quarantined number (409 number_quarantined naming it) and changes nothing", async () => {
    const { type, quarantined, imported, customer } = await quarantinedStock();
    const orderId = await placeOrder(customer, type, 2);
    const refused = await problem(
      await sendJson("POST", `/admin/orders/${orderId}/numbers`, { phone_numbers: [imported, quarantined] }, fulfilment.headers),
      409,
      "number_quarantined",
    );
    expect(refused.detail).toContain(quarantined);
    expect(refused.detail).not.toContain(imported);
    expect(await stockRows([quarantined, imported])).toHaveLength(2);
    expect((await tenures([imported])).length).toBe(0);
    expect(await overrideEvents(orderId)).toEqual([]);
  });

  it("lets an admin override quarantine, audited once per allocation with the count", async () => {
    const { type, quarantined, imported, customer } = await quarantinedStock();
    const orderId = await placeOrder(customer, type, 2);
    const allocated = await bodyOf<{ numbers: { phone_number: string }[] }>(
      await sendJson(
        "POST",
        `/admin/orders/${orderId}/numbers`,
        { phone_numbers: [imported, quarantined], ignore_quarantine: true },
        admin.headers,
      ),
      201,
    );
    expect(allocated.numbers.map((n) => n.phone_number).toSorted()).toEqual([imported, quarantined].toSorted());
    expect(await stockRows([quarantined, imported])).toEqual([]);
    const events = await overrideEvents(orderId);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ changes: { quarantined_numbers: [null, 1] }, actor: { email: admin.email } });
    // The old tenure stays closed in its account's history; the new one holds the number.
    expect((await tenures([quarantined])).map((t) => t.closed_at === null)).toEqual([false, true]);
  });

  it("refuses ignore_quarantine to fulfilment (403) before anything else, changing nothing", async () => {
    const { type, quarantined, customer } = await quarantinedStock();
    const orderId = await placeOrder(customer, type, 1);
    const refused = await problem(
      await sendJson(
        "POST",
        `/admin/orders/${orderId}/numbers`,
        { phone_numbers: [quarantined], ignore_quarantine: true },
        fulfilment.headers,
      ),
      403,
      "forbidden",
    );
    expect(refused.detail).toContain("ignore_quarantine");
    expect(await stockRows([quarantined])).toMatchObject([{ status: "quarantined" }]);
    expect(await overrideEvents(orderId)).toEqual([]);
  });

  it("writes no override event when no listed number was quarantined", async () => {
    const { type, imported, customer } = await quarantinedStock();
    const orderId = await placeOrder(customer, type, 1);
    await bodyOf(
      await sendJson("POST", `/admin/orders/${orderId}/numbers`, { phone_numbers: [imported], ignore_quarantine: true }),
      201,
    );
    expect(await overrideEvents(orderId)).toEqual([]);
  });

  it("refuses ignore_quarantine with from_stock (400)", async () => {
    const { type, customer } = await quarantinedStock();
    const orderId = await placeOrder(customer, type, 1);
    const refused = await problem(
      await sendJson("POST", `/admin/orders/${orderId}/numbers`, { from_stock: 1, ignore_quarantine: true }),
      400,
      "validation_error",
    );
    expect(refused.errors).toEqual([expect.objectContaining({ pointer: "/ignore_quarantine" })]);
  });

  it("refuses a number in its restore window: 409 conflict naming it, and the stock import skips it", async () => {
    const { type, phones } = await heldNumbers(1);
    const [held] = phones as [string];
    await releaseForTest([held], Date.now());
    const customer = await createCustomer("alloc");
    const orderId = await placeOrder(customer, type, 1);
    const refused = await problem(
      await sendJson("POST", `/admin/orders/${orderId}/numbers`, { phone_numbers: [held] }, fulfilment.headers),
      409,
      "conflict",
    );
    expect(refused.detail).toContain(held);
    const report = await bodyOf<{ duplicates: string[] }>(
      await sendJson("POST", "/admin/stock", { numbers: [{ phone_number: held, country_code: "US", number_type: type }] }),
      201,
    );
    expect(report.duplicates).toEqual([held]);
  });
});

describe("the stock's list and summary", () => {
  it("shows each number's status, source and available_at, and filters by status", async () => {
    const { type, quarantined, imported } = await quarantinedStock();
    const list = async (status?: string) =>
      await bodyOf<{
        data: { phone_number: string; status: string; source: string; available_at: string }[];
        meta: { total: number };
      }>(
        await call(`/admin/stock?${new URLSearchParams({ number_type: type, ...(status ? { status } : {}) })}`, {
          headers: ADMIN,
        }),
      );
    const all = await list();
    expect(all.meta.total).toBe(2);
    expect(all.data.find((row) => row.phone_number === quarantined)).toMatchObject({ status: "quarantined", source: "released" });
    expect(all.data.find((row) => row.phone_number === imported)).toMatchObject({ status: "available", source: "import" });
    const onlyQuarantined = await list("quarantined");
    expect(onlyQuarantined.data.map((row) => row.phone_number)).toEqual([quarantined]);
    expect(onlyQuarantined.meta.total).toBe(1);
    expect((await list("available,quarantined")).meta.total).toBe(2);
    await problem(await call("/admin/stock?status=held", { headers: ADMIN }), 400, "validation_error");
    expect(await summaryOf(type)).toEqual({
      country_code: "US",
      number_type: type,
      count: 2,
      available: 1,
      quarantined: 1,
      reserved: 0,
    });
  });
});

interface CatalogPair {
  country_code: string;
  number_type: string;
  quarantine_days: number;
  auto_fulfil: boolean;
  created_at: string;
}

function putPair(type: string, body?: unknown, headers: Record<string, string> = ADMIN) {
  return body === undefined
    ? call(`/admin/catalog/US/${type}`, { method: "PUT", headers })
    : sendJson("PUT", `/admin/catalog/US/${type}`, body, headers);
}

async function pairEvents(type: string) {
  const { results } = await env.DB.prepare(
    "SELECT action, changes FROM audit_events WHERE target_type = 'catalog_pair' AND target_id = ? ORDER BY created_at, rowid",
  )
    .bind(`US/${type}`)
    .all<{ action: string; changes: string }>();
  return results.map((row) => ({ action: row.action, changes: JSON.parse(row.changes) }));
}

describe("catalog settings", () => {
  it("sets only the named settings, audits what changed, keeps them through removal, and defaults without any", async () => {
    const type = uniqueNumberType();
    const created = await bodyOf<CatalogPair>(await putPair(type, { quarantine_days: 30 }), 201);
    expect(created).toMatchObject({ country_code: "US", number_type: type, quarantine_days: 30, auto_fulfil: false });
    expect(Object.keys(created).toSorted()).toEqual(
      ["auto_fulfil", "country_code", "created_at", "kyc_required", "number_type", "quarantine_days", "requirements"].toSorted(),
    );
    expect(await bodyOf<CatalogPair>(await putPair(type, { auto_fulfil: true }))).toMatchObject({
      quarantine_days: 30,
      auto_fulfil: true,
    });
    // The same values again change nothing and record nothing.
    await bodyOf(await putPair(type, { quarantine_days: 30, auto_fulfil: true }));
    expect(await pairEvents(type)).toEqual([
      { action: "catalog.pair_added", changes: {} },
      { action: "catalog.pair_updated", changes: { quarantine_days: [90, 30] } },
      { action: "catalog.pair_updated", changes: { auto_fulfil: [false, true] } },
    ]);
    // Without a body: as before, the settings kept; through removal and re-adding too. An empty body with
    // Content-Length: 0 (what an HTTP client sends for a PUT without one) is no body.
    expect(await bodyOf<CatalogPair>(await putPair(type))).toMatchObject({ quarantine_days: 30, auto_fulfil: true });
    const empty = await call(`/admin/catalog/US/${type}`, {
      method: "PUT",
      headers: { ...ADMIN, "Content-Length": "0" },
      body: new Uint8Array(0),
    });
    expect(await bodyOf<CatalogPair>(empty)).toMatchObject({ quarantine_days: 30, auto_fulfil: true });
    await bodyOf(await call(`/admin/catalog/US/${type}`, { method: "DELETE", headers: ADMIN }));
    expect(await bodyOf<CatalogPair>(await putPair(type), 201)).toMatchObject({ quarantine_days: 30, auto_fulfil: true });

    const fresh = uniqueNumberType();
    expect(await bodyOf<CatalogPair>(await putPair(fresh), 201)).toMatchObject({ quarantine_days: 90, auto_fulfil: false });
    expect((await pairEvents(fresh)).map((event) => event.action)).toEqual(["catalog.pair_added"]);
  });

  it("refuses a body that names no setting or a value out of range, changing nothing", async () => {
    const type = uniqueNumberType();
    await bodyOf(await putPair(type, { quarantine_days: 7 }), 201);
    const before = await pairEvents(type);
    const bodies: [unknown, string][] = [
      [{}, ""],
      [{ quarantine_days: 366 }, "/quarantine_days"],
      [{ quarantine_days: -1 }, "/quarantine_days"],
      [{ quarantine_days: 1.5 }, "/quarantine_days"],
      [{ auto_fulfil: "yes" }, "/auto_fulfil"],
      [{ quarantine_days: 5, colour: "red" }, "/colour"],
    ];
    for (const [body, pointer] of bodies) {
      const refused = await problem(await putPair(type, body), 400, "validation_error");
      expect(refused.errors?.[0]?.pointer, JSON.stringify(body)).toBe(pointer);
    }
    const wrongType = await call(`/admin/catalog/US/${type}`, {
      method: "PUT",
      headers: { ...ADMIN, "Content-Type": "text/plain" },
      body: "quarantine_days=5",
    });
    await problem(wrongType, 415, "unsupported_media_type");
    // A new pair refused is not added either.
    const unadded = uniqueNumberType();
    await problem(await putPair(unadded, {}), 400, "validation_error");
    expect(await pairEvents(unadded)).toEqual([]);
    expect(await pairEvents(type)).toEqual(before);
    expect(await bodyOf<CatalogPair>(await putPair(type))).toMatchObject({ quarantine_days: 7, auto_fulfil: false });
    // Settings are the admin's, as the pair is.
    await problem(await putPair(type, { quarantine_days: 1 }, fulfilment.headers), 403, "forbidden");
  });

  it("shows customers each pair's auto_fulfil and availability from its available stock", async () => {
    const type = uniqueNumberType();
    await bodyOf(await putPair(type, { auto_fulfil: true }), 201);
    const customer = await createCustomer("catalog");
    const entry = async () =>
      json(
        await customer.account.catalog[":country_code"][":number_type"].$get({
          param: { customer_slug: customer.slug, country_code: "US", number_type: type },
        }),
        200,
      );
    expect(await entry()).toMatchObject({ auto_fulfil: true, availability: "none" });
    const stock = (count: number) =>
      sendJson("POST", "/admin/stock", {
        numbers: Array.from({ length: count }, () => ({
          phone_number: uniquePhoneNumber(),
          country_code: "US",
          number_type: type,
        })),
      });
    await bodyOf(await stock(99), 201);
    expect(await entry()).toMatchObject({ availability: "limited" });
    await bodyOf(await stock(1), 201);
    expect(await entry()).toMatchObject({ availability: "plenty" });
    const listed = await json(
      await customer.account.catalog.$get({ param: { customer_slug: customer.slug }, query: { number_type: type } }),
      200,
    );
    expect(listed.data).toEqual([expect.objectContaining({ number_type: type, auto_fulfil: true, availability: "plenty" })]);
  });
});
