// Reservations (LIFECYCLE.md "Reservations"): numbers in stock held for one account, by name or by quantity, all or
// nothing; extend, cancel, list and read; the ceiling on an account's active reservations; the hold through a
// profile's review; the expiry job. Time moves with Date faked (the request's clock reads it), never by waiting.
import { env } from "cloudflare:workers";
import { sql } from "drizzle-orm";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createDatabase } from "../src/db/client.ts";
import { STOCK_STATUSES } from "../src/db/schema.ts";
import { DAY_MS } from "../src/lib/time.ts";
import { expireReservations } from "../src/reservations/expiry.ts";
import { expiryAfterReview, PROFILE_HOLD_AFTER_REVIEW_MS } from "../src/reservations/lifecycle.ts";
import { holdLapsed, isHoldLapsed } from "../src/stock/holds.ts";
import { TEST_ADMIN_TOKEN } from "./constants.ts";
import {
  bodyOf,
  callJson,
  createCustomer,
  INDIVIDUAL_ADDRESS,
  problem,
  type TestCustomer,
  uniquePhoneNumber,
} from "./helpers.ts";
import { sqlRows, stockedPair } from "./reservation-helpers.ts";

const ADMIN = { Authorization: `Bearer ${TEST_ADMIN_TOKEN}` };
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

type Wire = Record<string, unknown> & { id: string; status: string; expires_at: string; phone_numbers: string[] };

afterEach(() => {
  vi.useRealTimers();
});

const path = (customer: TestCustomer, rest = "") => `/api/customers/${customer.slug}/reservations${rest}`;

function reserve(customer: TestCustomer, body: unknown) {
  return customer.callJson("POST", path(customer), body);
}

async function reserved(customer: TestCustomer, body: unknown): Promise<Wire> {
  return bodyOf<Wire>(await reserve(customer, body), 201);
}

function extend(customer: TestCustomer, id: string, ttl_minutes: number) {
  return customer.callJson("POST", path(customer, `/${id}/extend`), { ttl_minutes });
}

function cancel(customer: TestCustomer, id: string) {
  return customer.call(path(customer, `/${id}`), { method: "DELETE" });
}

interface StockRow {
  phone_number: string;
  status: string;
  reservation_id: string | null;
  held_until: number | null;
}

async function stockRows(phones: string[]): Promise<StockRow[]> {
  return sqlRows<StockRow>(
    "SELECT phone_number, status, reservation_id, held_until FROM stock_numbers WHERE phone_number IN (SELECT value FROM json_each(?)) ORDER BY phone_number",
    JSON.stringify(phones),
  );
}

/** What a refused request must leave as it was: the account's reservations and the stock's rows of these numbers. */
async function snapshot(customer: TestCustomer, phones: string[]) {
  const reservations = await sqlRows("SELECT * FROM reservations WHERE customer_id = ? ORDER BY id", customer.customerId);
  const events = await sqlRows("SELECT id FROM events WHERE customer_id = ? ORDER BY id", customer.customerId);
  return { reservations, events, stock: await stockRows(phones) };
}

async function eventsOf(customer: TestCustomer, type: string): Promise<Wire[]> {
  const rows = await sqlRows<{ data: string }>(
    "SELECT data FROM events WHERE customer_id = ? AND type = ? ORDER BY created_at, rowid",
    customer.customerId,
    type,
  );
  return rows.map((row) => JSON.parse(row.data) as Wire);
}

const bare = (id: string) => id.replace(/^res_/, "");

