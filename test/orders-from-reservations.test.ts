// Orders from a reservation (LIFECYCLE.md "Reservations", Ordering): the order takes the reservation's pair and count,
// the reservation becomes ordered in the same batch, its numbers stay held for the order until the order is fulfilled
// or cancelled; and the allocation's and the stock removal's respect of holds. Reservations are made by SQL here
// (test/order-stock.ts), as the reservation API would leave them.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { bodyOf, createCustomer, INDIVIDUAL_ADDRESS, json, problem, type TestCustomer, uniquePhoneNumber } from "./helpers.ts";
import {
  asOperator,
  eventsOf,
  numbersOfOrder,
  orderCount,
  pairWithStock,
  reservationRow,
  reserveBySql,
  stockNumbers,
  stockState,
} from "./order-stock.ts";

type Order = { order_id: string; status: string; quantity: number; reservation_id: string | null; kyc_profile_id: string | null };

function ordersPath(customer: TestCustomer, rest = ""): string {
  return `/api/customers/${customer.slug}/orders${rest}`;
}

function orderFrom(customer: TestCustomer, body: Record<string, unknown>): Promise<Response> {
  return customer.callJson("POST", ordersPath(customer), body);
}

async function placedFrom(customer: TestCustomer, reservationId: string, extra: Record<string, unknown> = {}): Promise<Order> {
  return bodyOf<Order>(await orderFrom(customer, { reservation_id: `res_${reservationId}`, ...extra }), 201);
}

function allocate(orderId: string, body: unknown): Promise<Response> {
  return asOperator("POST", `/admin/orders/${orderId}/numbers`, body);
}

async function createProfile(customer: TestCustomer): Promise<string> {
  const created = await bodyOf<{ id: string }>(
    await customer.callJson("POST", `/api/customers/${customer.slug}/kyc-profiles`, { name: "Main", ...INDIVIDUAL_ADDRESS }),
    201,
  );
  return created.id;
}

