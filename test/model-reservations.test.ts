// A model of reservations (LIFECYCLE.md "Reservations") against the API: random runs of reserve by numbers or by
// quantity, extend, cancel, time passing (the request's clock: Date faked) and the expiry job. After every step each
// reservation's status and expires_at, and each stock number's status and holder, agree with a plain model.
import { env } from "cloudflare:workers";
import fc from "fast-check";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createDatabase } from "../src/db/client.ts";
import { expireReservations } from "../src/reservations/expiry.ts";
import {
  bodyOf,
  createCustomer,
  json,
  makeOrderable,
  operator,
  type TestCustomer,
  uniqueNumberType,
  uniquePhoneNumber,
} from "./helpers.ts";

const MINUTE = 60_000;
const NUMBERS = 5;

afterEach(() => {
  vi.useRealTimers();
});

interface ModelReservation {
  id: string;
  status: "active" | "expired" | "cancelled";
  expiresAt: number;
  createdAt: number;
}

interface ModelStock {
  status: "available" | "reserved";
  holder: string | null;
  heldUntil: number | null;
}

interface Model {
  now: number;
  reservations: ModelReservation[];
  stock: Map<string, ModelStock>;
}

const statusAt = (r: ModelReservation, now: number) => (r.status === "active" && r.expiresAt <= now ? "expired" : r.status);
const takeable = (s: ModelStock, now: number) => s.status === "available" || (s.heldUntil !== null && s.heldUntil <= now);

type Step =
  | { kind: "byNumbers"; picks: number[]; ttl: number }
  | { kind: "byQuantity"; quantity: number; ttl: number }
  | { kind: "extend"; pick: number; ttl: number }
  | { kind: "cancel"; pick: number }
  | { kind: "wait"; minutes: number }
  | { kind: "job" };

const ttl = fc.constantFrom(5, 30, 600, 1440);
const step: fc.Arbitrary<Step> = fc.oneof(
  {
    arbitrary: fc.record({
      kind: fc.constant("byNumbers" as const),
      picks: fc.uniqueArray(fc.nat(NUMBERS - 1), { minLength: 1, maxLength: 3 }),
      ttl,
    }),
    weight: 3,
  },
  {
    arbitrary: fc.record({ kind: fc.constant("byQuantity" as const), quantity: fc.integer({ min: 1, max: 3 }), ttl }),
    weight: 3,
  },
  { arbitrary: fc.record({ kind: fc.constant("extend" as const), pick: fc.nat(), ttl }), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant("cancel" as const), pick: fc.nat() }), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant("wait" as const), minutes: fc.constantFrom(1, 5, 29, 60, 700) }), weight: 3 },
  { arbitrary: fc.constant({ kind: "job" as const }), weight: 1 },
);

/** Takes these numbers for a new reservation, as the batch would. */
function take(model: Model, id: string, phones: string[], expiresAt: number): void {
  model.reservations.push({ id, status: "active", expiresAt, createdAt: model.now });
  for (const phone of phones) model.stock.set(phone, { status: "reserved", holder: id, heldUntil: expiresAt });
}

/** A reservation's end (cancel, expiry): its numbers still naming it are available again. */
function end(model: Model, r: ModelReservation, status: "cancelled" | "expired"): void {
  r.status = status;
  for (const [phone, s] of model.stock) {
    if (s.holder === r.id && s.status === "reserved")
      model.stock.set(phone, { status: "available", holder: null, heldUntil: null });
  }
}

