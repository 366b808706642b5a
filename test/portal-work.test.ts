// The portal's work pages (orders, numbers, verifications) inside the workers pool: each page for a signed-in member,
// and every change made through a form checked through the API, with the same events.
import { describe, expect, it, vi } from "vitest";
import { call, createCustomer, createWebhookEndpoint, json, makeOrderable, operator, type TestCustomer } from "./helpers.ts";
import { receivedRequests } from "./outbound-fetch.ts";

const PASSWORD = "correct horse battery staple";
const ORIGIN = { Origin: "https://vn.test" };

/** A member of the account, signed in: its Cookie header and the CSRF token its pages carry. */
async function signedInMember(customer: TestCustomer) {
  const user = await json(
    await operator.admin.customers[":slug"].users.$post({
      param: { slug: customer.slug },
      json: { email: `member.${crypto.randomUUID().slice(0, 6)}@example.com`, name: "A member", role: "member" },
    }),
    201,
  );
  const form = (fields: Record<string, string>, cookie = "") =>
    ({
      method: "POST",
      headers: { ...ORIGIN, "Content-Type": "application/x-www-form-urlencoded", Cookie: cookie },
      body: new URLSearchParams(fields),
      redirect: "manual",
    }) as const;
  const invitation = new URL(user.invitation_url).pathname;
  expect((await call(invitation, form({ password: PASSWORD, password_confirmation: PASSWORD }))).status).toBe(303);
  const answer = await call("/portal/sign-in", form({ account: customer.slug, email: user.email, password: PASSWORD }));
  expect(answer.status).toBe(303);
  const cookie = (answer.headers.get("Set-Cookie") ?? "").split(";")[0]!;
  const page = await (await call("/portal/orders", { headers: { Cookie: cookie } })).text();
  const csrf = /name="csrf_token" value="([^"]+)"/.exec(page)?.[1];
  if (!csrf) expect.fail("no CSRF token on the orders page");
  return {
    get: (path: string) => call(path, { headers: { Cookie: cookie }, redirect: "manual" }),
    post: (path: string, fields: Record<string, string>) => call(path, form({ ...fields, csrf_token: csrf }, cookie)),
    postMultipart: (path: string, body: FormData) =>
      call(path, { method: "POST", headers: { ...ORIGIN, Cookie: cookie }, body: withCsrf(body, csrf), redirect: "manual" }),
  };
}

function withCsrf(body: FormData, csrf: string): FormData {
  body.set("csrf_token", csrf);
  return body;
}

/** The page's HTML, asserting its status. */
async function page(response: Response, status: number): Promise<string> {
  const text = await response.text();
  expect(response.status, text).toBe(status);
  return text;
}

/** The field error shown beside an input: the input names it in aria-describedby, and its paragraph follows. */
function fieldError(html: string, name: string): string | undefined {
  const input = new RegExp(
    `<(?:input|select|textarea)[^>]*name="${name}"[^>]*aria-invalid="true"[^>]*aria-describedby="${name}-error`,
  );
  if (!input.test(html)) return undefined;
  return new RegExp(`<p class="field-error" id="${name}-error">([^<]*)</p>`).exec(html)?.[1];
}

async function eventTypes(customer: TestCustomer): Promise<string[]> {
  const body = await json(
    await customer.account.events.$get({ param: { customer_slug: customer.slug }, query: { limit: "100" } }),
    200,
  );
  return body.data.map((event) => event.type).reverse();
}

async function apiOrder(customer: TestCustomer, orderId: string) {
  return json(
    await customer.account.orders[":order_id"].$get({ param: { customer_slug: customer.slug, order_id: orderId } }),
    200,
  );
}

