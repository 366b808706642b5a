// Browser tests: the real Worker (wrangler's createTestHarness(), started once for every file by
// test/browser/global-setup.ts: fresh D1/R2, migrations applied, on 127.0.0.1 and a random port) driven by a real
// Chromium (playwright-core; which one: test/browser/chrome.ts).
//
// A test file starts with `const portal = usePortal();` at its top level: that registers the hooks that start the
// browser before the file's tests and stop it after, and close each test's pages after the test. The files share the
// Worker's storage, so a test makes its own accounts, staff and phone numbers (the helpers below do) and finds its rows
// by them (the console's queues by the account's slug), and each file sends from a client address of its own.
// Then, in a test:
//
//   const { page, account, user } = await portal.signInAsNewOwner();  // a new account, its owner invited, password set,
//                                                                     // signed in: `page` shows /portal/orders
//   await page.getByRole("link", { name: "Numbers" }).click();        // find things as a user does: role and name,
//   await page.getByLabel("Quantity").fill("3");                      // a field by its <label> (fails if it has none),
//   await page.getByRole("button", { name: "Create order" }).click(); // a button by its text;
//   await page.waitForURL(`${portal.base}/portal/orders`);            // after a POST/redirect/GET;
//   expect(await page.getByRole("alert").textContent()).toBe("…");   // what the user sees (Notice kind="error");
//   expect(await page.locator("tbody tr").count()).toBe(1);           // a table's rows;
//   const orders = await json(await account.api.orders.$get({ param: { customer_slug: account.slug }, query: {} }), 200);
//                                                                     // and what the API then answers (typed client).
//
//   await portal.admin.admin.users[":user_id"].$get({ param: { user_id: user.user_id } })   // the operator's API
//   const other = await portal.newPage({ width: 375 });               // a second visitor: its own context (cookies)
//   await portal.screenshot(page, "orders");                         // screenshots/orders-1280.png and -375.png
//
// Playwright's locators wait for what they look for (up to 5 s here), so a test needs no sleeps. Everything runs in
// Node: read the page through locators, or page.evaluate("…") given a string (there are no DOM types here).
import { mkdir } from "node:fs/promises";
import path from "node:path";
import { type ClientResponse, hc } from "hono/client";
import { sign } from "hono/jwt";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, expect, inject } from "vitest";
import { accessClaims } from "../../scripts/access-claims.ts";
import type { AppType } from "../../src/app.ts";
import type { StaffRole } from "../../src/db/schema.ts";
import { TEST_ACCESS_AUD, TEST_ACCESS_TEAM_DOMAIN, TEST_ADMIN_TOKEN } from "../constants.ts";

/** The Cloudflare Access application the Worker trusts (test/browser/global-setup.ts). */
const ACCESS = { audience: TEST_ACCESS_AUD, issuer: TEST_ACCESS_TEAM_DOMAIN };
/** A password every invited user of these tests sets (12 characters or more, not the e-mail address). */
export const PASSWORD = "correct horse battery staple";
/** A small well-formed PDF: the header, one line, and %%EOF at the end, as the upload's checks want. */
export const PDF = Buffer.from("%PDF-1.4\n1 0 obj << >> endobj\ntrailer << >>\n%%EOF\n");
/** A business's address with long values, as real accounts have them: the tables' and pages' widths are tried on it. */
export const LONG_BUSINESS_ADDRESS = {
  verification_type: "business",
  company_name: "Acme International Telecommunications Holdings",
  address_line_1: "1 Very Long Street Name of the Financial District",
  city: "San Francisco",
  state_province: "CA",
  postal_code: "94105",
  country: "US",
} as const;
/** Where screenshots go (gitignored; docs/testing.md, "Browser tests"). */
const SCREENSHOTS = path.resolve("screenshots");
/** The widths screenshots are taken at: a desktop and a small phone. */
const WIDTHS = [1280, 375] as const;

/**
 * `count` different phone numbers starting with `prefix` and 7 random digits: no other test is likely to use them
 * (the files share the Worker, and a number is unique across accounts and the stock).
 */
export function newPhones(prefix: string, count: number): string[] {
  const phones = new Set<string>();
  while (phones.size < count)
    phones.add(`${prefix}${String(crypto.getRandomValues(new Uint32Array(1))[0]! % 10_000_000).padStart(7, "0")}`);
  return [...phones];
}

/**
 * Chooses the pair in the new-order form as a person does: the country, then the type among that country's (the type's
 * select has a group of options per country, and only the chosen country's shows).
 */