describe("reserving numbers", () => {
  it("reserves named numbers (a repeat counted once) for 30 minutes by default, with reservation.created", async () => {
    const customer = await createCustomer("res-named");
    const { type, phones } = await stockedPair(3);
    const now = Date.now();
    vi.useFakeTimers({ now, toFake: ["Date"] });
    const response = await reserve(customer, { phone_numbers: [phones[1], phones[0], phones[1]] });
    const created = await bodyOf<Wire>(response, 201);
    expect(created).toEqual({
      id: expect.stringMatching(/^res_[0-9a-f-]{36}$/),
      status: "active",
      country_code: "US",
      number_type: type,
      phone_numbers: [phones[0], phones[1]],
      expires_at: new Date(now + 30 * MINUTE).toISOString(),
      hold_for_profile: null,
      order_id: null,
      created_at: new Date(now).toISOString(),
      updated_at: new Date(now).toISOString(),
    });
    expect(response.headers.get("Location")).toBe(path(customer, `/${created.id}`));
    expect(await stockRows(phones)).toEqual([
      { phone_number: phones[0], status: "reserved", reservation_id: bare(created.id), held_until: now + 30 * MINUTE },
      { phone_number: phones[1], status: "reserved", reservation_id: bare(created.id), held_until: now + 30 * MINUTE },
      { phone_number: phones[2], status: "available", reservation_id: null, held_until: null },
    ]);
    expect(await eventsOf(customer, "reservation.created")).toEqual([created]);
    // Read back, by its prefixed id and by the bare uuid.
    expect(await bodyOf(await customer.call(path(customer, `/${created.id}`)))).toEqual(created);
    expect(await bodyOf(await customer.call(path(customer, `/${bare(created.id)}`)))).toEqual(created);
    const [row] = await sqlRows("SELECT quantity FROM reservations WHERE id = ?", bare(created.id));
    expect(row).toEqual({ quantity: 2 });
  });

  it("reserves the first available numbers of a pair by quantity, in phone order, of a prefix when asked", async () => {
    const customer = await createCustomer("res-quantity");
    const { type, phones } = await stockedPair(5);
    // The first number is held already: the quantity takes the next ones.
    await reserved(customer, { phone_numbers: [phones[0]] });
    const byQuantity = await reserved(customer, { country_code: "US", number_type: type, quantity: 2, ttl_minutes: 5 });
    expect(byQuantity.phone_numbers).toEqual([phones[1], phones[2]]);
    const last = phones[4]!;
    const prefixed = await reserved(customer, {
      country_code: "US",
      number_type: type,
      quantity: 1,
      starts_with: last.slice(0, -1),
    });
    expect(prefixed.phone_numbers.every((phone) => phone.startsWith(last.slice(0, -1)))).toBe(true);
    expect(prefixed.phone_numbers).toEqual([phones.slice(3).find((p) => p.startsWith(last.slice(0, -1)))]);
  });

  it("refuses a body that is not one of the two forms, or both ttl_minutes and hold_for_profile, changing nothing", async () => {
    const customer = await createCustomer("res-invalid");
    const { type, phones } = await stockedPair(2);
    const before = await snapshot(customer, phones);
    const profile = `kyp_${crypto.randomUUID()}`;
    const cases: [unknown, string][] = [
      [{ phone_numbers: [phones[0]], ttl_minutes: 30, hold_for_profile: profile }, "/ttl_minutes"],
      [{ phone_numbers: [phones[0]], quantity: 1 }, "/quantity"],
      [{ country_code: "US", number_type: type }, "/quantity"],
      [{ phone_numbers: [] }, "/phone_numbers"],
      [{ phone_numbers: Array.from({ length: 1001 }, (_, i) => `+1555${String(i).padStart(7, "0")}`) }, "/phone_numbers"],
      [{ country_code: "US", number_type: type, quantity: 1001 }, "/quantity"],
      [{ country_code: "US", number_type: type, quantity: 1, ttl_minutes: 4 }, "/ttl_minutes"],
      [{ country_code: "US", number_type: type, quantity: 1, ttl_minutes: 1441 }, "/ttl_minutes"],
      [{ country_code: "US", number_type: type, quantity: 1, starts_with: "1a" }, "/starts_with"],
    ];
    for (const [body, pointer] of cases) {
      const refused = await problem(await reserve(customer, body), 400, "validation_error");
      expect(
        refused.errors?.map((e) => e.pointer),
        JSON.stringify(body),
      ).toContain(pointer);
    }
    expect(await snapshot(customer, phones)).toEqual(before);
  });

  it("refuses named numbers of two pairs (400) and a pair that is not orderable (400 not_orderable)", async () => {
    const customer = await createCustomer("res-pairs");
    const a = await stockedPair(1);
    const b = await stockedPair(1);
    const closed = await stockedPair(1, false);
    const phones = [...a.phones, ...b.phones, ...closed.phones];
    const before = await snapshot(customer, phones);
    const mixed = await problem(await reserve(customer, { phone_numbers: [a.phones[0], b.phones[0]] }), 400, "validation_error");
    expect(mixed.errors).toEqual([
      { location: "body", pointer: "/phone_numbers", message: "must all be of one country_code and number_type" },
    ]);
    await problem(await reserve(customer, { phone_numbers: closed.phones }), 400, "not_orderable");
    const byQuantity = { country_code: "US", number_type: closed.type, quantity: 1 };
    const notOrderable = await problem(await reserve(customer, byQuantity), 400, "not_orderable");
    expect(notOrderable.errors?.[0]?.pointer).toBe("/number_type");
    expect(await snapshot(customer, phones)).toEqual(before);
  });

  it("refuses named numbers that are not available: 409 numbers_unavailable, one error each, nothing held", async () => {
    const customer = await createCustomer("res-unavailable");
    const other = await createCustomer("res-unavailable-other");
    const { phones } = await stockedPair(3);
    await reserved(other, { phone_numbers: [phones[0]] });
    const unknown = uniquePhoneNumber();
    const before = await snapshot(customer, phones);
    const refused = await problem(
      await reserve(customer, { phone_numbers: [phones[2], phones[0], unknown] }),
      409,
      "numbers_unavailable",
    );
    expect(refused.errors).toEqual([
      { location: "body", pointer: "/phone_numbers/1", message: "is not available" },
      { location: "body", pointer: "/phone_numbers/2", message: "is not available" },
    ]);
    expect(await snapshot(customer, phones)).toEqual(before);
    expect((await stockRows([phones[2]!]))[0]?.status).toBe("available");
  });

  it("refuses a quantity the stock cannot cover: 409 insufficient_stock saying how many are available", async () => {
    const customer = await createCustomer("res-short");
    const { type, phones } = await stockedPair(3);
    await reserved(customer, { phone_numbers: [phones[0]] });
    const before = await snapshot(customer, phones);
    const refused = await problem(
      await reserve(customer, { country_code: "US", number_type: type, quantity: 3 }),
      409,
      "insufficient_stock",
    );
    expect(refused.detail).toBe(`2 ${type} numbers of US are available; 3 were asked for`);
    expect(await snapshot(customer, phones)).toEqual(before);
  });

  it("holds at most 10,000 numbers in an account's active reservations (past expires_at they count no more)", async () => {
    const customer = await createCustomer("res-ceiling");
    const { type, phones } = await stockedPair(2);
    const now = Date.now();
    vi.useFakeTimers({ now, toFake: ["Date"] });
    // 9,999 numbers held already (seeded: the rows only, as the ceiling sums them), and 1,000 whose hold has lapsed.
    const seed = (quantity: number, expiresAt: number) =>
      env.DB.prepare(
        `INSERT INTO reservations (id, customer_id, country_code, number_type, status, quantity, expires_at, created_at, updated_at)
         VALUES (?, ?, 'US', ?, 'active', ?, ?, ?, ?)`,
      ).bind(crypto.randomUUID(), customer.customerId, type, quantity, expiresAt, now, now);
    await env.DB.batch([...Array.from({ length: 9 }, () => seed(1000, now + HOUR)), seed(999, now + HOUR), seed(1000, now)]);
    const before = await snapshot(customer, phones);
    const refused = await problem(await reserve(customer, { phone_numbers: phones }), 409, "conflict");
    expect(refused.detail).toBe("The account's active reservations would hold 10001 numbers; at most 10000 may be held at once");
    expect(await snapshot(customer, phones)).toEqual(before);
    await reserved(customer, { phone_numbers: [phones[0]] });
  });
});

