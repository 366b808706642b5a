// The operator's console in a browser: signing in by the console's link (as Cloudflare Access would sign a person in)
// lands on the console's home, an identity card: the person, their role and what it may change, and what awaits the
// staff (open orders, reviews, pairs short of stock), each leading to its queue; at 1280 and 375 px.
import { expect, it } from "vitest";
import { json, overflow, usePortal } from "./helpers.ts";

const portal = usePortal();

it("signs a staff member in by link: the home names them, what their role may change, and what awaits", async () => {
  // A pair of this test's own with an open order and no stock: short.
  const type = `home_${crypto.randomUUID().slice(0, 8)}`;
  await portal.makeOrderable("FR", type);
  const account = await portal.createAccount("home");
  const order = await json(
    await account.api.orders.$post({
      param: { customer_slug: account.slug },
      json: { number_type: type, country_code: "FR", quantity: 2 },
    }),
    201,
  );

  const { page, email } = await portal.signInToConsole("fulfilment");
  expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("Signed in as Sam Fulfilment");
  expect(await page.locator("dl.facts").textContent()).toContain(email);
  expect(await page.getByRole("listitem").allTextContents()).toContain(
    "You may allocate numbers to orders, listed or from the stock.",
  );
  const orders = page.getByRole("region", { name: "Open orders" });
  expect(Number(await orders.locator(".count").textContent())).toBeGreaterThan(0);
  expect(await orders.textContent()).toMatch(/\d+ pending, \d+ processing\. The oldest pending order waits for /);
  expect(await page.getByRole("region", { name: "Reviews awaiting" }).locator(".count").textContent()).toMatch(/^\d+$/);
  await portal.screenshot(page, "console-home");
  await page.setViewportSize({ width: 375, height: 800 });
  expect(await overflow(page)).toBe(0);
  await page.setViewportSize({ width: 1280, height: 800 });

  // The short pair leads to its open orders in the queue.
  const short = page
    .getByRole("list", { name: "Pairs short of stock" })
    .getByRole("listitem")
    .filter({ hasText: `FR ${type.replace("_", " ")}` });
  expect(await short.textContent()).toContain("1 open order, 0 in stock");
  await short.getByRole("link").click();
  await page.waitForURL((url) => url.pathname === "/ops/queue" && url.searchParams.get("number_type") === type);
  expect(await page.getByRole("table", { name: "Orders" }).textContent()).toContain(order.order_number);
});