export async function choosePair(page: Page, countryCode: string, numberType: string): Promise<void> {
  await page.getByLabel("Country").selectOption(countryCode);
  const option = page.locator(`select[name=number_type] optgroup[label="${countryCode}"] option[value="${numberType}"]`);
  await page.getByLabel("Number type").selectOption(await option.elementHandle());
}

/** How far the page reaches past the viewport's right edge (0 when nothing scrolls sideways). */
export async function overflow(page: Page): Promise<number> {
  return (await page.evaluate("document.documentElement.scrollWidth - window.innerWidth")) as number;
}

/**
 * The page's table cells that are cut or hidden: past their table's visible box or the viewport's right edge (a column
 * pushed out of sight), with content wider than the cell, or a table that scrolls sideways; as "table: column". Empty
 * when every table fits.
 */
async function cutCells(page: Page): Promise<string[]> {
  return (await page.evaluate(`[...document.querySelectorAll(".table-wrap")].flatMap((wrap) => {
    const label = wrap.querySelector("table")?.getAttribute("aria-label") ?? "a table";
    const box = wrap.getBoundingClientRect();
    const right = Math.min(box.right, window.innerWidth) + 0.5;
    const cut = wrap.scrollWidth > wrap.clientWidth + 1 ? [label + ": scrolls sideways"] : [];
    for (const cell of wrap.querySelectorAll("td")) {
      const r = cell.getBoundingClientRect();
      const inner = cell.firstElementChild;
      const overflows = inner !== null && inner.scrollWidth > inner.clientWidth + 1;
      if (r.right > right || r.left < box.left - 0.5 || overflows) cut.push(label + ": " + cell.dataset.label);
    }
    return [...new Set(cut)];
  })`)) as string[];
}

/** The times of the page's "When" columns that break over more than one line ("2026-11-" / "28"), as they read. */
export async function splitTimes(page: Page): Promise<string[]> {
  return (await page.evaluate(`[...document.querySelectorAll('td[data-label="When"] > div')].flatMap((cell) => {
    const range = document.createRange();
    range.selectNodeContents(cell);
    const lines = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.bottom)));
    return lines.size > 1 ? [cell.textContent] : [];
  })`)) as string[];
}

/** The tables of the page as it is, at 1280 and at 375 px wide (one load, laid out at both): what is cut, by width. */
export async function cutAtBothWidths(page: Page): Promise<{ 1280: string[]; 375: string[] }> {
  const viewport = page.viewportSize() ?? { width: 1280, height: 800 };
  await page.setViewportSize({ width: 1280, height: viewport.height });
  const wide = await cutCells(page);
  await page.setViewportSize({ width: 375, height: viewport.height });
  const narrow = [...(await cutCells(page)), ...((await overflow(page)) > 0 ? ["the page scrolls sideways"] : [])];
  await page.setViewportSize(viewport);
  return { 1280: wide, 375: narrow };
}

/** A typed client of the whole API at the harness's address, sending `headers` with every request. */
function apiClient(base: string, headers: Record<string, string>) {
  return hc<AppType>(base, { headers });
}

type Client = ReturnType<typeof apiClient>;

/** The body of an answer with the expected status (the body is printed when the status differs). */
export async function json<R extends ClientResponse<unknown, number, string>, S extends R["status"]>(
  response: R,
  status: S,
): Promise<Awaited<ReturnType<Extract<R, { status: S }>["json"]>>> {
  if (response.status !== status) expect.fail(`expected ${status}, got ${response.status}: ${await response.text()}`);
  return (await response.json()) as Awaited<ReturnType<Extract<R, { status: S }>["json"]>>;
}

interface Account {
  slug: string;
  name: string;
  customerId: string;
  /** The account's API key (for requests the typed client does not cover, e.g. /v1). */
  key: string;
  /** The customer's own API with an API key of the account: `account.api.orders.$post({ param: { customer_slug }, … })`. */
  api: Client["api"]["customers"][":customer_slug"];
}

interface InvitedUser {
  user_id: string;
  email: string;
  name: string;
  role: "owner" | "admin" | "member";
  /** The set-password page's absolute address, on the harness's origin. */
  invitation_url: string;
}

