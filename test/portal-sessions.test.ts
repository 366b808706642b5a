// The portal's sign-in machinery inside the workers pool: invitations, passwords, sessions, CSRF, lockout, and the
// pages' guard. (The flows in a real browser are in test/browser/.)

import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { createApp } from "../src/app.ts";
import { createDatabase } from "../src/db/client.ts";
import { users } from "../src/db/schema.ts";
import { hashPassword, SCRYPT_PARAMETERS, scryptParameters, verifyPassword } from "../src/lib/passwords.ts";
import {
  acceptInvitation,
  findInvitation,
  INVITATION_TTL_MS,
  issueInvitation,
  LOCKOUT_WINDOW_MS,
  passwordProblem,
  signIn,
} from "../src/users/credentials.ts";
import { findSession, SESSION_IDLE_MS, SESSION_MAX_MS, startSession } from "../src/users/sessions.ts";
import { findUser } from "../src/users/store.ts";
import { TEST_AUDIT } from "./constants.ts";
import {
  awaitFreshRateWindow,
  call,
  clientAddress,
  createCustomer,
  FRESH_RATE_WINDOW_TIMEOUT,
  json,
  operator,
  type TestCustomer,
  withLogs,
} from "./helpers.ts";
import { invitedUser, PASSWORD, postForm, SAME_ORIGIN, sessionOf, signedIn } from "./portal.ts";

const db = createDatabase(env.DB);
/** The password hashes' cost in these tests (vitest.config.ts sets PASSWORD_SCRYPT_LOG_N). */
const hashing = scryptParameters(env.PASSWORD_SCRYPT_LOG_N);

/** Pages anyone may open; every other portal page needs a session. */
const PUBLIC_PAGES = [
  "GET /portal",
  "GET /portal/sign-in",
  "POST /portal/sign-in",
  "GET /portal/sign-in/account",
  "POST /portal/sign-in/account",
  "GET /portal/invitations/:token",
  "POST /portal/invitations/:token",
];

describe("the portal's guard", () => {
  it("sends every page but the public ones to sign-in without a session, and refuses their forms", async () => {
    const routes = createApp()
      .routes.filter((route) => route.path.startsWith("/portal") && route.method !== "ALL")
      .map((route) => `${route.method} ${route.path}`);
    const guarded = [...new Set(routes)].filter((route) => !PUBLIC_PAGES.includes(route));
    expect(guarded.length).toBeGreaterThan(0);
    for (const route of guarded) {
      const [method, path] = route.split(" ") as [string, string];
      const concrete = path.replace(/:(\w+)/g, "00000000-0000-4000-8000-000000000000");
      const answer = await call(concrete, {
        method,
        headers: SAME_ORIGIN,
        redirect: "manual",
        body: method === "GET" ? undefined : "",
      });
      expect(answer.status, route).toBe(303);
      expect(answer.headers.get("Location"), route).toMatch(/^\/portal\/sign-in/);
    }
  });
});

