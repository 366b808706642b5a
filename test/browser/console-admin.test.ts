// The console's stock, catalog, staff, audit and accounts pages in a browser: a viewer reads them all and is shown no
// change form (a forged removal is refused and changes nothing); a fulfilment member imports a CSV and reads its
// report and the counts; an admin adds a staff member and a catalog pair, opens an account and creates its API key
// (shown once); a compliance member sets a pair's requirements with the form (an error beside its field first); the
// audit log, filtered by each person, shows their changes with their e-mail. Every page fits a 375 px screen.
import type { Page } from "playwright-core";
import { expect, it } from "vitest";
import { json, newPhones, overflow, usePortal } from "./helpers.ts";

const portal = usePortal();

/** Opens `path` and checks it fits a 375 px screen, then goes back to the desktop width. */
async function fitsSmallScreen(page: Page, path: string): Promise<void> {
  await page.setViewportSize({ width: 375, height: 800 });
  await page.goto(`${portal.base}${path}`);
  expect(await overflow(page), `${path} at 375 px`).toBe(0);
  await page.setViewportSize({ width: 1280, height: 800 });
}

/** The forms of the page's main part that change something (every POST form there; the sign-out is in the top bar). */
function changeForms(page: Page) {
  return page.locator("main form[method=post]");
}

async function stocked(phone: string): Promise<boolean> {
  const list = await json(await portal.admin.admin.stock.$get({ query: { search: phone.slice(1) } }), 200);
  return list.data.some((row) => row.phone_number === phone);
}

it("shows a viewer every page without a change form, and refuses a forged stock removal (403, nothing removed)", async () => {
  const phone = newPhones("+1628", 1)[0]!;
  await json(
    await portal.admin.admin.stock.$post({
      json: { numbers: [{ phone_number: phone, country_code: "US", number_type: "mobile" }] },
    }),
    201,
  );
  const { page } = await portal.signInToConsole("viewer");
  for (const path of ["/ops/stock", "/ops/catalog", "/ops/staff", "/ops/audit", "/ops/accounts"]) {
    await page.goto(`${portal.base}${path}`);
    expect(await page.getByRole("heading", { level: 1 }).count(), path).toBe(1);
    expect(await changeForms(page).count(), `change forms on ${path}`).toBe(0);
    await fitsSmallScreen(page, path);
  }
  await page.goto(`${portal.base}/ops/stock?search=${phone.slice(1)}`);
  expect(await page.getByRole("table", { name: "Stocked numbers" }).textContent()).toContain(phone);
  expect(await page.getByRole("link", { name: /Remove/ }).count()).toBe(0);

  // The session's own CSRF token (the sign-out's) and this site's Origin: only the role refuses it.
  const status = await page.evaluate(`(async () => {
    const token = document.querySelector("input[name=csrf_token]").value;
    const body = new URLSearchParams({ csrf_token: token, phone_number: ${JSON.stringify(phone)} });
    const answer = await fetch("/ops/stock/remove", { method: "POST", body });
    return answer.status;
  })()`);
  expect(status).toBe(403);
  expect(await stocked(phone)).toBe(true);
});

