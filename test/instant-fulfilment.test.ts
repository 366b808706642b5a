// Instant fulfilment (LIFECYCLE.md "Reservations"): an order of a pair with auto_fulfil whose quantity the takeable
// stock (or its reservation) covers is created, allocated and fulfilled in one batch; otherwise it waits pending.
import { describe, expect, it } from "vitest";
import { bodyOf, INDIVIDUAL_ADDRESS, type TestCustomer } from "./helpers.ts";
import {
  asOperator,
  auditOfOrder,
  eventsOf,
  numbersOfOrder,
  orderCount,
  pairWithStock,
  reservationRow,
  reserveBySql,
  setAutoFulfil,
  stockState,
} from "./order-stock.ts";

type Order = {
  order_id: string;
  status: string;
  quantity: number;
  fulfilled_quantity: number;
  requested_at: string;
  fulfilled_at: string | null;
  kyc_profile_id: string | null;
};

function order(customer: TestCustomer, body: Record<string, unknown>): Promise<Response> {
  return customer.callJson("POST", `/api/customers/${customer.slug}/orders`, body);
}

async function placed(customer: TestCustomer, type: string, quantity: number, extra: Record<string, unknown> = {}) {
  return bodyOf<Order>(await order(customer, { number_type: type, country_code: "US", quantity, ...extra }), 201);
}

/** A pair with auto_fulfil and `count` numbers in stock. */
async function autoFulfilPair(count: number) {
  const pair = await pairWithStock(count, "instant");
  await setAutoFulfil(pair.type, true);
  return pair;
}

describe("instant fulfilment", () => {
  it("answers 201 fulfilled, allocated from stock in the batch that created it, with its events and one audit event", async () => {
    const { type, customer, phones } = await autoFulfilPair(3);
    const created = await placed(customer, type, 2);
    expect(created).toMatchObject({ status: "fulfilled", quantity: 2, fulfilled_quantity: 2 });
    expect(created.fulfilled_at).toBe(created.requested_at);
    expect(await numbersOfOrder(created.order_id)).toEqual(phones.slice(0, 2));
    expect((await stockState(phones)).map((row) => row.phone_number)).toEqual([phones[2]]);
    const events = await eventsOf(customer);
    expect(events.map((event) => event.type)).toEqual(["order.created", "order.numbers_allocated", "order.fulfilled"]);
    expect(events[2]!.data).toMatchObject({ order_id: created.order_id, status: "fulfilled", fulfilled_quantity: 2 });
    const audit = await auditOfOrder(created.order_id);
    expect(audit.map((event) => [event.action, event.actor_type, event.actor_id])).toEqual([
      ["order.numbers_allocated", "api_key", customer.keyId],
    ]);
    expect(JSON.parse(audit[0]!.changes)).toEqual({ fulfilled_quantity: [0, 2], status: ["pending", "fulfilled"] });
  });

  it("attaches the numbers to the order's profile, with kyc_profile.numbers_attached before order.fulfilled", async () => {
    const { type, customer } = await autoFulfilPair(2);
    const profile = await bodyOf<{ id: string }>(
      await customer.callJson("POST", `/api/customers/${customer.slug}/kyc-profiles`, { name: "Main", ...INDIVIDUAL_ADDRESS }),
      201,
    );
    const created = await placed(customer, type, 2, { kyc_profile_id: profile.id });
    expect(created).toMatchObject({ status: "fulfilled", kyc_profile_id: profile.id });
    const types = (await eventsOf(customer)).map((event) => event.type).filter((t) => t !== "kyc_profile.submitted");
    expect(types).toEqual(["order.created", "order.numbers_allocated", "kyc_profile.numbers_attached", "order.fulfilled"]);
  });

  it("fulfils an order from a reservation with exactly its numbers; the reservation stays ordered", async () => {
    const { type, customer, phones } = await autoFulfilPair(4);
    const reservationId = await reserveBySql(customer, type, phones.slice(2));
    const created = await bodyOf<Order>(await order(customer, { reservation_id: reservationId }), 201);
    expect(created).toMatchObject({ status: "fulfilled", quantity: 2, fulfilled_quantity: 2 });
    expect(await numbersOfOrder(created.order_id)).toEqual(phones.slice(2));
    expect((await stockState(phones)).map((row) => [row.phone_number, row.status])).toEqual([
      [phones[0], "available"],
      [phones[1], "available"],
    ]);
    expect(await reservationRow(reservationId)).toMatchObject({ status: "ordered", order_id: created.order_id });
    const types = (await eventsOf(customer)).map((event) => event.type);
    expect(types).toEqual(["order.created", "reservation.ordered", "order.numbers_allocated", "order.fulfilled"]);
  });

  it("creates the order pending, taking nothing, when the stock is short or the pair has no auto_fulfil", async () => {
    const { type, customer, phones } = await autoFulfilPair(2);
    const short = await placed(customer, type, 3);
    expect(short).toMatchObject({ status: "pending", fulfilled_quantity: 0, fulfilled_at: null });
    // A number held for another does not count.
    await reserveBySql(customer, type, [phones[0]!]);
    expect((await placed(customer, type, 2)).status).toBe("pending");
    await setAutoFulfil(type, false);
    const manual = await placed(customer, type, 1);
    expect(manual.status).toBe("pending");
    expect((await stockState(phones)).map((row) => row.status)).toEqual(["reserved", "available"]);
    const types = (await eventsOf(customer)).map((event) => event.type);
    expect(types).toEqual(["order.created", "order.created", "order.created"]);
    expect(await auditOfOrder(short.order_id)).toEqual([]);
  });

  it("never gives two racing instant orders (and allocations from stock) one number, nor half an order", async () => {
    for (let round = 0; round < 3; round++) {
      const { type, customer, phones } = await pairWithStock(5, "instant");
      const pending = await placed(customer, type, 2);
      await setAutoFulfil(type, true);
      // Three instant orders of 2 and an allocation of 2 from stock race for 5 numbers: at most two of them get theirs.
      const [allocation, ...answers] = await Promise.all([
        asOperator("POST", `/admin/orders/${pending.order_id}/numbers`, { from_stock: 2 }),
        ...[0, 1, 2].map(() => order(customer, { number_type: type, country_code: "US", quantity: 2 })),
      ]);
      const allocated = allocation!.status === 201;
      await allocation!.text();
      const orders = await Promise.all(answers.map((answer) => bodyOf<Order>(answer, 201)));
      const holders = [pending, ...orders];
      const taken = await Promise.all(holders.map((o) => numbersOfOrder(o.order_id)));
      expect(taken[0]!.length).toBe(allocated ? 2 : 0);
      for (const numbers of taken) expect([0, 2]).toContain(numbers.length);
      for (const o of orders) expect(o.status === "fulfilled").toBe((await numbersOfOrder(o.order_id)).length === 2);
      const all = taken.flat();
      expect(new Set(all).size).toBe(all.length);
      expect(all.length).toBe(4);
      expect((await stockState(phones)).length).toBe(1);
      expect(await orderCount(customer)).toBe(4);
    }
  });
});
