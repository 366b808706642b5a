// A customer's day, at 1280 and 375 px: an order's numbers on its page and in Numbers filtered by it, a pending order
// cancelled after its confirmation, the filters chosen (countries by name) with a tidy address, the Activity read by
// names, the webhooks' event types following "Deliver", and no table with a column cut at either width (long names
// wrap), the console's review queue and audit log included.
import { expect, it } from "vitest";
import { cutAtBothWidths, json, LONG_BUSINESS_ADDRESS, PDF, splitTimes, usePortal } from "./helpers.ts";

const portal = usePortal();

const NO_CUT = { 1280: [], 375: [] };

it("shows an order's numbers, filters Numbers by it and by country, and cancels a pending order after confirming", async () => {
  await portal.makeOrderable("US", "mobile");
  const { page, account } = await portal.signInAsNewOwner();
  const place = async (quantity: number) =>
    json(
      await account.api.orders.$post({
        param: { customer_slug: account.slug },
        json: { number_type: "mobile", country_code: "US", quantity },
      }),
      201,
    );
  const fulfilled = await place(2);
  const numbers = await portal.allocateNumbers(fulfilled.order_id, 2);

  // The order's page lists its numbers, each linking to its own page, and all of them in Numbers.
  await page.goto(`${portal.base}/portal/orders/${fulfilled.order_id}`);
  const listed = page.getByRole("table", { name: "Numbers of the order" });
  for (const number of numbers) {
    expect(await listed.getByRole("link", { name: number.phone }).getAttribute("href")).toBe(
      `/portal/numbers/${number.numberId}`,
    );
  }
  expect(await page.getByRole("link", { name: "Cancel the order…" }).count()).toBe(0);
  expect(await cutAtBothWidths(page)).toEqual(NO_CUT);
  await portal.screenshot(page, "order-numbers");
  await page.getByRole("link", { name: "These numbers in Numbers" }).click();
  await page.waitForURL(`${portal.base}/portal/numbers?order_id=${fulfilled.order_id}`);
  expect(await page.getByRole("table", { name: "Numbers" }).locator("tbody tr").count()).toBe(2);
  expect(await page.getByLabel("Order", { exact: true }).inputValue()).toBe(fulfilled.order_id);

  // The filters choose countries by name, and the address carries only what is chosen.
  await page.goto(`${portal.base}/portal/orders`);
  const countries = page.getByRole("group", { name: "Countries" });
  expect(await countries.locator("summary").textContent()).toBe("Any");
  await countries.locator("summary").click();
  await page.getByLabel("United States (US)").check();
  await page.getByRole("button", { name: "Apply" }).click();
  await page.waitForURL((url) => url.search === "?country_code=US");
  expect(await countries.locator("summary").textContent()).toBe("United States (US)");
  expect(await page.getByRole("table", { name: "Orders" }).getByRole("link", { name: fulfilled.order_number }).count()).toBe(1);
  await portal.screenshot(page, "orders-filtered");

  // A pending order is cancelled after its confirmation; the API then answers it cancelled.
  const pending = await place(5);
  await page.goto(`${portal.base}/portal/orders/${pending.order_id}`);
  await page.getByRole("link", { name: "Cancel the order…" }).click();
  expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe(`Cancel order ${pending.order_number}?`);
  expect(await cutAtBothWidths(page)).toEqual(NO_CUT);
  await portal.screenshot(page, "order-cancel");
  await page.getByRole("button", { name: "Cancel the order" }).click();
  await page.waitForURL(`${portal.base}/portal/orders/${pending.order_id}?done=cancelled`);
  expect(await page.getByRole("status").textContent()).toBe("The order is cancelled.");
  expect(await page.getByRole("link", { name: "Cancel the order…" }).count()).toBe(0);
  const answer = await json(
    await account.api.orders[":order_id"].$get({ param: { customer_slug: account.slug, order_id: pending.order_id } }),
    200,
  );
  expect(answer.status).toBe("cancelled");
});

