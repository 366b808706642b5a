// The console's queue and an order's page, in a real browser: a viewer reads both and is shown no change form, and a
// forged post of the allocation is refused (403) with the order unchanged; a fulfilment member opens an order from
// the queue and allocates from stock in one click (refused, in the use case's words, while the stock is short) until
// the order is fulfilled, which the customer's API and the audit log (with the member's e-mail) then show.
import type { Page } from "playwright-core";
import { expect, it } from "vitest";
import { json, newPhones, overflow, usePortal } from "./helpers.ts";

const portal = usePortal();

/** The page at 375 px wide scrolls nothing sideways. */
async function fitsSmallScreens(page: Page): Promise<void> {
  const viewport = page.viewportSize() ?? { width: 1280, height: 800 };
  await page.setViewportSize({ width: 375, height: viewport.height });
  expect(await overflow(page)).toBe(0);
  await page.setViewportSize(viewport);
}

async function stock(countryCode: string, numberType: string, count: number) {
  const report = await json(
    await portal.admin.admin.stock.$post({
      json: {
        numbers: newPhones("+447700", count).map((phone) => ({
          phone_number: phone,
          country_code: countryCode,
          number_type: numberType,
        })),
      },
    }),
    201,
  );
  expect(report.imported).toBe(count);
}

/** A new account's order of `quantity` numbers of the pair. */
async function placeOrder(prefix: string, countryCode: string, numberType: string, quantity: number) {
  const account = await portal.createAccount(prefix);
  const order = await json(
    await account.api.orders.$post({
      param: { customer_slug: account.slug },
      json: { number_type: numberType, country_code: countryCode, quantity },
    }),
    201,
  );
  return { account, order };
}

it("shows a viewer the queue and an order with no change form, and refuses a forged allocation (403)", async () => {
  await portal.makeOrderable("US", "mobile");
  const { account, order } = await placeOrder("viewing", "US", "mobile", 2);
  // Stock enough for the order: only the role stands between the forged post and an allocation.
  await stock("US", "mobile", 2);
  const { page } = await portal.signInToConsole("viewer");

  // The queue, filtered to the account (the browser files share the Worker: other accounts' orders are older).
  await page.goto(`${portal.base}/ops/queue?customer_slug=${account.slug}`);
  const row = page.locator("tbody tr", { hasText: account.slug });
  expect(await row.textContent()).toContain(order.order_number);
  await row.getByRole("link", { name: order.order_number }).click();
  await page.waitForURL(`${portal.base}/ops/orders/${order.order_id}`);
  expect(await page.getByRole("heading", { level: 1 }).textContent()).toContain(order.order_number);
  expect(await page.locator("main form[method=post]").count()).toBe(0);
  expect(await page.getByRole("button", { name: /Allocate/ }).count()).toBe(0);

  // The forged post: the session's own token (from the sign-out form), this site's Origin; only the role is missing.
  const token = await page.locator("form[action='/ops/sign-out'] input[name=csrf_token]").getAttribute("value");
  expect(token).toBeTruthy();
  // The Access cookie is Secure: the browser sends it to 127.0.0.1, Playwright's request context over http does not.
  const cookie = (await page.context().cookies()).map(({ name, value }) => `${name}=${value}`).join("; ");
  for (const path of ["numbers", "status", "cancel"]) {
    const forged = await page.request.post(`${portal.base}/ops/orders/${order.order_id}/${path}`, {
      form: { csrf_token: token!, from_stock: "2", status: "processing" },
      headers: { Origin: portal.base, Cookie: cookie },
    });
    expect(forged.status()).toBe(403);
    expect(await forged.text()).toContain("This needs the role fulfilment or admin; yours is viewer");
  }
  const after = await json(await portal.admin.admin.orders[":order_id"].$get({ param: { order_id: order.order_id } }), 200);
  expect(after).toMatchObject({ status: "pending", fulfilled_quantity: 0 });
});

