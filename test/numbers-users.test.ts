// Numbers (allocation by the operator, the customer's list) and users (operator management, the customer's list).
import { beforeAll, describe, expect, it } from "vitest";
import { adminCall, allocateNumbers, createCustomer, json, makeOrderable, problem, uniquePhoneNumber, type TestCustomer } from "./helpers.ts";

beforeAll(async () => {
  await makeOrderable("US", "mobile");
  await makeOrderable("GB", "landline");
});

async function order(customer: TestCustomer, quantity: number, pair = { number_type: "mobile", country_code: "US" }) {
  return json(await customer.call("POST", `/api/customers/${customer.slug}/orders`, { ...pair, quantity }), 201);
}

const allocate = (orderId: string, phoneNumbers: string[]) =>
  adminCall("POST", `/admin/orders/${orderId}/numbers`, { phone_numbers: phoneNumbers });

describe("allocation", () => {
  it("creates the numbers for the order's account, country and type; pending moves to processing", async () => {
    const customer = await createCustomer();
    const placed = await order(customer, 3, { number_type: "landline", country_code: "GB" });
    const phones = [uniquePhoneNumber(), uniquePhoneNumber()];
    const result = await json(await allocate(placed.order_id, phones), 201);
    expect(result.order).toMatchObject({ status: "processing", fulfilled_quantity: 2, fulfilled_at: null });
    expect(result.numbers).toHaveLength(2);
    expect(result.numbers[0]).toMatchObject({ country_code: "GB", number_type: "landline", status: "active", order_id: placed.order_id, kyc_status: null });
    expect(result.numbers.map((n: { phone_number: string }) => n.phone_number).sort()).toEqual([...phones].sort());

    const customerView = await json(await customer.call("GET", `/api/customers/${customer.slug}/orders/${placed.order_id}`), 200);
    expect(customerView).toMatchObject({ status: "processing", fulfilled_quantity: 2 });
  });

  it("fulfils the order when the last number arrives, setting fulfilled_at", async () => {
    const customer = await createCustomer();
    const placed = await order(customer, 3);
    await json(await allocate(placed.order_id, [uniquePhoneNumber()]), 201);
    const done = await json(await allocate(placed.order_id, [uniquePhoneNumber(), uniquePhoneNumber()]), 201);
    expect(done.order).toMatchObject({ status: "fulfilled", fulfilled_quantity: 3 });
    expect(done.order.fulfilled_at).toMatch(/Z$/);
    await problem(await allocate(placed.order_id, [uniquePhoneNumber()]), 409, "conflict");
    const list = await json(await customer.call("GET", `/api/customers/${customer.slug}/orders?fulfilled_from=2000-01-01`), 200);
    expect(list.data.map((o: { order_id: string }) => o.order_id)).toEqual([placed.order_id]);
  });

  it("is all or nothing: too many numbers (400) or one already allocated (409) changes nothing", async () => {
    const customer = await createCustomer();
    const placed = await order(customer, 2);
    const body = await problem(await allocate(placed.order_id, [uniquePhoneNumber(), uniquePhoneNumber(), uniquePhoneNumber()]), 400, "validation_error");
    expect(body.errors?.[0]?.pointer).toBe("/phone_numbers");

    const other = await createCustomer();
    const [existing] = await allocateNumbers(other);
    const fresh = uniquePhoneNumber();
    const conflict = await problem(await allocate(placed.order_id, [fresh, existing!.phone_number]), 409, "conflict");
    expect(conflict.detail).toContain(existing!.phone_number);

    const after = await json(await adminCall("GET", `/admin/orders/${placed.order_id}`), 200);
    expect(after).toMatchObject({ status: "pending", fulfilled_quantity: 0 });
    const numbers = await json(await customer.call("GET", `/api/customers/${customer.slug}/numbers`), 200);
    expect(numbers.meta.total).toBe(0);
    await json(await allocate(placed.order_id, [fresh]), 201);
  });

  it("keeps concurrent allocations within the quantity", async () => {
    const customer = await createCustomer();
    const placed = await order(customer, 5);
    const results = await Promise.all(Array.from({ length: 4 }, () => allocate(placed.order_id, [uniquePhoneNumber(), uniquePhoneNumber()])));
    const statuses = results.map((r) => r.status).sort();
    await Promise.all(results.map((r) => r.text()));
    expect(statuses).toEqual([201, 201, 400, 400]);
    const after = await json(await adminCall("GET", `/admin/orders/${placed.order_id}`), 200);
    expect(after.fulfilled_quantity).toBe(4);
  });

  it("refuses cancelled and unknown orders, and bad bodies", async () => {
    const customer = await createCustomer();
    const placed = await order(customer, 2);
    await json(await adminCall("POST", `/admin/orders/${placed.order_id}/status`, { status: "cancelled" }), 200);
    await problem(await allocate(placed.order_id, [uniquePhoneNumber()]), 409, "conflict");
    await problem(await allocate(crypto.randomUUID(), [uniquePhoneNumber()]), 404, "not_found");
    const live = await order(customer, 2);
    for (const phones of [[], ["14155550123"], ["+0123"], ["+1415555012345678"]]) {
      await problem(await allocate(live.order_id, phones), 400, "validation_error");
    }
    const repeated = uniquePhoneNumber();
    await problem(await allocate(live.order_id, [repeated, repeated]), 400, "validation_error");
    await problem(await adminCall("POST", `/admin/orders/${live.order_id}/numbers`, { phone_numbers: Array.from({ length: 1001 }, uniquePhoneNumber) }), 400, "validation_error");
  });

  it("is an admin route only", async () => {
    const customer = await createCustomer();
    const placed = await order(customer, 1);
    const response = await customer.call("POST", `/admin/orders/${placed.order_id}/numbers`, { phone_numbers: [uniquePhoneNumber()] });
    await problem(response, 401, "unauthorized");
  });
});