it("imports a CSV for a fulfilment member: the report after a redirect (a reload imports nothing), its warning of pairs not in the catalog, the counts, then a removal; the audit log names them", async () => {
  const { page, email } = await portal.signInToConsole("fulfilment");
  const phones = newPhones("+3120", 3);
  const typo = newPhones("+3120", 1)[0]!;
  const listed = await portal.admin.admin.catalog[":country_code"][":number_type"].$put({
    param: { country_code: "NL", number_type: "landline" },
  });
  expect([200, 201]).toContain(listed.status);
  const csv = `phone_number,country_code,number_type\r\n${phones.map((phone) => `${phone},NL,landline`).join("\r\n")}\r\n${typo},NL,lanldine\r\n${typo.slice(0, -1)},NL,Mobile\r\n\r\n`;
  await page.goto(`${portal.base}/ops/stock`);
  // A file that is not the stock's CSV imports nothing, and says why beside the field.
  await page.getByLabel("CSV file").setInputFiles({ name: "x.csv", mimeType: "text/csv", buffer: Buffer.from("number\n+1\n") });
  await page.getByRole("button", { name: "Import" }).click();
  expect(await page.locator("#file-error").textContent()).toBe(
    "CSV file must start with the header phone_number,country_code,number_type",
  );
  await page.getByLabel("CSV file").setInputFiles({ name: "stock.csv", mimeType: "text/csv", buffer: Buffer.from(csv) });
  await page.getByRole("button", { name: "Import" }).click();
  await page.waitForURL(`${portal.base}/ops/stock?done=imported`);
  const report = page.locator(".report");
  expect(await report.textContent()).toContain("4 numbers imported, 0 duplicates skipped, 1 row refused");
  expect(await report.getByRole("table", { name: "Refused rows" }).textContent()).toContain(
    "number_type must be a lowercase identifier",
  );
  const unlisted = report.getByRole("table", { name: "Imported pairs not in the catalog" });
  expect(await unlisted.locator("tbody tr").count()).toBe(1);
  expect(await unlisted.locator("tbody tr").textContent()).toMatch(/NL\s*lanldine\s*1/);
  expect(await report.locator(".notice.warning").textContent()).toContain("Not in the catalog");
  const counts = page.getByRole("table", { name: "Stock per country and type" });
  expect(await counts.locator("tr", { hasText: "NL" }).first().textContent()).toContain("3");
  await portal.screenshot(page, "console-stock");
  await page.setViewportSize({ width: 375, height: 800 });
  expect(await overflow(page), "the import's report at 375 px").toBe(0);
  await page.setViewportSize({ width: 1280, height: 800 });
  // A reload asks for the page again: nothing is imported twice, and the report was shown once.
  const imports = async () =>
    (await json(await portal.admin.admin["audit-events"].$get({ query: { actor: email, action: "stock.imported" } }), 200)).data
      .length;
  expect(await imports()).toBe(1);
  await page.reload();
  expect(page.url()).toBe(`${portal.base}/ops/stock?done=imported`);
  expect(await page.locator(".report").count()).toBe(0);
  expect(await page.getByRole("status").first().textContent()).toContain("imported");
  expect(await imports()).toBe(1);
  // The notice's `done` is no filter: the filters' fold says none is in use.
  expect(await page.locator("details.fold > summary").textContent()).toBe("Filters");

  // A long report, on a small screen: the first of each list (as many as the redirect carries), how many there were.
  await page.setViewportSize({ width: 375, height: 800 });
  const many = newPhones("+3121", 60);
  const long = `phone_number,country_code,number_type\n${[
    ...phones.slice(1).map((phone) => `${phone},NL,landline`),
    ...many.map((phone, i) => `${phone},${i % 2 === 0 ? "XX" : "NL"},${i % 2 === 0 ? "landline" : `unlisted_${i}`}`),
  ].join("\n")}\n`;
  await page.getByLabel("CSV file").setInputFiles({ name: "long.csv", mimeType: "text/csv", buffer: Buffer.from(long) });
  await page.getByRole("button", { name: "Import" }).click();
  await page.waitForURL(`${portal.base}/ops/stock?done=imported`);
  const longReport = page.locator(".report");
  expect(await longReport.locator("p").first().textContent()).toContain(
    "30 numbers imported, 2 duplicates skipped, 30 rows refused",
  );
  expect(await longReport.locator("h3", { hasText: "Refused rows" }).textContent()).toMatch(/the first \d+ of 30 refused rows/);
  expect(await longReport.locator("h3", { hasText: "Not in the catalog" }).textContent()).toMatch(/the first \d+ of 30 pairs/);
  expect(await overflow(page), "a long import report at 375 px").toBe(0);
  await page.setViewportSize({ width: 1280, height: 800 });

  await page.goto(`${portal.base}/ops/stock?search=${phones[0]!.slice(1)}`);
  await page.getByRole("link", { name: `Remove ${phones[0]}…` }).click();
  await page.getByRole("button", { name: "Remove the number" }).click();
  await page.waitForURL(`${portal.base}/ops/stock?done=removed`);
  expect(await page.getByRole("status").textContent()).toContain("removed");
  expect(await stocked(phones[0]!)).toBe(false);
  expect(await stocked(phones[1]!)).toBe(true);

  await page.goto(`${portal.base}/ops/audit?actor=${encodeURIComponent(email)}`);
  const events = page.getByRole("table", { name: "Audit events" });
  expect(await events.locator("tr", { hasText: "Stock imported" }).first().textContent()).toContain(email);
  expect(await events.locator("tr", { hasText: "Number removed from the stock" }).textContent()).toContain(email);
  await portal.screenshot(page, "console-audit");
  await fitsSmallScreen(page, `/ops/audit?actor=${encodeURIComponent(email)}`);
  await fitsSmallScreen(page, "/ops/stock");
});