describe("an order from a reservation", () => {
  it("takes the reservation's pair and count, carries reservation_id, and orders the reservation in the same batch", async () => {
    const { type, customer, phones } = await pairWithStock(4);
    const reservationId = await reserveBySql(customer, type, phones.slice(0, 3));
    const order = await placedFrom(customer, reservationId, { notes: "From the held numbers" });
    expect(order).toMatchObject({
      status: "pending",
      number_type: type,
      country_code: "US",
      quantity: 3,
      fulfilled_quantity: 0,
      notes: "From the held numbers",
      reservation_id: `res_${reservationId}`,
      kyc_profile_id: null,
    });
    // The order as every read shows it: one, the list, and the order.created event's data.
    const one = await json(
      await customer.account.orders[":order_id"].$get({ param: { customer_slug: customer.slug, order_id: order.order_id } }),
      200,
    );
    expect(one.reservation_id).toBe(`res_${reservationId}`);
    const list = await json(await customer.account.orders.$get({ param: { customer_slug: customer.slug }, query: {} }), 200);
    expect(list.data.map((o) => o.reservation_id)).toEqual([`res_${reservationId}`]);
    expect(await reservationRow(reservationId)).toMatchObject({ status: "ordered", order_id: order.order_id });
    // Held for the order now: no end to the hold.
    expect((await stockState(phones)).map((row) => [row.status, row.reservation_id, row.held_until])).toEqual([
      ["reserved", reservationId, null],
      ["reserved", reservationId, null],
      ["reserved", reservationId, null],
      ["available", null, null],
    ]);
    const events = await eventsOf(customer);
    expect(events.map((event) => event.type)).toEqual(["order.created", "reservation.ordered"]);
    expect(events[0]!.data).toEqual(one);
    expect(events[1]!.data).toMatchObject({
      id: `res_${reservationId}`,
      status: "ordered",
      order_id: order.order_id,
      phone_numbers: phones.slice(0, 3),
    });
  });

  it("names the profile the reservation is held for unless the body names one (null: none)", async () => {
    const { type, customer, phones } = await pairWithStock(2);
    const profile = await createProfile(customer);
    const bare = profile.replace(/^kyp_/, "");
    const held = await reserveBySql(customer, type, [phones[0]!], { holdForProfile: bare });
    expect((await placedFrom(customer, held)).kyc_profile_id).toBe(profile);
    const second = await reserveBySql(customer, type, [phones[1]!], { holdForProfile: bare });
    expect((await placedFrom(customer, second, { kyc_profile_id: null })).kyc_profile_id).toBeNull();
  });

  it("refuses number_type, country_code or quantity beside reservation_id, and changes nothing", async () => {
    const { type, customer, phones } = await pairWithStock(1);
    const reservationId = await reserveBySql(customer, type, phones);
    const body = await problem(
      await orderFrom(customer, { reservation_id: reservationId, number_type: type, country_code: "US", quantity: 1 }),
      400,
      "validation_error",
    );
    expect(body.errors?.map((error) => [error.pointer, error.message])).toEqual([
      ["/number_type", "must not be given with reservation_id: the order takes it from the reservation"],
      ["/country_code", "must not be given with reservation_id: the order takes it from the reservation"],
      ["/quantity", "must not be given with reservation_id: the order takes it from the reservation"],
    ]);
    await problem(await orderFrom(customer, { reservation_id: "res_nope" }), 400, "validation_error");
    expect(await orderCount(customer)).toBe(0);
    expect(await reservationRow(reservationId)).toMatchObject({ status: "active", order_id: null });
  });

  it("answers another account's reservation 404, and one that is not active 409 reservation_not_active, changing nothing", async () => {
    const { type, customer, phones } = await pairWithStock(4);
    const other = await createCustomer("other");
    const theirs = await reserveBySql(other, type, [phones[0]!]);
    await problem(await orderFrom(customer, { reservation_id: theirs }), 404, "not_found");
    expect(await reservationRow(theirs)).toMatchObject({ status: "active", order_id: null });

    // Past its expires_at (the job has not marked it yet), cancelled, or ordered already.
    const lapsed = await reserveBySql(customer, type, [phones[1]!], { expiresAt: Date.now() - 1 });
    const expired = await problem(await orderFrom(customer, { reservation_id: lapsed }), 409, "reservation_not_active");
    expect(expired.detail).toBe("Only an active reservation can be ordered; this one is expired");
    const cancelled = await reserveBySql(customer, type, [phones[3]!], { status: "cancelled" });
    await problem(await orderFrom(customer, { reservation_id: cancelled }), 409, "reservation_not_active");
    const ordered = await reserveBySql(customer, type, [phones[2]!]);
    await placedFrom(customer, ordered);
    const again = await problem(await orderFrom(customer, { reservation_id: ordered }), 409, "reservation_not_active");
    expect(again.detail).toContain("ordered");
    expect(await orderCount(customer)).toBe(1);
    expect(await reservationRow(lapsed)).toMatchObject({ status: "active", order_id: null });
  });

  it("refuses a change of number_type, country_code or quantity with 409 conflict; notes and profile still change", async () => {
    const { type, customer, phones } = await pairWithStock(2);
    const order = await placedFrom(customer, await reserveBySql(customer, type, phones));
    for (const change of [{ quantity: 1 }, { number_type: "mobile" }, { country_code: "CA" }, { quantity: 2, notes: "x" }]) {
      const refused = await problem(
        await customer.callJson("PUT", ordersPath(customer, `/${order.order_id}`), change),
        409,
        "conflict",
      );
      expect(refused.detail).toContain("placed from a reservation");
    }
    const profile = await createProfile(customer);
    const changed = await bodyOf<Order & { notes: string }>(
      await customer.callJson("PUT", ordersPath(customer, `/${order.order_id}`), { notes: "Kept", kyc_profile_id: profile }),
    );
    expect(changed).toMatchObject({ notes: "Kept", kyc_profile_id: profile, quantity: 2, number_type: type });
    const ofOrder = (await eventsOf(customer)).filter((event) => !event.type.startsWith("kyc_profile."));
    expect(ofOrder.map((event) => event.type)).toEqual(["order.created", "reservation.ordered", "order.updated"]);
  });

  it("ends the hold when the customer cancels the order: its numbers are available, the reservation stays ordered", async () => {
    const { type, customer, phones } = await pairWithStock(2);
    const reservationId = await reserveBySql(customer, type, phones);
    const order = await placedFrom(customer, reservationId);
    await bodyOf(await customer.call(ordersPath(customer, `/${order.order_id}/cancel`), { method: "POST" }));
    expect((await stockState(phones)).map((row) => [row.status, row.reservation_id, row.held_until])).toEqual([
      ["available", null, null],
      ["available", null, null],
    ]);
    expect(await reservationRow(reservationId)).toMatchObject({ status: "ordered", order_id: order.order_id });
  });

  it("ends the hold when the operator cancels the order", async () => {
    const { type, customer, phones } = await pairWithStock(2);
    const reservationId = await reserveBySql(customer, type, phones);
    const order = await placedFrom(customer, reservationId);
    await bodyOf(await asOperator("POST", `/admin/orders/${order.order_id}/status`, { status: "processing" }));
    await bodyOf(await asOperator("POST", `/admin/orders/${order.order_id}/status`, { status: "cancelled" }));
    expect((await stockState(phones)).map((row) => row.status)).toEqual(["available", "available"]);
    expect(await reservationRow(reservationId)).toMatchObject({ status: "ordered" });
  });

  it("ends the hold with the allocation that fulfils the order: the reserved numbers it did not take are available", async () => {
    const { type, customer, phones } = await pairWithStock(3);
    const reservationId = await reserveBySql(customer, type, phones);
    const order = await placedFrom(customer, reservationId);
    // One from stock (a reserved one, the first), then two numbers from elsewhere fulfil it.
    await bodyOf(await allocate(order.order_id, { from_stock: 1 }), 201);
    expect(await numbersOfOrder(order.order_id)).toEqual([phones[0]]);
    expect((await stockState(phones)).map((row) => row.status)).toEqual(["reserved", "reserved"]);
    const fulfilled = await bodyOf<{ order: Order }>(
      await allocate(order.order_id, { phone_numbers: [uniquePhoneNumber(), uniquePhoneNumber()] }),
      201,
    );
    expect(fulfilled.order.status).toBe("fulfilled");
    expect((await stockState(phones)).map((row) => [row.phone_number, row.status, row.reservation_id])).toEqual([
      [phones[1], "available", null],
      [phones[2], "available", null],
    ]);
    expect(await reservationRow(reservationId)).toMatchObject({ status: "ordered" });
  });
});

