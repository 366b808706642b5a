// The portal's work pages (orders, numbers, verifications) inside the workers pool: each page for a signed-in member,
// and every change made through a form checked through the API, with the same events.
import { describe, expect, it, vi } from "vitest";
import { TEST_ADMIN_TOKEN } from "./constants.ts";
import { pdf, png, ppm } from "./files.ts";
import {
  allocateNumbers,
  bodyOf,
  call,
  callInIsolate,
  callJson,
  createCustomer,
  createWebhookEndpoint,
  expectStatus,
  INDIVIDUAL_ADDRESS,
  json,
  makeOrderable,
  operator,
  type TestCustomer,
  uniquePhoneNumber,
} from "./helpers.ts";
import { receivedRequests } from "./outbound-fetch.ts";
import { pageText, SAME_ORIGIN, signedIn } from "./portal.ts";

/**
 * The field error shown beside an input (or a choice of several, a fieldset): the control names it in
 * aria-describedby, and its paragraph follows.
 */
function fieldError(html: string, name: string): string | undefined {
  const input = new RegExp(
    `<(?:input|select|textarea)[^>]*name="${name}"[^>]*aria-invalid="true"[^>]*aria-describedby="${name}-error|` +
      `<fieldset[^>]*id="${name}"[^>]*aria-invalid="true"[^>]*aria-describedby="${name}-error`,
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

const BOUNDARY = "portal-upload-boundary";

/**
 * A multipart body whose first chunk holds the field `name` (the CSRF token's, by default) and a file part's start,
 * and whose file then never ends: 1 MiB a pull, counted.
 */
function endlessUpload(value: string, name = "csrf_token") {
  let pulls = 0;
  const head = new TextEncoder().encode(
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n` +
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="big.pdf"\r\nContent-Type: application/pdf\r\n\r\n%PDF-`,
  );
  const body = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        pulls++;
        controller.enqueue(pulls === 1 ? head : new Uint8Array(1024 * 1024));
      },
    },
    { highWaterMark: 0 },
  );
  return { body, pulls: () => pulls };
}

