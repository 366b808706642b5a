// The portal's Settings pages inside the workers pool: API keys, Team, Webhooks, for owners and admins only; checked
// through the pages and then through the API.
import { describe, expect, it } from "vitest";
import { call, createCustomer, json, operator, type TestCustomer } from "./helpers.ts";

const PASSWORD = "correct horse battery staple";
const SAME_ORIGIN = { Origin: "https://vn.test", "Content-Type": "application/x-www-form-urlencoded" };
type Role = "owner" | "admin" | "member";

async function invitedUser(customer: TestCustomer, role: Role) {
  const user = await json(
    await operator.admin.customers[":slug"].users.$post({
      param: { slug: customer.slug },
      json: { email: `${role}.${crypto.randomUUID().slice(0, 6)}@example.com`, name: `The ${role}`, role },
    }),
    201,
  );
  return { ...user, path: new URL(user.invitation_url).pathname };
}

function post(path: string, fields: Record<string, string | string[]>, headers: Record<string, string> = {}) {
  const body = new URLSearchParams();
  for (const [name, value] of Object.entries(fields)) for (const v of [value].flat()) body.append(name, v);
  return call(path, { method: "POST", headers: { ...SAME_ORIGIN, ...headers }, body, redirect: "manual" });
}

/** A signed-in person of the account: their pages (GET) and forms (POST, with the session's CSRF token). */
async function signedIn(customer: TestCustomer, role: Role) {
  const user = await invitedUser(customer, role);
  expect((await post(user.path, { password: PASSWORD, password_confirmation: PASSWORD })).status).toBe(303);
  const answer = await post("/portal/sign-in", { account: customer.slug, email: user.email, password: PASSWORD });
  expect(answer.status).toBe(303);
  const cookie = (answer.headers.get("Set-Cookie") ?? "").split(";")[0]!;
  const orders = await (await call("/portal/orders", { headers: { Cookie: cookie } })).text();
  const csrf = /name="csrf_token" value="([^"]+)"/.exec(orders)?.[1] ?? "";
  return {
    user,
    get: (path: string) => call(path, { headers: { Cookie: cookie }, redirect: "manual" }),
    post: (path: string, fields: Record<string, string | string[]> = {}) =>
      post(path, { csrf_token: csrf, ...fields }, { Cookie: cookie }),
  };
}

/** The page's text after asserting its status. */
async function page(response: Response, status: number): Promise<string> {
  const text = await response.text();
  expect(response.status, text.slice(0, 2000)).toBe(status);
  return text;
}

function redirected(response: Response, location: string | RegExp) {
  expect(response.status).toBe(303);
  expect(response.headers.get("Location")).toMatch(location);
}

describe("API keys", () => {
  it("creates a key shown once that the API takes, and revokes it after a confirmation so the API refuses it", async () => {
    const customer = await createCustomer("keys");
    const admin = await signedIn(customer, "admin");
    expect(await page(await admin.get("/portal/settings/api-keys"), 200)).toContain(`${customer.key.slice(0, 8)}`);

    const created = await page(await admin.post("/portal/settings/api-keys", { name: "deploy bot" }), 200);
    const key = /id="new-key">(vnk_[^<]+)</.exec(created)?.[1] ?? "";
    expect(key).not.toBe("");
    expect(created).toMatch(/<script nonce="[^"]+">/);
    expect(created).toContain('data-copy="new-key" hidden');
    // Shown once: the list afterwards has its prefix and last four only.
    const list = await page(await admin.get("/portal/settings/api-keys"), 200);
    expect(list).not.toContain(key);
    expect(list).toContain(key.slice(-4));
    expect(list).toContain("deploy bot");

    const api = (k: string) => call(`/api/customers/${customer.slug}/users`, { headers: { Authorization: `Bearer ${k}` } });
    expect((await api(key)).status).toBe(200);

    const keys = await json(
      await operator.admin.customers[":slug"]["api-keys"].$get({ param: { slug: customer.slug }, query: {} }),
      200,
    );
    const id = keys.data.find((k) => k.name === "deploy bot")!.id;
    expect(await page(await admin.get(`/portal/settings/api-keys/${id}/revoke`), 200)).toContain("I understand");
    // Without the confirmation nothing is revoked.
    await page(await admin.post(`/portal/settings/api-keys/${id}/revoke`), 409);
    expect((await api(key)).status).toBe(200);
    redirected(
      await admin.post(`/portal/settings/api-keys/${id}/revoke`, { confirm: "yes" }),
      "/portal/settings/api-keys?done=revoked",
    );
    expect((await api(key)).status).toBe(401);
    expect(await page(await admin.get("/portal/settings/api-keys?done=revoked"), 200)).toContain("The key is revoked");
  });

  it("shows a name's error beside the field, and does not revoke another account's key", async () => {
    const customer = await createCustomer("keys");
    const other = await createCustomer("keys");
    const owner = await signedIn(customer, "owner");
    const bad = await page(await owner.post("/portal/settings/api-keys", { name: "" }), 400);
    expect(bad).toMatch(/aria-invalid="true" aria-describedby="key-name-error"/);
    expect(bad).toMatch(/id="key-name-error">must not be empty</);
    await page(await owner.post(`/portal/settings/api-keys/${other.keyId}/revoke`, { confirm: "yes" }), 404);
    expect((await other.account.users.$get({ param: { customer_slug: other.slug }, query: {} })).status).toBe(200);
  });
});
