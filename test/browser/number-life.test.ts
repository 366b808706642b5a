// Giving numbers back by hand, in a real browser at 1280 and 375 px wide: the list filtered, numbers selected and
// released after the preview, the restore deadline in the list, a restore, tags on every number the filters match,
// and the export's CSV downloaded; the API shows each change.
import { readFile } from "node:fs/promises";
import { expect, it } from "vitest";
import { cutAtBothWidths, json, overflow, usePortal } from "./helpers.ts";

const portal = usePortal();

it.each([1280, 375])("releases after the preview, restores, tags and exports numbers at %i px", async (width) => {
  await portal.makeOrderable("US", "mobile");
  const { page, account } = await portal.signInAsNewUser("member");
  await page.setViewportSize({ width, height: 900 });
  const order = await json(
    await account.api.orders.$post({
      param: { customer_slug: account.slug },
      json: { number_type: "mobile", country_code: "US", quantity: 3 },
    }),
    201,
  );
  const [first, second] = await portal.allocateNumbers(order.order_id, 3);
  const statusOf = async (numberId: string) =>
    (
      await json(
        await account.api.numbers[":number_id"].$get({ param: { customer_slug: account.slug, number_id: numberId } }),
        200,
      )
    ).status;

  await page.goto(`${portal.base}/portal/numbers`);
  // Narrow screens fold the filters away.
  const folded = page.locator("summary", { hasText: "Filters" });
  if (await folded.isVisible()) await folded.click();
  await page.getByLabel("Order", { exact: true }).selectOption(order.order_id);
  await page.getByRole("button", { name: "Apply" }).click();
  await page.waitForURL(`${portal.base}/portal/numbers?order_id=${order.order_id}`);

  await page.getByLabel(`Select ${first!.phone}`).check();
  await page.getByLabel(`Select ${second!.phone}`).check();
  await page.getByRole("button", { name: "Release…" }).click();
  await page.waitForURL(/\/portal\/numbers\/release\/preview\?order_id=/);
  expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("Release 2 numbers?");
  expect(await overflow(page)).toBe(0);
  if (width === 1280) await portal.screenshot(page, "release-preview");
  expect(await statusOf(first!.numberId)).toBe("active");
  await page.getByRole("button", { name: "Confirm: release 2 numbers" }).click();
  await page.waitForURL(`${portal.base}/portal/numbers?order_id=${order.order_id}`);
  expect(await page.getByRole("region", { name: "Release report" }).textContent()).toContain("Released (2)");
  expect(await statusOf(first!.numberId)).toBe("released");
  expect(await page.getByRole("row", { name: new RegExp(`Select \\${first!.phone}`) }).textContent()).toMatch(/restorable until/);
  expect(await cutAtBothWidths(page)).toEqual({ 1280: [], 375: [] });
  if (width === 1280) await portal.screenshot(page, "numbers-released");

  await page.getByLabel(`Select ${first!.phone}`).check();
  await page.getByRole("button", { name: "Restore", exact: true }).click();
  await page.waitForURL(`${portal.base}/portal/numbers?order_id=${order.order_id}`);
  expect(await page.getByRole("region", { name: "Restore report" }).textContent()).toContain("Restored (1)");
  expect(await statusOf(first!.numberId)).toBe("active");

  await page.getByLabel("Every number the filters match").check();
  await page.getByLabel("Tags to add or remove").fill("vip");
  await page.getByRole("button", { name: "Add tags" }).click();
  await page.waitForURL(`${portal.base}/portal/numbers?order_id=${order.order_id}`);
  const tagReport = await page.getByRole("region", { name: "Tags report" }).textContent();
  expect(tagReport).toContain("Tags changed (2)");
  expect(tagReport).toContain("Released: restore it before changing its tags (1)");

  const [download] = await Promise.all([
    page.waitForEvent("download"),
    page.getByRole("link", { name: "Export these numbers (CSV)" }).click(),
  ]);
  expect(download.suggestedFilename()).toMatch(new RegExp(`^numbers-${account.slug}-\\d{4}-\\d{2}-\\d{2}\\.csv$`));
  const csv = await readFile((await download.path())!, "utf8");
  expect(csv.split("\r\n")[0]).toMatch(/^number_id,phone_number,/);
  expect(csv).toContain(first!.phone);
  expect(csv.trimEnd().split("\r\n")).toHaveLength(4);

  // The number's own page: its state and the form of its details.
  await page.getByRole("table", { name: "Numbers" }).getByRole("link", { name: second!.phone }).click();
  await page.waitForURL(`${portal.base}/portal/numbers/${second!.numberId}`);
  expect(await page.getByRole("region", { name: "The number" }).textContent()).toContain("Restorable until");
  expect(await overflow(page)).toBe(0);
  if (width === 1280) await portal.screenshot(page, "number-released");
});