async function run(customer: TestCustomer, type: string, phones: string[], steps: Step[]): Promise<void> {
  const model: Model = {
    now: Date.now(),
    reservations: [],
    stock: new Map(phones.map((p) => [p, { status: "available", holder: null, heldUntil: null }])),
  };
  vi.setSystemTime(model.now);
  const base = `/api/customers/${customer.slug}/reservations`;
  for (const [index, s] of steps.entries()) {
    const label = `step ${index}: ${JSON.stringify(s)}`;
    const target =
      model.reservations.length === 0
        ? undefined
        : model.reservations[(s as { pick?: number }).pick! % model.reservations.length];
    switch (s.kind) {
      case "byNumbers":
      case "byQuantity": {
        const free = phones.filter((p) => takeable(model.stock.get(p)!, model.now));
        const body =
          s.kind === "byNumbers"
            ? { phone_numbers: s.picks.map((i) => phones[i]), ttl_minutes: s.ttl }
            : { country_code: "US", number_type: type, quantity: s.quantity, ttl_minutes: s.ttl };
        const wanted = s.kind === "byNumbers" ? s.picks.map((i) => phones[i]!) : free.slice(0, s.quantity);
        const fits = s.kind === "byNumbers" ? wanted.every((p) => free.includes(p)) : free.length >= s.quantity;
        const answer = await customer.callJson("POST", base, body);
        if (!fits) {
          const refused = await bodyOf<{ code: string }>(answer, 409);
          expect(refused.code, label).toBe(s.kind === "byNumbers" ? "numbers_unavailable" : "insufficient_stock");
          break;
        }
        const created = await bodyOf<{ id: string; phone_numbers: string[] }>(answer, 201);
        expect(created.phone_numbers, label).toEqual([...wanted].sort());
        take(model, created.id, wanted, model.now + s.ttl * MINUTE);
        break;
      }
      case "extend": {
        if (!target) break;
        const answer = await customer.callJson("POST", `${base}/${target.id}/extend`, { ttl_minutes: s.ttl });
        const expiresAt = model.now + s.ttl * MINUTE;
        if (statusAt(target, model.now) !== "active") {
          expect((await bodyOf<{ code: string }>(answer, 409)).code, label).toBe("reservation_not_active");
        } else if (expiresAt > target.createdAt + 24 * 60 * MINUTE) {
          expect((await bodyOf<{ code: string }>(answer, 400)).code, label).toBe("validation_error");
        } else {
          await bodyOf(answer, 200);
          target.expiresAt = expiresAt;
          for (const st of model.stock.values())
            if (st.holder === target.id && st.status === "reserved") st.heldUntil = expiresAt;
        }
        break;
      }
      case "cancel": {
        if (!target) break;
        const answer = await customer.call(`${base}/${target.id}`, { method: "DELETE" });
        if (statusAt(target, model.now) !== "active") {
          expect((await bodyOf<{ code: string }>(answer, 409)).code, label).toBe("reservation_not_active");
        } else {
          await bodyOf(answer, 200);
          end(model, target, "cancelled");
        }
        break;
      }
      case "wait":
        model.now += s.minutes * MINUTE;
        vi.setSystemTime(model.now);
        break;
      case "job":
        await expireReservations(createDatabase(env.DB), env.WEBHOOK_DELIVERIES, model.now);
        for (const r of model.reservations) if (r.status === "active" && r.expiresAt <= model.now) end(model, r, "expired");
        break;
    }
    await expectAgreement(customer, phones, model, label);
  }
}

async function expectAgreement(customer: TestCustomer, phones: string[], model: Model, label: string): Promise<void> {
  const page = await bodyOf<{ data: { id: string; status: string; expires_at: string }[] }>(
    await customer.call(`/api/customers/${customer.slug}/reservations?limit=100`),
  );
  const actual = new Map(page.data.map((r) => [r.id, [r.status, r.expires_at]]));
  const expected = new Map(model.reservations.map((r) => [r.id, [statusAt(r, model.now), new Date(r.expiresAt).toISOString()]]));
  expect(actual, label).toEqual(expected);
  const { results } = await env.DB.prepare(
    "SELECT phone_number, status, reservation_id, held_until FROM stock_numbers WHERE phone_number IN (SELECT value FROM json_each(?))",
  )
    .bind(JSON.stringify(phones))
    .all<{ phone_number: string; status: string; reservation_id: string | null; held_until: number | null }>();
  const stock = new Map(
    results.map((r) => [r.phone_number, [r.status, r.reservation_id && `res_${r.reservation_id}`, r.held_until]]),
  );
  expect(stock, label).toEqual(new Map([...model.stock].map(([p, s]) => [p, [s.status, s.holder, s.heldUntil]])));
}

describe("reservations against a model", () => {
  it("agree after every step of random runs", async () => {
    vi.useFakeTimers({ now: Date.now(), toFake: ["Date"] });
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 6, maxLength: 16 }), async (steps) => {
        vi.setSystemTime(Date.now());
        const customer = await createCustomer("res-model");
        const type = uniqueNumberType();
        await makeOrderable("US", type);
        const phones = Array.from({ length: NUMBERS }, uniquePhoneNumber).sort();
        await json(
          await operator.admin.stock.$post({
            json: { numbers: phones.map((phone_number) => ({ phone_number, country_code: "US", number_type: type })) },
          }),
          201,
        );
        await run(customer, type, phones, steps);
      }),
      { numRuns: 10 },
    );
  });
});
