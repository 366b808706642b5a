import { env } from "cloudflare:workers";
import { expect, it } from "vitest";
import { openRequestSession } from "../src/db/session.ts";
import { DAY_MS } from "../src/lib/time.ts";
import { returnNumbersToStock } from "../src/stock/returns.ts";
import { bodyOf, call, createCustomer, json, makeOrderable, uniqueNumberType } from "./helpers.ts";
import { TEST_ADMIN_TOKEN } from "./constants.ts";

it("job over 100,000 released numbers", { timeout: 600_000 }, async () => {
  const type = uniqueNumberType();
  await makeOrderable("US", type);
  const customer = await createCustomer("bench");
  const order = await json(await customer.account.orders.$post({ param: { customer_slug: customer.slug }, json: { number_type: type, country_code: "US", quantity: 1 } }), 201);
  const row = await env.DB.prepare("SELECT id, customer_id FROM orders ORDER BY created_at DESC LIMIT 1").first<{ id: string; customer_id: string }>();
  const released = Date.now() - 20 * DAY_MS;
  for (let start = 0; start < 100_000; start += 10_000) {
    await env.DB.prepare(`WITH RECURSIVE seq(i) AS (SELECT ?1 UNION ALL SELECT i + 1 FROM seq WHERE i < ?1 + 9999)
      INSERT INTO numbers (id, customer_id, order_id, phone_number, country_code, number_type, status, created_at, updated_at, released_at, restorable_until, release_reason)
      SELECT lower(hex(randomblob(16))), ?2, ?3, '+1999' || printf('%07d', i), 'US', ?4, 'released', ?5, ?5, ?5, ?5 + 864000000, 'customer' FROM seq`)
      .bind(start, row!.customer_id, row!.id, type, released).run();
  }
  const t0 = performance.now();
  const report = await returnNumbersToStock(openRequestSession(env.DB, "POST"), Date.now());
  console.log("BENCH", JSON.stringify({ ...report, wallMs: performance.now() - t0 }));
  const due = Date.now() + 100 * DAY_MS;
  const again = await returnNumbersToStock(openRequestSession(env.DB, "POST"), due);
  console.log("BENCH2", JSON.stringify(again));
  expect(report.closed).toBeGreaterThanOrEqual(100_000);
  void bodyOf; void call; void TEST_ADMIN_TOKEN; void order;
});
