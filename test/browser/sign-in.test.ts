// The portal's sign-in flows in a real browser: invitation, password, sign-in, the Orders page, lockout, a cross-site
// form post, sign-out; and screenshots of the pages at 1280 and 375 px (screenshots/).
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { json, PASSWORD, usePortal } from "./helpers.ts";

const portal = usePortal();

/** The one message for every refused sign-in: unknown e-mail, wrong password, locked user (src/portal/auth-pages.tsx). */
const NO_MATCH =
  "That e-mail and password do not match. A user locked after too many failed sign-ins, or deactivated, cannot sign " +
  "in: ask an owner or admin of the account.";

describe("invitation, password, sign-in", () => {
  it("sets the password through the link, signs in, and shows the account's orders", async () => {
    const account = await portal.createAccount();
    const user = await portal.inviteUser(account);
    await portal.makeOrderable("US", "mobile");
    const order = await json(
      await account.api.orders.$post({
        param: { customer_slug: account.slug },
        json: { number_type: "mobile", country_code: "US", quantity: 7 },
      }),
      201,
    );

    const page = await portal.newPage();
    await page.goto(user.invitation_url);
    expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("Set your password");
    await portal.screenshot(page, "set-password");
    await portal.acceptInvitation(page, user);
    // Sign-in asks for the e-mail and password alone, and says the password is set (the e-mail is in no URL).
    expect(page.url()).toBe(`${portal.base}/portal/sign-in?done=password`);
    expect(await page.getByRole("status").textContent()).toBe("Your password is set: sign in with it.");
    expect(await page.locator("input:not([type=hidden])").count()).toBe(2);
    await page.getByLabel("E-mail").fill(user.email);
    await portal.screenshot(page, "sign-in");
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(`${portal.base}/portal/orders`);

    expect(
      await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Orders" }).getAttribute("aria-current"),
    ).toBe("page");
    await expect.poll(() => page.getByText(`${user.name} · ${account.name}`).count()).toBe(1);
    const rows = page.locator("tbody tr");
    expect(await rows.count()).toBe(1);
    const cells = await rows.first().getByRole("cell").allTextContents();
    expect(cells.slice(0, 6)).toEqual([order.order_number, "mobile", "US", "7", "0", "pending"]);
    await portal.screenshot(page, "orders");

    // What the API answers is what the page showed; and the invitation was used up.
    const listed = await json(await account.api.orders.$get({ param: { customer_slug: account.slug }, query: {} }), 200);
    expect(listed.data.map((o) => o.order_number)).toEqual([order.order_number]);
    const fetched = await json(await portal.admin.admin.users[":user_id"].$get({ param: { user_id: user.user_id } }), 200);
    expect(fetched.status).toBe("active");
    expect(fetched.last_login_at).not.toBeNull();
    const again = await page.goto(user.invitation_url);
    expect(again?.status()).toBe(410);
  });

  it("shows the field's error beside the field for a short password", async () => {
    const account = await portal.createAccount();
    const user = await portal.inviteUser(account);
    const page = await portal.newPage();
    await page.goto(user.invitation_url);
    const field = page.getByLabel("New password");
    await field.fill("short");
    await page.getByLabel("Repeat the password").fill("short");
    // The browser refuses it first (minlength)…
    await page.getByRole("button", { name: "Set password" }).click();
    expect(await page.evaluate("document.querySelector('input[name=password]').validity.tooShort")).toBe(true);
    expect(new URL(page.url()).pathname).toBe(new URL(user.invitation_url).pathname);
    // …and the server too, for a browser that does not check (the form posted without the browser's validation).
    await page.evaluate("document.querySelector('form.stack').noValidate = true");
    const [answer] = await Promise.all([
      page.waitForResponse((r) => r.request().method() === "POST"),
      page.getByRole("button", { name: "Set password" }).click(),
    ]);
    expect(answer.status()).toBe(400);
    await page.waitForLoadState();
    const describedBy = await page.getByLabel("New password").getAttribute("aria-describedby");
    expect(describedBy).toBe("password-error");
    expect(await page.getByLabel("New password").getAttribute("aria-invalid")).toBe("true");
    const error = page.locator(`#${describedBy}`);
    expect(await error.textContent()).toBe("New password must be at least 12 characters");
    // Beside the field: right under its input, not in a summary elsewhere on the page.
    const input = await page.getByLabel("New password").boundingBox();
    const shown = await error.boundingBox();
    expect(input && shown && shown.y - (input.y + input.height)).toBeGreaterThanOrEqual(0);
    expect(input && shown && shown.y - (input.y + input.height)).toBeLessThan(20);
    await portal.screenshot(page, "set-password-error");
    // The password was not set: the link still works.
    expect((await fetch(user.invitation_url)).status).toBe(200);
  });
});