it("lets an admin add a staff member, a catalog pair and an API key; the audit log names the admin", async () => {
  const { page, email } = await portal.signInToConsole("admin");
  const added = `new.${crypto.randomUUID().slice(0, 8)}@operator.example`;
  await page.goto(`${portal.base}/ops/staff`);
  await page.getByLabel("E-mail").fill(added);
  await page.getByLabel("Name").fill("Noor Compliance");
  await page.getByLabel("Role").selectOption("compliance");
  await page.getByRole("button", { name: "Save staff member" }).click();
  await page.waitForURL(`${portal.base}/ops/staff?done=saved`);
  expect(await page.getByRole("status").textContent()).toContain("saved");
  const member = await json(await portal.admin.admin.staff[":email"].$get({ param: { email: added } }), 200);
  expect(member).toMatchObject({ name: "Noor Compliance", role: "compliance", status: "enabled" });
  await portal.screenshot(page, "console-staff");
  await fitsSmallScreen(page, "/ops/staff");

  await page.goto(`${portal.base}/ops/catalog`);
  await page.getByLabel("Country").fill("se");
  await page.getByLabel("Number type").fill("mobile");
  await page.getByRole("button", { name: "Add pair" }).click();
  await page.waitForURL(/\/ops\/catalog\?done=/);
  expect(await page.getByRole("table", { name: "Orderable pairs" }).textContent()).toContain("SE");
  await page.goto(`${portal.base}/ops/catalog`);
  await portal.screenshot(page, "console-catalog");
  await fitsSmallScreen(page, "/ops/catalog");

  // An account opened here: a slug refused beside its field first, then the account's page.
  const account = { slug: `console-${crypto.randomUUID().slice(0, 8)}` };
  await page.goto(`${portal.base}/ops/accounts`);
  await page.getByLabel("Slug").fill("Console!");
  await page.getByLabel("Name").fill("Console Telecom");
  await page.getByRole("button", { name: "Open account" }).click();
  expect(await page.locator("#slug-error").textContent()).toBe(
    "Slug must be 3-40 lowercase letters, digits or hyphens, starting and ending with a letter or digit",
  );
  expect(await page.getByLabel("Name").inputValue()).toBe("Console Telecom");
  await portal.screenshot(page, "console-open-account");
  await fitsSmallScreen(page, "/ops/accounts");
  await page.getByLabel("Slug").fill(account.slug);
  await page.getByLabel("Name").fill("Console Telecom");
  await page.getByRole("button", { name: "Open account" }).click();
  await page.waitForURL(`${portal.base}/ops/accounts/${account.slug}?done=opened`);
  expect(await page.getByRole("status").textContent()).toContain("The account is open.");
  expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("Console Telecom");
  const keys = async () =>
    (await json(await portal.admin.admin.customers[":slug"]["api-keys"].$get({ param: { slug: account.slug }, query: {} }), 200))
      .data.length;
  await page.getByLabel("Key name").fill("from the console");
  await page.getByRole("button", { name: "Create key" }).click();
  // The POST redirects to the account's page, which shows the key once: a reload shows none and creates none.
  await page.waitForURL(`${portal.base}/ops/accounts/${account.slug}`);
  const key = (await page.locator(".secret").textContent())?.trim() ?? "";
  expect(key.length).toBeGreaterThan(20);
  const answer = await fetch(`${portal.base}/api/customers/${account.slug}/orders`, {
    headers: { Authorization: `Bearer ${key}` },
  });
  expect(answer.status).toBe(200);
  expect(await keys()).toBe(1);
  await portal.screenshot(page, "console-new-key");
  await page.reload();
  expect(page.url()).toBe(`${portal.base}/ops/accounts/${account.slug}`);
  expect(await page.locator(".secret").count()).toBe(0);
  expect(await keys()).toBe(1);
  await page.getByRole("link", { name: "Revoke from the console…" }).click();
  await page.getByRole("button", { name: "Revoke the key" }).click();
  await page.waitForURL(`${portal.base}/ops/accounts/${account.slug}?done=revoked`);
  const refused = await fetch(`${portal.base}/api/customers/${account.slug}/orders`, {
    headers: { Authorization: `Bearer ${key}` },
  });
  expect(refused.status).toBe(401);
  await page.getByLabel("User's e-mail").fill("grace@example.com");
  await page.getByLabel("User's name").fill("Grace Hopper");
  await page.getByLabel("User's role").selectOption("owner");
  await page.getByRole("button", { name: "Invite user" }).click();
  await page.waitForURL(`${portal.base}/ops/accounts/${account.slug}`);
  const link = (await page.locator(".secret").textContent())?.trim() ?? "";
  expect(link).toMatch(new RegExp(`^${portal.base}/portal/invitations/`));
  expect(await page.getByRole("table", { name: "Users" }).textContent()).toContain("grace@example.com");
  await portal.screenshot(page, "console-invited");
  const invitations = async () =>
    (
      await json(
        await portal.admin.admin["audit-events"].$get({ query: { customer_slug: account.slug, action: "user.created" } }),
        200,
      )
    ).data.length;
  expect(await invitations()).toBe(1);
  await page.reload();
  expect(await page.locator(".secret").count()).toBe(0);
  expect(await page.getByRole("table", { name: "Users" }).locator("tbody tr").count()).toBe(1);
  expect(await invitations()).toBe(1);
  await portal.screenshot(page, "console-accounts");
  await fitsSmallScreen(page, `/ops/accounts/${account.slug}`);
  await fitsSmallScreen(page, "/ops/accounts");

  await page.goto(`${portal.base}/ops/audit?actor=${encodeURIComponent(email)}`);
  const events = page.getByRole("table", { name: "Audit events" });
  const staffChange = events.locator("tr", { hasText: "Staff member changed" });
  expect(await staffChange.textContent()).toContain(email);
  expect(await staffChange.textContent()).toContain(added);
  expect(await events.locator("tr", { hasText: "Pair made orderable" }).count()).toBe(1);
  expect(await events.locator("tr", { hasText: "Account created" }).textContent()).toContain(account.slug);
  expect(await events.locator("tr", { hasText: "API key created" }).count()).toBe(1);
});