it("fits every table at 1280 and 375 px with long names, reads the Activity by names, and ties event types to Deliver", async () => {
  await portal.makeOrderable("US", "mobile");
  const { page, account, user } = await portal.signInAsNewOwner();
  const longName = "Acme International Telecommunications Holdings, Friedrichstraße Regional Office Berlin";
  const headers = { Authorization: `Bearer ${account.key}` };
  const created = await fetch(`${portal.base}/api/customers/${account.slug}/kyc-profiles`, {
    method: "POST",
    headers: { ...headers, "Content-Type": "application/json" },
    body: JSON.stringify({ name: longName, ...LONG_BUSINESS_ADDRESS }),
  });
  const profileId = ((await created.json()) as { id: string }).id;
  const form = new FormData();
  form.set("file", new File([PDF], "a-rather-long-file-name-of-a-scanned-certificate-of-incorporation-2026.pdf"));
  form.set("document_type", "business_registration");
  const uploaded = await fetch(`${portal.base}/api/customers/${account.slug}/kyc-profiles/${profileId}/files`, {
    method: "POST",
    headers,
    body: form,
  });
  const documentId = ((await uploaded.json()) as { id: string }).id;
  await portal.rejectProfile(profileId, {
    reason: "The certificate is not legible enough to read the registration number",
    documentId,
    note: "The lower third of every page is cut off",
  });
  await json(
    await account.api["webhook-endpoints"].$post({
      param: { customer_slug: account.slug },
      json: { url: `https://hooks.example.com/${"a-very-long-path-segment/".repeat(5)}receiver`, description: longName },
    }),
    201,
  );

  // The rejected document's Delete stays on screen beside its reasons, at both widths.
  await page.goto(`${portal.base}/portal/profiles/${profileId}`);
  const documentRow = page.getByRole("table", { name: "Documents" }).locator("tbody tr");
  expect(await documentRow.getByRole("link", { name: /^Delete a-rather-long/ }).count()).toBe(1);
  expect(await cutAtBothWidths(page)).toEqual(NO_CUT);

  // The Activity reads by names and in words, a change a line, and fits.
  await page.goto(`${portal.base}/portal/settings/activity`);
  const activity = page.getByRole("table", { name: "Activity" });
  const endpointCreated = activity.locator("tbody tr", { hasText: "Webhook endpoint created" });
  expect(await endpointCreated.locator('td[data-label="Who"]').textContent()).toBe("API key “browser test”");
  expect(await endpointCreated.locator('td[data-label="Changes"] li').allTextContents()).toContain(
    "Event types: every event type",
  );
  expect(await activity.textContent()).toContain(`User ${user.name} (${user.email})`);
  expect(await activity.textContent()).not.toMatch(/Api key|Kyc|\["\*"\]|user [0-9a-f]{8}/);
  expect(await cutAtBothWidths(page)).toEqual(NO_CUT);
  // A time stays on one line beside long changes.
  expect(await splitTimes(page)).toEqual([]);
  await portal.screenshot(page, "activity");

  // Webhooks: the event types in words follow "Deliver" (disabled while every type is chosen), and the tables fit.
  await page.goto(`${portal.base}/portal/settings/webhooks`);
  const cancelled = page.getByLabel(/^An order is cancelled/);
  expect(await cancelled.isDisabled()).toBe(true);
  await page.getByLabel("Only the types ticked below").check();
  expect(await cancelled.isDisabled()).toBe(false);
  await cancelled.check();
  await page.getByLabel("Every event type, also types added later").check();
  expect(await cancelled.isDisabled()).toBe(true);
  expect(await cutAtBothWidths(page)).toEqual(NO_CUT);
  await page.getByLabel("Only the types ticked below").check();
  await page.getByLabel("URL").fill("https://hooks.example.com/cancelled");
  await page.getByRole("button", { name: "Create endpoint" }).click();
  await page.waitForURL((url) => /\/portal\/settings\/webhooks\/[0-9a-f-]{36}$/.test(url.pathname));
  const endpoints = await json(
    await account.api["webhook-endpoints"].$get({ param: { customer_slug: account.slug }, query: {} }),
    200,
  );
  expect(endpoints.data.find((endpoint) => endpoint.url.endsWith("/cancelled"))?.event_types).toEqual(["order.cancelled"]);

  // The console: the review queue's Status beside a long profile name, and the audit log, fit too.
  const { page: staff } = await portal.signInToConsole("compliance");
  await fetch(`${portal.base}/api/customers/${account.slug}/kyc-profiles/${profileId}/resubmit`, { method: "POST", headers });
  await staff.goto(`${portal.base}/ops/reviews?customer_slug=${account.slug}`);
  const queued = staff.getByRole("table").locator("tbody tr", { hasText: longName });
  expect(await queued.locator(".badge").textContent()).toBe("pending");
  expect(await cutAtBothWidths(staff)).toEqual(NO_CUT);
  await staff.goto(`${portal.base}/ops/audit?customer_slug=${account.slug}`);
  expect(await staff.getByRole("table", { name: "Audit events" }).textContent()).toContain("Profile reviewed");
  expect(await cutAtBothWidths(staff)).toEqual(NO_CUT);
  expect(await splitTimes(staff)).toEqual([]);
  await portal.screenshot(staff, "console-audit-day");
});
