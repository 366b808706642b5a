import { expect, it } from "vitest";
import { call, createCustomer, json, makeOrderable } from "./helpers.ts";

it("creates an order", async () => {
  await makeOrderable("US", "mobile");
  const customer = await createCustomer();
  const order = await json(await customer.call("POST", `/api/customers/${customer.slug}/orders`, { number_type: "mobile", country_code: "US", quantity: 5 }), 201);
  expect(order.order_number).toMatch(/^#\d{6}$/);
  const health = await json(await call("/healthz"), 200);
  expect(health).toEqual({ status: "ok" });
});
