// Every page of the portal on a 375 px wide phone: nothing scrolls sideways, every row's actions are on the screen, no
// table cuts a column (at 1280 px either),
// and the orders' filters fold behind one control (open on a desktop). Then a person in two accounts signs in with
// e-mail and password and chooses the account.
import type { Page } from "playwright-core";
import { expect, it } from "vitest";
import { cutAtBothWidths, json, LONG_BUSINESS_ADDRESS, overflow, PASSWORD, PDF, usePortal } from "./helpers.ts";

const portal = usePortal();

/** The controls (links, buttons, selects) of the page's main part that sit outside the viewport, by their text. */
async function offScreen(page: Page): Promise<string[]> {
  return (await page.evaluate(`[...document.querySelectorAll("main a, main button, main select, main input:not([type=hidden])")]
    .filter((el) => el.getClientRects().length > 0)
    .filter((el) => { const box = el.getBoundingClientRect(); return box.left < 0 || box.right > window.innerWidth + 0.5; })
    .map((el) => (el.textContent || el.getAttribute("name") || el.tagName).trim())`)) as string[];
}

it("shows every page at 375 px without sideways scrolling, each row's actions on screen", { timeout: 90_000 }, async () => {
  await portal.makeOrderable("US", "mobile");
  const { page, account } = await portal.signInAsNewOwner();
  await page.setViewportSize({ width: 375, height: 800 });
  // Long values, as real accounts have them.
  const order = await json(
    await account.api.orders.$post({
      param: { customer_slug: account.slug },
      json: {
        number_type: "mobile",
        country_code: "US",
        quantity: 2,
        notes: "A long note about the Austin office's front desk lines",
      },
    }),
    201,
  );
  const { numberId } = await portal.allocateNumber(order.order_id);
  const headers = { Authorization: `Bearer ${account.key}` };
  await fetch(`${portal.base}/v1/numbers/num_${numberId}/KYC/address`, {
    method: "POST",
    headers: { ...headers, "Content-Type": "application/json" },
    body: JSON.stringify(LONG_BUSINESS_ADDRESS),
  });
  const form = new FormData();
  form.set("file", new File([PDF], "a-rather-long-file-name-of-a-scanned-utility-bill-october.pdf"));
  form.set("document_type", "utility_bill");
  const uploaded = await fetch(`${portal.base}/v1/numbers/num_${numberId}/KYC/files`, { method: "POST", headers, body: form });
  const documentId = ((await uploaded.json()) as { id: string }).id.replace(/^doc_/, "");
  await portal.inviteUser(account, "admin");
  await portal.inviteUser(account, "member");
  const endpoint = await json(
    await account.api["webhook-endpoints"].$post({
      param: { customer_slug: account.slug },
      json: { url: `https://hooks.example.com/${"very-long-path/".repeat(6)}receiver` },
    }),
    201,
  );
  await account.api["webhook-endpoints"][":endpoint_id"].test.$post({
    param: { customer_slug: account.slug, endpoint_id: endpoint.id },
  });
  const keys = await json(
    await portal.admin.admin.customers[":slug"]["api-keys"].$get({ param: { slug: account.slug }, query: {} }),
    200,
  );
  const endpointPath = `/portal/settings/webhooks/${endpoint.id.replace(/^we_/, "")}`;

  const pages = [
    "/portal/orders",
    "/portal/orders/new",
    `/portal/orders/${order.order_id}`,
    "/portal/numbers",
    `/portal/numbers/${numberId}`,
    `/portal/numbers/${numberId}/address/edit`,
    `/portal/numbers/${numberId}/documents/${documentId}/delete`,
    `/portal/numbers/${numberId}/verification/delete`,
    "/portal/profiles",
    "/portal/profiles/new",
    "/portal/settings/api-keys",
    `/portal/settings/api-keys/${keys.data[0]!.id}/revoke`,
    "/portal/settings/team",
    "/portal/settings/webhooks",
    endpointPath,
    `${endpointPath}/delete`,
    "/portal/settings/activity",
  ];
  for (const path of pages) {
    const answer = await page.goto(`${portal.base}${path}`);
    expect(answer?.status(), path).toBe(200);
    expect(await overflow(page), path).toBeLessThanOrEqual(0);
    expect(await offScreen(page), path).toEqual([]);
    // No table cuts a column, here or on a desktop (the same page laid out at 1280 px).
    expect(await cutAtBothWidths(page), path).toEqual({ 1280: [], 375: [] });
  }

  // The orders' filters fold away behind one control here, and open on a desktop.
  await page.goto(`${portal.base}/portal/orders`);
  const filters = page.getByRole("form", { name: "Filters" });
  expect(await filters.isVisible()).toBe(false);
  await page.getByText("Filters", { exact: true }).click();
  expect(await filters.isVisible()).toBe(true);
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.reload();
  expect(await filters.isVisible()).toBe(true);
  expect(await page.getByText("Filters", { exact: true }).isVisible()).toBe(false);

  // Pages before a session, too.
  const invitee = await portal.inviteUser(account, "member");
  const visitor = await portal.newPage({ width: 375 });
  for (const path of [
    "/portal/sign-in",
    "/portal/sign-in?done=password",
    `/portal/invitations/${new URL(invitee.invitation_url).pathname.split("/").pop()}`,
  ]) {
    await visitor.goto(`${portal.base}${path}`);
    expect(await overflow(visitor), path).toBeLessThanOrEqual(0);
  }
});

it("signs a person in two accounts in with e-mail and password, then lets them choose the account", async () => {
  const first = await portal.createAccount("north");
  const second = await portal.createAccount("south");
  const email = `both.${crypto.randomUUID().slice(0, 8)}@example.com`;
  const page = await portal.newPage({ width: 375 });
  for (const account of [first, second]) {
    const user = await json(
      await portal.admin.admin.customers[":slug"].users.$post({
        param: { slug: account.slug },
        json: { email, name: "Both Accounts", role: "member" },
      }),
      201,
    );
    await portal.acceptInvitation(page, user, PASSWORD);
  }
  await page.getByLabel("E-mail").fill(email);
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL(`${portal.base}/portal/sign-in/account`);
  expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("Choose an account");
  expect(await overflow(page)).toBeLessThanOrEqual(0);
  await portal.screenshot(page, "choose-account");
  await page.getByRole("button", { name: new RegExp(second.slug) }).click();
  await page.waitForURL(`${portal.base}/portal/orders`);
  // The header names the account's slug, which every API path needs.
  expect(await page.locator("header .slug").textContent()).toBe(second.slug);
});
