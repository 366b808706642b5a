// End to end, through the real queue and the Worker's own consumer: an API call's event reaches the account's
// endpoint as a signed POST that the standardwebhooks package verifies, the delivery log says so, and the body is
// the event the events API lists.
import { Webhook } from "standardwebhooks";
import { describe, expect, it, vi } from "vitest";
import { createCustomer, createWebhookEndpoint, json, makeOrderable, operator } from "./helpers.ts";
import { type ReceivedRequest, receivedRequests } from "./outbound-fetch.ts";

/** The requests the receiver at `url` got, once there are `count` of them. */
async function receivedAt(url: string, count: number): Promise<ReceivedRequest[]> {
  const at = () => receivedRequests.filter((r) => r.url === url);
  await vi.waitUntil(() => at().length >= count, { timeout: 15_000, interval: 50 });
  return at();
}

describe("webhooks, end to end", () => {
  it("an order placed and moved arrives as verified deliveries, logged as succeeded", async () => {
    const customer = await createCustomer("e2e");
    const url = `https://hooks.test/${customer.slug}`;
    const endpoint = await createWebhookEndpoint(customer, { url, event_types: ["order.created", "order.cancelled"] });
    await makeOrderable("US", "mobile");
    const order = await json(
      await customer.account.orders.$post({
        param: { customer_slug: customer.slug },
        json: { number_type: "mobile", country_code: "US", quantity: 2 },
      }),
      201,
    );
    await json(
      await operator.admin.orders[":order_id"].status.$post({
        param: { order_id: order.order_id },
        json: { status: "processing" },
      }),
      200,
    );
    await json(
      await operator.admin.orders[":order_id"].status.$post({
        param: { order_id: order.order_id },
        json: { status: "cancelled" },
      }),
      200,
    );

    // order.processing is not one of the endpoint's types: two deliveries, whatever order they arrive in.
    const received = await receivedAt(url, 2);
    const verifier = new Webhook(endpoint.secret);
    const delivered = received.map((request) => {
      expect(request).toMatchObject({
        method: "POST",
        headers: { "content-type": "application/json", "user-agent": "virtual-numbers-webhooks/1" },
      });
      const headers = {
        "webhook-id": request.headers["webhook-id"]!,
        "webhook-timestamp": request.headers["webhook-timestamp"]!,
        "webhook-signature": request.headers["webhook-signature"]!,
      };
      const event = verifier.verify(request.body, headers) as { id: string; type: string };
      expect(event.id).toBe(headers["webhook-id"]);
      return event;
    });
    expect(delivered.map((e) => e.type).sort()).toEqual(["order.cancelled", "order.created"]);

    // The body is the event as the events API has it.
    const events = await json(await customer.account.events.$get({ param: { customer_slug: customer.slug }, query: {} }), 200);
    for (const event of delivered) expect(events.data).toContainEqual(event);

    const log = customer.account["webhook-endpoints"][":endpoint_id"].deliveries;
    await vi.waitUntil(
      async () => {
        const page = await json(
          await log.$get({ param: { customer_slug: customer.slug, endpoint_id: endpoint.id }, query: {} }),
          200,
        );
        return page.data.every((d) => d.status === "succeeded") && page.data.length === 2;
      },
      { timeout: 15_000, interval: 100 },
    );
    const page = await json(
      await log.$get({ param: { customer_slug: customer.slug, endpoint_id: endpoint.id }, query: {} }),
      200,
    );
    for (const delivery of page.data) {
      expect(delivery).toMatchObject({
        status: "succeeded",
        attempts: 1,
        last_status_code: 204,
        last_error: null,
        next_attempt_at: null,
      });
      expect(delivered.map((e) => e.id)).toContain(delivery.event_id);
    }
  });
});