describe("numbers list", () => {
  it("lists the account's numbers with filters, search and sorts", async () => {
    const customer = await createCustomer();
    const mobiles = await allocateNumbers(customer, 3);
    const placed = await order(customer, 1, { number_type: "landline", country_code: "GB" });
    const landline = (await json(await allocate(placed.order_id, ["+442071234567"]), 201)).numbers[0];
    const other = await createCustomer();
    await allocateNumbers(other, 2);

    const all = await json(await customer.call("GET", `/api/customers/${customer.slug}/numbers`), 200);
    expect(all.meta).toEqual({ total: 4, page: 1, limit: 10, totalPages: 1, hasNextPage: false, hasPreviousPage: false });
    expect(Object.keys(all.data[0]).sort()).toEqual(
      ["country_code", "created_at", "kyc_status", "number_id", "number_type", "order_id", "phone_number", "status", "updated_at"],
    );

    const gb = await json(await customer.call("GET", `/api/customers/${customer.slug}/numbers?country_code=GB`), 200);
    expect(gb.data.map((n: { number_id: string }) => n.number_id)).toEqual([landline.number_id]);
    const mobile = await json(await customer.call("GET", `/api/customers/${customer.slug}/numbers?number_type=mobile&status=active`), 200);
    expect(mobile.meta.total).toBe(3);
    const suspended = await json(await customer.call("GET", `/api/customers/${customer.slug}/numbers?status=suspended`), 200);
    expect(suspended.meta.total).toBe(0);
    const search = await json(await customer.call("GET", `/api/customers/${customer.slug}/numbers?search=${encodeURIComponent("+44207")}`), 200);
    expect(search.data.map((n: { phone_number: string }) => n.phone_number)).toEqual(["+442071234567"]);

    const sorted = await json(await customer.call("GET", `/api/customers/${customer.slug}/numbers?sort_by=phone_number&sort_order=asc&limit=2`), 200);
    const expected = [...mobiles.map((n) => n.phone_number), "+442071234567"].sort();
    expect(sorted.data.map((n: { phone_number: string }) => n.phone_number)).toEqual(expected.slice(0, 2));
    expect(sorted.meta).toMatchObject({ total: 4, totalPages: 2, hasNextPage: true });

    await problem(await customer.call("GET", `/api/customers/${customer.slug}/numbers?status=lost`), 400, "validation_error");
    await problem(await customer.call("GET", `/api/customers/${customer.slug}/numbers?sort_by=kyc_status`), 400, "validation_error");
    await problem(await customer.call("GET", `/api/customers/${other.slug}/numbers`), 404, "not_found");
  });
});

