// The Settings pages in a real browser: an owner makes an API key, the API takes it, the owner revokes it, the API
// refuses it; a member is refused every Settings page; the team and webhooks pages render (screenshots).
import { expect, it } from "vitest";
import { json, usePortal } from "./helpers.ts";

const portal = usePortal();

/** The account's orders through the API with this key: its status. */
async function ordersStatus(slug: string, key: string): Promise<number> {
  const answer = await fetch(`${portal.base}/api/customers/${slug}/orders`, { headers: { Authorization: `Bearer ${key}` } });
  await answer.arrayBuffer();
  return answer.status;
}

it("an owner creates an API key (shown once), the API accepts it; revoked, the API refuses it", async () => {
  const { page, account } = await portal.signInAsNewOwner();
  await page.getByRole("link", { name: "API keys" }).click();
  // The account's slug, which every API path needs, is on the page (once the click's navigation is done: count() waits
  // for nothing, and read the page before it had come at times).
  await page.waitForURL(`${portal.base}/portal/settings/api-keys`);
  expect(await page.getByText(`This account's slug is ${account.slug}`).count()).toBe(1);
  await page.getByLabel("Name").fill("ci deploys");
  await page.getByRole("button", { name: "Create key" }).click();
  await page.waitForURL(`${portal.base}/portal/settings/api-keys`);
  expect(await page.getByRole("status").textContent()).toBe(
    "The key “ci deploys” is created. Send it as Authorization: Bearer <key>.",
  );
  const key = (await page.locator(".secret").textContent())?.trim() ?? "";
  expect(key).toMatch(/^vnk_/);
  // The copy button shows once the page's script ran (the page's CSP allowed it).
  await expect.poll(() => page.getByRole("button", { name: "Copy" }).isVisible()).toBe(true);
  await portal.screenshot(page, "api-key-created");
  expect(await ordersStatus(account.slug, key)).toBe(200);

  // A reload neither makes a second key nor shows this one again: listed by its prefix and last four only.
  await page.reload();
  expect(await page.content()).not.toContain(key);
  expect(await page.locator("tbody tr", { hasText: "ci deploys" }).count()).toBe(1);
  const keys = await json(
    await portal.admin.admin.customers[":slug"]["api-keys"].$get({ param: { slug: account.slug }, query: {} }),
    200,
  );
  expect(keys.data.filter((k) => k.name === "ci deploys")).toHaveLength(1);
  await portal.screenshot(page, "api-keys");
  const row = page.locator("tr", { hasText: "ci deploys" });
  await row.getByRole("link", { name: /Revoke/ }).click();
  // Asked once: one button.
  expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("Revoke the key “ci deploys”?");
  await portal.screenshot(page, "revoke-key");
  await page.getByRole("button", { name: "Revoke the key" }).click();
  await page.waitForURL(`${portal.base}/portal/settings/api-keys?done=revoked`);
  expect(await page.getByRole("status").textContent()).toBe("The key is revoked: the API refuses it from now on.");
  expect(await ordersStatus(account.slug, key)).toBe(401);
});

it("a member sees Orders, Find numbers, Reservations, Numbers and Profiles but no Settings, and is refused every Settings page", async () => {
  const { page } = await portal.signInAsNewUser("member");
  expect(await page.getByRole("navigation", { name: "Main" }).getByRole("link").allTextContents()).toEqual([
    "Orders",
    "Find numbers",
    "Reservations",
    "Numbers",
    "Profiles",
  ]);
  for (const path of ["/portal/settings/api-keys", "/portal/settings/team", "/portal/settings/webhooks"]) {
    const answer = await page.goto(`${portal.base}${path}`);
    expect(answer?.status(), path).toBe(403);
  }
});

it("the team and webhooks pages render for an owner", async () => {
  const { page, account } = await portal.signInAsNewOwner();
  for (const [link, name] of [
    ["Team", "team"],
    ["Webhooks", "webhooks"],
  ] as const) {
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: link }).click();
    await page.waitForURL(`${portal.base}/portal/settings/${name}`);
    expect(await page.getByRole("link", { name: link, exact: true }).getAttribute("aria-current")).toBe("page");
    await portal.screenshot(page, name);
  }
  // The team's status counts as tabs, as the orders' are: the owner, active, and a teammate invited, not yet active.
  const invited = await portal.inviteUser(account, "member");
  // Each click is followed by its page's URL: reading the page before the navigation ends reads the page before it.
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Team" }).click();
  await page.waitForURL(`${portal.base}/portal/settings/team`);
  const tabs = page.getByRole("list", { name: "Status" });
  expect(await tabs.getByRole("link").allTextContents()).toEqual([
    "All (2)",
    "Active (1)",
    "Invited (1)",
    "Inactive (0)",
    "Locked (0)",
  ]);
  await tabs.getByRole("link", { name: "Active (1)" }).click();
  await page.waitForURL(/status=active/);
  expect(await tabs.getByRole("link", { name: "Active (1)" }).getAttribute("aria-current")).toBe("page");
  expect(await page.getByRole("table", { name: "Users" }).textContent()).not.toContain(invited.email);
  await tabs.getByRole("link", { name: "Invited (1)" }).click();
  await page.waitForURL(/status=invited/);
  expect(await page.getByRole("table", { name: "Users" }).textContent()).toContain(invited.email);
});