describe("passwords", () => {
  it("are scrypt N=2^14, r=8, p=5 in a PHC string, which production Workers accept and OWASP lists", async () => {
    expect(SCRYPT_PARAMETERS).toEqual({ logN: 14, r: 8, p: 5 });
    // What wrangler.toml deploys: its value's type is the literal there (`wrangler types --check` keeps it so), so
    // setting PASSWORD_SCRYPT_LOG_N in wrangler.toml fails the type check here.
    const deployed: Env["PASSWORD_SCRYPT_LOG_N"] = "";
    expect(scryptParameters(deployed)).toEqual(SCRYPT_PARAMETERS);
    const hash = await hashPassword(PASSWORD, SCRYPT_PARAMETERS);
    expect(hash).toMatch(/^\$scrypt\$ln=14,r=8,p=5\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/);
    expect(await verifyPassword(PASSWORD, hash, SCRYPT_PARAMETERS)).toEqual({ matches: true, outdated: false });
    expect(await verifyPassword(`${PASSWORD}!`, hash, SCRYPT_PARAMETERS)).toEqual({ matches: false, outdated: false });
  });

  it("cost less only where PASSWORD_SCRYPT_LOG_N says 10 to 13, as the tests do; r and p never change", () => {
    expect(hashing).toEqual({ logN: 10, r: 8, p: 5 });
    expect(scryptParameters("13")).toEqual({ logN: 13, r: 8, p: 5 });
    for (const value of [undefined, "", "9", "14", "15", "1e1", " 10", "10.0", "0x0a", "ten"])
      expect(scryptParameters(value), String(value)).toEqual(SCRYPT_PARAMETERS);
  });

  it("made with other parameters are re-hashed at the next sign-in, with the deployment's", async () => {
    const customer = await createCustomer("portal");
    const user = await invitedUser(customer);
    expect((await postForm(user.path, { password: PASSWORD, password_confirmation: PASSWORD })).status).toBe(303);
    const production = await hashPassword(PASSWORD, SCRYPT_PARAMETERS);
    await db.update(users).set({ passwordHash: production }).where(eq(users.id, user.user_id));
    expect((await postForm("/portal/sign-in", { email: user.email, password: PASSWORD })).status).toBe(303);
    const rehashed = (await findUser(db, user.user_id))!.passwordHash!;
    expect(rehashed).toMatch(/^\$scrypt\$ln=10,r=8,p=5\$/);
    expect(await verifyPassword(PASSWORD, rehashed, hashing)).toEqual({ matches: true, outdated: false });
    expect(await verifyPassword(PASSWORD, production, hashing)).toEqual({ matches: true, outdated: true });
  });
});

describe("invitation, sign-in, pages, sign-out", () => {
  it("sets a password once through the link, signs in, shows the orders, signs out", async () => {
    const customer = await createCustomer("portal");
    const user = await invitedUser(customer);
    expect(user.invitation_url).toMatch(/^https:\/\/vn\.test\/portal\/invitations\/[A-Za-z0-9_-]{43}$/);
    expect((await call(user.path)).status).toBe(200);
    const set = await postForm(user.path, { password: PASSWORD, password_confirmation: PASSWORD });
    expect(set.status).toBe(303);
    expect(set.headers.get("Location")).toBe("/portal/sign-in?done=password");
    // Single use.
    expect((await call(user.path)).status).toBe(410);

    const answer = await postForm("/portal/sign-in", {
      email: user.email.toUpperCase(),
      password: PASSWORD,
    });
    expect(answer.status).toBe(303);
    expect(answer.headers.get("Location")).toBe("/portal/orders");
    const cookie = sessionOf(answer);
    const page = await call("/portal/orders", { headers: { Cookie: cookie } });
    expect(page.status).toBe(200);
    const text = await page.text();
    expect(text.startsWith("<!DOCTYPE html>")).toBe(true);
    expect(text).toContain("The owner");
    expect(page.headers.get("Referrer-Policy")).toBe("same-origin");
    expect(page.headers.get("Cache-Control")).toBe("no-store");
    expect(page.headers.get("Content-Security-Policy")).toContain("script-src 'nonce-");

    const csrf = /name="csrf_token" value="([^"]+)"/.exec(text)?.[1] ?? "";
    const expired = await postForm("/portal/sign-out", { csrf_token: "forged" }, { Cookie: cookie });
    expect(expired.status).toBe(403);
    expect(await expired.text()).toContain("This form has expired");
    const out = await postForm("/portal/sign-out", { csrf_token: csrf }, { Cookie: cookie });
    expect(out.status).toBe(303);
    const after = await call("/portal/orders", { headers: { Cookie: cookie }, redirect: "manual" });
    expect(after.status).toBe(303);
    expect(after.headers.get("Location")).toBe("/portal/sign-in?next=%2Fportal%2Forders");
  });

  it("ends the session a browser had when it signs in again", async () => {
    const customer = await createCustomer("portal");
    const { user, cookie } = await signedIn(customer);
    const again = await postForm("/portal/sign-in", { email: user.email, password: PASSWORD }, { Cookie: cookie });
    expect(again.status).toBe(303);
    const fresh = sessionOf(again);
    expect(fresh).not.toBe(cookie);
    expect((await call("/portal/orders", { headers: { Cookie: cookie }, redirect: "manual" })).status).toBe(303);
    expect((await call("/portal/orders", { headers: { Cookie: fresh } })).status).toBe(200);
  });

  it("refuses a cross-site form post before it reaches the page", async () => {
    const customer = await createCustomer("portal");
    const { cookie } = await signedIn(customer);
    const page = await (await call("/portal/orders", { headers: { Cookie: cookie } })).text();
    const csrf = /name="csrf_token" value="([^"]+)"/.exec(page)?.[1] ?? "";
    const forged = await postForm("/portal/sign-out", { csrf_token: csrf }, { Cookie: cookie, Origin: "https://evil.example" });
    expect(forged.status).toBe(403);
    // A page a person can read, not the API's problem+json.
    expect(forged.headers.get("Content-Type")).toBe("text/html; charset=UTF-8");
    expect(await forged.text()).toContain("not sent from this site");
    expect((await call("/portal/orders", { headers: { Cookie: cookie } })).status).toBe(200);
  });

  it("answers one message for an unknown e-mail and a wrong password, and locks the user at the tenth failure", async () => {
    const customer = await createCustomer("portal");
    const { user, cookie } = await signedIn(customer);
    const unknown = await postForm("/portal/sign-in", {
      email: "nobody@example.com",
      password: PASSWORD,
    });
    const wrong = await postForm("/portal/sign-in", { email: user.email, password: "wrong password!" });
    expect(unknown.status).toBe(400);
    expect(wrong.status).toBe(400);
    const message = (html: string) => /role="alert">([^<]+)</.exec(html)?.[1];
    expect(message(await unknown.text())).toBe(message(await wrong.text()));
    for (let i = 2; i <= 10; i++) {
      await (await postForm("/portal/sign-in", { email: user.email, password: "wrong password!" })).text();
    }
    const status = await json(await operator.admin.users[":user_id"].$get({ param: { user_id: user.user_id } }), 200);
    expect(status.status).toBe("locked");
    // The lock ends the session, and the right password no longer gets in.
    expect((await call("/portal/orders", { headers: { Cookie: cookie }, redirect: "manual" })).status).toBe(303);
    const locked = await postForm("/portal/sign-in", { email: user.email, password: PASSWORD });
    expect(locked.status).toBe(400);
    await locked.text();
    // An unlock lets the user in again.
    await json(
      await operator.admin.users[":user_id"].$patch({ param: { user_id: user.user_id }, json: { status: "active" } }),
      200,
    );
    expect((await postForm("/portal/sign-in", { email: user.email, password: PASSWORD })).status).toBe(303);
  });
});