describe("a reservation's life", () => {
  it("extends an active reservation from now, at most to 24 hours after its creation (400 past it)", async () => {
    const customer = await createCustomer("res-extend");
    const { phones } = await stockedPair(1);
    const created = Date.now();
    vi.useFakeTimers({ now: created, toFake: ["Date"] });
    const reservation = await reserved(customer, { phone_numbers: phones });
    vi.setSystemTime(created + 20 * MINUTE);
    const extended = await bodyOf<Wire>(await extend(customer, reservation.id, 120), 200);
    const expiresAt = created + 20 * MINUTE + 120 * MINUTE;
    expect(extended).toMatchObject({ status: "active", expires_at: new Date(expiresAt).toISOString() });
    expect(await stockRows(phones)).toEqual([
      { phone_number: phones[0], status: "reserved", reservation_id: bare(reservation.id), held_until: expiresAt },
    ]);
    // Twenty-three hours on, 61 minutes more would pass creation + 24 hours; 60 do not.
    vi.setSystemTime(created + 2 * HOUR);
    await bodyOf(await extend(customer, reservation.id, 1440 - 120), 200);
    const before = await snapshot(customer, phones);
    const tooLong = await problem(await extend(customer, reservation.id, 1440 - 119), 400, "validation_error");
    expect(tooLong.errors).toEqual([
      {
        location: "body",
        pointer: "/ttl_minutes",
        message: "must be at most 1320: a reservation lasts at most 24 hours from its creation",
      },
    ]);
    expect(await snapshot(customer, phones)).toEqual(before);
    await problem(await extend(customer, reservation.id, 4), 400, "validation_error");
    // Three minutes before creation + 24 hours, no extension fits.
    vi.setSystemTime(created + 24 * HOUR - 3 * MINUTE);
    const late = await problem(await extend(customer, reservation.id, 5), 400, "validation_error");
    expect(late.errors?.[0]?.message).toBe("cannot extend it any more: a reservation lasts at most 24 hours from its creation");
  });

  it("cancels an active reservation: its numbers are available again, reservation.cancelled", async () => {
    const customer = await createCustomer("res-cancel");
    const { phones } = await stockedPair(2);
    const reservation = await reserved(customer, { phone_numbers: phones });
    const cancelled = await bodyOf<Wire>(await cancel(customer, reservation.id), 200);
    expect(cancelled).toMatchObject({ id: reservation.id, status: "cancelled", phone_numbers: phones });
    expect((await stockRows(phones)).map((row) => [row.status, row.reservation_id, row.held_until])).toEqual([
      ["available", null, null],
      ["available", null, null],
    ]);
    expect(await eventsOf(customer, "reservation.cancelled")).toEqual([cancelled]);
    // Once cancelled, neither cancelled nor extended again.
    const before = await snapshot(customer, phones);
    const again = await problem(await cancel(customer, reservation.id), 409, "reservation_not_active");
    expect(again.detail).toBe("Only active reservations can be cancelled; this reservation is cancelled");
    await problem(await extend(customer, reservation.id, 30), 409, "reservation_not_active");
    expect(await snapshot(customer, phones)).toEqual(before);
  });

  it("reads a reservation past expires_at as expired before the job runs: not extended, cancelled, nor holding", async () => {
    const customer = await createCustomer("res-lapsed");
    const other = await createCustomer("res-lapsed-other");
    const { phones } = await stockedPair(1);
    const created = Date.now();
    vi.useFakeTimers({ now: created, toFake: ["Date"] });
    const reservation = await reserved(customer, { phone_numbers: phones, ttl_minutes: 5 });
    vi.setSystemTime(created + 5 * MINUTE);
    const read = await bodyOf<Wire>(await customer.call(path(customer, `/${reservation.id}`)));
    expect(read.status).toBe("expired");
    const before = await snapshot(customer, phones);
    const notActive = await problem(await extend(customer, reservation.id, 30), 409, "reservation_not_active");
    expect(notActive.detail).toBe("Only active reservations can be extended; this reservation is expired");
    await problem(await cancel(customer, reservation.id), 409, "reservation_not_active");
    expect(await snapshot(customer, phones)).toEqual(before);
    // Its number is takeable: another account's reservation takes it over.
    const taken = await reserved(other, { phone_numbers: phones });
    expect(await stockRows(phones)).toEqual([
      { phone_number: phones[0], status: "reserved", reservation_id: bare(taken.id), held_until: created + 35 * MINUTE },
    ]);
  });

  it("refuses a change whose request began before expires_at once another took a lapsed number: extend, cancel, order", async () => {
    // A request reads the reservation just before it expires and reaches its batch after another account took the
    // lapsed number: the request's clock still says active, the batch's guard sees the reservation holds less.
    const customer = await createCustomer("res-late");
    const other = await createCustomer("res-late-other");
    const { phones } = await stockedPair(2);
    const created = Date.now();
    vi.useFakeTimers({ now: created, toFake: ["Date"] });
    const reservation = await reserved(customer, { phone_numbers: phones, ttl_minutes: 5 });
    vi.setSystemTime(created + 5 * MINUTE);
    const taken = await reserved(other, { phone_numbers: [phones[1]] });
    vi.setSystemTime(created + 5 * MINUTE - 1);
    const before = await snapshot(customer, phones);
    const notActive = await problem(await extend(customer, reservation.id, 30), 409, "reservation_not_active");
    expect(notActive.detail).toBe("Only active reservations can be extended; this reservation is expired");
    await problem(await cancel(customer, reservation.id), 409, "reservation_not_active");
    const order = await problem(
      await customer.callJson("POST", `/api/customers/${customer.slug}/orders`, { reservation_id: reservation.id }),
      409,
      "reservation_not_active",
    );
    expect(order.detail).toBe("Only an active reservation can be ordered; this one is expired");
    expect(await snapshot(customer, phones)).toEqual(before);
    expect((await stockRows(phones)).map((row) => row.reservation_id)).toEqual([bare(reservation.id), bare(taken.id)]);
  });

  it("answers another account's reservation 404, to read, extend or cancel, and never lists it", async () => {
    const customer = await createCustomer("res-owner");
    const other = await createCustomer("res-stranger");
    const { phones } = await stockedPair(1);
    const reservation = await reserved(customer, { phone_numbers: phones });
    const before = await snapshot(customer, phones);
    await problem(await other.call(path(other, `/${reservation.id}`)), 404, "not_found");
    await problem(await extend(other, reservation.id, 30), 404, "not_found");
    await problem(await cancel(other, reservation.id), 404, "not_found");
    expect(await snapshot(customer, phones)).toEqual(before);
    expect(await bodyOf(await other.call(path(other)))).toMatchObject({ data: [], meta: { total: 0 } });
    await problem(await customer.call(path(customer, "/res_nope")), 400, "validation_error");
  });

  it("lists the account's reservations newest first, paginated, filtered by status as they stand now", async () => {
    const customer = await createCustomer("res-list");
    const { phones } = await stockedPair(3);
    const start = Date.now();
    vi.useFakeTimers({ now: start, toFake: ["Date"] });
    const first = await reserved(customer, { phone_numbers: [phones[0]], ttl_minutes: 5 });
    vi.setSystemTime(start + MINUTE);
    const second = await reserved(customer, { phone_numbers: [phones[1]], ttl_minutes: 60 });
    vi.setSystemTime(start + 2 * MINUTE);
    const third = await reserved(customer, { phone_numbers: [phones[2]], ttl_minutes: 60 });
    await bodyOf(await cancel(customer, third.id), 200);
    vi.setSystemTime(start + 6 * MINUTE);
    const list = async (query: string) => {
      const page = await bodyOf<{ data: Wire[]; meta: Record<string, unknown> }>(await customer.call(path(customer, query)));
      return { ids: page.data.map((r) => r.id), statuses: page.data.map((r) => r.status), meta: page.meta };
    };
    const all = await list("");
    expect(all.ids).toEqual([third.id, second.id, first.id]);
    expect(all.statuses).toEqual(["cancelled", "active", "expired"]);
    expect((await list("?status=active")).ids).toEqual([second.id]);
    expect((await list("?status=expired")).ids).toEqual([first.id]);
    expect((await list("?status=expired,cancelled")).ids).toEqual([third.id, first.id]);
    const paged = await list("?limit=2&page=2");
    expect(paged.ids).toEqual([first.id]);
    expect(paged.meta).toMatchObject({ total: 3, page: 2, limit: 2, totalPages: 2, hasNextPage: false });
    await problem(await customer.call(path(customer, "?status=gone")), 400, "validation_error");
  });
});