describe("users", () => {
  const createUser = (slug: string, body: Record<string, unknown>) => adminCall("POST", `/admin/customers/${slug}/users`, body);

  it("creates users (status default active), refusing a duplicate email in the account whatever its case", async () => {
    const customer = await createCustomer();
    const response = await createUser(customer.slug, { email: "Ada@Example.com", name: "Ada Lovelace", role: "owner" });
    const user = await json(response, 201);
    expect(response.headers.get("Location")).toBe(`/admin/users/${user.user_id}`);
    expect(user).toMatchObject({ email: "ada@example.com", name: "Ada Lovelace", role: "owner", status: "active", last_login_at: null });
    await problem(await createUser(customer.slug, { email: "ada@EXAMPLE.com", name: "Again", role: "member" }), 409, "conflict");
    const other = await createCustomer();
    await json(await createUser(other.slug, { email: "ada@example.com", name: "Ada elsewhere", role: "member" }), 201);
    await problem(await createUser("no-such-account", { email: "x@example.com", name: "X", role: "member" }), 404, "not_found");
    const invalid = await problem(await createUser(customer.slug, { email: "not-an-email", name: "", role: "boss", extra: true }), 400, "validation_error");
    expect(invalid.errors?.map((e) => e.pointer).sort()).toEqual(["/email", "/extra", "/name", "/role"]);
  });

  it("updates name, role and status", async () => {
    const customer = await createCustomer();
    const user = await json(await createUser(customer.slug, { email: "grace@example.com", name: "Grace", role: "member" }), 201);
    const updated = await json(await adminCall("PATCH", `/admin/users/${user.user_id}`, { role: "admin", status: "locked" }), 200);
    expect(updated).toMatchObject({ name: "Grace", role: "admin", status: "locked" });
    expect(await json(await adminCall("GET", `/admin/users/${user.user_id}`), 200)).toEqual(updated);
    await problem(await adminCall("PATCH", `/admin/users/${user.user_id}`, {}), 400, "validation_error");
    await problem(await adminCall("PATCH", `/admin/users/${user.user_id}`, { email: "new@example.com" }), 400, "validation_error");
    await problem(await adminCall("PATCH", `/admin/users/${crypto.randomUUID()}`, { name: "Nobody" }), 404, "not_found");
  });

  it("lists users with status_counts ignoring the status filter, filters, search and sorts", async () => {
    const customer = await createCustomer();
    const people = [
      { email: "ada@example.com", name: "Ada", role: "owner", status: "active" },
      { email: "bob@example.com", name: "Bob", role: "admin", status: "inactive" },
      { email: "cy@corp.test", name: "Cy", role: "member", status: "locked" },
      { email: "dee@example.com", name: "Dee", role: "member", status: "active" },
    ];
    for (const person of people) await json(await createUser(customer.slug, person), 201);
    const other = await createCustomer();
    await json(await createUser(other.slug, { email: "zed@example.com", name: "Zed", role: "owner" }), 201);

    const list = (query: string) => customer.call("GET", `/api/customers/${customer.slug}/users${query}`);
    const all = await json(await list(""), 200);
    expect(all.meta).toEqual({
      total: 4,
      page: 1,
      limit: 10,
      totalPages: 1,
      hasNextPage: false,
      hasPreviousPage: false,
      status_counts: { active: 2, inactive: 1, locked: 1 },
    });
    const members = await json(await list("?role=member&status=active"), 200);
    expect(members.data.map((u: { name: string }) => u.name)).toEqual(["Dee"]);
    expect(members.meta.status_counts).toEqual({ active: 1, inactive: 0, locked: 1 });
    const search = await json(await list("?search=EXAMPLE.COM&sort_by=name&sort_order=asc"), 200);
    expect(search.data.map((u: { name: string }) => u.name)).toEqual(["Ada", "Bob", "Dee"]);
    const byEmail = await json(await list("?sort_by=email&sort_order=desc&limit=2&page=2"), 200);
    expect(byEmail.data.map((u: { email: string }) => u.email)).toEqual(["bob@example.com", "ada@example.com"]);
    const byLogin = await json(await list("?sort_by=last_login_at"), 200);
    expect(byLogin.meta.total).toBe(4);
    await problem(await list("?status=away"), 400, "validation_error");
    await problem(await list("?role=root"), 400, "validation_error");
    await problem(await customer.call("GET", `/api/customers/${other.slug}/users`), 404, "not_found");
  });
});