describe("the stores' clocks", () => {
  async function userWithPassword(customer: TestCustomer) {
    const user = await invitedUser(customer);
    const token = user.path.split("/").pop()!;
    const accepted = await acceptInvitation(db, hashing, token, PASSWORD, Date.now());
    if (!accepted.ok) throw new Error("the invitation was refused");
    return accepted.value;
  }

  it("an invitation works for 72 hours, once, and a new one voids the old", async () => {
    const customer = await createCustomer("portal");
    const user = await invitedUser(customer);
    const first = user.path.split("/").pop()!;
    const issued = Date.now();
    expect(await findInvitation(db, first, issued + INVITATION_TTL_MS - 1000)).toBeDefined();
    expect(await findInvitation(db, first, issued + INVITATION_TTL_MS + 1000)).toBeUndefined();
    expect(await acceptInvitation(db, hashing, first, PASSWORD, issued + INVITATION_TTL_MS + 1000)).toMatchObject({ ok: false });
    const renewed = await issueInvitation(db, TEST_AUDIT, user.user_id, Date.now());
    if (!renewed.ok) throw new Error("no new invitation");
    expect(await findInvitation(db, first, Date.now())).toBeUndefined();
    expect(await acceptInvitation(db, hashing, renewed.value.token, PASSWORD, Date.now())).toMatchObject({ ok: true });
    expect(await acceptInvitation(db, hashing, renewed.value.token, PASSWORD, Date.now())).toMatchObject({
      ok: false,
      reason: "not_found",
    });
  });

  it("a session ends after 12 idle hours and 7 days in any case; use keeps it alive", async () => {
    const customer = await createCustomer("portal");
    const user = await userWithPassword(customer);
    const start = Date.now();
    const checked = { userId: user.id, passwordHash: user.passwordHash! };
    const idle = (await startSession(db, checked, start))!;
    expect(await findSession(db, idle, start + SESSION_IDLE_MS - 60_000)).toBeDefined();
    expect(await findSession(db, idle, start + 2 * SESSION_IDLE_MS)).toBeUndefined();

    const busy = (await startSession(db, checked, start))!;
    // Used every 11 hours it lives on, until 7 days after it began.
    let now = start;
    while (now + 11 * 3_600_000 < start + SESSION_MAX_MS) {
      now += 11 * 3_600_000;
      expect(await findSession(db, busy, now)).toBeDefined();
    }
    expect(await findSession(db, busy, start + SESSION_MAX_MS + 1)).toBeUndefined();
  });

  it("failures older than 15 minutes start a new count: nine, a pause, nine more do not lock", async () => {
    const customer = await createCustomer("portal");
    const user = await userWithPassword(customer);
    const start = Date.now();
    for (let i = 0; i < 9; i++) await signIn(db, hashing, user.email, "wrong password!", start + i);
    for (let i = 0; i < 9; i++) await signIn(db, hashing, user.email, "wrong password!", start + LOCKOUT_WINDOW_MS + i);
    expect(await findUser(db, user.id)).toMatchObject({ status: "active", failedSignIns: 9 });
    await signIn(db, hashing, user.email, "wrong password!", start + LOCKOUT_WINDOW_MS + 10);
    expect(await findUser(db, user.id)).toMatchObject({ status: "locked", failedSignIns: 10 });
  });

  it("refuses a password under 12 or over 128 characters, or equal to the e-mail", () => {
    expect(passwordProblem("short", "a@b.c")).toMatch(/at least 12/);
    expect(passwordProblem("x".repeat(129), "a@b.c")).toMatch(/at most 128/);
    expect(passwordProblem("Someone@Example.com", "someone@example.com")).toMatch(/e-mail/);
    expect(passwordProblem("x".repeat(12), "a@b.c")).toBeNull();
  });
});