describe("orders in the portal", () => {
  it("lists with every filter, and a bad filter is shown beside its field", async () => {
    const customer = await createCustomer("pw");
    const member = await signedInMember(customer);
    await makeOrderable("US", "mobile");
    const order = await json(
      await customer.account.orders.$post({
        param: { customer_slug: customer.slug },
        json: { number_type: "mobile", country_code: "US", quantity: 7, notes: "tower" },
      }),
      201,
    );
    const listed = await page(await member.get("/portal/orders"), 200);
    expect(listed).toContain(`<a href="/portal/orders/${order.order_id}">${order.order_number}</a>`);
    for (const name of ["search", "number_type", "country_code", "quantity_min", "quantity_max", "requested_from"]) {
      expect(listed).toContain(`name="${name}"`);
    }
    for (const name of ["requested_to", "fulfilled_from", "fulfilled_to", "sort_by", "sort_order", "limit"]) {
      expect(listed).toContain(`name="${name}"`);
    }
    // A browser sends every field of the GET form, "" for the empty ones: that is no filter.
    const blank = "search=&number_type=&country_code=&quantity_min=&quantity_max=&requested_from=&requested_to=";
    expect(await page(await member.get(`/portal/orders?${blank}&sort_by=quantity&sort_order=asc`), 200)).toContain(
      order.order_number,
    );
    expect(await page(await member.get("/portal/orders?quantity_min=8"), 200)).not.toContain(order.order_number);
    expect(await page(await member.get("/portal/orders?search=tower&quantity_max=7"), 200)).toContain(order.order_number);

    const refused = await page(await member.get("/portal/orders?quantity_min=9&quantity_max=2&requested_to=soon"), 400);
    expect(fieldError(refused, "quantity_min")).toBe("Quantity from must not be greater than quantity_max");
    expect(fieldError(refused, "requested_to")).toBe("Requested to must be a calendar date YYYY-MM-DD");
    expect(fieldError(refused, "search")).toBeUndefined();
  });

  it("creates an order from the form, as the API would, with the same event and delivery", async () => {
    const customer = await createCustomer("pw");
    const member = await signedInMember(customer);
    await makeOrderable("GB", "landline");
    const url = `https://hooks.test/${customer.slug}`;
    await createWebhookEndpoint(customer, { url, event_types: ["order.created", "order.updated"] });

    const form = await page(await member.get("/portal/orders/new"), 200);
    expect(form).toContain('<option value="GB">GB</option>');
    expect(form).toContain('<option value="landline">landline</option>');

    const created = await member.post("/portal/orders/new", {
      number_type: "landline",
      country_code: "GB",
      quantity: "12",
      notes: "",
    });
    expect(created.status).toBe(303);
    const orderId = /^\/portal\/orders\/([0-9a-f-]{36})$/.exec(created.headers.get("Location") ?? "")?.[1];
    if (!orderId) expect.fail(`unexpected Location ${created.headers.get("Location")}`);
    const order = await apiOrder(customer, orderId);
    expect(order).toMatchObject({ number_type: "landline", country_code: "GB", quantity: 12, notes: null, status: "pending" });
    expect(await eventTypes(customer)).toEqual(["order.created"]);
    // The portal's request put the delivery on the queue, as the API's would.
    await vi.waitUntil(() => receivedRequests.some((r) => r.url === url && r.body.includes(orderId)), { timeout: 15_000 });

    const shown = await page(await member.get(`/portal/orders/${orderId}`), 200);
    expect(shown).toContain(order.order_number);
    expect(shown).toContain('<span class="badge pending">pending</span>');
    expect(shown).toContain(`action="/portal/orders/${orderId}/edit"`);
  });

  it("shows each field's error beside it and creates nothing", async () => {
    const customer = await createCustomer("pw");
    const member = await signedInMember(customer);
    await makeOrderable("US", "mobile");
    const refused = await page(
      await member.post("/portal/orders/new", { number_type: "mobile", country_code: "", quantity: "0", notes: "" }),
      400,
    );
    expect(fieldError(refused, "quantity")).toBe("Quantity must be at least 1");
    expect(fieldError(refused, "country_code")).toBe("Country is required");
    expect(fieldError(refused, "number_type")).toBeUndefined();
    const notOrderable = await page(
      await member.post("/portal/orders/new", { number_type: "mobile", country_code: "ZZ", quantity: "3", notes: "" }),
      400,
    );
    expect(notOrderable).toContain("mobile numbers cannot be ordered in ZZ right now");
    const list = await json(await customer.account.orders.$get({ param: { customer_slug: customer.slug }, query: {} }), 200);
    expect(list.meta.total).toBe(0);
    expect(await eventTypes(customer)).toEqual([]);
  });

  it("edits a pending order, refuses a bad edit beside its field, and refuses once it is processing", async () => {
    const customer = await createCustomer("pw");
    const member = await signedInMember(customer);
    await makeOrderable("US", "mobile");
    const order = await json(
      await customer.account.orders.$post({
        param: { customer_slug: customer.slug },
        json: { number_type: "mobile", country_code: "US", quantity: 5, notes: "first" },
      }),
      201,
    );
    const edit = `/portal/orders/${order.order_id}/edit`;
    const saved = await member.post(edit, { number_type: "mobile", country_code: "US", quantity: "9", notes: "" });
    expect(saved.status).toBe(303);
    expect(saved.headers.get("Location")).toBe(`/portal/orders/${order.order_id}`);
    expect(await apiOrder(customer, order.order_id)).toMatchObject({ quantity: 9, notes: null });
    expect(await eventTypes(customer)).toEqual(["order.created", "order.updated"]);

    const bad = await page(
      await member.post(edit, { number_type: "mobile", country_code: "US", quantity: "ten", notes: "" }),
      400,
    );
    expect(fieldError(bad, "quantity")).toBe("Quantity must be a number");
    expect(await apiOrder(customer, order.order_id)).toMatchObject({ quantity: 9 });

    await json(
      await operator.admin.orders[":order_id"].status.$post({
        param: { order_id: order.order_id },
        json: { status: "processing" },
      }),
      200,
    );
    const late = await page(
      await member.post(edit, { number_type: "mobile", country_code: "US", quantity: "1", notes: "" }),
      409,
    );
    expect(late).toContain("This order is processing now; it can no longer be changed.");
    expect(late).not.toContain(`action="${edit}"`);
    expect(await apiOrder(customer, order.order_id)).toMatchObject({ quantity: 9, status: "processing" });
  });

  it("answers another account's order with the not-found page", async () => {
    const owner = await createCustomer("pw");
    const stranger = await signedInMember(await createCustomer("pw"));
    await makeOrderable("US", "mobile");
    const order = await json(
      await owner.account.orders.$post({
        param: { customer_slug: owner.slug },
        json: { number_type: "mobile", country_code: "US", quantity: 5 },
      }),
      201,
    );
    expect(await page(await stranger.get(`/portal/orders/${order.order_id}`), 404)).toContain("Order not found");
    expect(await page(await stranger.get("/portal/orders/not-a-uuid"), 404)).toContain("Order not found");
    const edit = await stranger.post(`/portal/orders/${order.order_id}/edit`, {
      number_type: "mobile",
      country_code: "US",
      quantity: "1",
    });
    expect(edit.status).toBe(404);
    expect(await apiOrder(owner, order.order_id)).toMatchObject({ quantity: 5 });
  });
});
