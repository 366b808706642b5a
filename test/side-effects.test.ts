// A revoked API key never causes a side effect, whatever a handler does first: for a key the isolate knows, the check
// rides with the request's first D1 call, and a handler whose first act is an R2 write or a queue send must wait for
// it. These handlers act before they touch D1, on purpose; the Worker's own handlers keep their one D1 call.
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { buildApp } from "../src/api.ts";
import { customerAudience } from "../src/http/audiences.ts";
import { createCustomer, expectStatus, makeOrderable, ORIGIN, operator, withLogs } from "./helpers.ts";

afterEach(() => {
  vi.restoreAllMocks();
});

/** The API with routes that act before any D1 call: an R2 write, a queue send; each then reads D1 as usual. */
function appActingFirst() {
  const { app } = buildApp((root) => {
    root.route(
      "/test",
      customerAudience()
        .on(["GET", "POST"], "/r2/:key", async (c) => {
          await c.env.DOCUMENTS.put(`probe/${c.req.param("key")}`, "written");
          return c.json({ orders: (await c.var.db.run("SELECT 1")).results.length });
        })
        .on(["GET", "POST"], "/queue/:key", async (c) => {
          await c.env.WEBHOOK_DELIVERIES.send(`probe-${c.req.param("key")}`);
          return c.json({ orders: (await c.var.db.run("SELECT 1")).results.length });
        }),
    );
  });
  return async (method: string, path: string, key: string) => {
    const ctx = createExecutionContext();
    const response = await app.fetch(
      new Request(`${ORIGIN}${path}`, { method, headers: { Authorization: `Bearer ${key}` } }),
      env,
      ctx,
    );
    await waitOnExecutionContext(ctx);
    return response;
  };
}

describe("a revoked key's side effects", () => {
  it.each(["GET", "POST"])("never write R2 or send to the queue, even when a handler acts before D1 (%s)", async (method) => {
    const send = appActingFirst();
    const customer = await createCustomer("effects");
    const sent = vi.spyOn(env.WEBHOOK_DELIVERIES, "send");
    // The isolate learns the key: its next requests check it on their first D1 call.
    const first = crypto.randomUUID();
    await expectStatus(await send(method, `/test/r2/${first}`, customer.key), 200);
    expect(await env.DOCUMENTS.head(`probe/${first}`)).not.toBeNull();
    await expectStatus(await operator.admin["api-keys"][":id"].$delete({ param: { id: customer.keyId } }), 200);

    const afterRevocation = crypto.randomUUID();
    await expectStatus(await send(method, `/test/r2/${afterRevocation}`, customer.key), 401);
    expect(await env.DOCUMENTS.head(`probe/${afterRevocation}`)).toBeNull();
    await expectStatus(await send(method, `/test/queue/${afterRevocation}`, customer.key), 401);
    expect(sent).not.toHaveBeenCalledWith(`probe-${afterRevocation}`);
  });

  it("keep the Worker's own write to one D1 call for a key the isolate knows", async () => {
    const customer = await createCustomer("effects");
    await makeOrderable("US", "mobile");
    const order = () =>
      customer.account.orders.$post({
        param: { customer_slug: customer.slug },
        json: { number_type: "mobile", country_code: "US", quantity: 1 },
      });
    await expectStatus(await order(), 201);
    const { lines, result } = await withLogs(order);
    await expectStatus(result, 201);
    expect(lines.find((line) => line.path === `/api/customers/${customer.slug}/orders`)?.d1_calls).toBe(1);
  });
});