describe("wrong passwords", () => {
  it("shows one message for a wrong password and an unknown e-mail, and locks the user at the tenth failure", async () => {
    const account = await portal.createAccount();
    const user = await portal.inviteUser(account);
    const page = await portal.newPage();
    await portal.acceptInvitation(page, user);

    const refused = async (email: string, password: string) => {
      await page.goto(`${portal.base}/portal/sign-in`);
      await page.getByLabel("E-mail").fill(email);
      await page.getByLabel("Password").fill(password);
      await page.getByRole("button", { name: "Sign in" }).click();
      return (await page.getByRole("alert").textContent())?.trim();
    };
    expect(await refused("nobody@example.com", PASSWORD)).toBe(NO_MATCH);
    expect(await refused(user.email, "not the password")).toBe(NO_MATCH);
    await portal.screenshot(page, "sign-in-error");
    // The form keeps what was typed but the password.
    expect(await page.getByLabel("E-mail").inputValue()).toBe(user.email);
    expect(await page.getByLabel("Password").inputValue()).toBe("");
    const status = async () =>
      (await json(await portal.admin.admin.users[":user_id"].$get({ param: { user_id: user.user_id } }), 200)).status;
    for (let failure = 2; failure <= 9; failure++) expect(await refused(user.email, "not the password")).toBe(NO_MATCH);
    expect(await status()).toBe("active");
    await refused(user.email, "not the password");
    expect(await status()).toBe("locked");
    // Locked: the right password gets the same answer as a wrong one (no oracle).
    expect(await refused(user.email, PASSWORD)).toBe(NO_MATCH);
    expect(new URL(page.url()).pathname).toBe("/portal/sign-in");
  });
});

describe("sessions", () => {
  it("refuses a form posted from another site to sign-out: the session lives on", async () => {
    const { page } = await portal.signInAsNewOwner();
    // The victim's own token, to show the Origin check alone refuses it (an attacker would not even have the token).
    const token = await page.locator("input[name=csrf_token]").first().inputValue();
    // Another port of the same host: the same site, so the SameSite=Lax cookie goes with the post.
    const evil = createServer((_, res) => {
      res.setHeader("Content-Type", "text/html; charset=utf-8");
      res.end(`<!DOCTYPE html>
        <form method="post" action="${portal.base}/portal/sign-out"><input type="hidden" name="csrf_token" value="${token}"></form>
        <script>document.forms[0].submit()</script>`);
    });
    await new Promise<void>((resolve) => evil.listen(0, "127.0.0.1", resolve));
    try {
      const [answer] = await Promise.all([
        page.waitForResponse(`${portal.base}/portal/sign-out`),
        page.goto(`http://127.0.0.1:${(evil.address() as AddressInfo).port}/`),
      ]);
      const sent = await answer.request().allHeaders();
      expect(sent.cookie).toMatch(/__Host-vn_session=/);
      expect(sent["sec-fetch-site"]).toBe("same-site");
      expect(answer.status()).toBe(403);
    } finally {
      await new Promise((resolve) => evil.close(resolve));
    }
    const back = await page.goto(`${portal.base}/portal/orders`);
    expect(back?.status()).toBe(200);
    expect(new URL(page.url()).pathname).toBe("/portal/orders");
  });

  it("ends the session at sign-out: back and reopening the Orders page land on sign-in", async () => {
    const { page } = await portal.signInAsNewOwner();
    const [cookie] = (await page.context().cookies()).filter((c) => c.name === "__Host-vn_session");
    expect(cookie?.httpOnly).toBe(true);
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.waitForURL(`${portal.base}/portal/sign-in?done=signed_out`);
    expect(await page.getByRole("status").textContent()).toBe("You are signed out.");
    expect(await page.context().cookies()).toEqual([]);

    // The pages are no-store: going back asks the Worker again, which sends the visitor to sign-in.
    await page.goBack();
    expect(new URL(page.url()).pathname).toBe("/portal/sign-in");
    await page.goto(`${portal.base}/portal/orders`);
    expect(page.url()).toBe(`${portal.base}/portal/sign-in?next=%2Fportal%2Forders`);
    expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("Sign in");
    // The old cookie is dead on the server too, not only dropped by the browser.
    const replay = await fetch(`${portal.base}/portal/orders`, {
      headers: { Cookie: `${cookie?.name}=${cookie?.value}` },
      redirect: "manual",
    });
    expect(replay.status).toBe(303);
    expect(replay.headers.get("Location")).toBe("/portal/sign-in?next=%2Fportal%2Forders");
  });
});