describe("allocation and holds", () => {
  it("takes the order's reserved numbers first from stock, then the oldest takeable ones", async () => {
    const { type, customer, phones } = await pairWithStock(3);
    // Stocked later (so younger) than the three: held for the order, they still go first.
    const reserved = [uniquePhoneNumber(), uniquePhoneNumber()].sort();
    await stockNumbers(type, reserved);
    const order = await placedFrom(customer, await reserveBySql(customer, type, reserved));
    const plain = await json(
      await customer.account.orders.$post({
        param: { customer_slug: customer.slug },
        json: { number_type: type, country_code: "US", quantity: 3 },
      }),
      201,
    );
    await bodyOf(await allocate(order.order_id, { from_stock: 1 }), 201);
    expect(await numbersOfOrder(order.order_id)).toEqual([reserved[0]]);
    // The plain order takes the available ones, never the held one.
    await bodyOf(await allocate(plain.order_id, { from_stock: 3 }), 201);
    expect(await numbersOfOrder(plain.order_id)).toEqual(phones);
    await bodyOf(await allocate(order.order_id, { from_stock: 1 }), 201);
    expect(await numbersOfOrder(order.order_id)).toEqual(reserved);
  });

  it("takes a lapsed hold as available, and counts for insufficient_stock what the order may take", async () => {
    const { type, customer, phones } = await pairWithStock(4);
    const other = await createCustomer("holder");
    // phones[0] held for another account (live), phones[1] a lapsed hold, phones[2..3] held for this order.
    await reserveBySql(other, type, [phones[0]!]);
    await reserveBySql(other, type, [phones[1]!], { expiresAt: Date.now() - 1 });
    const order = await placedFrom(customer, await reserveBySql(customer, type, phones.slice(2)));
    // The order has 2 to take; its own 2 held and the lapsed one are takeable (3), the live hold is not.
    const plain = await json(
      await customer.account.orders.$post({
        param: { customer_slug: customer.slug },
        json: { number_type: type, country_code: "US", quantity: 4 },
      }),
      201,
    );
    const short = await problem(await allocate(plain.order_id, { from_stock: 4 }), 409, "insufficient_stock");
    expect(short.detail).toContain("holds 1 numbers");
    await bodyOf(await allocate(order.order_id, { from_stock: 2 }), 201);
    expect(await numbersOfOrder(order.order_id)).toEqual(phones.slice(2));
    await bodyOf(await allocate(plain.order_id, { from_stock: 1 }), 201);
    expect(await numbersOfOrder(plain.order_id)).toEqual([phones[1]]);
    expect((await stockState([phones[0]!])).map((row) => row.status)).toEqual(["reserved"]);
  });

  it("refuses an explicit allocation of numbers held for another holder with 409 conflict naming them", async () => {
    const { type, customer, phones } = await pairWithStock(4);
    const other = await createCustomer("holder");
    await reserveBySql(other, type, [phones[0]!]);
    await reserveBySql(other, type, [phones[1]!], { expiresAt: Date.now() - 1 });
    const order = await placedFrom(customer, await reserveBySql(customer, type, phones.slice(2)));
    const refused = await problem(await allocate(order.order_id, { phone_numbers: [phones[0], phones[2]] }), 409, "conflict");
    expect(refused.detail).toBe(`Held by a reservation for another order or account until its hold ends: ${phones[0]}`);
    expect(await numbersOfOrder(order.order_id)).toEqual([]);
    expect((await stockState([phones[0]!])).map((row) => row.status)).toEqual(["reserved"]);
    // Even the admin's quarantine override does not take a held number.
    await problem(await allocate(order.order_id, { phone_numbers: [phones[0]], ignore_quarantine: true }), 409, "conflict");
    // Another order of the same account may not take the order's held number.
    const plain = await json(
      await customer.account.orders.$post({
        param: { customer_slug: customer.slug },
        json: { number_type: type, country_code: "US", quantity: 1 },
      }),
      201,
    );
    await problem(await allocate(plain.order_id, { phone_numbers: [phones[3]] }), 409, "conflict");
    // Its own reserved number and a lapsed hold are fine.
    await bodyOf(await allocate(order.order_id, { phone_numbers: [phones[1], phones[2]] }), 201);
    expect(await numbersOfOrder(order.order_id)).toEqual([phones[1], phones[2]]);
  });

  it("refuses to remove a held number from the stock (409 conflict naming it); a lapsed hold's goes", async () => {
    const { type, customer, phones } = await pairWithStock(2);
    await reserveBySql(customer, type, [phones[0]!]);
    await reserveBySql(customer, type, [phones[1]!], { expiresAt: Date.now() - 1 });
    const refused = await problem(await asOperator("DELETE", `/admin/stock/${encodeURIComponent(phones[0]!)}`), 409, "conflict");
    expect(refused.detail).toBe(`Held by a reservation, not to be removed while the hold lasts: ${phones[0]}`);
    expect(await stockState([phones[0]!])).toHaveLength(1);
    const audited = await env.DB.prepare(
      "SELECT count(*) AS n FROM audit_events WHERE action = 'stock.removed' AND target_id = ?",
    )
      .bind(phones[0])
      .first<{ n: number }>();
    expect(audited?.n).toBe(0);
    await bodyOf(await asOperator("DELETE", `/admin/stock/${encodeURIComponent(phones[1]!)}`));
    expect(await stockState([phones[1]!])).toEqual([]);
  });
});

