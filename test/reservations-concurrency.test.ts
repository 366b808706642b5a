// Reservations at once (LIFECYCLE.md "Reservations"): two buyers reserving the last numbers of a pair, and a
// reservation racing an allocation from stock. Whatever order the batches ran in, each request got all it asked for
// or nothing, and no phone number is held by two: never in two active reservations, never both reserved and
// allocated.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { TEST_ADMIN_TOKEN } from "./constants.ts";
import { bodyOf, callJson, createCustomer } from "./helpers.ts";
import { sqlRows, stockedPair } from "./reservation-helpers.ts";

const ADMIN = { Authorization: `Bearer ${TEST_ADMIN_TOKEN}` };
const ROUNDS = 4;
const NUMBERS = 6;

/** Each phone number of the pair and who holds it: the reservations naming it held now, and tenures. */
async function holders(phones: string[]) {
  const list = JSON.stringify(phones);
  const reserved = await sqlRows<{ phone_number: string; holders: number }>(
    `SELECT rn.phone_number, count(*) AS holders FROM reservation_numbers rn JOIN reservations r ON r.id = rn.reservation_id
      WHERE rn.phone_number IN (SELECT value FROM json_each(?)) AND r.status = 'active' GROUP BY rn.phone_number`,
    list,
  );
  const allocated = await sqlRows<{ phone_number: string }>(
    "SELECT phone_number FROM numbers WHERE closed_at IS NULL AND phone_number IN (SELECT value FROM json_each(?))",
    list,
  );
  const stock = await sqlRows<{ phone_number: string; status: string; reservation_id: string | null }>(
    "SELECT phone_number, status, reservation_id FROM stock_numbers WHERE phone_number IN (SELECT value FROM json_each(?))",
    list,
  );
  return { reserved, allocated: allocated.map((r) => r.phone_number), stock };
}

