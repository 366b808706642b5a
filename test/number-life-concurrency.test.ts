// A number's moves under concurrency (LIFECYCLE.md): the account's releases and restores, the operator's suspends,
// releases and resumes, attaches of the same numbers to a profile and explicit allocations of their phone numbers, all
// at once, a few rounds in a seeded order. Whatever order they ran in: one unclosed tenure per phone number, never a
// phone number both in stock and held, no released number attached to a profile, each number's kyc_profile_id its
// attachment, and every report's count is the rows the move changed (one audit event each) and the numbers its events
// name.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { seededRandom } from "../src/lib/seeded-random.ts";
import { TEST_ADMIN_TOKEN } from "./constants.ts";
import { allocateNumbers, bodyOf, callJson, createCustomer, INDIVIDUAL_ADDRESS, makeOrderable } from "./helpers.ts";

const ADMIN = { Authorization: `Bearer ${TEST_ADMIN_TOKEN}` };
const SEED = 0x11fe_2027;
const ROUNDS = 3;
const NUMBERS = 8;

/** A random subset of `items` (at least one). */
function someOf<T>(items: readonly T[], random: () => number): T[] {
  const picked = items.filter(() => random() < 0.5);
  return picked.length > 0 ? picked : [items[Math.floor(random() * items.length)]!];
}

async function rows<T>(query: string, ...params: unknown[]): Promise<T[]> {
  return (
    await env.DB.prepare(query)
      .bind(...params)
      .all<T>()
  ).results;
}

/** The move counted in a report, and the audit action and event type it records. */
const MOVES = {
  released: "number.released",
  restored: "number.restored",
  suspended: "number.suspended",
  resumed: "number.resumed",
} as const;
type Counted = keyof typeof MOVES;

describe("a number's moves at once", () => {
  it("keep every invariant, and reports match rows changed, audit events and events", async () => {
    const random = seededRandom(SEED);
    const customer = await createCustomer("life-race");
    const numbers = await allocateNumbers(customer, NUMBERS);
    const ids = numbers.map((n) => n.number_id);
    const phones = numbers.map((n) => n.phone_number);
    const profile = await bodyOf<{ id: string }>(
      await customer.callJson("POST", `/api/customers/${customer.slug}/kyc-profiles`, { name: "Race", ...INDIVIDUAL_ADDRESS }),
      201,
    );
    await makeOrderable("US", "mobile");
    const reported: Record<Counted, number> = { released: 0, restored: 0, suspended: 0, resumed: 0 };
    const count = (counted: Counted) => (body: Record<string, unknown>) => {
      reported[counted] += body[counted] as number;
    };

    for (let round = 0; round < ROUNDS; round++) {
      const order = await bodyOf<{ order_id: string }>(
        await customer.callJson("POST", `/api/customers/${customer.slug}/orders`, {
          number_type: "mobile",
          country_code: "US",
          quantity: 2,
        }),
        201,
      );
      const customerPath = (p: string) => `/api/customers/${customer.slug}/${p}`;
      const requests: [Promise<Response>, number[], ((body: Record<string, unknown>) => void) | undefined][] = [
        [
          customer.callJson("POST", customerPath("numbers/release"), { number_ids: someOf(ids, random) }),
          [200],
          count("released"),
        ],
        [
          customer.callJson("POST", customerPath("numbers/release"), { number_ids: someOf(ids, random) }),
          [200],
          count("released"),
        ],
        [
          customer.callJson("POST", customerPath("numbers/restore"), { number_ids: someOf(ids, random) }),
          [200],
          count("restored"),
        ],
        [
          callJson("POST", "/admin/numbers/suspend", { number_ids: someOf(ids, random), reason: "abuse" }, ADMIN),
          [200],
          count("suspended"),
        ],
        [callJson("POST", "/admin/numbers/resume", { number_ids: someOf(ids, random) }, ADMIN), [200], count("resumed")],
        [callJson("POST", "/admin/numbers/release", { number_ids: someOf(ids, random) }, ADMIN), [200], count("released")],
        [callJson("POST", "/admin/numbers/restore", { number_ids: someOf(ids, random) }, ADMIN), [200], count("restored")],
        [
          customer.callJson("POST", customerPath(`kyc-profiles/${profile.id}/numbers`), { number_ids: someOf(ids, random) }),
          [200],
          undefined,
        ],
        // Held by their tenures (released ones too): refused.
        [
          callJson(
            "POST",
            `/admin/orders/${order.order_id}/numbers`,
            { phone_numbers: someOf(phones, random).slice(0, 2) },
            ADMIN,
          ),
          [409],
          undefined,
        ],
      ];
      const answers = await Promise.all(requests.map(([response]) => response));
      for (const [i, response] of answers.entries()) {
        const [, statuses, counted] = requests[i]!;
        const text = await response.text();
        expect(statuses, text).toContain(response.status);
        if (counted) counted(JSON.parse(text) as Record<string, unknown>);
      }

      const placeholders = ids.map(() => "?").join(", ");
      const phonePlaceholders = phones.map(() => "?").join(", ");
      // One unclosed tenure per phone number; none of them in stock.
      expect(
        await rows(
          `SELECT phone_number FROM numbers WHERE closed_at IS NULL AND phone_number IN (${phonePlaceholders}) GROUP BY phone_number HAVING count(*) > 1`,
          ...phones,
        ),
      ).toEqual([]);
      expect(
        await rows(`SELECT phone_number FROM stock_numbers WHERE phone_number IN (${phonePlaceholders})`, ...phones),
      ).toEqual([]);
      // No released number attached; kyc_profile_id is the attachment.
      expect(
        await rows(
          `SELECT 'released but attached' AS what, n.id, n.status FROM numbers n JOIN kyc_profile_numbers a ON a.number_id = n.id WHERE n.status = 'released' AND n.id IN (${placeholders})`,
          ...ids,
        ),
      ).toEqual([]);
      expect(
        await rows(
          `SELECT 'kyc_profile_id is not the attachment' AS what, n.id, n.kyc_profile_id, a.profile_id FROM numbers n LEFT JOIN kyc_profile_numbers a ON a.number_id = n.id
           WHERE n.id IN (${placeholders}) AND n.kyc_profile_id IS NOT a.profile_id`,
          ...ids,
        ),
      ).toEqual([]);
      // Release fields follow the status.
      expect(
        await rows(
          `SELECT id, status, released_at, suspended_at, release_reason FROM numbers WHERE id IN (${placeholders}) AND ((status = 'released') <> (released_at IS NOT NULL)
             OR (status = 'suspended') AND suspended_at IS NULL)`,
          ...ids,
        ),
      ).toEqual([]);
      for (const [counted, action] of Object.entries(MOVES) as [Counted, string][]) {
        const [audits] = await rows<{ n: number }>(
          "SELECT count(*) AS n FROM audit_events WHERE customer_id = ? AND action = ?",
          customer.customerId,
          action,
        );
        const [inEvents] = await rows<{ n: number }>(
          "SELECT coalesce(sum(json_array_length(data, '$.numbers')), 0) AS n FROM events WHERE customer_id = ? AND type = ?",
          customer.customerId,
          action,
        );
        expect({ counted, audits: audits?.n, inEvents: inEvents?.n }).toEqual({
          counted,
          audits: reported[counted],
          inEvents: reported[counted],
        });
      }
    }
  });
});
