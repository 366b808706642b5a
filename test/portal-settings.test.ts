// The portal's Settings pages inside the workers pool: API keys, Team, Webhooks, for owners and admins only; checked
// through the pages and then through the API.
import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { createApp } from "../src/app.ts";
import { call, createCustomer, json, operator } from "./helpers.ts";
import { invitedUser, pageText, signedIn } from "./portal.ts";

function redirected(response: Response, location: string | RegExp) {
  expect(response.status).toBe(303);
  expect(response.headers.get("Location")).toMatch(location);
}

describe("API keys", () => {
  it("creates a key shown once that the API takes, and revokes it after a confirmation so the API refuses it", async () => {
    const customer = await createCustomer("keys");
    const admin = await signedIn(customer, "admin");
    expect(await pageText(await admin.get("/portal/settings/api-keys"), 200)).toContain(`${customer.key.slice(0, 8)}`);

    // The slug every API path names is on the page.
    expect(await pageText(await admin.get("/portal/settings/api-keys"), 200)).toContain(`<code>${customer.slug}</code>`);
    // The form's answer is a redirect: a reload of the page it leads to creates nothing.
    const answer = await admin.post("/portal/settings/api-keys", { name: "deploy bot" });
    redirected(answer, /^\/portal\/settings\/api-keys$/);
    expect(answer.headers.get("Set-Cookie")).toMatch(
      /^__Host-vn_once_keys=[^;]+; Max-Age=60; Path=\/; HttpOnly; Secure; SameSite=Strict$/,
    );
    const created = await pageText(await admin.follow(answer), 200);
    const key = /id="new-key">(vnk_[^<]+)</.exec(created)?.[1] ?? "";
    expect(key).not.toBe("");
    expect(created).toContain("The key “deploy bot” is created.");
    expect(created).toMatch(/<script nonce="[^"]+">/);
    expect(created).toContain('data-copy="new-key" hidden');
    // The sealed cookie shows nothing to another session.
    const other = await signedIn(customer, "admin");
    const cookie = answer.headers.get("Set-Cookie")!.split(";")[0]!;
    const elsewhere = await call("/portal/settings/api-keys", { headers: { Cookie: `${other.cookie}; ${cookie}` } });
    expect(await pageText(elsewhere, 200)).not.toContain(key);
    // Shown once: the list afterwards has its prefix and last four only.
    const list = await pageText(await admin.get("/portal/settings/api-keys"), 200);
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
    // Asked once, on a page of its own: one button, no checkbox.
    const confirm = await pageText(await admin.get(`/portal/settings/api-keys/${id}/revoke`), 200);
    expect(confirm).toContain("Revoke the key “deploy bot”?");
    expect(confirm).not.toContain('type="checkbox"');
    expect((await api(key)).status).toBe(200);
    redirected(await admin.post(`/portal/settings/api-keys/${id}/revoke`), "/portal/settings/api-keys?done=revoked");
    expect((await api(key)).status).toBe(401);
    expect(await pageText(await admin.get("/portal/settings/api-keys?done=revoked"), 200)).toContain("The key is revoked");
  });

  it("shows a name's error beside the field, and does not revoke another account's key", async () => {
    const customer = await createCustomer("keys");
    const other = await createCustomer("keys");
    const owner = await signedIn(customer, "owner");
    const bad = await pageText(await owner.post("/portal/settings/api-keys", { name: "" }), 400);
    expect(bad).toMatch(/aria-invalid="true" aria-describedby="name-error"/);
    expect(bad).toMatch(/id="name-error">Name must not be empty</);
    // The API's text rules, in the API's words: "ad\u200bmin" would pose as "admin".
    const invisible = await pageText(await owner.post("/portal/settings/api-keys", { name: "ad\u200bmin" }), 400);
    expect(invisible).toContain(
      'id="name-error">Name must not contain invisible format characters such as zero-width spaces, joiners or direction marks (found U+200B)<',
    );
    await pageText(await owner.post(`/portal/settings/api-keys/${other.keyId}/revoke`), 404);
    expect((await other.account.users.$get({ param: { customer_slug: other.slug }, query: {} })).status).toBe(200);
  });
});