describe("the expiry job", () => {
  it("marks active reservations past expires_at expired, once each, with reservation.expired; their numbers freed", async () => {
    const customer = await createCustomer("res-job");
    const { phones } = await stockedPair(2);
    const created = Date.now();
    vi.useFakeTimers({ now: created, toFake: ["Date"] });
    const lapsing = await reserved(customer, { phone_numbers: [phones[0]], ttl_minutes: 5 });
    const lasting = await reserved(customer, { phone_numbers: [phones[1]], ttl_minutes: 60 });
    const job = (now: number) => expireReservations(createDatabase(env.DB), env.WEBHOOK_DELIVERIES, now);
    // Two runs at once, then one more: each reservation expires once.
    await Promise.all([job(created + 5 * MINUTE), job(created + 5 * MINUTE)]);
    await job(created + 6 * MINUTE);
    const rows = await sqlRows<{ id: string; status: string }>(
      "SELECT id, status FROM reservations WHERE customer_id = ? ORDER BY created_at, id",
      customer.customerId,
    );
    expect(new Map(rows.map((r) => [r.id, r.status]))).toEqual(
      new Map([
        [bare(lapsing.id), "expired"],
        [bare(lasting.id), "active"],
      ]),
    );
    // Its event carries the reservation as the API now answers it.
    const read = await bodyOf<Wire>(await customer.call(path(customer, `/${lapsing.id}`)));
    expect(read).toMatchObject({ status: "expired", updated_at: new Date(created + 5 * MINUTE).toISOString() });
    expect(await eventsOf(customer, "reservation.expired")).toEqual([read]);
    expect((await stockRows(phones)).map((r) => [r.status, r.reservation_id])).toEqual([
      ["available", null],
      ["reserved", bare(lasting.id)],
    ]);
  });

  it("clears in one run a backlog larger than the old cap of 1,000 a run, batch after batch", async () => {
    const customer = await createCustomer("res-job-backlog");
    const now = Date.now();
    const ids = Array.from({ length: 1050 }, () => crypto.randomUUID());
    // Seeded by SQL (the test is about the job, not the write path): lapsed a day ago, so earliest of all that are due.
    await sqlRows(
      `INSERT INTO reservations (id, customer_id, country_code, number_type, status, quantity, expires_at, created_at, updated_at)
       SELECT value, ?, 'US', 'backlog', 'active', 1, ?, ?, ? FROM json_each(?)`,
      customer.customerId,
      now - DAY_MS,
      now - 2 * DAY_MS,
      now - 2 * DAY_MS,
      JSON.stringify(ids),
    );
    const report = await expireReservations(createDatabase(env.DB), env.WEBHOOK_DELIVERIES, now);
    expect(report.expired).toBeGreaterThanOrEqual(ids.length);
    const left = await sqlRows<{ status: string; count: number }>(
      "SELECT status, count(*) AS count FROM reservations WHERE customer_id = ? GROUP BY status",
      customer.customerId,
    );
    expect(left).toEqual([{ status: "expired", count: ids.length }]);
    expect(await eventsOf(customer, "reservation.expired")).toHaveLength(ids.length);
  });
});

