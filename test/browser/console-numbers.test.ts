// The console's numbers in a real browser, at 1280 and 375 px: a fulfilment member finds a number by its start,
// suspends it with a reason, sees the suspension in its history and resumes it; an admin force-releases a protected
// number; a viewer is shown no form.
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

/** A new account holding one number (allocated by the operator's API). */
async function accountWithNumber(prefix: string) {
  await portal.makeOrderable("US", "mobile");
  const account = await portal.createAccount(prefix);
  const order = await json(
    await account.api.orders.$post({
      param: { customer_slug: account.slug },
      json: { number_type: "mobile", country_code: "US", quantity: 1 },
    }),
    201,
  );
  const allocated = await json(
    await portal.admin.admin.orders[":order_id"].numbers.$post({
      param: { order_id: order.order_id },
      json: { phone_numbers: newPhones("+1415", 1) },
    }),
    201,
  );
  return { account, number: allocated.numbers[0]! };
}

it("lets a fulfilment member find a number, suspend it with a reason, see it in its history and resume it", async () => {
  const { account, number } = await accountWithNumber("suspending");
  const { page } = await portal.signInToConsole("fulfilment");

  await page.goto(`${portal.base}/ops/numbers`);
  await page.getByLabel("Phone number", { exact: true }).fill(number.phone_number);
  await page.getByRole("button", { name: "Apply" }).click();
  await page.waitForURL((url) => url.searchParams.get("search") === number.phone_number);
  const row = page.locator("tbody tr", { hasText: number.phone_number });
  expect(await page.locator("tbody tr").count()).toBe(1);
  expect(await row.textContent()).toContain(account.slug);
  await portal.screenshot(page, "console-numbers");
  await fitsSmallScreens(page);

  await row.getByRole("checkbox", { name: `Choose ${number.phone_number}` }).check();
  await page.getByLabel("Reason for a suspension").selectOption("non_payment");
  await page.getByLabel("Note").fill("Invoice 42 unpaid");
  await page.getByRole("button", { name: "Suspend" }).click();
  expect(await page.getByRole("status").first().textContent()).toContain("1 number suspended.");
  expect(await row.textContent()).toContain("suspended");

  await row.getByRole("link", { name: number.phone_number }).click();
  await page.waitForURL(`${portal.base}/ops/numbers/${number.number_id}`);
  const history = page.locator("table[aria-label='History']");
  expect(await history.textContent()).toContain("Number suspended");
  expect(await history.textContent()).toContain("Invoice 42 unpaid");
  await portal.screenshot(page, "console-number");
  await fitsSmallScreens(page);
  expect(await page.getByRole("button", { name: "Suspend" }).count()).toBe(0);

  await page.getByRole("button", { name: "Resume" }).click();
  await page.waitForURL(`${portal.base}/ops/numbers/${number.number_id}`);
  expect(await page.getByRole("status").first().textContent()).toContain("1 number resumed.");
  expect(await page.locator("table[aria-label='History'] tbody tr").first().textContent()).toContain("Number resumed");
  const seen = await json(
    await account.api.numbers[":number_id"].$get({ param: { customer_slug: account.slug, number_id: number.number_id } }),
    200,
  );
  expect(seen.status).toBe("active");
});

it("lets an admin force the release of a protected number, and shows a viewer no form", async () => {
  const { account, number } = await accountWithNumber("forcing");
  await json(
    await account.api.numbers[":number_id"].$patch({
      param: { customer_slug: account.slug, number_id: number.number_id },
      json: { release_protected: true },
    }),
    200,
  );
  const viewer = await portal.signInToConsole("viewer");
  await viewer.page.goto(`${portal.base}/ops/numbers/${number.number_id}`);
  expect(await viewer.page.locator("main form[method=post]").count()).toBe(0);

  const { page } = await portal.signInToConsole("admin");
  await page.goto(`${portal.base}/ops/numbers/${number.number_id}`);
  await page.getByLabel("Release protected numbers too (force)").check();
  await page.getByLabel("Note").fill("Contract ended");
  await page.getByRole("button", { name: "Release" }).click();
  await page.waitForURL(`${portal.base}/ops/numbers/${number.number_id}`);
  expect(await page.getByRole("status").first().textContent()).toContain("1 number released.");
  expect(await page.getByRole("heading", { level: 1 }).textContent()).toContain("released");
  expect(await page.getByRole("button", { name: "Restore" }).count()).toBe(1);
  await fitsSmallScreens(page);
  const seen = await json(
    await account.api.numbers[":number_id"].$get({ param: { customer_slug: account.slug, number_id: number.number_id } }),
    200,
  );
  expect(seen).toMatchObject({ status: "released", release_reason: "operator" });
});