async function userState(userId: string) {
  const user = await json(await operator.admin.users[":user_id"].$get({ param: { user_id: userId } }), 200);
  return { role: user.role, status: user.status };
}

describe("Team", () => {
  it("invites a teammate with a link that works, changes a role, deactivates, reactivates and reissues a link", async () => {
    const customer = await createCustomer("team");
    const owner = await signedIn(customer, "owner");
    const list = await pageText(await owner.get("/portal/settings/team?role=owner"), 200);
    expect(list).toContain(owner.user.email);

    const invitedAnswer = await owner.post("/portal/settings/team", {
      email: "New.Mate@example.com",
      name: "New Mate",
      role: "member",
    });
    redirected(invitedAnswer, /^\/portal\/settings\/team$/);
    const invited = await pageText(await owner.follow(invitedAnswer), 200);
    const link = /id="invitation-link">(https:\/\/vn\.test\/portal\/invitations\/[A-Za-z0-9_-]+)</.exec(invited)?.[1] ?? "";
    expect(link).not.toBe("");
    expect((await call(new URL(link).pathname)).status).toBe(200);
    const users = await json(
      await customer.account.users.$get({ param: { customer_slug: customer.slug }, query: { search: "new.mate" } }),
      200,
    );
    const mate = users.data[0]!;
    expect(mate).toMatchObject({ email: "new.mate@example.com", role: "member", status: "active" });

    redirected(
      await owner.post(`/portal/settings/team/${mate.user_id}/role`, { role: "admin" }),
      "/portal/settings/team?done=role",
    );
    expect(await userState(mate.user_id)).toEqual({ role: "admin", status: "active" });
    redirected(await owner.post(`/portal/settings/team/${mate.user_id}/status`, { status: "inactive" }), /done=inactive$/);
    expect(await userState(mate.user_id)).toEqual({ role: "admin", status: "inactive" });
    redirected(await owner.post(`/portal/settings/team/${mate.user_id}/status`, { status: "active" }), /done=active$/);
    expect(await userState(mate.user_id)).toEqual({ role: "admin", status: "active" });

    // A new link replaces the first one.
    const again = await pageText(await owner.follow(await owner.post(`/portal/settings/team/${mate.user_id}/invitation`)), 200);
    const second = /id="invitation-link">([^<]+)</.exec(again)?.[1] ?? "";
    expect(second).not.toBe(link);
    expect((await call(new URL(second).pathname)).status).toBe(200);
    expect((await call(new URL(link).pathname)).status).not.toBe(200);

    const bad = await pageText(
      await owner.post("/portal/settings/team", { email: "not an e-mail", name: "", role: "member" }),
      400,
    );
    expect(bad).toMatch(/id="invite-email-error">E-mail must be an email address</);
    expect(bad).toMatch(/id="invite-name-error">[^<]+</);
  });

  it("filters as every list does: empty fields leave the address, a bad filter is a 400 with its error beside the field", async () => {
    const customer = await createCustomer("team");
    const owner = await signedIn(customer, "owner");
    redirected(
      await owner.get("/portal/settings/team?search=&status=&role=owner&sort_by="),
      /^\/portal\/settings\/team\?role=owner$/,
    );
    redirected(await owner.get("/portal/settings/team?search=&status=&role="), /^\/portal\/settings\/team$/);
    const bad = await pageText(await owner.get("/portal/settings/team?role=boss&search=ada"), 400);
    expect(bad).toMatch(/<select name="role" id="role" aria-invalid="true" aria-describedby="role-error">/);
    expect(bad).toMatch(/id="role-error">Role [^<]+</);
    expect(bad).toContain('value="ada"');
    expect(bad).not.toContain("showing everyone");
    expect(bad).not.toContain(owner.user.email);
  });

  it("unlocks a locked user", async () => {
    const customer = await createCustomer("team");
    const admin = await signedIn(customer, "admin");
    const member = await invitedUser(customer, "member");
    await json(
      await operator.admin.users[":user_id"].$patch({ param: { user_id: member.user_id }, json: { status: "locked" } }),
      200,
    );
    expect(await pageText(await admin.get("/portal/settings/team"), 200)).toContain(">Unlock<");
    redirected(await admin.post(`/portal/settings/team/${member.user_id}/status`, { status: "active" }), /done=active$/);
    expect(await userState(member.user_id)).toEqual({ role: "member", status: "active" });
  });

  it("refuses an admin's change of an owner, an admin making an owner, and an admin's invitation of an owner", async () => {
    const customer = await createCustomer("team");
    const owner = await signedIn(customer, "owner");
    const admin = await signedIn(customer, "admin");
    const member = await invitedUser(customer, "member");
    const ownerId = owner.user.user_id;
    for (const [path, fields] of [
      [`/portal/settings/team/${ownerId}/role`, { role: "member" }],
      [`/portal/settings/team/${ownerId}/status`, { status: "inactive" }],
      [`/portal/settings/team/${member.user_id}/role`, { role: "owner" }],
    ] as const) {
      expect(await pageText(await admin.post(path, fields), 409), path).toContain("Only an owner can change an owner");
    }
    expect(await pageText(await admin.post(`/portal/settings/team/${ownerId}/invitation`, {}), 409)).toContain(
      "Only an owner can issue a new link for an owner or an admin",
    );
    expect(await userState(ownerId)).toEqual({ role: "owner", status: "active" });
    expect(await userState(member.user_id)).toEqual({ role: "member", status: "active" });
    const invite = await admin.post("/portal/settings/team", { email: "boss@example.com", name: "Boss", role: "owner" });
    expect(await pageText(invite, 409)).toContain("Only an owner can change an owner");
    const found = await json(
      await customer.account.users.$get({ param: { customer_slug: customer.slug }, query: { search: "boss@" } }),
      200,
    );
    expect(found.data).toEqual([]);
    // The owner may.
    redirected(await owner.post(`/portal/settings/team/${member.user_id}/role`, { role: "owner" }), /done=role$/);
    expect(await userState(member.user_id)).toEqual({ role: "owner", status: "active" });
  });

  it("lets only an owner issue a new link for an admin: whoever holds it sets the password", async () => {
    const customer = await createCustomer("team");
    const owner = await signedIn(customer, "owner");
    const admin = await signedIn(customer, "admin");
    const otherAdmin = await invitedUser(customer, "admin");
    const member = await invitedUser(customer, "member");
    const refused = await admin.post(`/portal/settings/team/${otherAdmin.user_id}/invitation`, {});
    expect(await pageText(refused, 409)).toContain("Only an owner can issue a new link for an owner or an admin");
    // The admin's earlier link still works: nothing was issued.
    expect((await call(otherAdmin.path)).status).toBe(200);
    expect(
      await pageText(await admin.follow(await admin.post(`/portal/settings/team/${member.user_id}/invitation`, {})), 200),
    ).toContain("/portal/invitations/");
    expect(
      await pageText(await owner.follow(await owner.post(`/portal/settings/team/${otherAdmin.user_id}/invitation`, {})), 200),
    ).toContain("/portal/invitations/");
  });

  it("lets an admin change no other admin, and voids a password link when its user is promoted", async () => {
    const customer = await createCustomer("team");
    const owner = await signedIn(customer, "owner");
    const admin = await signedIn(customer, "admin");
    const peer = await invitedUser(customer, "admin");
    const member = await invitedUser(customer, "member");
    // Demoting a peer first would let the admin issue the peer's password link: refused, and not offered.
    for (const [path, fields] of [
      [`/portal/settings/team/${peer.user_id}/role`, { role: "member" }],
      [`/portal/settings/team/${peer.user_id}/status`, { status: "inactive" }],
    ] as const) {
      expect(await pageText(await admin.post(path, fields), 409), path).toContain("Only an owner can change another admin");
    }
    expect(await userState(peer.user_id)).toEqual({ role: "admin", status: "active" });
    const page = await pageText(await admin.get("/portal/settings/team"), 200);
    expect(page).not.toContain(`/portal/settings/team/${peer.user_id}/role`);
    expect(page).toContain(`/portal/settings/team/${member.user_id}/role`);
    // A link issued to a member does not survive the member's promotion.
    const link = /id="invitation-link">([^<]+)</.exec(
      await pageText(await admin.follow(await admin.post(`/portal/settings/team/${member.user_id}/invitation`)), 200),
    )?.[1];
    if (!link) expect.fail("no link shown");
    expect((await call(new URL(link).pathname)).status).toBe(200);
    redirected(await owner.post(`/portal/settings/team/${member.user_id}/role`, { role: "admin" }), /done=role$/);
    expect((await call(new URL(link).pathname)).status).toBe(410);
  });

  it("keeps the last active owner, and nobody deactivates themselves", async () => {
    const customer = await createCustomer("team");
    const owner = await signedIn(customer, "owner");
    const admin = await signedIn(customer, "admin");
    const ownerId = owner.user.user_id;
    expect(await pageText(await owner.post(`/portal/settings/team/${ownerId}/role`, { role: "admin" }), 409)).toContain(
      "last active owner",
    );
    expect(await userState(ownerId)).toEqual({ role: "owner", status: "active" });
    for (const who of [owner, admin]) {
      const self = await who.post(`/portal/settings/team/${who.user.user_id}/status`, { status: "inactive" });
      expect(await pageText(self, 409)).toContain("cannot deactivate or lock yourself");
      expect(await userState(who.user.user_id)).toMatchObject({ status: "active" });
    }
    // With a second active owner, the first may step down; then the second is the last.
    const second = await invitedUser(customer, "owner");
    redirected(await owner.post(`/portal/settings/team/${ownerId}/role`, { role: "admin" }), /done=role$/);
    expect(await userState(ownerId)).toEqual({ role: "admin", status: "active" });
    expect(
      await pageText(await owner.post(`/portal/settings/team/${second.user_id}/status`, { status: "inactive" }), 409),
    ).toContain("Only an owner");
  });

  it("lets only one of two concurrent demotions of the last two owners through", async () => {
    const customer = await createCustomer("team");
    const first = await signedIn(customer, "owner");
    const second = await signedIn(customer, "owner");
    const answers = await Promise.all([
      first.post(`/portal/settings/team/${second.user.user_id}/role`, { role: "member" }),
      second.post(`/portal/settings/team/${first.user.user_id}/role`, { role: "member" }),
    ]);
    expect(answers.map((a) => a.status).sort()).toEqual([303, 409]);
    await Promise.all(answers.map((a) => a.text()));
    const owners = await json(
      await customer.account.users.$get({ param: { customer_slug: customer.slug }, query: { role: "owner", status: "active" } }),
      200,
    );
    expect(owners.data).toHaveLength(1);
  });
});