export interface Portal {
  /** The Worker's origin, e.g. http://127.0.0.1:41234. */
  readonly base: string;
  /** The operator's API (ADMIN_TOKEN): `portal.admin.admin.customers.$post(…)`. */
  readonly admin: Client;
  /** A new page in a new browser context (its own cookies), closed after the test. */
  newPage(viewport?: { width?: number; height?: number }): Promise<Page>;
  /** Puts the pair in the catalog (whether or not a test did before: the files share the Worker). */
  makeOrderable(countryCode: string, numberType: string): Promise<void>;
  /** A new customer account with an API key. */
  createAccount(prefix?: string): Promise<Account>;
  /** A user of the account, invited by the operator (not yet with a password). */
  inviteUser(account: Account, role?: InvitedUser["role"]): Promise<InvitedUser>;
  /** Opens the invitation link and sets the password; `page` then shows sign-in. */
  acceptInvitation(page: Page, user: InvitedUser, password?: string): Promise<void>;
  /** Signs in through the sign-in page and waits for the landing page (a failed sign-in fails here). */
  signIn(page: Page, user: InvitedUser, password?: string): Promise<void>;
  /** A new number of the account, allocated by the operator to the order: its id and phone number. */
  allocateNumber(orderId: string): Promise<{ numberId: string; phone: string }>;
  /** `count` new numbers of the account, allocated by the operator to the order, by phone number. */
  allocateNumbers(orderId: string, count: number): Promise<{ numberId: string; phone: string }[]>;
  /** Puts the profile under review, then rejects it with `reason` and a reason naming its document (the operator's API). */
  rejectProfile(profileId: string, rejection: { reason: string; documentId: string; note: string }): Promise<void>;
  /** A new account, its user of `role` invited, the password set and signed in: `page` shows /portal/orders. */
  signInAsNewUser(role: InvitedUser["role"]): Promise<{ page: Page; account: Account; user: InvitedUser }>;
  signInAsNewOwner(): Promise<{ page: Page; account: Account; user: InvitedUser }>;
  /**
   * A new staff member of `role` (put by the operator's token), signed in to the console through its sign-in link as
   * Access would sign them in: `page` shows /ops.
   */
  signInToConsole(role: StaffRole): Promise<{ page: Page; email: string }>;
  /** Full-page screenshots of `page` at 1280 and 375 px wide: screenshots/<name>-1280.png and <name>-375.png. */
  screenshot(page: Page, name: string): Promise<void>;
}