describe("the hold through a profile's review", () => {
  async function profile(customer: TestCustomer): Promise<string> {
    const created = await bodyOf<{ id: string }>(
      await customer.callJson("POST", `/api/customers/${customer.slug}/kyc-profiles`, { name: "Hold", ...INDIVIDUAL_ADDRESS }),
      201,
    );
    return created.id;
  }
  const review = (id: string, status: string, extra: Record<string, unknown> = {}) =>
    callJson("POST", `/admin/kyc-profiles/${id}/review`, { status, ...extra }, ADMIN);

  it("holds for 14 days through a pending profile, refuses an extension, and another account's profile", async () => {
    const customer = await createCustomer("res-profile");
    const other = await createCustomer("res-profile-other");
    const { phones } = await stockedPair(2);
    const profileId = await profile(customer);
    const now = Date.now();
    vi.useFakeTimers({ now, toFake: ["Date"] });
    const held = await reserved(customer, { phone_numbers: [phones[0]], hold_for_profile: profileId });
    expect(held).toMatchObject({ hold_for_profile: profileId, expires_at: new Date(now + 14 * DAY_MS).toISOString() });
    const before = await snapshot(customer, phones);
    const notExtended = await problem(await extend(customer, held.id, 30), 409, "conflict");
    expect(notExtended.detail).toContain("held through a profile's review");
    const foreign = await problem(
      await reserve(other, { phone_numbers: [phones[1]], hold_for_profile: profileId }),
      409,
      "conflict",
    );
    expect(foreign.errors).toEqual([
      { location: "body", pointer: "/hold_for_profile", message: "is not a profile of this account" },
    ]);
    expect(await snapshot(customer, phones)).toEqual(before);
  });

  it("refuses a profile whose review is over (409 conflict)", async () => {
    const customer = await createCustomer("res-profile-closed");
    const { phones } = await stockedPair(1);
    const profileId = await profile(customer);
    await bodyOf(await review(profileId, "under_review"), 200);
    await bodyOf(await review(profileId, "approved"), 200);
    const before = await snapshot(customer, phones);
    const refused = await problem(
      await reserve(customer, { phone_numbers: phones, hold_for_profile: profileId }),
      409,
      "conflict",
    );
    expect(refused.errors?.[0]).toMatchObject({ pointer: "/hold_for_profile", message: "is approved, its review is not open" });
    expect(await snapshot(customer, phones)).toEqual(before);
  });

  it("lowers the hold to 24 hours after the review ends (approved, rejected) or the profile is deleted, never raising it", async () => {
    const customer = await createCustomer("res-profile-review");
    const { phones } = await stockedPair(4);
    const start = Date.now();
    vi.useFakeTimers({ now: start, toFake: ["Date"] });
    const [approved, rejected, deleted] = [await profile(customer), await profile(customer), await profile(customer)];
    const hold = async (profileId: string, phone: string) =>
      reserved(customer, { phone_numbers: [phone], hold_for_profile: profileId });
    const heldApproved = await hold(approved, phones[0]!);
    const heldRejected = await hold(rejected, phones[1]!);
    const heldDeleted = await hold(deleted, phones[2]!);
    // Created 13.5 days before its review ends: creation + 14 days comes first, and stays.
    vi.setSystemTime(start - 13.5 * DAY_MS);
    const early = await hold(approved, phones[3]!);
    vi.setSystemTime(start + HOUR);
    await bodyOf(await review(approved, "under_review"), 200);
    await bodyOf(await review(approved, "approved"), 200);
    await bodyOf(await review(rejected, "under_review"), 200);
    await bodyOf(await review(rejected, "rejected", { rejection_reason: "Unreadable" }), 200);
    await bodyOf(await customer.call(`/api/customers/${customer.slug}/kyc-profiles/${deleted}`, { method: "DELETE" }), 200);
    const read = async (r: Wire) => bodyOf<Wire>(await customer.call(path(customer, `/${r.id}`)));
    const afterReview = new Date(start + HOUR + PROFILE_HOLD_AFTER_REVIEW_MS).toISOString();
    expect((await read(heldApproved)).expires_at).toBe(afterReview);
    expect((await read(heldRejected)).expires_at).toBe(afterReview);
    expect((await read(heldDeleted)).expires_at).toBe(afterReview);
    expect((await read(early)).expires_at).toBe(new Date(expiryAfterReview(start - 13.5 * DAY_MS, start + HOUR)).toISOString());
    expect(expiryAfterReview(start - 13.5 * DAY_MS, start + HOUR)).toBe(start + 0.5 * DAY_MS);
    expect((await stockRows([phones[0]!]))[0]?.held_until).toBe(start + HOUR + DAY_MS);
    // Deleted ten hours after its rejection, the rejected profile's hold is not raised to a day from then.
    vi.setSystemTime(start + 11 * HOUR);
    await bodyOf(await customer.call(`/api/customers/${customer.slug}/kyc-profiles/${rejected}`, { method: "DELETE" }), 200);
    expect((await read(heldRejected)).expires_at).toBe(afterReview);
  });
});

describe("a stock number's lapsed hold", () => {
  it("is judged alike by the guards' SQL (holdLapsed) and the pages' JS (isHoldLapsed), at the edge too", async () => {
    const now = Date.now();
    const rows = STOCK_STATUSES.flatMap((status) =>
      [null, now - 1, now, now + 1].map((heldUntil, i) => ({ key: `${status}${i}`, status, heldUntil })),
    );
    // A CTE named as the table stands in for it, so the guard's SQL reads these rows and nothing is written.
    const values = sql.join(
      rows.map((r) => sql`(${r.key}, ${r.status}, ${r.heldUntil})`),
      sql`, `,
    );
    const selected = await createDatabase(env.DB).all<{ key: string }>(
      sql`WITH stock_numbers(key, status, held_until) AS (VALUES ${values}) SELECT key FROM stock_numbers WHERE ${holdLapsed(now)}`,
    );
    const lapsed = rows.filter((r) => isHoldLapsed(r, now)).map((r) => r.key);
    expect(selected.map((r) => r.key).sort()).toEqual(lapsed.sort());
    expect(lapsed.sort()).toEqual(["reserved1", "reserved2"]);
  });
});
