// Properties of Idempotency-Key over generated keys and order bodies (valid and not): a retry replays the first answer
// exactly, another request under the key is a 422, and concurrent requests under one key run once. Each property
// sends at least 1,000 requests; fast-check prints the seed and the shrunk counterexample of a failure.
import { env } from "cloudflare:workers";
import { fc, test } from "@fast-check/vitest";
import { beforeAll, describe, expect } from "vitest";
import { call, createCustomer, type KeyRing, keyRing, makeOrderable, type TestCustomer } from "./helpers.ts";

const VISIBLE_ASCII = fc.integer({ min: 0x21, max: 0x7e }).map((code) => String.fromCharCode(code));
/** An Idempotency-Key: 1-255 visible ASCII characters. */
const keyArbitrary = fc.string({ unit: VISIBLE_ASCII, minLength: 1, maxLength: 200 });

/** Order bodies, most valid, some refused (a quantity out of range, a pair not in the catalog, an unknown field). */
const orderBody = fc.record(
  {
    number_type: fc.constantFrom("mobile", "landline", "toll_free"),
    country_code: fc.constantFrom("US", "GB"),
    quantity: fc.oneof({ arbitrary: fc.integer({ min: 1, max: 10_000 }), weight: 9 }, fc.integer({ min: -5, max: 20_000 })),
    notes: fc.option(fc.string({ unit: "grapheme", maxLength: 40 }), { nil: undefined }),
    surprise: fc.constant(true),
  },
  { requiredKeys: ["number_type", "country_code", "quantity"] },
);

type OrderBody = Record<string, unknown>;

let customer: TestCustomer;
/** The account's keys in turn: about 3,000 requests run here, far past one key's budget a minute. */
let keys: KeyRing;
let run = 0;

beforeAll(async () => {
  await makeOrderable("US", "mobile");
  await makeOrderable("GB", "landline");
  customer = await createCustomer("idem-prop");
  keys = keyRing(customer.slug, customer.key);
});

/** A key no earlier run used: the account is shared by every run. */
function freshKey(key: string): string {
  return `${++run}:${key}`;
}

async function createOrder(key: string, body: OrderBody): Promise<Response> {
  return call(`/api/customers/${customer.slug}/orders`, {
    method: "POST",
    headers: { Authorization: `Bearer ${await keys.next()}`, "Content-Type": "application/json", "Idempotency-Key": key },
    body: JSON.stringify(body),
  });
}

/** The account's orders, counted in D1 directly: the properties' requests are the ones under test. */
async function orderCount(): Promise<number> {
  const row = await env.DB.prepare("SELECT count(*) AS n FROM orders WHERE customer_id = ?")
    .bind(customer.customerId)
    .first<{ n: number }>();
  return row!.n;
}

/**
 * The count a run ended with, when it got that far: the next run's count before, without a query of its own (the runs
 * take turns, and only they order for the account). A run that failed part way leaves none, and the next counts.
 */
let countAfterLastRun: number | undefined;

async function countBefore(): Promise<number> {
  const known = countAfterLastRun;
  countAfterLastRun = undefined;
  return known ?? (await orderCount());
}

async function countAfter(): Promise<number> {
  countAfterLastRun = await orderCount();
  return countAfterLastRun;
}

interface Answer {
  status: number;
  body: string;
  location: string | null;
  contentType: string | null;
  replayed: string | null;
}

async function answerOf(response: Response): Promise<Answer> {
  return {
    status: response.status,
    body: await response.text(),
    location: response.headers.get("Location"),
    contentType: response.headers.get("Content-Type"),
    replayed: response.headers.get("Idempotent-Replayed"),
  };
}

describe("Idempotency-Key properties", () => {
  // 500 runs of two requests.
  test.prop([keyArbitrary, orderBody], { numRuns: 500 })(
    "a retry with the same key and body gets the first answer again, and runs nothing",
    async (key, body) => {
      const unique = freshKey(key);
      const before = await countBefore();
      const first = await answerOf(await createOrder(unique, body));
      const created = first.status === 201 ? 1 : 0;
      const retry = await answerOf(await createOrder(unique, body));
      expect(first.replayed).toBeNull();
      expect(first.status).toBeLessThan(500);
      expect(retry).toEqual({ ...first, replayed: "true" });
      expect(await countAfter()).toBe(before + created);
    },
    120_000,
  );

  // 500 runs of two requests.
  test.prop([keyArbitrary, orderBody, orderBody], { numRuns: 500 })(
    "the same key with another body is 422 idempotency_key_reused and runs nothing",
    async (key, body, other) => {
      fc.pre(JSON.stringify(body) !== JSON.stringify(other));
      const unique = freshKey(key);
      const start = await countBefore();
      const first = await answerOf(await createOrder(unique, body));
      // The first request's order, if it made one (the first property holds that it makes one exactly when 201).
      const before = start + (first.status === 201 ? 1 : 0);
      const reused = await answerOf(await createOrder(unique, other));
      expect(reused.status, first.body).toBe(422);
      expect(JSON.parse(reused.body).code).toBe("idempotency_key_reused");
      expect(await countAfter()).toBe(before);
    },
    120_000,
  );

  // 500 runs of 2-6 concurrent requests: at least 1,000 in all (about 2,000).
  test.prop([keyArbitrary, orderBody, fc.integer({ min: 2, max: 6 })], { numRuns: 500 })(
    "concurrent requests under one key run once: one answer, replayed or in flight for the rest",
    async (key, body, copies) => {
      const unique = freshKey(key);
      const before = await countBefore();
      const answers = await Promise.all(Array.from({ length: copies }, async () => answerOf(await createOrder(unique, body))));
      const ran = answers.filter((a) => a.status !== 409 && a.replayed === null);
      expect(ran).toHaveLength(1);
      for (const answer of answers) {
        if (answer.status === 409) expect(JSON.parse(answer.body).code).toBe("idempotency_key_in_use");
        else expect(answer.body).toBe(ran[0]!.body);
      }
      expect(await countAfter()).toBe(before + (ran[0]!.status === 201 ? 1 : 0));
    },
    120_000,
  );
});