describe("hardening", () => {
  it("never writes an invitation's token into the request log", async () => {
    const customer = await createCustomer("portal");
    const user = await invitedUser(customer);
    const token = user.path.split("/").pop()!;
    const { lines } = await withLogs(async () => {
      await (await call(user.path)).text();
      await (await postForm(user.path, { password: "short", password_confirmation: "short" })).text();
    });
    expect(lines.map((line) => line.path)).toEqual(["/portal/invitations/<token>", "/portal/invitations/<token>"]);
    expect(JSON.stringify(lines)).not.toContain(token);
  });

  it("limits failed sign-ins per client address like failed API keys: past 30 a minute, not even the right password is checked", {
    timeout: FRESH_RATE_WINDOW_TIMEOUT,
  }, async () => {
    const customer = await createCustomer("portal");
    const { user } = await signedIn(customer);
    // 31 password checks at the tests' cost take well under a second: all within one window of the limiter.
    await awaitFreshRateWindow(5_000);
    const from = { "CF-Connecting-IP": clientAddress() };
    const attempt = (email: string, password: string) => postForm("/portal/sign-in", { email, password }, from);
    // Unknown e-mails: the address's budget runs out, and no user is locked on the way.
    const statuses: number[] = [];
    for (let i = 0; i < 31; i++) statuses.push((await attempt(`nobody.${i}@example.com`, PASSWORD)).status);
    expect(statuses.slice(0, 30).every((s) => s === 400)).toBe(true);
    expect(statuses[30]).toBe(429);
    const refused = await attempt(user.email, PASSWORD);
    expect(refused.status).toBe(429);
    expect(await refused.text()).toContain("Too many failed sign-ins");
    // Another address signs in.
    expect(
      (await postForm("/portal/sign-in", { email: user.email, password: PASSWORD }, { "CF-Connecting-IP": clientAddress() }))
        .status,
    ).toBe(303);
  });

  it("lands on sign-in's next page only when it is a plain portal path", async () => {
    const customer = await createCustomer("portal");
    const { user } = await signedIn(customer);
    for (const [next, landing] of [
      ["/portal/numbers?status=active", "/portal/numbers?status=active"],
      // Percent-encoded, a line break is harmless text of a path (the page answers 404); raw, it is refused.
      ["/portal/%0D%0AX-Evil:%201", "/portal/%0D%0AX-Evil:%201"],
      ["/portal/\r\nX-Evil: 1", "/portal/orders"],
      ["//evil.example/portal/", "/portal/orders"],
      ["/portal/\\evil.example", "/portal/orders"],
      ["https://evil.example/portal/", "/portal/orders"],
      ["/portal/é", "/portal/orders"],
    ]) {
      const answer = await postForm("/portal/sign-in", {
        email: user.email,
        password: PASSWORD,
        next: next!,
      });
      expect(answer.status, next).toBe(303);
      expect(answer.headers.get("Location"), next).toBe(landing);
    }
  });

  it("links only what the pages' Content-Security-Policy allows: the stylesheet and icon from this origin, no data: URL", async () => {
    const customer = await createCustomer("portal");
    const { get } = await signedIn(customer);
    for (const page of [await call("/portal/sign-in"), await get("/portal/orders")]) {
      const csp = page.headers.get("Content-Security-Policy") ?? "";
      expect(csp).toContain("img-src 'self'");
      expect(csp).not.toMatch(/img-src[^;]*data:/);
      const html = await page.text();
      expect(html).not.toContain('"data:');
      const links = [...html.matchAll(/<link rel="(icon|stylesheet)" href="([^"]+)"/g)].map((m) => [m[1], m[2]]);
      expect(links).toEqual([
        ["stylesheet", "/ui/assets/ui.css"],
        ["icon", "/ui/assets/icon.svg"],
      ]);
    }
    const icon = await call("/ui/assets/icon.svg");
    expect(icon.headers.get("Content-Type")).toBe("image/svg+xml");
    expect(await icon.text()).toMatch(/^<svg /);
  });

  it("refuses a multipart body to every form but the upload (415), unread and with nothing done", async () => {
    const customer = await createCustomer("portal");
    const owner = await signedIn(customer);
    const multipart = (path: string, fields: Record<string, string>, cookie?: string) => {
      const body = new FormData();
      for (const [name, value] of Object.entries(fields)) body.set(name, value);
      return call(path, { method: "POST", headers: { ...SAME_ORIGIN, ...(cookie ? { Cookie: cookie } : {}) }, body });
    };
    const cases = [
      multipart("/portal/sign-in", { email: owner.user.email, password: PASSWORD }),
      multipart("/portal/settings/api-keys", { csrf_token: owner.csrf, name: "multipart" }, owner.cookie),
      multipart("/portal/sign-out", { csrf_token: owner.csrf }, owner.cookie),
    ];
    for (const answer of await Promise.all(cases)) {
      expect(answer.status).toBe(415);
      expect(answer.headers.get("Content-Type")).toBe("text/html; charset=UTF-8");
      expect(await answer.text()).toContain("cannot be sent as multipart/form-data");
    }
    const keys = await json(
      await operator.admin.customers[":slug"]["api-keys"].$get({ param: { slug: customer.slug }, query: {} }),
      200,
    );
    expect(keys.data.map((k) => k.name)).not.toContain("multipart");
    expect((await owner.get("/portal/orders")).status).toBe(200);
  });

  it("reads a form of at most 64 KiB, and only UTF-8", async () => {
    const big = await call("/portal/sign-in", {
      method: "POST",
      headers: { ...SAME_ORIGIN, "Content-Type": "application/x-www-form-urlencoded" },
      body: `password=${"x".repeat(70_000)}`,
    });
    expect(big.status).toBe(413);
    expect(big.headers.get("Content-Type")).toBe("text/html; charset=UTF-8");
    await big.text();
    const invalid = await call("/portal/sign-in", {
      method: "POST",
      headers: { ...SAME_ORIGIN, "Content-Type": "application/x-www-form-urlencoded" },
      body: new Uint8Array([0x61, 0x3d, 0xff, 0xfe]),
    });
    expect(invalid.status).toBe(400);
    expect(await invalid.text()).toContain("not valid UTF-8");
  });
});