describe("concurrency", () => {
  it("orders one reservation once when two orders race for it", async () => {
    const { type, customer, phones } = await pairWithStock(2);
    const reservationId = await reserveBySql(customer, type, phones);
    const answers = await Promise.all([0, 1].map(() => orderFrom(customer, { reservation_id: reservationId })));
    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses).toEqual([201, 409]);
    await Promise.all(answers.map((answer) => answer.text()));
    expect(await orderCount(customer)).toBe(1);
  });

  it("never gives one number to two holders when orders from reservations and allocations from stock race", async () => {
    const { type, customer, phones } = await pairWithStock(8);
    // Four held for orders from reservations; four available, fought over by plain orders' allocations.
    const reservations = await Promise.all([0, 1].map((i) => reserveBySql(customer, type, phones.slice(i * 2, i * 2 + 2))));
    const plain = await Promise.all(
      [0, 1, 2].map(async () =>
        json(
          await customer.account.orders.$post({
            param: { customer_slug: customer.slug },
            json: { number_type: type, country_code: "US", quantity: 2 },
          }),
          201,
        ),
      ),
    );
    const fromReservations = await Promise.all(reservations.map((id) => placedFrom(customer, id)));
    const orders = [...fromReservations, ...plain];
    const answers = await Promise.all(orders.map((order) => allocate(order.order_id, { from_stock: 2 })));
    const statuses = await Promise.all(answers.map(async (answer) => [answer.status, await answer.text()] as const));
    // Both reservation orders get theirs; of three plain orders for four available numbers, exactly two succeed.
    expect(statuses.slice(0, 2).map(([status]) => status)).toEqual([201, 201]);
    expect(statuses.slice(2).filter(([status]) => status === 201)).toHaveLength(2);
    expect(await numbersOfOrder(fromReservations[0]!.order_id)).toEqual(phones.slice(0, 2));
    expect(await numbersOfOrder(fromReservations[1]!.order_id)).toEqual(phones.slice(2, 4));
    const all = (await Promise.all(orders.map((order) => numbersOfOrder(order.order_id)))).flat();
    expect(new Set(all).size).toBe(all.length);
    expect(all.sort()).toEqual(phones);
  });
});