it("lets a compliance member set and remove a pair's requirements, and shows them no pair form", async () => {
  await portal.makeOrderable("DK", "mobile");
  const { page } = await portal.signInToConsole("compliance");
  await page.goto(`${portal.base}/ops/catalog`);
  expect(await page.getByRole("button", { name: "Add pair" }).count()).toBe(0);
  expect(await page.getByRole("link", { name: /^Remove/ }).count()).toBe(0);
  await page.getByRole("link", { name: "Requirements of DK mobile" }).click();
  // The form of the set: no JSON to type. A document group half filled is refused beside its fields, nothing saved.
  const accepted = page.getByRole("group", { name: "Verifications accepted" });
  await accepted.getByLabel("A business").uncheck();
  await page.getByLabel("The address must be in DK").check();
  const added = page.getByRole("group", { name: "New document requirement" });
  await added.getByLabel("Key").fill("Proof of address");
  await added.getByRole("group", { name: "Documents that meet it" }).getByLabel("Utility bill").check();
  await page.getByRole("button", { name: "Save requirements" }).click();
  const first = page.getByRole("group", { name: "Document requirement 1" });
  expect(await first.locator(".field-error").allTextContents()).toEqual([
    "Key must be a lowercase identifier of 1-40 characters (letters, digits, _), starting with a letter",
    "What the document must show must not be empty",
    "Asked of must name at least one verification type",
  ]);
  expect(await page.getByLabel("The address must be in DK").isChecked()).toBe(true);
  await portal.screenshot(page, "console-requirements");
  await first.getByLabel("Key").fill("proof_of_address");
  await first.getByLabel("What the document must show").fill("A utility bill under 3 months old");
  await first.getByRole("group", { name: "Asked of" }).getByLabel("A person").check();
  await page.getByRole("button", { name: "Save requirements" }).click();
  await page.waitForURL(`${portal.base}/ops/catalog/DK/mobile/requirements?done=requirements`);
  expect(await page.getByRole("status").textContent()).toBe("The requirements are saved.");
  const requirements = {
    verification_types: ["individual"],
    address_in_country: true,
    fields: { individual: [], business: [] },
    documents: [
      {
        key: "proof_of_address",
        document_types: ["utility_bill"],
        applies_to: ["individual"],
        description: "A utility bill under 3 months old",
      },
    ],
  };
  const listed = await json(await portal.admin.admin.catalog.$get({ query: {} }), 200);
  const dkMobile = (row: { country_code: string; number_type: string }) =>
    row.country_code === "DK" && row.number_type === "mobile";
  expect(listed.data.find(dkMobile)?.requirements).toEqual(requirements);
  await fitsSmallScreen(page, "/ops/catalog/DK/mobile/requirements");

  await page.getByRole("button", { name: "Remove the requirements" }).click();
  await page.waitForURL(`${portal.base}/ops/catalog/DK/mobile/requirements?done=unrequired`);
  const after = await json(await portal.admin.admin.catalog.$get({ query: {} }), 200);
  expect(after.data.find(dkMobile)?.requirements).toBeNull();
});