/** The browser for the calling test file, and helpers over the shared Worker (call it at the file's top level). */
export function usePortal(): Portal {
  const base = inject("origin");
  // This file's client address: failed sign-ins are limited per address (30 a minute), and the files share the Worker.
  const [a, b] = crypto.getRandomValues(new Uint8Array(2));
  const from = { "CF-Connecting-IP": `198.18.${a}.${b}` };
  const admin = apiClient(base, { Authorization: `Bearer ${TEST_ADMIN_TOKEN}`, ...from });
  let browser: Browser | undefined;
  let contexts: BrowserContext[] = [];
  let accounts = 0;

  beforeAll(async () => {
    const chrome = inject("chrome");
    // Playwright passes --no-sandbox itself (chromiumSandbox: false), needed as root; no other flag is.
    browser = await chromium.launch({ executablePath: chrome.executablePath, env: { ...process.env, ...chrome.env } });
  });
  afterEach(async () => {
    await Promise.all(contexts.map((context) => context.close()));
    contexts = [];
  });
  afterAll(async () => {
    await browser?.close();
  });

  const portal: Portal = {
    base,
    admin,
    async newPage({ width = 1280, height = 800 } = {}) {
      if (!browser) expect.fail("the browser is not started: call usePortal() at the top of the file");
      const context = await browser.newContext({ viewport: { width, height }, extraHTTPHeaders: from });
      context.setDefaultTimeout(5_000);
      contexts.push(context);
      return context.newPage();
    },
    async makeOrderable(countryCode, numberType) {
      const answer = await admin.admin.catalog[":country_code"][":number_type"].$put({
        param: { country_code: countryCode, number_type: numberType },
      });
      expect([200, 201], await answer.text()).toContain(answer.status);
    },
    async createAccount(prefix = "acme") {
      // The files share the Worker: a slug of this run's own, named for people as "Acme 1", "Acme 2", …
      const slug = `${prefix}-${++accounts}-${crypto.randomUUID().slice(0, 6)}`;
      const name = `${prefix[0]?.toUpperCase()}${prefix.slice(1)} ${accounts}`;
      const customer = await json(await admin.admin.customers.$post({ json: { slug, name } }), 201);
      const key = await json(
        await admin.admin.customers[":slug"]["api-keys"].$post({ param: { slug }, json: { name: "browser test" } }),
        201,
      );
      const api = apiClient(base, { Authorization: `Bearer ${key.key}`, ...from });
      return { slug, name, customerId: customer.customer_id, key: key.key, api: api.api.customers[":customer_slug"] };
    },
    async inviteUser(account, role = "owner") {
      const email = `${role}.${crypto.randomUUID().slice(0, 8)}@example.com`;
      const user = await json(
        await admin.admin.customers[":slug"].users.$post({
          param: { slug: account.slug },
          json: { email, name: `Ada ${role[0]?.toUpperCase()}${role.slice(1)}`, role },
        }),
        201,
      );
      return { user_id: user.user_id, email: user.email, name: user.name, role: user.role, invitation_url: user.invitation_url };
    },
    async acceptInvitation(page, user, password = PASSWORD) {
      await page.goto(user.invitation_url);
      await page.getByLabel("New password").fill(password);
      await page.getByLabel("Repeat the password").fill(password);
      await page.getByRole("button", { name: "Set password" }).click();
      await page.waitForURL((url) => url.pathname === "/portal/sign-in");
    },
    async signIn(page, user, password = PASSWORD) {
      if (!page.url().startsWith(`${base}/portal/sign-in`)) await page.goto(`${base}/portal/sign-in`);
      await page.getByLabel("E-mail").fill(user.email);
      await page.getByLabel("Password").fill(password);
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.waitForURL((url) => url.pathname !== "/portal/sign-in");
    },
    async allocateNumber(orderId) {
      const phone = newPhones("+1415", 1)[0]!;
      const { numbers } = await json(
        await admin.admin.orders[":order_id"].numbers.$post({
          param: { order_id: orderId },
          json: { phone_numbers: [phone] },
        }),
        201,
      );
      return { numberId: numbers[0]!.number_id, phone };
    },
    async allocateNumbers(orderId, count) {
      const { numbers } = await json(
        await admin.admin.orders[":order_id"].numbers.$post({
          param: { order_id: orderId },
          json: { phone_numbers: newPhones("+1628", count) },
        }),
        201,
      );
      return numbers.map((n) => ({ numberId: n.number_id, phone: n.phone_number }));
    },
    async rejectProfile(profileId, { reason, documentId, note }) {
      const review = admin.admin["kyc-profiles"][":profile_id"].review;
      await json(await review.$post({ param: { profile_id: profileId }, json: { status: "under_review" } }), 200);
      await json(
        await review.$post({
          param: { profile_id: profileId },
          json: {
            status: "rejected",
            rejection_reason: reason,
            reasons: [{ code: "document_illegible", document_id: documentId, note }],
          },
        }),
        200,
      );
    },
    async signInAsNewUser(role) {
      const account = await portal.createAccount();
      const user = await portal.inviteUser(account, role);
      const page = await portal.newPage();
      // The two forms' posts, sent by the page's context (whose cookies they set) without loading the forms: 0.8 s a
      // sign-in less here. sign-in.test.ts and small-screens.test.ts fill these forms as a person does.
      // The Origin a browser sends with a same-origin form post (the form guard refuses others).
      const headers = { Origin: base };
      const password = { password: PASSWORD, password_confirmation: PASSWORD };
      const accepted = await page.request.post(user.invitation_url, { form: password, headers, maxRedirects: 0 });
      expect(accepted.status(), await accepted.text()).toBe(303);
      const signedIn = await page.request.post(`${base}/portal/sign-in`, {
        form: { email: user.email, password: PASSWORD, next: "" },
        headers,
        maxRedirects: 0,
      });
      expect(signedIn.status(), await signedIn.text()).toBe(303);
      await page.goto(new URL(signedIn.headers().location ?? "", base).href);
      expect(new URL(page.url()).pathname).toBe("/portal/orders");
      return { page, account, user };
    },
    signInAsNewOwner() {
      return portal.signInAsNewUser("owner");
    },
    async signInToConsole(role) {
      const email = `${role}.${crypto.randomUUID().slice(0, 8)}@operator.example`;
      await json(
        await admin.admin.staff[":email"].$put({
          param: { email },
          json: { name: `Sam ${role[0]?.toUpperCase()}${role.slice(1)}`, role, status: "enabled" },
        }),
        201,
      );
      const token = await sign(
        accessClaims(ACCESS, email, 3600),
        JSON.parse(inject("accessPrivateJwk")) as JsonWebKey & { alg: "RS256" },
      );
      const page = await portal.newPage();
      await page.goto(`${base}/ops/sign-in?token=${encodeURIComponent(token)}`);
      await page.waitForURL((url) => url.pathname === "/ops");
      return { page, email };
    },
    async screenshot(page, name) {
      await mkdir(SCREENSHOTS, { recursive: true });
      const viewport = page.viewportSize() ?? { width: 1280, height: 800 };
      for (const width of WIDTHS) {
        await page.setViewportSize({ width, height: viewport.height });
        await page.screenshot({ path: path.join(SCREENSHOTS, `${name}-${width}.png`), fullPage: true });
      }
      await page.setViewportSize(viewport);
    },
  };
  return portal;
}
