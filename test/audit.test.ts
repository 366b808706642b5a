// The audit log: every operator change and every administrative change of a customer's writes one event, in the
// change's own batch, naming who made it, what, and each field before and after (never a secret); a refused request
// writes none; the operator reads all of it with filters, a customer their account's part with the operator's people
// anonymised, and the portal shows it under Settings → Activity. Nobody can change or delete an event.
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { TEST_ADMIN_TOKEN } from "./constants.ts";
import { createdDocument, pdf, uploadFile } from "./files.ts";
import {
  allocateNumbers,
  call,
  createCustomer,
  createWebhookEndpoint,
  expectStatus,
  json,
  makeOrderable,
  operator,
  problem,
  submittedVerification,
  uniqueNumberType,
  uniquePhoneNumber,
} from "./helpers.ts";
import { pageText, signedIn } from "./portal.ts";
import { type StaffMember, staffMember } from "./staff.ts";

interface AuditEvent {
  id: string;
  actor: { type: string; email?: string; id?: string };
  action: string;
  target: { type: string; id: string };
  customer_slug?: string;
  changes: Record<string, [unknown, unknown]>;
  request_id: string;
  created_at: string;
}

/** The operator's audit log, filtered by `query` (every page of it), newest first. */
async function auditEvents(query: Record<string, string>): Promise<AuditEvent[]> {
  const found: AuditEvent[] = [];
  for (let page = 1; ; page++) {
    const answer = await call(`/admin/audit-events?${new URLSearchParams({ ...query, page: String(page), limit: "100" })}`, {
      headers: { Authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
    });
    const body = (await answer.json()) as { data: AuditEvent[]; meta: { hasNextPage: boolean } };
    expect(answer.status, JSON.stringify(body)).toBe(200);
    found.push(...body.data);
    if (!body.meta.hasNextPage) return found;
  }
}

/** The one event about this target, after asserting there is exactly one. */
async function theEvent(targetType: string, targetId: string, action: string): Promise<AuditEvent> {
  const events = await auditEvents({ target_type: targetType, target_id: targetId, action });
  expect(events, `${action} of ${targetType} ${targetId}`).toHaveLength(1);
  return events[0]!;
}

async function auditCount(): Promise<number> {
  return (await env.DB.prepare("SELECT count(*) AS n FROM audit_events").first<{ n: number }>())!.n;
}

let admin: StaffMember;
let fulfilment: StaffMember;
let compliance: StaffMember;

beforeAll(async () => {
  admin = await staffMember("admin", "Ada Admin");
  fulfilment = await staffMember("fulfilment", "Fred Fulfilment");
  compliance = await staffMember("compliance", "Cora Compliance");
});

describe("the operator's changes", () => {
  it("name the staff member or the token, the target, the request and each field before and after", async () => {
    const slug = `audit-${crypto.randomUUID().slice(0, 8)}`;
    const created = await admin.api.admin.customers.$post({ json: { slug, name: "Audited" } });
    await expectStatus(created, 201);
    const event = await theEvent("customer", slug, "customer.created");
    expect(event).toMatchObject({
      actor: { type: "staff", email: admin.email },
      customer_slug: slug,
      changes: { slug: [null, slug], name: [null, "Audited"] },
      request_id: created.headers.get("X-Request-Id"),
    });
    expect(event.id).toMatch(/^aud_[0-9a-f-]{36}$/);
    const key = await json(
      await operator.admin.customers[":slug"]["api-keys"].$post({ param: { slug }, json: { name: "ci" } }),
      201,
    );
    const keyEvent = await theEvent("api_key", key.id, "api_key.created");
    expect(keyEvent).toMatchObject({ actor: { type: "token" }, changes: { name: [null, "ci"] } });
    expect(JSON.stringify(keyEvent)).not.toContain(key.key);
    await json(await admin.api.admin["api-keys"][":id"].$delete({ param: { id: key.id } }), 200);
    await json(await admin.api.admin["api-keys"][":id"].$delete({ param: { id: key.id } }), 200);
    const revoked = await theEvent("api_key", key.id, "api_key.revoked");
    expect(revoked.changes.revoked_at?.[0]).toBeNull();
  });

  it("record fulfilment's moves and allocations, and compliance's reviews and reads of documents", async () => {
    await makeOrderable("US", "mobile");
    const customer = await createCustomer("audit");
    const order = await json(
      await customer.account.orders.$post({
        param: { customer_slug: customer.slug },
        json: { number_type: "mobile", country_code: "US", quantity: 3 },
      }),
      201,
    );
    await json(
      await fulfilment.api.admin.orders[":order_id"].status.$post({
        param: { order_id: order.order_id },
        json: { status: "processing" },
      }),
      200,
    );
    expect((await theEvent("order", order.order_id, "order.status_changed")).changes).toEqual({
      status: ["pending", "processing"],
    });
    await json(
      await fulfilment.api.admin.orders[":order_id"].numbers.$post({
        param: { order_id: order.order_id },
        json: { phone_numbers: [uniquePhoneNumber(), uniquePhoneNumber()] },
      }),
      201,
    );
    const allocated = await theEvent("order", order.order_id, "order.numbers_allocated");
    expect(allocated).toMatchObject({ actor: { type: "staff", email: fulfilment.email }, customer_slug: customer.slug });
    // Only what changed: the order stays processing, so its status is no change of this allocation.
    expect(allocated.changes).toEqual({ fulfilled_quantity: [0, 2] });
    await json(
      await fulfilment.api.admin.orders[":order_id"].numbers.$post({
        param: { order_id: order.order_id },
        json: { phone_numbers: [uniquePhoneNumber()] },
      }),
      201,
    );
    const [fulfilling] = await auditEvents({
      target_type: "order",
      target_id: order.order_id,
      action: "order.numbers_allocated",
    });
    expect(fulfilling?.changes).toEqual({ fulfilled_quantity: [2, 3], status: ["processing", "fulfilled"] });

    const verified = await submittedVerification("audit");
    const { numberId, kycId } = verified;
    const document = await createdDocument(await uploadFile(verified.customer, numberId, pdf(), "bill.pdf"));
    const review = (json: { status: "under_review" | "approved" | "rejected"; rejection_reason?: string }) =>
      compliance.api.admin.kyc[":kyc_id"].review.$post({ param: { kyc_id: kycId }, json });
    await json(await review({ status: "under_review" }), 200);
    await json(await review({ status: "rejected", rejection_reason: "Blurred" }), 200);
    const reviews = await auditEvents({ target_type: "kyc", target_id: kycId, action: "kyc.reviewed" });
    expect(reviews.map((e) => e.changes)).toEqual([
      { status: ["under_review", "rejected"], rejection_reason: [null, "Blurred"] },
      { status: ["pending", "under_review"] },
    ]);
    const view = await call(`/admin/kyc/documents/${document.id}/download`, { headers: compliance.headers });
    await expectStatus(view, 200);
    expect(await theEvent("document", document.id, "kyc.document_viewed")).toMatchObject({
      actor: { type: "staff", email: compliance.email },
      changes: {},
    });
  });

  it("record the catalog, the users and their invitations without the link, and the staff", async () => {
    const country = ["ZA", "ZM", "ZW"][Math.floor(Math.random() * 3)]!;
    const pair = { country_code: country, number_type: `audit${crypto.randomUUID().slice(0, 4)}` };
    await expectStatus(await admin.api.admin.catalog[":country_code"][":number_type"].$put({ param: pair }), 201);
    await expectStatus(await admin.api.admin.catalog[":country_code"][":number_type"].$put({ param: pair }), 200);
    await theEvent("catalog_pair", `${pair.country_code}/${pair.number_type}`, "catalog.pair_added");
    await expectStatus(await admin.api.admin.catalog[":country_code"][":number_type"].$delete({ param: pair }), 200);
    await theEvent("catalog_pair", `${pair.country_code}/${pair.number_type}`, "catalog.pair_removed");

    const customer = await createCustomer("audit");
    const user = await json(
      await admin.api.admin.customers[":slug"].users.$post({
        param: { slug: customer.slug },
        json: { email: "Mia@Example.com", name: "Mia", role: "member" },
      }),
      201,
    );
    expect((await theEvent("user", user.user_id, "user.created")).changes).toEqual({
      email: [null, "mia@example.com"],
      name: [null, "Mia"],
      role: [null, "member"],
      status: [null, "active"],
    });
    const invited = await auditEvents({ target_type: "user", target_id: user.user_id, action: "user.invited" });
    expect(invited).toHaveLength(1);
    expect(JSON.stringify(invited)).not.toContain(new URL(user.invitation_url).pathname.split("/").pop()!);
    await json(
      await admin.api.admin.users[":user_id"].$patch({
        param: { user_id: user.user_id },
        json: { name: "Mia", role: "admin" },
      }),
      200,
    );
    // The name sent as it was is no change.
    expect((await theEvent("user", user.user_id, "user.updated")).changes).toEqual({ role: ["member", "admin"] });

    const email = `audited.${crypto.randomUUID().slice(0, 8)}@operator.test`;
    await json(await admin.api.admin.staff[":email"].$put({ param: { email }, json: { name: "Audited", role: "viewer" } }), 201);
    await json(
      await admin.api.admin.staff[":email"].$put({ param: { email }, json: { name: "Audited", role: "compliance" } }),
      200,
    );
    await json(
      await admin.api.admin.staff[":email"].$put({ param: { email }, json: { name: "Audited", role: "compliance" } }),
      200,
    );
    const changes = (await auditEvents({ target_type: "staff", target_id: email })).map((e) => e.changes);
    expect(changes).toEqual([
      { role: ["viewer", "compliance"] },
      { name: [null, "Audited"], role: [null, "viewer"], status: [null, "enabled"] },
    ]);
  });

  it("write nothing when refused: a duplicate, an illegal move, a forbidden role", async () => {
    const customer = await createCustomer("audit");
    await makeOrderable("US", "mobile");
    const [number] = await allocateNumbers(customer);
    const before = await auditCount();
    await problem(await admin.api.admin.customers.$post({ json: { slug: customer.slug, name: "Again" } }), 409, "conflict");
    await problem(
      await fulfilment.api.admin.orders[":order_id"].status.$post({
        param: { order_id: number!.order_id },
        json: { status: "processing" },
      }),
      409,
      "conflict",
    );
    await problem(await fulfilment.api.admin.customers.$post({ json: { slug: "never-made", name: "No" } }), 403, "forbidden");
    expect(await auditCount()).toBe(before);
  });

  it("write none for a document's view refused to a member disabled or demoted since this isolate knew them", async () => {
    const member = await staffMember("compliance");
    const verified = await submittedVerification("audit");
    const document = await createdDocument(await uploadFile(verified.customer, verified.numberId, pdf(), "bill.pdf"));
    const views = async () =>
      (await auditEvents({ target_type: "document", target_id: document.id, action: "kyc.document_viewed" })).length;
    const setMember = (role: "compliance" | "viewer", status: "enabled" | "disabled") =>
      operator.admin.staff[":email"].$put({ param: { email: member.email }, json: { name: "Cora Changing", role, status } });
    const paths = [`/admin/kyc/documents/${document.id}/download`, `/ops/documents/${document.id}`];
    let viewed = 0;
    for (const path of paths) {
      for (const [role, status] of [
        ["compliance", "disabled"],
        ["viewer", "enabled"],
      ] as const) {
        // A view, which this isolate remembers the member by; then the member changed, and the next view refused.
        await setMember("compliance", "enabled");
        await expectStatus(await call(path, { headers: member.headers }), 200);
        viewed++;
        await setMember(role, status);
        const refused = await call(path, { headers: member.headers });
        expect(refused.status, `${path} as ${role}, ${status}`).toBe(403);
        await refused.text();
        expect(await views(), `${path} as ${role}, ${status}`).toBe(viewed);
      }
    }
  });

  it("write none for a HEAD of a document's download, which answers the GET's headers without the file", async () => {
    const member = await staffMember("compliance");
    const verified = await submittedVerification("audit");
    const file = pdf();
    const document = await createdDocument(await uploadFile(verified.customer, verified.numberId, file, "bill.pdf"));
    const views = async () =>
      (await auditEvents({ target_type: "document", target_id: document.id, action: "kyc.document_viewed" })).length;
    const shown = ["Content-Type", "Content-Length", "ETag", "Content-Disposition", "Cache-Control"];
    let viewed = 0;
    for (const path of [`/admin/kyc/documents/${document.id}/download`, `/ops/documents/${document.id}`]) {
      const head = await call(path, { method: "HEAD", headers: member.headers });
      expect(head.status, path).toBe(200);
      expect((await head.arrayBuffer()).byteLength, path).toBe(0);
      expect(await views(), `${path} HEAD`).toBe(viewed);
      const get = await call(path, { headers: member.headers });
      expect(new Uint8Array(await get.arrayBuffer()), path).toEqual(file);
      expect(await views(), `${path} GET`).toBe(++viewed);
      for (const name of shown) expect(head.headers.get(name), `${path} ${name}`).toBe(get.headers.get(name));
      expect(head.headers.get("Content-Length"), path).toBe(String(file.length));
      // A conditional HEAD answers the GET's 304, and records nothing either.
      const unchanged = await call(path, {
        method: "HEAD",
        headers: { ...member.headers, "If-None-Match": get.headers.get("ETag")! },
      });
      expect(unchanged.status, path).toBe(304);
      expect(await views(), `${path} conditional HEAD`).toBe(viewed);
    }
  });

  it("are never changed or deleted, whoever asks", async () => {
    const [event] = await auditEvents({ action: "customer.created" });
    const id = event!.id.replace(/^aud_/, "");
    await expect(env.DB.prepare("UPDATE audit_events SET action = 'x' WHERE id = ?").bind(id).run()).rejects.toThrow(
      /never changed/,
    );
    await expect(env.DB.prepare("DELETE FROM audit_events WHERE id = ?").bind(id).run()).rejects.toThrow(/never deleted/);
  });
});

describe("the customers' administrative changes", () => {
  it("name the API key or the portal user, and never a secret", async () => {
    const customer = await createCustomer("audit");
    const endpoint = await createWebhookEndpoint(customer, { url: "https://hooks.test/audit", description: "first" });
    const param = { customer_slug: customer.slug, endpoint_id: endpoint.id };
    const endpoints = customer.account["webhook-endpoints"][":endpoint_id"];
    await json(
      await endpoints.$patch({
        param,
        json: { url: "https://hooks.test/audit", description: "second", status: "disabled" },
      }),
      200,
    );
    const rotated = await json(await endpoints["rotate-secret"].$post({ param }), 200);
    await json(await endpoints.$delete({ param }), 200);
    const events = await auditEvents({ target_type: "webhook_endpoint", target_id: endpoint.id });
    expect(events.map((e) => e.action)).toEqual([
      "webhook_endpoint.deleted",
      "webhook_endpoint.secret_rotated",
      "webhook_endpoint.updated",
      "webhook_endpoint.created",
    ]);
    for (const event of events) expect(event.actor).toEqual({ type: "api_key", id: customer.keyId });
    expect(events[2]!.changes).toEqual({ description: ["first", "second"], status: ["enabled", "disabled"] });
    const text = JSON.stringify(events);
    expect(text).not.toContain(endpoint.secret);
    expect(text).not.toContain(rotated.secret);

    const owner = await signedIn(customer, "owner");
    await expectStatus(await owner.post("/portal/settings/api-keys", { name: "from the portal" }), 303);
    const portalKey = (await auditEvents({ customer_slug: customer.slug, action: "api_key.created" })).find(
      (e) => e.changes.name?.[1] === "from the portal",
    );
    expect(portalKey?.actor).toEqual({ type: "user", id: owner.user.user_id, email: owner.user.email });
  });
});

describe("a change that changes nothing", () => {
  it("writes no event: a user's or a webhook endpoint's PATCH resending its values as they were", async () => {
    const customer = await createCustomer("audit");
    const user = await json(
      await admin.api.admin.customers[":slug"].users.$post({
        param: { slug: customer.slug },
        json: { email: `same.${crypto.randomUUID().slice(0, 8)}@example.com`, name: "Sam", role: "member" },
      }),
      201,
    );
    const resent = await admin.api.admin.users[":user_id"].$patch({
      param: { user_id: user.user_id },
      json: { name: "Sam", role: "member", status: "active" },
    });
    expect(await json(resent, 200)).toMatchObject({ name: "Sam", role: "member", status: "active" });
    expect(await auditEvents({ target_type: "user", target_id: user.user_id, action: "user.updated" })).toEqual([]);

    const endpoint = await createWebhookEndpoint(customer, { url: "https://hooks.test/same", description: "as is" });
    const param = { customer_slug: customer.slug, endpoint_id: endpoint.id };
    const endpoints = customer.account["webhook-endpoints"][":endpoint_id"];
    const same = { url: endpoint.url, description: "as is", status: endpoint.status };
    await json(await endpoints.$patch({ param, json: same }), 200);
    const updated = () =>
      auditEvents({ target_type: "webhook_endpoint", target_id: endpoint.id, action: "webhook_endpoint.updated" });
    expect(await updated()).toEqual([]);
    // One field changed among those resent: the event names it alone.
    await json(await endpoints.$patch({ param, json: { ...same, description: "changed" } }), 200);
    expect((await updated()).map((e) => e.changes)).toEqual([{ description: ["as is", "changed"] }]);
  });
});

describe("reading the log", () => {
  it("filters the operator's log by actor, action, target, account and days, newest first", async () => {
    const customer = await createCustomer("filter");
    const slug = customer.slug;
    await json(await fulfilment.api.admin.customers[":slug"].$get({ param: { slug } }), 200);
    const byToken = await auditEvents({ actor: "token", customer_slug: slug });
    expect(byToken.map((e) => e.action).toSorted()).toEqual(["api_key.created", "customer.created"]);
    expect(await auditEvents({ actor: admin.email.toUpperCase(), customer_slug: slug })).toEqual([]);
    const all = await auditEvents({ customer_slug: slug });
    expect(all.map((e) => e.created_at)).toEqual(
      all
        .map((e) => e.created_at)
        .toSorted()
        .reverse(),
    );
    const today = new Date().toISOString().slice(0, 10);
    expect(await auditEvents({ customer_slug: slug, from: today, to: today })).toHaveLength(all.length);
    expect(await auditEvents({ customer_slug: slug, to: "2020-01-01" })).toEqual([]);
    expect(await auditEvents({ customer_slug: slug, action: "customer.created,api_key.created" })).toHaveLength(2);
    await problem(await call("/admin/audit-events?action=order.deleted", { headers: admin.headers }), 400, "validation_error");
    await problem(
      await call(`/admin/audit-events?from=${today}&to=2020-01-01`, { headers: admin.headers }),
      400,
      "validation_error",
    );
  });

  it("shows a customer their account's part, the operator's people as the operator", async () => {
    const customer = await createCustomer("view");
    const other = await createCustomer("view");
    await json(
      await admin.api.admin.customers[":slug"].users.$post({
        param: { slug: customer.slug },
        json: { email: "zoe@example.com", name: "Zoe", role: "member" },
      }),
      201,
    );
    const answer = await json(
      await customer.account["audit-events"].$get({ param: { customer_slug: customer.slug }, query: { limit: "100" } }),
      200,
    );
    expect(answer.data.map((e) => e.action).toSorted()).toEqual([
      "api_key.created",
      "customer.created",
      "user.created",
      "user.invited",
    ]);
    for (const event of answer.data) {
      expect(event.customer_slug).toBe(customer.slug);
      expect(event.actor).toEqual({ type: "operator" });
    }
    expect(JSON.stringify(answer)).not.toContain(admin.email);
    await expectStatus(await customer.account["audit-events"].$get({ param: { customer_slug: other.slug }, query: {} }), 404);
  });

  it("shows owners and admins Settings → Activity, and refuses members", async () => {
    const customer = await createCustomer("activity");
    const owner = await signedIn(customer, "owner");
    await expectStatus(await owner.post("/portal/settings/api-keys", { name: "activity key" }), 303);
    const page = await pageText(await owner.get("/portal/settings/activity"), 200);
    expect(page).toContain("API key created");
    expect(page).toContain(owner.user.email);
    expect(page).toContain("The operator");
    await pageText(await owner.get("/portal/settings/activity?from=2030-01-02&to=2030-01-01"), 400);
    const member = await signedIn(customer, "member");
    await pageText(await member.get("/portal/settings/activity"), 403);
  });

  it("reads as people speak in Activity and the console's log: names for ids, words for codes, a change a line", async () => {
    const customer = await createCustomer("activity");
    const owner = await signedIn(customer, "owner");
    await expectStatus(await owner.post("/portal/settings/api-keys", { name: "deploy key" }), 303);
    const endpoint = await createWebhookEndpoint(customer);
    const admin = await staffMember("admin", "Sam Admin");
    const teammate = await signedIn(customer, "member");
    await json(
      await admin.api.admin.users[":user_id"].$patch({ param: { user_id: teammate.user.user_id }, json: { role: "admin" } }),
      200,
    );
    const cell = (label: string, html: string) => `<td data-label="${label}"><div>${html}</div></td>`;

    // A cell's class (a long word breaks anywhere: src/ui/components.tsx) is no part of what it says.
    const activity = (await pageText(await owner.get("/portal/settings/activity"), 200)).replaceAll(' class="long"', "");
    // Who: people by name and e-mail, a key by its name, the operator's people as the operator.
    expect(activity).toContain(cell("Who", `The owner (${owner.user.email})`));
    expect(activity).toContain(cell("Who", "API key “test”"));
    expect(activity).toContain(cell("Who", "The operator"));
    // What and about, in words, by the names people know them by (linked where the portal shows them).
    expect(activity).toContain(cell("What", "API key created"));
    expect(activity).toContain(cell("About", "API key “deploy key”"));
    const endpointPage = `/portal/settings/webhooks/${endpoint.id.replace(/^we_/, "")}`;
    expect(activity).toContain(cell("About", `Webhook endpoint <a href="${endpointPage}">${endpoint.url}</a>`));
    expect(activity).toContain(cell("About", `User The member (${teammate.user.email})`));
    // A change a line, the service's own values in words.
    expect(activity).toContain("<li>Event types: every event type</li>");
    expect(activity).toContain("<li>Role: member → admin</li>");
    expect(activity).toContain("<li>Name: deploy key</li>");
    // A time on one line (a <time>, which never wraps), as the page writes times.
    expect(activity).toMatch(
      /<td data-label="When"><div><time datetime="[^"]+">\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC<\/time><\/div><\/td>/,
    );
    // Nothing a database would say: no ids, no JSON, no identifiers as words.
    for (const raw of [teammate.user.user_id, endpoint.id, '["*"]', "Api key", "Kyc", admin.email]) {
      expect(activity).not.toContain(raw);
    }

    const log = (
      await pageText(await call(`/ops/audit?customer_slug=${customer.slug}`, { headers: admin.headers }), 200)
    ).replaceAll(' class="long"', "");
    expect(log).toContain(cell("Who", `Sam Admin (${admin.email})`));
    expect(log).toContain(cell("What", "User changed"));
    expect(log).toContain(cell("Account", `<a href="/ops/accounts/${customer.slug}">${customer.slug}</a>`));
    expect(log).toContain("<li>Role: member → admin</li>");
    expect(log).not.toContain(teammate.user.user_id);
    expect(log).not.toContain('["*"]');
  });

  it("writes times only of the fields the service keeps as times: a name that looks like one reads as typed", async () => {
    const customer = await createCustomer("activity");
    const owner = await signedIn(customer, "owner");
    // Not a time at all (month 13), and one that is a valid time: both are names.
    for (const name of ["2025-13-01T00:00 deploy", "2025-01-02T03:04 nightly"]) {
      await expectStatus(await owner.post("/portal/settings/api-keys", { name }), 303);
    }
    const revoked = await json(
      await operator.admin.customers[":slug"]["api-keys"].$post({ param: { slug: customer.slug }, json: { name: "old" } }),
      201,
    );
    await json(await admin.api.admin["api-keys"][":id"].$delete({ param: { id: revoked.id } }), 200);
    const revokedAt = (await theEvent("api_key", revoked.id, "api_key.revoked")).changes.revoked_at?.[1] as string;

    const activity = await pageText(await owner.get("/portal/settings/activity"), 200);
    const log = await pageText(await call(`/ops/audit?customer_slug=${customer.slug}`, { headers: admin.headers }), 200);
    for (const page of [activity, log]) {
      expect(page).toContain("<li>Name: 2025-13-01T00:00 deploy</li>");
      expect(page).toContain("<li>Name: 2025-01-02T03:04 nightly</li>");
      expect(page).toContain("API key “2025-13-01T00:00 deploy”");
      // The revocation's time is one the service keeps: written as the page writes times.
      expect(page).toContain(`<li>Revoked: ${revokedAt.slice(0, 16).replace("T", " ")} UTC</li>`);
    }
  });

  it("names a stock import by its time and its count, linked to its numbers in the console", async () => {
    const type = uniqueNumberType();
    const imported = await json(
      await fulfilment.api.admin.stock.$post({
        json: {
          numbers: [uniquePhoneNumber(), uniquePhoneNumber()].map((phone_number) => ({
            phone_number,
            country_code: "US",
            number_type: type,
          })),
        },
      }),
      201,
    );
    const event = await theEvent("stock_import", imported.import_id, "stock.imported");
    const log = (
      await pageText(
        await call(`/ops/audit?target_type=stock_import&target_id=${imported.import_id}`, { headers: admin.headers }),
        200,
      )
    ).replaceAll(' class="long"', "");
    const when = event.created_at.slice(0, 16).replace("T", " ");
    expect(log).toContain(
      `<td data-label="About"><div>Stock import <a href="/ops/stock?import_id=${imported.import_id}">${when} UTC (2 numbers)</a></div></td>`,
    );
  });
});