describe("Webhooks", () => {
  beforeEach(() => {
    // No consumer runs: the deliveries stay as the pages made them.
    vi.spyOn(env.WEBHOOK_DELIVERIES, "sendBatch").mockResolvedValue({
      metadata: { metrics: { backlogCount: 0, backlogBytes: 0 } },
    });
  });

  it("creates an endpoint (the secret once), edits, rotates, sends a test event, retries nothing pending, deletes", async () => {
    const customer = await createCustomer("hooks");
    const admin = await signedIn(customer, "admin");
    const bad = await pageText(
      await admin.post("/portal/settings/webhooks", { url: "https://10.0.0.1/hook", event_types: [] }),
      400,
    );
    expect(bad).toMatch(/aria-invalid="true" aria-describedby="new-url-error"/);
    expect(bad).toMatch(/id="new-url-error">URL must name its host, not an IP address</);
    const noTypes = await pageText(
      await admin.post("/portal/settings/webhooks", { url: "https://hooks.test/x", delivers: "chosen", event_types: [] }),
      400,
    );
    expect(noTypes).toMatch(/id="new-event-types-error">Event types [^<]+</);
    // Types ticked under "every type" are not silently dropped.
    const both = await pageText(
      await admin.post("/portal/settings/webhooks", {
        url: "https://hooks.test/x",
        delivers: "every",
        event_types: ["order.created"],
      }),
      400,
    );
    expect(both).toMatch(/id="new-event-types-error">Event types are ticked while every type is chosen/);

    const createdAnswer = await admin.post("/portal/settings/webhooks", {
      url: "https://hooks.test/portal",
      description: "Fulfilment",
      delivers: "chosen",
      event_types: ["order.created", "order.fulfilled"],
    });
    expect(createdAnswer.status).toBe(303);
    const created = await pageText(await admin.follow(createdAnswer), 200);
    const secret = /id="new-secret">(whsec_[^<]+)</.exec(created)?.[1] ?? "";
    expect(secret).not.toBe("");
    const listed = await json(
      await customer.account["webhook-endpoints"].$get({ param: { customer_slug: customer.slug }, query: {} }),
      200,
    );
    expect(listed.data).toHaveLength(1);
    const endpoint = listed.data[0]!;
    expect(endpoint).toMatchObject({
      url: "https://hooks.test/portal",
      description: "Fulfilment",
      event_types: ["order.created", "order.fulfilled"],
    });
    expect(JSON.stringify(listed)).not.toContain(secret);
    const id = endpoint.id.replace(/^we_/, "");
    const path = `/portal/settings/webhooks/${id}`;
    expect(await pageText(await admin.get("/portal/settings/webhooks"), 200)).not.toContain(secret);

    // Edit: an error beside its field and nothing saved; then a change that is saved.
    const badEdit = await pageText(
      await admin.post(path, { url: "http://hooks.test/x", event_types: ["order.created"], status: "enabled" }),
      400,
    );
    expect(badEdit).toMatch(/id="edit-url-error">[^<]+</);
    redirected(
      await admin.post(path, {
        url: "https://hooks.test/v2",
        description: "",
        delivers: "chosen",
        event_types: ["order.cancelled"],
        status: "disabled",
      }),
      `${path}?done=saved`,
    );
    const api = () =>
      customer.account["webhook-endpoints"][":endpoint_id"].$get({
        param: { customer_slug: customer.slug, endpoint_id: endpoint.id },
      });
    expect(await json(await api(), 200)).toMatchObject({
      url: "https://hooks.test/v2",
      description: null,
      event_types: ["order.cancelled"],
      status: "disabled",
    });
    // Disabled: a test event is refused.
    await pageText(await admin.post(`${path}/test`), 409);
    redirected(
      await admin.post(path, { url: "https://hooks.test/v2", delivers: "every", status: "enabled" }),
      `${path}?done=saved`,
    );
    expect(await json(await api(), 200)).toMatchObject({ every_event_type: true, status: "enabled" });

    const rotated = await pageText(await admin.follow(await admin.post(`${path}/rotate`)), 200);
    const newSecret = /id="new-secret">(whsec_[^<]+)</.exec(rotated)?.[1] ?? "";
    expect(newSecret).toMatch(/^whsec_/);
    expect(newSecret).not.toBe(secret);

    redirected(await admin.post(`${path}/test`), `${path}?done=test`);
    const deliveries = await json(
      await customer.account["webhook-endpoints"][":endpoint_id"].deliveries.$get({
        param: { customer_slug: customer.slug, endpoint_id: endpoint.id },
        query: {},
      }),
      200,
    );
    expect(deliveries.data.map((d) => [d.event_type, d.status])).toEqual([["webhook.test", "pending"]]);
    const shown = await pageText(await admin.get(`${path}?done=test`), 200);
    expect(shown).toContain("webhook.test");
    expect(shown).toContain('class="badge pending"');
    const deliveryId = deliveries.data[0]!.id.replace(/^whd_/, "");
    expect(await pageText(await admin.post(`${path}/deliveries/${deliveryId}/retry`), 409)).toContain("on its way already");

    expect(await pageText(await admin.get(`${path}/delete`), 200)).toContain("Delete the endpoint https://hooks.test/v2?");
    expect((await api()).status).toBe(200);
    redirected(await admin.post(`${path}/delete`), "/portal/settings/webhooks?done=deleted");
    expect((await api()).status).toBe(404);
  });

  it("says event types in words, in groups, and when they count; a delivery that reached no host says so", async () => {
    const customer = await createCustomer("hooks");
    const owner = await signedIn(customer, "owner");
    const page = await pageText(await owner.get("/portal/settings/webhooks"), 200);
    expect(page).toContain(
      '<input type="checkbox" name="event_types" value="order.cancelled"/>An order is cancelled</label> <code class="muted">order.cancelled</code>',
    );
    expect(page).toContain("<legend>Profiles</legend>");
    expect(page).toContain('<p class="hint muted" id="new-event-types-hint">Only with “Only the types ticked below”</p>');
    // The script that disables the types while every type is chosen runs under the page's nonce.
    expect(page).toMatch(/<script nonce="[^"]+">for \(const form of document.querySelectorAll\("form\[data-deliver\]"\)\)/);

    const chosen = await json(
      await customer.account["webhook-endpoints"].$post({
        param: { customer_slug: customer.slug },
        json: { url: "https://hooks.test/words", event_types: ["order.created", "kyc_profile.approved"] },
      }),
      201,
    );
    const listed = await pageText(await owner.get("/portal/settings/webhooks"), 200);
    expect(listed).toContain('<td data-label="Event types"><div>An order is placed; A profile is approved</div></td>');
    const id = chosen.id.replace(/^we_/, "");
    redirected(await owner.post(`/portal/settings/webhooks/${id}/test`), /done=test$/);
    // As the delivery consumer records an attempt that reached no host (test/webhook-delivery.test.ts).
    await env.DB.prepare(
      "UPDATE webhook_deliveries SET status = 'failed', attempts = 10, last_error = 'could not reach hooks.test', next_attempt_at = NULL WHERE endpoint_id = ?",
    )
      .bind(id)
      .run();
    const deliveries = await pageText(await owner.get(`/portal/settings/webhooks/${id}`), 200);
    expect(deliveries).toContain('<td data-label="Last error"><div>could not reach hooks.test</div></td>');
    expect(deliveries).toContain('A test event is sent from the portal or the API <code class="muted">webhook.test</code>');
  });

  it("retries a finished delivery", async () => {
    const customer = await createCustomer("hooks");
    const owner = await signedIn(customer, "owner");
    const endpoint = await json(
      await customer.account["webhook-endpoints"].$post({
        param: { customer_slug: customer.slug },
        json: { url: "https://hooks.test/r" },
      }),
      201,
    );
    const id = endpoint.id.replace(/^we_/, "");
    redirected(await owner.post(`/portal/settings/webhooks/${id}/test`), /done=test$/);
    const [delivery] = await env.DB.prepare("SELECT id FROM webhook_deliveries WHERE endpoint_id = ?").bind(id).raw<[string]>();
    await env.DB.prepare("UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL WHERE id = ?")
      .bind(delivery![0])
      .run();
    const path = `/portal/settings/webhooks/${id}`;
    expect(await pageText(await owner.get(path), 200)).toContain(`${path}/deliveries/${delivery![0]}/retry`);
    redirected(await owner.post(`${path}/deliveries/${delivery![0]}/retry`), `${path}?done=retried`);
    const row = await env.DB.prepare("SELECT status FROM webhook_deliveries WHERE id = ?")
      .bind(delivery![0])
      .first<{ status: string }>();
    expect(row?.status).toBe("pending");
  });
});

describe("a member", () => {
  it("gets a 403 page on every Settings page and form, and changes nothing", async () => {
    const customer = await createCustomer("member");
    const member = await signedIn(customer, "member");
    const routes = [
      ...new Set(
        createApp()
          .routes.filter((r) => r.path.startsWith("/portal/settings") && r.method !== "ALL")
          .map((r) => `${r.method} ${r.path}`),
      ),
    ];
    expect(routes.length).toBeGreaterThanOrEqual(15);
    const somebody = await invitedUser(customer, "admin");
    for (const route of routes) {
      const [method, pattern] = route.split(" ") as [string, string];
      const path = pattern.replace(/:(\w+)/g, somebody.user_id);
      const answer =
        method === "GET" ? await member.get(path) : await member.post(path, { role: "member", status: "inactive", name: "x" });
      expect(answer.status, route).toBe(403);
      expect(await answer.text(), route).toContain("Settings are for the account");
    }
    expect(await userState(somebody.user_id)).toEqual({ role: "admin", status: "active" });
    const nav = await pageText(await member.get("/portal/orders"), 200);
    expect(nav).not.toContain("/portal/settings/");
  });
});
