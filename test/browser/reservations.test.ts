// Finding, reserving and ordering numbers by hand, in a real browser, each page checked at 1280 and 375 px wide: a
// search of a pair, the numbers ticked and held through a profile's review, "Order these", and the console's order
// page with the numbers held for it; a reservation extended from the list's page, then cancelled after its
// confirmation. The API shows each change.
import type { Page } from "playwright-core";
import { expect, it } from "vitest";
import { cutAtBothWidths, json, newPhones, usePortal } from "./helpers.ts";

const portal = usePortal();

/** The page's tables fit, and nothing scrolls sideways, at 1280 and at 375 px; screenshots of both when named. */
async function fits(page: Page, screenshot?: string): Promise<void> {
  expect(await cutAtBothWidths(page)).toEqual({ 1280: [], 375: [] });
  if (screenshot) await portal.screenshot(page, screenshot);
}

/** A pair of its own (US and a new type, orderable) with `count` numbers in stock, in phone order. */
async function stockedPair(count: number) {
  const type = `type_${crypto.randomUUID().slice(0, 8)}`;
  await portal.makeOrderable("US", type);
  const phones = newPhones("+1415", count).sort();
  const numbers = phones.map((phone_number) => ({ phone_number, country_code: "US", number_type: type }));
  expect((await json(await portal.admin.admin.stock.$post({ json: { numbers } }), 201)).imported).toBe(count);
  return { type, phones };
}

it("finds numbers, reserves two through a profile's review, orders them, and the console shows them held", async () => {
  const { type, phones } = await stockedPair(3);
  const { page, account } = await portal.signInAsNewUser("member");
  const profile = await json(
    await account.api["kyc-profiles"].$post({
      param: { customer_slug: account.slug },
      json: {
        name: "Austin office",
        verification_type: "individual",
        address_line_1: "1 Congress Ave",
        city: "Austin",
        state_province: "TX",
        postal_code: "78701",
        country: "US",
      },
    }),
    201,
  );

  await page.getByRole("link", { name: "Find numbers" }).click();
  await page.getByLabel("Country and type").selectOption(`US/${type}`);
  await page.getByRole("button", { name: "Search" }).click();
  await page.waitForURL(/\/portal\/find-numbers\?pair=/);
  await page.getByLabel(`Select ${phones[0]}`).check();
  await page.getByLabel(`Select ${phones[2]}`).check();
  await page.getByLabel("Hold for profile").selectOption(profile.id);
  await fits(page, "find-numbers");
  await page.getByRole("button", { name: "Reserve the numbers selected" }).click();
  await page.waitForURL(/\/portal\/reservations\/res_[0-9a-f-]+\?done=reserved$/);
  expect(await page.getByRole("status").textContent()).toBe("The numbers are reserved for you.");
  expect(await page.locator(".facts").textContent()).toContain("held through Austin office's review");
  expect(await page.getByRole("button", { name: "Extend" }).count()).toBe(0);
  await fits(page, "reservation");

  await page.getByLabel("Notes").fill("For the Austin office");
  await page.getByRole("button", { name: "Order these" }).click();
  await page.waitForURL(/\/portal\/orders\/[0-9a-f-]+\?done=placed$/);
  const orderId = new URL(page.url()).pathname.split("/").pop()!;
  const order = await json(
    await account.api.orders[":order_id"].$get({ param: { customer_slug: account.slug, order_id: orderId } }),
    200,
  );
  expect(order).toMatchObject({ quantity: 2, kyc_profile_id: profile.id, notes: "For the Austin office" });

  const { page: staff } = await portal.signInToConsole("fulfilment");
  await staff.goto(`${portal.base}/ops/orders/${orderId}`);
  const held = staff.getByRole("table", { name: "Numbers held for the order" });
  expect(await held.getByRole("link").allTextContents()).toEqual([phones[0], phones[2]]);
  await fits(staff, "console-order-reserved");
  await held.getByRole("link", { name: phones[0] }).click();
  await staff.waitForURL(/\/ops\/stock\?search=/);
  expect(await staff.getByRole("table", { name: "Stocked numbers" }).textContent()).toContain(
    `held for order ${order.order_number}`,
  );
  await fits(staff, "console-stock-held");
});

it("extends a reservation from its page and cancels it after the confirmation", async () => {
  const { type, phones } = await stockedPair(1);
  const { page, account } = await portal.signInAsNewUser("member");
  const reservation = await json(
    await account.api.reservations.$post({
      param: { customer_slug: account.slug },
      json: { country_code: "US", number_type: type, quantity: 1 },
    }),
    201,
  );
  await page.getByRole("link", { name: "Reservations" }).click();
  // The click only starts the navigation: measured before it lands, the page may have no document yet.
  await page.waitForURL(`${portal.base}/portal/reservations`);
  await fits(page, "reservations");
  await page.getByRole("table", { name: "Reservations" }).getByRole("link").click();
  await page.getByLabel("Hold for").selectOption("240");
  await page.getByRole("button", { name: "Extend" }).click();
  await page.waitForURL(/\?done=extended$/);
  const read = async () =>
    json(
      await account.api.reservations[":reservation_id"].$get({
        param: { customer_slug: account.slug, reservation_id: reservation.id },
      }),
      200,
    );
  expect(Date.parse((await read()).expires_at)).toBeGreaterThan(Date.parse(reservation.expires_at) + 200 * 60_000);

  await page.getByRole("link", { name: "Cancel the reservation…" }).click();
  await page.getByRole("button", { name: "Cancel the reservation" }).click();
  await page.waitForURL(/\?done=cancelled$/);
  expect(await read()).toMatchObject({ status: "cancelled", phone_numbers: phones });
  expect(await page.getByRole("link", { name: "Cancel the reservation…" }).count()).toBe(0);
});