describe("reservations at once", () => {
  it("two buyers reserving the last numbers of a pair: one gets them all, the other nothing, every round", async () => {
    const [a, b] = await Promise.all([createCustomer("res-race-a"), createCustomer("res-race-b")]);
    for (let round = 0; round < ROUNDS; round++) {
      const { type, phones } = await stockedPair(NUMBERS);
      // By quantity against by name, then both by quantity: each overlapping the whole stock of the pair.
      const bodyA = { country_code: "US", number_type: type, quantity: NUMBERS };
      const bodyB = round % 2 === 0 ? { phone_numbers: phones.slice(1) } : { ...bodyA, quantity: NUMBERS - 1 };
      const [answerA, answerB] = await Promise.all([
        a.callJson("POST", `/api/customers/${a.slug}/reservations`, bodyA),
        b.callJson("POST", `/api/customers/${b.slug}/reservations`, bodyB),
      ]);
      const statuses = [answerA.status, answerB.status].sort();
      expect(statuses, `round ${round}`).toEqual([201, 409]);
      const winner = answerA.status === 201 ? answerA : answerB;
      const loser = winner === answerA ? answerB : answerA;
      const won = await bodyOf<{ id: string; phone_numbers: string[] }>(winner, 201);
      const lost = await bodyOf<{ code: string }>(loser, 409);
      expect(["insufficient_stock", "numbers_unavailable"]).toContain(lost.code);
      const held = await holders(phones);
      expect(held.reserved.every((r) => r.holders === 1)).toBe(true);
      expect(held.reserved.map((r) => r.phone_number).sort()).toEqual(won.phone_numbers);
      for (const row of held.stock) {
        const mine = won.phone_numbers.includes(row.phone_number);
        expect([row.status, row.reservation_id]).toEqual(mine ? ["reserved", won.id.slice(4)] : ["available", null]);
      }
      // The loser's account holds nothing: no reservation row was left behind.
      const loserCustomer = winner === answerA ? b : a;
      const [left] = await sqlRows<{ n: number }>(
        "SELECT count(*) AS n FROM reservations WHERE customer_id = ? AND number_type = ?",
        loserCustomer.customerId,
        type,
      );
      expect(left?.n).toBe(0);
    }
  });

  it("two reservations at once past the account's ceiling: one is refused, every round", async () => {
    const customer = await createCustomer("res-race-ceiling");
    const now = Date.now();
    // 9,998 numbers held already (the rows only: the ceiling sums them).
    await env.DB.batch(
      [...Array.from({ length: 9 }, () => 1000), 998].map((quantity) =>
        env.DB.prepare(
          `INSERT INTO reservations (id, customer_id, country_code, number_type, status, quantity, expires_at, created_at, updated_at)
           VALUES (?, ?, 'US', 'seeded', 'active', ?, ?, ?, ?)`,
        ).bind(crypto.randomUUID(), customer.customerId, quantity, now + 86_400_000, now, now),
      ),
    );
    for (let round = 0; round < ROUNDS; round++) {
      const { type } = await stockedPair(4);
      const body = { country_code: "US", number_type: type, quantity: 2 };
      const answers = await Promise.all(
        [0, 1].map(() => customer.callJson("POST", `/api/customers/${customer.slug}/reservations`, body)),
      );
      expect(answers.map((a) => a.status).sort(), `round ${round}`).toEqual(round === 0 ? [201, 409] : [409, 409]);
      for (const answer of answers) {
        if (answer.status === 409) expect((await bodyOf<{ code: string }>(answer, 409)).code).toBe("conflict");
        else await answer.text();
      }
    }
  });

  it("a reservation racing an allocation from stock never gives a number to two holders", async () => {
    const customer = await createCustomer("res-race-alloc");
    for (let round = 0; round < ROUNDS; round++) {
      const { type, phones } = await stockedPair(NUMBERS);
      const order = await bodyOf<{ order_id: string }>(
        await customer.callJson("POST", `/api/customers/${customer.slug}/orders`, {
          number_type: type,
          country_code: "US",
          quantity: NUMBERS - 2,
        }),
        201,
      );
      const [reserve, allocate] = await Promise.all([
        customer.callJson("POST", `/api/customers/${customer.slug}/reservations`, {
          country_code: "US",
          number_type: type,
          quantity: NUMBERS - 2,
        }),
        callJson("POST", `/admin/orders/${order.order_id}/numbers`, { from_stock: NUMBERS - 2 }, ADMIN),
      ]);
      // Together they ask for more than the stock holds: at most one gets its numbers, all of them.
      expect([reserve.status, allocate.status].filter((s) => s === 201).length, `round ${round}`).toBeLessThanOrEqual(1);
      const reserved = reserve.status === 201 ? (await bodyOf<{ phone_numbers: string[] }>(reserve, 201)).phone_numbers : [];
      if (reserve.status !== 201) await bodyOf(reserve, 409);
      await allocate.text();
      const held = await holders(phones);
      expect(reserved.filter((phone) => held.allocated.includes(phone))).toEqual([]);
      expect(reserved.length === 0 || reserved.length === NUMBERS - 2).toBe(true);
      expect(held.allocated.length === 0 || held.allocated.length === NUMBERS - 2).toBe(true);
      expect(reserved.length + held.allocated.length).toBeGreaterThan(0);
      // A number allocated left the stock; one reserved is there, reserved.
      for (const row of held.stock) expect(held.allocated).not.toContain(row.phone_number);
      expect(
        held.stock
          .filter((row) => row.status === "reserved")
          .map((row) => row.phone_number)
          .sort(),
      ).toEqual(reserved);
    }
  });
});

describe("a reservation its batch refuses twice", () => {
  it("answers 409 conflict, never 500, and holds nothing, when every batch finds what the reads did not", async () => {
    const customer = await createCustomer("res-refused-twice");
    const { phones } = await stockedPair(1);
    const phone = phones[0]!;
    // A concurrent change that strikes inside every batch, after the reads found the number available: the batch takes
    // none, refuses itself and rolls back (the trigger's change too), so the reads find it available again each time.
    const trigger = `test_taken_meanwhile_${crypto.randomUUID().replaceAll("-", "")}`;
    await env.DB.prepare(
      `CREATE TRIGGER ${trigger} AFTER INSERT ON reservation_numbers WHEN NEW.phone_number = '${phone}'
       BEGIN UPDATE stock_numbers SET status = 'quarantined' WHERE phone_number = NEW.phone_number; END`,
    ).run();
    try {
      const answer = await customer.callJson("POST", `/api/customers/${customer.slug}/reservations`, {
        phone_numbers: [phone],
      });
      expect(answer.status).toBe(409);
      expect(await answer.json()).toMatchObject({ code: "conflict" });
    } finally {
      await env.DB.prepare(`DROP TRIGGER ${trigger}`).run();
    }
    expect(await sqlRows("SELECT id FROM reservations WHERE customer_id = ?", customer.customerId)).toEqual([]);
    expect(await holders([phone])).toMatchObject({ reserved: [], stock: [{ status: "available", reservation_id: null }] });
  });
});
