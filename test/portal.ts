// Shared helpers of the portal's tests in the workers pool: users invited through the operator's API, forms posted as
// a browser posts them (same Origin), and signed-in visitors with their cookie and CSRF token.
import { expect } from "vitest";
import { call, json, operator, type TestCustomer } from "./helpers.ts";

/** The password every invited user of these tests sets. */
export const PASSWORD = "correct horse battery staple";
/** What a browser's own form post carries: this site's Origin. */
export const SAME_ORIGIN = { Origin: "https://vn.test" };

export type Role = "owner" | "admin" | "member";

/** A user of the account, created by the operator: the answer with the invitation link's path. */
export async function invitedUser(customer: TestCustomer, role: Role = "owner") {
  const user = await json(
    await operator.admin.customers[":slug"].users.$post({
      param: { slug: customer.slug },
      json: { email: `${role}.${crypto.randomUUID().slice(0, 6)}@example.com`, name: `The ${role}`, role },
    }),
    201,
  );
  return { ...user, path: new URL(user.invitation_url).pathname };
}

/** An urlencoded form post (a field given a list is sent once per value, as checkboxes are), not following redirects. */
export function postForm(path: string, fields: Record<string, string | string[]>, headers: Record<string, string> = {}) {
  const body = new URLSearchParams();
  for (const [name, value] of Object.entries(fields)) for (const v of [value].flat()) body.append(name, v);
  return call(path, {
    method: "POST",
    headers: { ...SAME_ORIGIN, "Content-Type": "application/x-www-form-urlencoded", ...headers },
    body,
    redirect: "manual",
  });
}

/** The session cookie a sign-in answer sets, as a Cookie header. */
export function sessionOf(response: Response): string {
  const cookie = response.headers.get("Set-Cookie") ?? "";
  expect(cookie).toMatch(/^__Host-vn_session=[^;]+; Max-Age=604800; Path=\/; HttpOnly; Secure; SameSite=Lax$/);
  return cookie.split(";")[0]!;
}

/** The CSRF token a page's forms carry. */
function csrfOf(html: string): string {
  const token = /name="csrf_token" value="([^"]+)"/.exec(html)?.[1];
  if (!token) expect.fail("the page has no CSRF token");
  return token;
}

/**
 * A new user of `role` who set a password through the invitation and signed in: their Cookie header, and their pages
 * (GET) and forms (POST urlencoded or multipart, with the session's CSRF token), none following redirects.
 */
export async function signedIn(customer: TestCustomer, role: Role = "owner") {
  const user = await invitedUser(customer, role);
  expect((await postForm(user.path, { password: PASSWORD, password_confirmation: PASSWORD })).status).toBe(303);
  const answer = await postForm("/portal/sign-in", { email: user.email, password: PASSWORD });
  expect(answer.status).toBe(303);
  const cookie = sessionOf(answer);
  const csrf = csrfOf(await (await call("/portal/orders", { headers: { Cookie: cookie } })).text());
  return {
    user,
    cookie,
    csrf,
    get: (path: string) => call(path, { headers: { Cookie: cookie }, redirect: "manual" }),
    /** The page a form's 303 leads to, as a browser opens it: with the cookies the answer set (a secret shown once). */
    follow: (answer: Response) => {
      expect(answer.status).toBe(303);
      const set = answer.headers.getSetCookie().map((c) => c.split(";")[0]!);
      return call(answer.headers.get("Location")!, { headers: { Cookie: [cookie, ...set].join("; ") }, redirect: "manual" });
    },
    post: (path: string, fields: Record<string, string | string[]> = {}) =>
      postForm(path, { csrf_token: csrf, ...fields }, { Cookie: cookie }),
    /** An upload's form: the token as its first part, as the page's form sends it, then the form's fields. */
    postMultipart: (path: string, form: FormData) => {
      const body = new FormData();
      body.set("csrf_token", csrf);
      for (const [name, value] of form) body.append(name, value);
      return call(path, { method: "POST", headers: { ...SAME_ORIGIN, Cookie: cookie }, body, redirect: "manual" });
    },
  };
}

/** A page's HTML, after asserting its status (the page is shown when it differs). */
export async function pageText(response: Response, status: number): Promise<string> {
  const text = await response.text();
  expect(response.status, text.slice(0, 2000)).toBe(status);
  return text;
}