describe("orders in the portal", () => {
  it("lists with every filter, and a bad filter is shown beside its field", async () => {
    const customer = await createCustomer("pw");
    const member = await signedIn(customer, "member");
    await makeOrderable("US", "mobile");
    const order = await json(
      await customer.account.orders.$post({
        param: { customer_slug: customer.slug },
        json: { number_type: "mobile", country_code: "US", quantity: 7, notes: "tower" },
      }),
      201,
    );
    const listed = await pageText(await member.get("/portal/orders"), 200);
    expect(listed).toContain(`<a href="/portal/orders/${order.order_id}">${order.order_number}</a>`);
    for (const name of ["search", "number_type", "country_code", "quantity_min", "quantity_max", "requested_from"]) {
      expect(listed).toContain(`name="${name}"`);
    }
    for (const name of ["requested_to", "fulfilled_from", "fulfilled_to", "sort_by", "sort_order", "limit"]) {
      expect(listed).toContain(`name="${name}"`);
    }
    // A browser sends every field of the GET form, "" for the empty ones, and the sort's defaults: that is no filter, and
    // the address is tidied to what it means (the API's query: a choice of several as one comma list).
    const blank = "search=&number_type=mobile&number_type=&country_code=US&quantity_min=&quantity_max=&requested_from=";
    const sent = await member.get(`/portal/orders?${blank}&requested_to=&sort_by=created_at&sort_order=asc&limit=`);
    expect(sent.status).toBe(303);
    expect(sent.headers.get("Location")).toBe("/portal/orders?number_type=mobile&country_code=US&sort_order=asc");
    expect(await pageText(await member.get(sent.headers.get("Location")!), 200)).toContain(order.order_number);
    const several = await member.get("/portal/orders?status=pending&status=cancelled&country_code=US&country_code=GB");
    expect(several.headers.get("Location")).toBe("/portal/orders?status=pending%2Ccancelled&country_code=US%2CGB");
    const tidy = await pageText(await member.get(several.headers.get("Location")!), 200);
    expect(tidy).toContain(order.order_number);
    // Chosen, whether or not another test put GB in the catalog (then it reads by its name).
    expect(tidy).toMatch(
      /<input type="checkbox" name="country_code" value="GB" checked=""\/>(GB|United Kingdom \(GB\))<\/label>/,
    );
    expect(await pageText(await member.get("/portal/orders?quantity_min=8"), 200)).not.toContain(order.order_number);
    expect(await pageText(await member.get("/portal/orders?search=tower&quantity_max=7"), 200)).toContain(order.order_number);

    const refused = await pageText(await member.get("/portal/orders?quantity_min=9&quantity_max=2&requested_to=soon"), 400);
    expect(fieldError(refused, "quantity_min")).toBe("Quantity from must not be greater than the maximum quantity");
    expect(fieldError(refused, "requested_to")).toBe("Requested to must be a calendar date YYYY-MM-DD");
    expect(fieldError(refused, "search")).toBeUndefined();
  });

  it("creates an order from the form, as the API would, with the same event and delivery", async () => {
    const customer = await createCustomer("pw");
    const member = await signedIn(customer, "member");
    await makeOrderable("GB", "landline");
    const url = `https://hooks.test/${customer.slug}`;
    await createWebhookEndpoint(customer, { url, event_types: ["order.created", "order.updated"] });

    const form = await pageText(await member.get("/portal/orders/new"), 200);
    expect(form).toContain('<option value="GB">GB</option>');
    expect(form).toContain('<option value="landline">landline</option>');

    const created = await member.post("/portal/orders/new", {
      number_type: "landline",
      country_code: "GB",
      quantity: "12",
      notes: "",
    });
    expect(created.status).toBe(303);
    const orderId = /^\/portal\/orders\/([0-9a-f-]{36})\?done=placed$/.exec(created.headers.get("Location") ?? "")?.[1];
    if (!orderId) expect.fail(`unexpected Location ${created.headers.get("Location")}`);
    const order = await apiOrder(customer, orderId);
    expect(order).toMatchObject({ number_type: "landline", country_code: "GB", quantity: 12, notes: null, status: "pending" });
    expect(await eventTypes(customer)).toEqual(["order.created"]);
    // The portal's request put the delivery on the queue, as the API's would.
    await vi.waitUntil(() => receivedRequests.some((r) => r.url === url && r.body.includes(orderId)), {
      timeout: 4_000,
      interval: 50,
    });

    const shown = await pageText(await member.get(`/portal/orders/${orderId}?done=placed`), 200);
    expect(shown).toContain(order.order_number);
    expect(shown).toContain("The order is placed.");
    expect(shown).toContain('<span class="badge pending">pending</span>');
    expect(shown).toContain(`action="/portal/orders/${orderId}/edit"`);
  });

  it("shows each field's error beside it and creates nothing", async () => {
    const customer = await createCustomer("pw");
    const member = await signedIn(customer, "member");
    await makeOrderable("US", "mobile");
    const refused = await pageText(
      await member.post("/portal/orders/new", { number_type: "mobile", country_code: "", quantity: "0", notes: "" }),
      400,
    );
    expect(fieldError(refused, "quantity")).toBe("Quantity must be at least 1");
    expect(fieldError(refused, "country_code")).toBe("Country is required");
    expect(fieldError(refused, "number_type")).toBeUndefined();
    const notOrderable = await pageText(
      await member.post("/portal/orders/new", { number_type: "mobile", country_code: "ZZ", quantity: "3", notes: "" }),
      400,
    );
    // The API's words, beside the field to change too.
    expect(notOrderable).toContain(
      "mobile numbers cannot be ordered in ZZ right now; choose another number_type or country_code",
    );
    expect(fieldError(notOrderable, "number_type")).toBe("Number type cannot be ordered in ZZ right now");
    const list = await json(await customer.account.orders.$get({ param: { customer_slug: customer.slug }, query: {} }), 200);
    expect(list.meta.total).toBe(0);
    expect(await eventTypes(customer)).toEqual([]);
  });

  it("edits a pending order, refuses a bad edit beside its field, and refuses once it is processing", async () => {
    const customer = await createCustomer("pw");
    const member = await signedIn(customer, "member");
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
    expect(saved.headers.get("Location")).toBe(`/portal/orders/${order.order_id}?done=saved`);
    expect(await pageText(await member.get(saved.headers.get("Location")!), 200)).toContain("The order is saved.");
    expect(await apiOrder(customer, order.order_id)).toMatchObject({ quantity: 9, notes: null });
    expect(await eventTypes(customer)).toEqual(["order.created", "order.updated"]);

    const bad = await pageText(
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
    const late = await pageText(
      await member.post(edit, { number_type: "mobile", country_code: "US", quantity: "1", notes: "" }),
      403,
    );
    expect(late).toContain("Only pending orders can be changed; this order is processing");
    expect(late).not.toContain(`action="${edit}"`);
    expect(await apiOrder(customer, order.order_id)).toMatchObject({ quantity: 9, status: "processing" });
  });

  it("cancels a pending order after its confirmation, as the API does; a processing one is refused and unchanged", async () => {
    const customer = await createCustomer("pw");
    const member = await signedIn(customer, "member");
    await makeOrderable("US", "mobile");
    const place = () =>
      customer.account.orders.$post({
        param: { customer_slug: customer.slug },
        json: { number_type: "mobile", country_code: "US", quantity: 3 },
      });
    const order = await json(await place(), 201);
    const page = `/portal/orders/${order.order_id}`;
    expect(await pageText(await member.get(page), 200)).toContain(`href="${page}/cancel"`);
    const confirmation = await pageText(await member.get(`${page}/cancel`), 200);
    expect(confirmation).toContain(`Cancel order ${order.order_number}?`);
    expect(confirmation).toContain(`action="${page}/cancel"`);
    expect(confirmation).toContain(`<a href="${page}">Keep the order</a>`);
    expect(await apiOrder(customer, order.order_id)).toMatchObject({ status: "pending" });

    const cancelled = await member.post(`${page}/cancel`);
    expect(cancelled.headers.get("Location")).toBe(`${page}?done=cancelled`);
    const after = await pageText(await member.follow(cancelled), 200);
    expect(after).toContain("The order is cancelled.");
    expect(after).not.toContain(`${page}/cancel`);
    expect(after).toContain("it can no longer be changed or cancelled");
    expect(await apiOrder(customer, order.order_id)).toMatchObject({ status: "cancelled" });
    expect(await eventTypes(customer)).toEqual(["order.created", "order.cancelled"]);
    // A second post (a reload) is refused with the use case's words and changes nothing; the confirmation is gone.
    expect(await pageText(await member.post(`${page}/cancel`), 403)).toContain(
      "Only pending orders can be cancelled; this order is cancelled",
    );
    expect((await member.get(`${page}/cancel`)).headers.get("Location")).toBe(page);

    const processing = await json(await place(), 201);
    await json(
      await operator.admin.orders[":order_id"].status.$post({
        param: { order_id: processing.order_id },
        json: { status: "processing" },
      }),
      200,
    );
    const refused = await pageText(await member.post(`/portal/orders/${processing.order_id}/cancel`), 403);
    expect(refused).toContain("Only pending orders can be cancelled; this order is processing");
    expect(await apiOrder(customer, processing.order_id)).toMatchObject({ status: "processing" });
    expect(await eventTypes(customer)).toEqual(["order.created", "order.cancelled", "order.created", "order.processing"]);
  });

  it("lists an order's numbers on its page, each linking to its own, and Numbers filtered by the order", async () => {
    const customer = await createCustomer("pw");
    const member = await signedIn(customer, "member");
    const mine = await allocateNumbers(customer, 2);
    const other = await allocateNumbers(customer, 1);
    const orderId = mine[0]!.order_id;
    const page = await pageText(await member.get(`/portal/orders/${orderId}`), 200);
    for (const number of mine) expect(page).toContain(`<a href="/portal/numbers/${number.number_id}">${number.phone_number}</a>`);
    expect(page).not.toContain(other[0]!.phone_number);
    expect(page).toContain(`href="/portal/numbers?order_id=${orderId}"`);

    const filtered = await pageText(await member.get(`/portal/numbers?order_id=${orderId}`), 200);
    for (const number of mine) expect(filtered).toContain(number.phone_number);
    expect(filtered).not.toContain(other[0]!.phone_number);
    // The filter names the order by its number, chosen.
    expect(filtered).toMatch(new RegExp(`<option value="${orderId}" selected="">#\\d{6} · US mobile · 2 numbers</option>`));
    const bad = await pageText(await member.get("/portal/numbers?order_id=nope"), 400);
    expect(fieldError(bad, "order_id")).toBe("Order must be a valid UUID");
  });

  it("answers another account's order with the not-found page", async () => {
    const owner = await createCustomer("pw");
    const stranger = await signedIn(await createCustomer("pw"));
    await makeOrderable("US", "mobile");
    const order = await json(
      await owner.account.orders.$post({
        param: { customer_slug: owner.slug },
        json: { number_type: "mobile", country_code: "US", quantity: 5 },
      }),
      201,
    );
    expect(await pageText(await stranger.get(`/portal/orders/${order.order_id}`), 404)).toContain("Order not found");
    expect(await pageText(await stranger.get("/portal/orders/not-a-uuid"), 404)).toContain("Order not found");
    const edit = await stranger.post(`/portal/orders/${order.order_id}/edit`, {
      number_type: "mobile",
      country_code: "US",
      quantity: "1",
    });
    expect(edit.status).toBe(404);
    expect(await apiOrder(owner, order.order_id)).toMatchObject({ quantity: 5 });
  });
});

async function apiVerification(customer: TestCustomer, numberId: string) {
  return json(await customer.api.v1.numbers[":number_id"].KYC.$get({ param: { number_id: numberId } }), 200);
}

const EMPTY_ADDRESS = {
  verification_type: "",
  address_line_1: "",
  address_line_2: "",
  city: "",
  state_province: "",
  postal_code: "",
  country: "",
  company_name: "",
  tax_id: "",
  contact_person: "",
  phone_number: "",
  email: "",
};

/** The upload form as a browser sends it: every field, "" for the empty ones. */
function uploadForm(file: File, fields: Partial<Record<"document_type" | "description" | "expiration_date", string>> = {}) {
  const form = new FormData();
  form.set("file", file);
  form.set("document_type", fields.document_type ?? "");
  form.set("description", fields.description ?? "");
  form.set("expiration_date", fields.expiration_date ?? "");
  return form;
}

/** A member signed in to a new account, one of whose numbers has its address submitted (through the API). */
async function memberWithSubmittedNumber() {
  const customer = await createCustomer("pw");
  const member = await signedIn(customer, "member");
  const [number] = await allocateNumbers(customer);
  if (!number) expect.fail("no number allocated");
  await json(
    await customer.api.v1.numbers[":number_id"].KYC.address.$post({
      param: { number_id: number.number_id },
      json: INDIVIDUAL_ADDRESS,
    }),
    201,
  );
  return { customer, member, number };
}

/** Posts an upload whose file never ends (endlessUpload) to the number's page, in this isolate. */
function postEndless(member: Awaited<ReturnType<typeof signedIn>>, numberId: string, body: ReadableStream<Uint8Array>) {
  // In this isolate: across the Worker's boundary, a body left unread is reported as a broken pipe.
  return callInIsolate(`/portal/numbers/${numberId}/documents`, {
    method: "POST",
    headers: { ...SAME_ORIGIN, Cookie: member.cookie, "Content-Type": `multipart/form-data; boundary=${BOUNDARY}` },
    body,
  });
}

describe("numbers and verifications in the portal", () => {
  it("lists the numbers with filters and their verification status, each linking to its page", async () => {
    const customer = await createCustomer("pw");
    const member = await signedIn(customer, "member");
    const [first, second] = await allocateNumbers(customer, 2);
    if (!first || !second) expect.fail("no numbers allocated");
    await json(
      await customer.api.v1.numbers[":number_id"].KYC.address.$post({
        param: { number_id: first.number_id },
        json: INDIVIDUAL_ADDRESS,
      }),
      201,
    );
    const blank = await member.get("/portal/numbers?search=&status=&country_code=&number_type=");
    expect(blank.headers.get("Location")).toBe("/portal/numbers");
    const listed = await pageText(await member.get("/portal/numbers"), 200);
    expect(listed).toContain(`<a href="/portal/numbers/${first.number_id}">${first.phone_number}</a>`);
    expect(listed).toContain(`<a href="/portal/numbers/${second.number_id}">${second.phone_number}</a>`);
    expect(listed).toContain('<span class="badge pending">pending</span>');
    const searched = await pageText(
      await member.get(`/portal/numbers?search=${encodeURIComponent(second.phone_number.slice(-6))}`),
      200,
    );
    expect(searched).toContain(second.phone_number);
    expect(searched).not.toContain(first.phone_number);
    const active = await pageText(await member.get("/portal/numbers?status=active%2Csuspended"), 200);
    expect(active).toContain(`<input type="checkbox" name="status" value="suspended" checked=""/>Suspended</label>`);
    expect(active).toContain(second.phone_number);
    const refused = await pageText(await member.get("/portal/numbers?status=lost"), 400);
    expect(fieldError(refused, "status")).toMatch(/^Statuses has an invalid item &quot;lost&quot;/);
  });

  it("submits an address (field errors beside the fields first), then amends it", async () => {
    const customer = await createCustomer("pw");
    const member = await signedIn(customer, "member");
    const [number] = await allocateNumbers(customer);
    if (!number) expect.fail("no number allocated");
    const path = `/portal/numbers/${number.number_id}`;
    expect(await pageText(await member.get(path), 200)).toContain(`action="${path}/address"`);

    const refused = await pageText(
      await member.post(`${path}/address`, { ...EMPTY_ADDRESS, ...INDIVIDUAL_ADDRESS, verification_type: "business", city: "" }),
      400,
    );
    expect(fieldError(refused, "company_name")).toBe("Company name is required for business verification");
    expect(fieldError(refused, "city")).toBe("City must not be empty");
    expect(fieldError(refused, "address_line_1")).toBeUndefined();
    await problemNotFound(customer, number.number_id);

    const submitted = await member.post(`${path}/address`, { ...EMPTY_ADDRESS, ...INDIVIDUAL_ADDRESS, tax_id: "" });
    expect(submitted.status).toBe(303);
    expect(submitted.headers.get("Location")).toBe(`${path}?done=submitted`);
    const led = await pageText(await member.get(`${path}?done=submitted`), 200);
    expect(led).toContain("The address is submitted. Now upload the documents that prove it.");
    // The documents and the upload lead; the address follows, its amendment one click away.
    expect(led.indexOf("<h2>Documents</h2>")).toBeLessThan(led.indexOf("<h2>Address</h2>"));
    expect(led).toContain(`href="${path}/address/edit"`);
    expect(led).not.toContain(`action="${path}/address/edit"`);
    const amendForm = await pageText(await member.get(`${path}/address/edit`), 200);
    expect(amendForm).toContain(`action="${path}/address/edit"`);
    expect(amendForm).toContain('value="San Francisco"');
    const verification = await apiVerification(customer, number.number_id);
    expect(verification).toMatchObject({
      status: "pending",
      type: "individual",
      tax_id: null,
      address: { city: "San Francisco" },
    });

    const amended = await member.post(`${path}/address/edit`, {
      ...EMPTY_ADDRESS,
      ...INDIVIDUAL_ADDRESS,
      verification_type: "",
      city: "Oakland",
      tax_id: "12-3456789",
    });
    expect(amended.status).toBe(303);
    expect(amended.headers.get("Location")).toBe(`${path}?done=amended`);
    expect(await apiVerification(customer, number.number_id)).toMatchObject({
      tax_id: "12-3456789",
      address: { city: "Oakland" },
    });
    expect(await eventTypes(customer)).toEqual(expect.arrayContaining(["kyc.submitted", "kyc.updated"]));
  });

  it("shows a rejection with its reason; amending a business address keeps its company name and re-opens it", async () => {
    const customer = await createCustomer("pw");
    const member = await signedIn(customer, "member");
    const [number] = await allocateNumbers(customer);
    if (!number) expect.fail("no number allocated");
    const path = `/portal/numbers/${number.number_id}`;
    const business = { ...EMPTY_ADDRESS, ...INDIVIDUAL_ADDRESS, verification_type: "business", company_name: "Acme" };
    expect((await member.post(`${path}/address`, business)).status).toBe(303);
    const { id } = await apiVerification(customer, number.number_id);
    const review = (body: { status: "under_review" } | { status: "rejected"; rejection_reason: string }) =>
      operator.admin.kyc[":kyc_id"].review.$post({ param: { kyc_id: id }, json: body });
    await json(await review({ status: "under_review" }), 200);
    const underReview = await pageText(await member.get(path), 200);
    expect(underReview).toContain('<span class="badge under_review">under review</span>');
    expect(underReview).not.toContain(`href="${path}/address/edit"`);
    expect(await pageText(await member.get(`${path}/address/edit`), 409)).toContain(
      "The verification is under review; changing the address is not possible now",
    );
    await json(await review({ status: "rejected", rejection_reason: "The address is unreadable" }), 200);
    const page = await pageText(await member.get(path), 200);
    // Below the number's card (its state and details, number-life-parts.tsx), the verification leads with what to fix,
    // said once; the way forward is the primary button, resubmitting unchanged is not.
    const cardEnd = page.indexOf("</section>", page.indexOf('aria-label="The number"')) + "</section>".length;
    const [top, rejected] = [page.slice(0, cardEnd), page.slice(cardEnd)];
    expect(top).toContain('<section class="card stack" aria-label="The number">');
    expect(top).toContain('<button type="submit">Release…</button>');
    const fixes = /<section class="card fixes" aria-label="What to fix">([\s\S]*?)<\/section>/.exec(rejected)?.[1] ?? "";
    expect(rejected.indexOf('aria-label="What to fix"')).toBeLessThan(rejected.indexOf('<dl class="facts">'));
    expect(fixes).toContain("The reviewer rejected this verification: The address is unreadable");
    expect(fixes).toContain(`<a class="button" href="${path}/address/edit">Amend the address</a>`);
    expect(fixes).toContain('<button type="submit" class="secondary">Resubmit unchanged</button>');
    // No form inside a paragraph (HTML closes the paragraph before it, leaving it empty).
    expect(fixes).not.toMatch(/<p[ >](?:(?!<\/p>).)*<form/s);
    expect(rejected).not.toContain("<dt>Rejection reason</dt>");
    expect(rejected.match(/<button type="submit">/g) ?? []).toEqual([
      '<button type="submit">', // the upload's
    ]);

    const emptied = await pageText(await member.post(`${path}/address/edit`, { ...business, company_name: "" }), 400);
    expect(fieldError(emptied, "company_name")).toBe("Company name must not be empty");
    expect(await apiVerification(customer, number.number_id)).toMatchObject({ status: "rejected", company_name: "Acme" });
    expect((await member.post(`${path}/address/edit`, { ...business, postal_code: "94110" })).status).toBe(303);
    expect(await apiVerification(customer, number.number_id)).toMatchObject({
      status: "pending",
      rejection_reason: null,
      company_name: "Acme",
      address: { postal_code: "94110" },
    });
  });

  it("says once whether the number's country and type need a verification: at the top, with the checklist only when they do", async () => {
    const customer = await createCustomer("pw");
    const member = await signedIn(customer, "member");
    const [free] = await allocateNumbers(customer);
    if (!free) expect.fail("no number allocated");
    const page = await pageText(await member.get(`/portal/numbers/${free.number_id}`), 200);
    expect(page.match(/need no verification/g)).toHaveLength(1);
    expect(page).toContain("Numbers of US mobile need no verification: you may still submit the address");
    expect(page).not.toContain("not verified yet");
    expect(page).not.toContain("<h2>Requirements</h2>");

    const numberType = `rq${crypto.randomUUID().replaceAll("-", "").slice(0, 10)}`;
    await makeOrderable("DE", numberType);
    await expectStatus(
      await callJson(
        "PUT",
        `/admin/catalog/DE/${numberType}/requirements`,
        { verification_types: ["individual"], address_in_country: true, fields: {}, documents: [] },
        { Authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
      ),
      200,
    );
    const order = await json(
      await customer.account.orders.$post({
        param: { customer_slug: customer.slug },
        json: { number_type: numberType, country_code: "DE", quantity: 1 },
      }),
      201,
    );
    const [required] = (
      await json(
        await operator.admin.orders[":order_id"].numbers.$post({
          param: { order_id: order.order_id },
          json: { phone_numbers: [uniquePhoneNumber()] },
        }),
        201,
      )
    ).numbers;
    const needed = await pageText(await member.get(`/portal/numbers/${required!.number_id}`), 200);
    expect(needed).toContain(`This number is not verified yet, and numbers of DE ${numberType} need a verification`);
    expect(needed).toContain("<h2>Requirements</h2>");
    expect(needed).not.toContain("need no verification");
  });

  it("refuses an upload to a locked verification before reading its body, as the API does", async () => {
    const { customer, member, number } = await memberWithSubmittedNumber();
    const verification = await apiVerification(customer, number.number_id);
    for (const status of ["under_review", "approved"] as const) {
      await json(await operator.admin.kyc[":kyc_id"].review.$post({ param: { kyc_id: verification.id }, json: { status } }), 200);
    }
    // The token's part, then a file that never ends: only the first chunk may be read.
    const watched = endlessUpload(member.csrf);
    const answer = await postEndless(member, number.number_id, watched.body);
    // The API's words.
    expect(await pageText(answer, 409)).toContain("The verification is approved; uploading files is not possible now");
    expect(watched.pulls()).toBe(1);
  });

  it("refuses an upload with a forged token, or none first, having read only the form's first part", async () => {
    const { customer, member, number } = await memberWithSubmittedNumber();
    for (const [first, value] of [
      ["csrf_token", "forged"],
      ["document_type", "identity"],
    ] as const) {
      const watched = endlessUpload(value, first);
      const answer = await postEndless(member, number.number_id, watched.body);
      expect(await pageText(answer, 403)).toContain("This form has expired");
      expect(watched.pulls(), first).toBe(1);
    }
    // The right token sent anywhere but first is refused too: the guard reads the first part alone.
    const form = new FormData();
    form.set("document_type", "identity");
    form.set("csrf_token", member.csrf);
    form.set("file", new File([pdf()], "id.pdf"));
    const late = await call(`/portal/numbers/${number.number_id}/documents`, {
      method: "POST",
      headers: { ...SAME_ORIGIN, Cookie: member.cookie },
      body: form,
      redirect: "manual",
    });
    expect(late.status).toBe(403);
    await late.text();
    expect((await apiVerification(customer, number.number_id)).documents).toEqual([]);
    // No page puts the token in a URL (platform logs keep URLs).
    const page = await pageText(await member.get(`/portal/numbers/${number.number_id}`), 200);
    expect(page).not.toMatch(/(action|href)="[^"]*csrf_token/);
    expect(page).toContain('enctype="multipart/form-data"');
  });

  it("uploads a document, downloads the same bytes, and deletes it", async () => {
    const { customer, member, number } = await memberWithSubmittedNumber();
    const path = `/portal/numbers/${number.number_id}`;
    const bytes = pdf();

    // A browser's form: the CSRF token, and "" for the fields left empty; the missing type is shown beside its field.
    const refused = await pageText(
      await member.postMultipart(`${path}/documents`, uploadForm(new File([bytes], "passport.pdf"))),
      400,
    );
    expect(fieldError(refused, "document_type")).toBe(
      "Document type must be one of identity, address_proof, business_registration, tax_certificate, utility_bill, bank_statement, other",
    );
    expect(fieldError(refused, "file")).toBeUndefined();
    const noFile = await pageText(
      await member.postMultipart(`${path}/documents`, uploadForm(new File([], ""), { document_type: "identity" })),
      400,
    );
    expect(fieldError(noFile, "file")).toBe("File is required");
    // A file the API refuses by its bytes: the API's reason, beside the file input, and the chosen type kept.
    const notPdf = await pageText(
      await member.postMultipart(
        `${path}/documents`,
        uploadForm(new File(["plain text"], "notes.pdf"), { document_type: "other" }),
      ),
      400,
    );
    // A refusal that is a sentence of its own reads alone, not after the label ("File The file…").
    expect(fieldError(notPdf, "file")).toMatch(/^The file/);
    expect(notPdf).toContain('<option value="other" selected="">Other</option>');
    // The hint says the whole rule, 300 DPI too; an image under it is refused in those words.
    expect(notPdf).toContain(
      '<p class="hint muted" id="file-hint">PDF, JPEG or PNG, at most 10 MiB; an image at least 300 DPI when it states a resolution</p>',
    );
    const blurred = await pageText(
      await member.postMultipart(
        `${path}/documents`,
        uploadForm(new File([png({ x: ppm(72), y: ppm(72), unit: 1 })], "scan.png"), { document_type: "identity" }),
      ),
      400,
    );
    expect(fieldError(blurred, "file")).toBe(
      "The image states 72x72 DPI; scanned documents need at least 300 DPI on every axis they state",
    );
    expect((await apiVerification(customer, number.number_id)).documents).toEqual([]);

    const uploaded = await member.postMultipart(
      `${path}/documents`,
      uploadForm(new File([bytes], "passport.pdf"), { document_type: "identity", description: "Front page" }),
    );
    expect(uploaded.status, await uploaded.clone().text()).toBe(303);
    const [document] = (await apiVerification(customer, number.number_id)).documents;
    if (!document) expect.fail("no document stored");
    expect(document).toMatchObject({ filename: "passport.pdf", document_type: "identity" });
    expect(await eventTypes(customer)).toContain("kyc.document_uploaded");

    const shown = await pageText(await member.get(path), 200);
    const bareId = document.id.replace(/^doc_/, "");
    expect(shown).toContain(`href="/portal/documents/${bareId}/download"`);
    const download = await member.get(`/portal/documents/${bareId}/download`);
    expect(download.status).toBe(200);
    expect(new Uint8Array(await download.arrayBuffer())).toEqual(bytes);
    const apiDownload = await customer.call(`/v1/kyc/documents/${document.id}/download`);
    await apiDownload.arrayBuffer();
    for (const header of ["Content-Type", "Content-Disposition", "X-Content-Type-Options", "ETag", "Content-Length"]) {
      expect(download.headers.get(header), header).toBe(apiDownload.headers.get(header));
    }

    // Deleting asks first, on a page of its own.
    expect(shown).toContain(`href="${path}/documents/${bareId}/delete"`);
    expect(await pageText(await member.get(`${path}/documents/${bareId}/delete`), 200)).toContain("Delete passport.pdf?");
    expect((await apiVerification(customer, number.number_id)).documents).toHaveLength(1);
    const deleted = await member.post(`${path}/documents/${bareId}/delete`, {});
    expect(deleted.status).toBe(303);
    expect(deleted.headers.get("Location")).toBe(`${path}?done=deleted`);
    expect((await apiVerification(customer, number.number_id)).documents).toEqual([]);
    expect((await customer.call(`/v1/kyc/documents/${document.id}/download`)).status).toBe(404);
  });

  it("answers another account's number and document with the not-found page", async () => {
    const owner = await createCustomer("pw");
    const stranger = await signedIn(await createCustomer("pw"));
    const [number] = await allocateNumbers(owner);
    if (!number) expect.fail("no number allocated");
    await json(
      await owner.api.v1.numbers[":number_id"].KYC.address.$post({
        param: { number_id: number.number_id },
        json: INDIVIDUAL_ADDRESS,
      }),
      201,
    );
    const bytes = pdf();
    const form = new FormData();
    form.set("file", new File([bytes], "id.pdf"));
    form.set("document_type", "identity");
    const stored = await owner.call(`/v1/numbers/${number.number_id}/KYC/files`, { method: "POST", body: form });
    const document = (await stored.json()) as { id: string };
    expect(stored.status).toBe(201);
    const path = `/portal/numbers/${number.number_id}`;
    expect(await pageText(await stranger.get(path), 404)).toContain("Number not found");
    expect(await pageText(await stranger.get(`/portal/documents/${document.id}/download`), 404)).toContain("Document not found");
    expect((await stranger.post(`${path}/address/edit`, { ...EMPTY_ADDRESS, city: "Elsewhere" })).status).toBe(404);
    expect((await stranger.post(`${path}/documents/${document.id}/delete`, {})).status).toBe(404);
    expect((await stranger.get(`${path}/documents/${document.id}/delete`)).status).toBe(404);
    expect((await stranger.get(`${path}/address/edit`)).status).toBe(404);
    const verification = await apiVerification(owner, number.number_id);
    expect(verification.address.city).toBe("San Francisco");
    expect(verification.documents).toHaveLength(1);
  });
});

/** The number has no verification yet, as the API says. */
async function problemNotFound(customer: TestCustomer, numberId: string) {
  const response = await customer.api.v1.numbers[":number_id"].KYC.$get({ param: { number_id: numberId } });
  expect(response.status).toBe(404);
  await response.text();
}

describe("a profile's numbers in the portal", () => {
  const profilesPath = (customer: TestCustomer) => `/api/customers/${customer.slug}/kyc-profiles`;
  const newProfile = async (customer: TestCustomer, name: string) =>
    bodyOf<{ id: string }>(await customer.callJson("POST", profilesPath(customer), { name, ...INDIVIDUAL_ADDRESS }), 201);

  it("attaches and detaches with a redirect to the profile, whose page shows the report once: phone numbers, what to click", async () => {
    const customer = await createCustomer("pw");
    const member = await signedIn(customer, "member");
    const profile = await newProfile(customer, "Head office");
    const elsewhere = await newProfile(customer, "Branch");
    const [free, own, taken] = await allocateNumbers(customer, 3);
    if (!free || !own || !taken) expect.fail("no numbers allocated");
    await json(
      await customer.api.v1.numbers[":number_id"].KYC.address.$post({
        param: { number_id: own.number_id },
        json: INDIVIDUAL_ADDRESS,
      }),
      201,
    );
    await bodyOf(
      await customer.callJson("POST", `${profilesPath(customer)}/${elsewhere.id}/numbers`, { number_ids: [taken.number_id] }),
    );
    const page = `/portal/profiles/${profile.id}`;

    // Pasted phone numbers: one that is not one, or not the account's, refuses the paste beside the field.
    const stranger = uniquePhoneNumber();
    const attachEvents = async () =>
      (await eventTypes(customer)).filter((type) => type === "kyc_profile.numbers_attached").length;
    const attachesBefore = await attachEvents();
    const refusedPastes: [string, string][] = [
      [`${free.phone_number}\nnot-a-number`, "Phone numbers entry 2 (“not-a-number”) must be an E.164 phone number"],
      [`${free.phone_number}, ${stranger}`, `This account has no number ${stranger}`],
    ];
    for (const [pasted, error] of refusedPastes) {
      const refused = await pageText(await member.post(`${page}/numbers`, { phone_numbers: pasted }), 400);
      expect(refused).toMatch(new RegExp(`id="phone_numbers-error">${error.replace(/[+()]/g, "\\$&")}`));
      expect(refused).toContain('aria-describedby="phone_numbers-error phone_numbers-hint"');
    }
    expect(await attachEvents()).toBe(attachesBefore);

    const attached = await member.post(`${page}/numbers`, {
      phone_numbers: [free, own, taken].map((n) => n.phone_number).join("\n"),
    });
    expect(attached.status).toBe(303);
    expect(attached.headers.get("Location")).toBe(page);
    const report = await pageText(await member.follow(attached), 200);
    expect(report).toContain("1 number attached · 0 already attached · 2 not attached");
    expect(report).toContain("Not attached: Each has a verification of its own (1)");
    expect(report).toContain("choose “Delete verification…” there");
    // Where the other profile's numbers are detached: that profile's page, by name and linked.
    expect(report).toContain("Not attached: Each is attached to the profile “Branch” (1)");
    expect(report).toContain(`On <a href="/portal/profiles/${elsewhere.id}#numbers">the profile “Branch”</a>, select them`);
    for (const number of [free, own, taken]) {
      expect(report).toContain(`<a href="/portal/numbers/${number.number_id}">${number.phone_number}</a>`);
    }
    // Numbers by phone number, the refused by what to click: no ids of known numbers, no API call to make.
    expect(report).not.toContain(`num_${own.number_id}`);
    expect(report).not.toContain("DELETE /v1");
    // Shown once: the page again (a reload) shows the profile without it, and attaches nothing again.
    expect(await pageText(await member.get(page), 200)).not.toContain("Attach report");
    expect(await eventTypes(customer)).toEqual(expect.arrayContaining(["kyc_profile.numbers_attached"]));

    const detached = await member.post(`${page}/numbers/detach`, { only: free.number_id });
    expect(detached.headers.get("Location")).toBe(page);
    const detachReport = await pageText(await member.follow(detached), 200);
    expect(detachReport).toContain("1 number detached · 0 already detached · 0 not detached");

    // From Numbers, too: the selection's report on the profile's page; an id no number of the account has, as it was sent.
    const unknown = crypto.randomUUID();
    const fromNumbers = await member.post("/portal/numbers/attach", {
      profile_id: profile.id,
      number_ids: [free.number_id, unknown],
    });
    expect(fromNumbers.headers.get("Location")).toBe(page);
    const selected = await pageText(await member.follow(fromNumbers), 200);
    expect(selected).toContain("1 number attached · 0 already attached · 1 not attached");
    expect(selected).toContain("Not attached: No number of this account has these ids (1)");
    expect(selected).toContain(`<code>num_${unknown}</code>`);
  });
});