it("lets a fulfilment member allocate the rest from stock in one click until the order is fulfilled", async () => {
  // A pair no other browser file stocks (they share the Worker's stock): the refusal counts exactly this test's.
  await portal.makeOrderable("IE", "mobile");
  const { account, order } = await placeOrder("fulfilling", "IE", "mobile", 3);
  // Less than the order needs, at first.
  await stock("IE", "mobile", 2);
  const { page, email } = await portal.signInToConsole("fulfilment");

  await page.goto(`${portal.base}/ops/queue`);
  await portal.screenshot(page, "console-queue");
  await fitsSmallScreens(page);
  await page.goto(`${portal.base}/ops/queue?customer_slug=${account.slug}`);
  const row = page.locator("tbody tr", { hasText: account.slug });
  expect(await row.textContent()).toContain("IE");
  await row.getByRole("link", { name: order.order_number }).click();
  await page.waitForURL(`${portal.base}/ops/orders/${order.order_id}`);
  await portal.screenshot(page, "console-order");
  await fitsSmallScreens(page);

  // The stock is short: the use case's refusal, in its words, with its status, and nothing allocated.
  const allocate = page.getByRole("button", { name: "Allocate the remaining 3 from stock" });
  const [refusal] = await Promise.all([page.waitForResponse((r) => r.request().method() === "POST"), allocate.click()]);
  expect(refusal.status()).toBe(409);
  expect(await page.getByRole("alert").textContent()).toBe(
    "The stock holds 2 numbers of this order's country and type; 3 were asked for",
  );

  await stock("IE", "mobile", 1);
  await page.goto(`${portal.base}/ops/orders/${order.order_id}`);
  await page.getByRole("button", { name: "Allocate the remaining 3 from stock" }).click();
  await page.waitForURL(`${portal.base}/ops/orders/${order.order_id}?done=allocated`);
  expect(await page.getByRole("status").textContent()).toBe("The numbers are allocated to the order.");
  expect(await page.getByRole("heading", { level: 1 }).textContent()).toContain("fulfilled");
  expect(await page.locator("table[aria-label='Numbers'] tbody tr").count()).toBe(3);
  expect(await page.getByRole("button", { name: /Allocate/ }).count()).toBe(0);

  const seen = await json(
    await account.api.orders[":order_id"].$get({ param: { customer_slug: account.slug, order_id: order.order_id } }),
    200,
  );
  expect(seen).toMatchObject({ status: "fulfilled", fulfilled_quantity: 3, quantity: 3 });
  const audit = await json(await portal.admin.admin["audit-events"].$get({ query: { action: "order.numbers_allocated" } }), 200);
  const allocations = audit.data.filter((event) => event.target.id === order.order_id);
  expect(allocations).toHaveLength(1);
  expect(allocations[0]).toMatchObject({
    actor: { type: "staff", email },
    customer_slug: account.slug,
    changes: { fulfilled_quantity: [0, 3], status: ["pending", "fulfilled"] },
  });
});

it("lets a fulfilment member paste numbers, move an order to processing and cancel it after confirming", async () => {
  await portal.makeOrderable("DE", "mobile");
  const { order } = await placeOrder("moving", "DE", "mobile", 3);
  const { page } = await portal.signInToConsole("fulfilment");
  await page.goto(`${portal.base}/ops/orders/${order.order_id}`);

  await page.getByRole("button", { name: "Move to processing" }).click();
  await page.waitForURL(`${portal.base}/ops/orders/${order.order_id}?done=moved`);
  expect(await page.getByRole("heading", { level: 1 }).textContent()).toContain("processing");

  // A malformed number is refused beside the field; a good one is allocated.
  await page.getByLabel("Phone numbers").fill("not a number");
  await page.getByRole("button", { name: "Allocate these numbers" }).click();
  expect(await page.locator(".field-error").first().textContent()).toContain("E.164");
  const phone = newPhones("+447700", 1)[0]!;
  await page.getByLabel("Phone numbers").fill(`${phone}\n`);
  await page.getByRole("button", { name: "Allocate these numbers" }).click();
  await page.waitForURL(`${portal.base}/ops/orders/${order.order_id}?done=allocated`);
  expect(await page.locator("table[aria-label='Numbers']").textContent()).toContain(phone);
  expect(await page.getByRole("button", { name: "Allocate the remaining 2 from stock" }).count()).toBe(1);

  await page.getByRole("link", { name: "Cancel the order…" }).click();
  expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe(`Cancel order ${order.order_number}?`);
  await page.getByRole("button", { name: "Cancel the order" }).click();
  await page.waitForURL(`${portal.base}/ops/orders/${order.order_id}?done=cancelled`);
  const after = await json(await portal.admin.admin.orders[":order_id"].$get({ param: { order_id: order.order_id } }), 200);
  expect(after).toMatchObject({ status: "cancelled", fulfilled_quantity: 1 });
});
