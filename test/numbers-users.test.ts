// Numbers (allocation by the operator, the customer's list) and users (operator management, the customer's list).
import { env } from "cloudflare:workers";
import type { InferRequestType } from "hono/client";
import { beforeAll, describe, expect, it } from "vitest";
import { NUMBER_SORT_KEYS } from "../src/numbers/store.ts";
import { USER_SORT_KEYS } from "../src/users/store.ts";
import { TEST_ADMIN_TOKEN } from "./constants.ts";
import {
  allocateNumbers,
  allPages,
  callJson,
  contractOrder,
  createCustomer,
  json,
  makeOrderable,
  operator,
  problem,
  type TestCustomer,
  uniquePhoneNumber,
} from "./helpers.ts";
import { UNTOUCHED_TENURE_FIELDS } from "./number-life-helpers.ts";

beforeAll(async () => {
  await makeOrderable("US", "mobile");
  await makeOrderable("GB", "landline");
  await makeOrderable("DE", "mobile");
});

const DAY = 86_400_000;

/** The item at `index`, which the test knows is there. */
function at<T>(items: readonly T[], index: number): T {
  const item = items[index];
  if (item === undefined) throw new Error(`no item at index ${index}`);
  return item;
}

async function order(customer: TestCustomer, quantity: number, pair = { number_type: "mobile", country_code: "US" }) {
  return json(await customer.account.orders.$post({ param: { customer_slug: customer.slug }, json: { ...pair, quantity } }), 201);
}

const allocate = (orderId: string, phoneNumbers: string[]) =>
  operator.admin.orders[":order_id"].numbers.$post({ param: { order_id: orderId }, json: { phone_numbers: phoneNumbers } });

const adminOrder = (orderId: string) => operator.admin.orders[":order_id"].$get({ param: { order_id: orderId } });

type NumberListQuery = InferRequestType<TestCustomer["account"]["numbers"]["$get"]>["query"];
type UserListQuery = InferRequestType<TestCustomer["account"]["users"]["$get"]>["query"];
type NewUser = InferRequestType<(typeof operator.admin.customers)[":slug"]["users"]["$post"]>["json"];

/** The numbers list with the customer's key, of its own account unless `slug` names another. */
const listNumbers = (customer: TestCustomer, query: NumberListQuery = {}, slug = customer.slug) =>
  customer.account.numbers.$get({ param: { customer_slug: slug }, query });

/** The users list with the customer's key, of its own account unless `slug` names another. */
const listUsers = (customer: TestCustomer, query: UserListQuery = {}, slug = customer.slug) =>
  customer.account.users.$get({ param: { customer_slug: slug }, query });

const createUser = (slug: string, body: NewUser) =>
  operator.admin.customers[":slug"].users.$post({ param: { slug }, json: body });

const adminHeaders = { Authorization: `Bearer ${TEST_ADMIN_TOKEN}` };

describe("allocation", () => {
  it("creates the numbers for the order's account, country and type; pending moves to processing", async () => {
    const customer = await createCustomer();
    const placed = await order(customer, 3, { number_type: "landline", country_code: "GB" });
    const phones = [uniquePhoneNumber(), uniquePhoneNumber()];
    const result = await json(await allocate(placed.order_id, phones), 201);
    expect(result.order).toMatchObject({ status: "processing", fulfilled_quantity: 2, fulfilled_at: null });
    expect(result.numbers).toHaveLength(2);
    expect(result.numbers[0]).toMatchObject({
      country_code: "GB",
      number_type: "landline",
      status: "active",
      order_id: placed.order_id,
      kyc_status: null,
      ...UNTOUCHED_TENURE_FIELDS,
    });
    expect(result.numbers.map((n) => n.phone_number).sort()).toEqual([...phones].sort());

    const customerView = await json(
      await customer.account.orders[":order_id"].$get({ param: { customer_slug: customer.slug, order_id: placed.order_id } }),
      200,
    );
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
    const list = await json(
      await customer.account.orders.$get({ param: { customer_slug: customer.slug }, query: { fulfilled_from: "2000-01-01" } }),
      200,
    );
    expect(list.data.map((o) => o.order_id)).toEqual([placed.order_id]);
  });

  it("is all or nothing: too many numbers (400) or one already allocated (409) changes nothing", async () => {
    const customer = await createCustomer();
    const placed = await order(customer, 2);
    const body = await problem(
      await allocate(placed.order_id, [uniquePhoneNumber(), uniquePhoneNumber(), uniquePhoneNumber()]),
      400,
      "validation_error",
    );
    expect(body.errors?.[0]?.pointer).toBe("/phone_numbers");

    const other = await createCustomer();
    const existing = at(await allocateNumbers(other), 0);
    const fresh = uniquePhoneNumber();
    const conflict = await problem(await allocate(placed.order_id, [fresh, existing.phone_number]), 409, "conflict");
    expect(conflict.detail).toContain(existing.phone_number);

    const after = await json(await adminOrder(placed.order_id), 200);
    expect(after).toMatchObject({ status: "pending", fulfilled_quantity: 0 });
    const numbers = await json(await listNumbers(customer), 200);
    expect(numbers.meta.total).toBe(0);
    await json(await allocate(placed.order_id, [fresh]), 201);
  });

  it("keeps concurrent allocations within the quantity", async () => {
    const customer = await createCustomer();
    const placed = await order(customer, 5);
    const results = await Promise.all(
      Array.from({ length: 4 }, () => allocate(placed.order_id, [uniquePhoneNumber(), uniquePhoneNumber()])),
    );
    const statuses = results.map((r) => r.status).sort();
    await Promise.all(results.map((r) => r.text()));
    expect(statuses).toEqual([201, 201, 400, 400]);
    const after = await json(await adminOrder(placed.order_id), 200);
    expect(after.fulfilled_quantity).toBe(4);
  });

  it("refuses cancelled and unknown orders, and bad bodies", async () => {
    const customer = await createCustomer();
    const placed = await order(customer, 2);
    await json(
      await operator.admin.orders[":order_id"].status.$post({
        param: { order_id: placed.order_id },
        json: { status: "cancelled" },
      }),
      200,
    );
    await problem(await allocate(placed.order_id, [uniquePhoneNumber()]), 409, "conflict");
    await problem(await allocate(crypto.randomUUID(), [uniquePhoneNumber()]), 404, "not_found");
    const live = await order(customer, 2);
    for (const phones of [[], ["14155550123"], ["+0123"], ["+1415555012345678"]]) {
      await problem(await allocate(live.order_id, phones), 400, "validation_error");
    }
    const repeated = uniquePhoneNumber();
    await problem(await allocate(live.order_id, [repeated, repeated]), 400, "validation_error");
    await problem(await allocate(live.order_id, Array.from({ length: 1001 }, uniquePhoneNumber)), 400, "validation_error");
  });

  it("is an admin route only", async () => {
    const customer = await createCustomer();
    const placed = await order(customer, 1);
    const response = await customer.api.admin.orders[":order_id"].numbers.$post({
      param: { order_id: placed.order_id },
      json: { phone_numbers: [uniquePhoneNumber()] },
    });
    await problem(response, 401, "unauthorized");
  });
});

describe("numbers list", () => {
  it("lists the account's numbers with filters, search and sorts", async () => {
    const customer = await createCustomer();
    const mobiles = await allocateNumbers(customer, 3);
    const placed = await order(customer, 1, { number_type: "landline", country_code: "GB" });
    const landline = at((await json(await allocate(placed.order_id, ["+442071234567"]), 201)).numbers, 0);
    const other = await createCustomer();
    await allocateNumbers(other, 2);

    const all = await json(await listNumbers(customer), 200);
    expect(all.meta).toEqual({ total: 4, page: 1, limit: 10, totalPages: 1, hasNextPage: false, hasPreviousPage: false });
    expect(Object.keys(at(all.data, 0)).sort()).toEqual([
      "country_code",
      "created_at",
      "customer_reference",
      "kyc_profile_id",
      "kyc_status",
      "number_id",
      "number_type",
      "order_id",
      "phone_number",
      "release_protected",
      "release_reason",
      "released_at",
      "restorable_until",
      "status",
      "suspended_at",
      "suspension_reason",
      "tags",
      "updated_at",
    ]);

    const gb = await json(await listNumbers(customer, { country_code: "GB" }), 200);
    expect(gb.data.map((n) => n.number_id)).toEqual([landline.number_id]);
    const mobile = await json(await listNumbers(customer, { number_type: "mobile", status: "active" }), 200);
    expect(mobile.meta.total).toBe(3);
    const suspended = await json(await listNumbers(customer, { status: "suspended" }), 200);
    expect(suspended.meta.total).toBe(0);
    const search = await json(await listNumbers(customer, { search: "+44207" }), 200);
    expect(search.data.map((n) => n.phone_number)).toEqual(["+442071234567"]);

    const sorted = await json(await listNumbers(customer, { sort_by: "phone_number", sort_order: "asc", limit: "2" }), 200);
    const expected = [...mobiles.map((n) => n.phone_number), "+442071234567"].sort();
    expect(sorted.data.map((n) => n.phone_number)).toEqual(expected.slice(0, 2));
    expect(sorted.meta).toMatchObject({ total: 4, totalPages: 2, hasNextPage: true });

    await problem(await listNumbers(customer, { status: "lost" }), 400, "validation_error");
    // An unknown sort key: the typed client would refuse to send it.
    await problem(await customer.call(`/api/customers/${customer.slug}/numbers?sort_by=kyc_status`), 400, "validation_error");
    await problem(await listNumbers(customer, {}, other.slug), 404, "not_found");
  });

  it("filters by the order the numbers were allocated to (the account's own only)", async () => {
    const customer = await createCustomer();
    const first = await order(customer, 2);
    const second = await order(customer, 1);
    const firstNumbers = (await json(await allocate(first.order_id, [uniquePhoneNumber(), uniquePhoneNumber()]), 201)).numbers;
    await json(await allocate(second.order_id, [uniquePhoneNumber()]), 201);
    const other = await createCustomer();
    const theirs = await order(other, 1);
    await json(await allocate(theirs.order_id, [uniquePhoneNumber()]), 201);

    const ofFirst = await json(
      await listNumbers(customer, { order_id: first.order_id, sort_by: "phone_number", sort_order: "asc" }),
      200,
    );
    expect(ofFirst.data.map((n) => n.number_id)).toEqual(
      [...firstNumbers].sort((a, b) => a.phone_number.localeCompare(b.phone_number)).map((n) => n.number_id),
    );
    expect(ofFirst.meta.total).toBe(2);
    // Upper case is the same order; another account's order has none of this account's numbers.
    expect((await json(await listNumbers(customer, { order_id: first.order_id.toUpperCase() }), 200)).meta.total).toBe(2);
    expect(await json(await listNumbers(customer, { order_id: theirs.order_id }), 200)).toMatchObject({
      data: [],
      meta: { total: 0 },
    });
    await problem(await listNumbers(customer, { order_id: "not-an-order" }), 400, "validation_error");
  });
});

describe("users", () => {
  it("creates users (status default active), refusing a duplicate email in the account whatever its case", async () => {
    const customer = await createCustomer();
    const response = await createUser(customer.slug, { email: "Ada@Example.com", name: "Ada Lovelace", role: "owner" });
    const user = await json(response, 201);
    expect(response.headers.get("Location")).toBe(`/admin/users/${user.user_id}`);
    expect(user).toMatchObject({
      email: "ada@example.com",
      name: "Ada Lovelace",
      role: "owner",
      status: "active",
      last_login_at: null,
    });
    await problem(await createUser(customer.slug, { email: "ada@EXAMPLE.com", name: "Again", role: "member" }), 409, "conflict");
    const other = await createCustomer();
    await json(await createUser(other.slug, { email: "ada@example.com", name: "Ada elsewhere", role: "member" }), 201);
    await problem(await createUser("no-such-account", { email: "x@example.com", name: "X", role: "member" }), 404, "not_found");
    // An unknown role and an extra field: the typed client would refuse to send them.
    const invalid = await problem(
      await callJson(
        "POST",
        `/admin/customers/${customer.slug}/users`,
        { email: "not-an-email", name: "", role: "boss", extra: true },
        adminHeaders,
      ),
      400,
      "validation_error",
    );
    expect(invalid.errors?.map((e) => e.pointer).sort()).toEqual(["/email", "/extra", "/name", "/role"]);
  });

  it("updates name, role and status", async () => {
    const customer = await createCustomer();
    const user = await json(await createUser(customer.slug, { email: "grace@example.com", name: "Grace", role: "member" }), 201);
    const byId = operator.admin.users[":user_id"];
    const updated = await json(
      await byId.$patch({ param: { user_id: user.user_id }, json: { role: "admin", status: "locked" } }),
      200,
    );
    expect(updated).toMatchObject({ name: "Grace", role: "admin", status: "locked" });
    expect(await json(await byId.$get({ param: { user_id: user.user_id } }), 200)).toEqual(updated);
    await problem(await byId.$patch({ param: { user_id: user.user_id }, json: {} }), 400, "validation_error");
    // The email cannot change: the typed client would refuse to send it.
    await problem(
      await callJson("PATCH", `/admin/users/${user.user_id}`, { email: "new@example.com" }, adminHeaders),
      400,
      "validation_error",
    );
    await problem(await byId.$patch({ param: { user_id: crypto.randomUUID() }, json: { name: "Nobody" } }), 404, "not_found");
  });

  it("refuses to demote, deactivate or lock an account's last active owner (409), as the portal does", async () => {
    const customer = await createCustomer();
    const owner = await json(await createUser(customer.slug, { email: "own@example.com", name: "Own", role: "owner" }), 201);
    const byId = operator.admin.users[":user_id"];
    for (const change of [
      { role: "admin" },
      { status: "inactive" },
      { status: "locked" },
      { role: "member", status: "active" },
    ] as const) {
      const refused = await problem(await byId.$patch({ param: { user_id: owner.user_id }, json: change }), 409, "conflict");
      expect(refused.detail).toBe(
        "The account's last active owner cannot be demoted or deactivated: make someone else an owner first",
      );
    }
    expect(await json(await byId.$get({ param: { user_id: owner.user_id } }), 200)).toMatchObject({
      role: "owner",
      status: "active",
    });
    // A name is no threat to ownership; with a second active owner the first may step down.
    await json(await byId.$patch({ param: { user_id: owner.user_id }, json: { name: "Owner" } }), 200);
    await json(await createUser(customer.slug, { email: "two@example.com", name: "Two", role: "owner" }), 201);
    expect(await json(await byId.$patch({ param: { user_id: owner.user_id }, json: { role: "admin" } }), 200)).toMatchObject({
      role: "admin",
      name: "Owner",
    });
  });

  it("lists users with status_counts ignoring the status filter, filters, search and sorts", async () => {
    const customer = await createCustomer();
    const people: NewUser[] = [
      { email: "ada@example.com", name: "Ada", role: "owner", status: "active" },
      { email: "bob@example.com", name: "Bob", role: "admin", status: "inactive" },
      { email: "cy@corp.test", name: "Cy", role: "member", status: "locked" },
      { email: "dee@example.com", name: "Dee", role: "member", status: "active" },
    ];
    for (const person of people) await json(await createUser(customer.slug, person), 201);
    const other = await createCustomer();
    await json(await createUser(other.slug, { email: "zed@example.com", name: "Zed", role: "owner" }), 201);

    const list = (query: UserListQuery = {}) => listUsers(customer, query);
    const all = await json(await list(), 200);
    expect(all.meta).toEqual({
      total: 4,
      page: 1,
      limit: 10,
      totalPages: 1,
      hasNextPage: false,
      hasPreviousPage: false,
      status_counts: { active: 2, inactive: 1, locked: 1 },
    });
    const members = await json(await list({ role: "member", status: "active" }), 200);
    expect(members.data.map((u) => u.name)).toEqual(["Dee"]);
    expect(members.meta.status_counts).toEqual({ active: 1, inactive: 0, locked: 1 });
    const search = await json(await list({ search: "EXAMPLE.COM", sort_by: "name", sort_order: "asc" }), 200);
    expect(search.data.map((u) => u.name)).toEqual(["Ada", "Bob", "Dee"]);
    const byEmail = await json(await list({ sort_by: "email", sort_order: "desc", limit: "2", page: "2" }), 200);
    expect(byEmail.data.map((u) => u.email)).toEqual(["bob@example.com", "ada@example.com"]);
    const byLogin = await json(await list({ sort_by: "last_login_at" }), 200);
    expect(byLogin.meta.total).toBe(4);
    await problem(await list({ status: "away" }), 400, "validation_error");
    await problem(await list({ role: "root" }), 400, "validation_error");
    await problem(await listUsers(customer, {}, other.slug), 404, "not_found");
  });
});

describe("users search", () => {
  it("finds a case-insensitive substring of the name as well as of the email, and nothing else", async () => {
    const customer = await createCustomer();
    const people: NewUser[] = [
      { email: "mh@nasa.test", name: "Margaret Hamilton", role: "owner" },
      { email: "kj@nasa.test", name: "Katherine Johnson", role: "member", status: "locked" },
      { email: "hamilton.fan@example.com", name: "Fan", role: "member" },
    ];
    const ids = new Map<string, string>();
    for (const person of people) ids.set(person.name, (await json(await createUser(customer.slug, person), 201)).user_id);
    const other = await createCustomer();
    await json(await createUser(other.slug, { email: "kj@nasa.test", name: "Katherine Johnson", role: "owner" }), 201);

    const found = async (search: string) => {
      const page = await json(await listUsers(customer, { search, sort_by: "name", sort_order: "asc" }), 200);
      expect(page.meta.total, search).toBe(page.data.length);
      return page;
    };
    // Only the name holds "johnson": a search of emails alone would miss it.
    const byName = await found("JOHNSON");
    expect(byName.data.map((u) => u.user_id)).toEqual([ids.get("Katherine Johnson")]);
    expect(byName.meta.status_counts).toEqual({ active: 0, inactive: 0, locked: 1 });
    expect((await found("garet ham")).data.map((u) => u.name)).toEqual(["Margaret Hamilton"]);
    // One name and one email hold "hamilton".
    expect((await found("Hamilton")).data.map((u) => u.name)).toEqual(["Fan", "Margaret Hamilton"]);
    // Neither the name nor the email of any user holds these.
    for (const search of ["Lovelace", "johnson@", "nasa.test "]) {
      const none = await found(search);
      expect(none.data, search).toEqual([]);
      expect(none.meta.total, search).toBe(0);
    }
  });
});

describe("sorting and paging", () => {
  /** Ten numbers over three countries and two types, with ties on status and created_at. */
  async function numbersAccount() {
    const customer = await createCustomer("numbers-sort");
    const pairs = [
      { number_type: "mobile", country_code: "US", count: 4 },
      { number_type: "landline", country_code: "GB", count: 3 },
      { number_type: "mobile", country_code: "DE", count: 3 },
    ];
    for (const { count, ...pair } of pairs) {
      const placed = await order(customer, count, pair);
      await json(await allocate(placed.order_id, Array.from({ length: count }, uniquePhoneNumber)), 201);
    }
    const allocated = (await json(await listNumbers(customer, { limit: "100" }), 200)).data;
    const base = Date.parse("2026-02-01T00:00:00.000Z");
    const statuses = ["active", "suspended", "active", "released"];
    for (const [i, number] of allocated.entries()) {
      // Threes share a creation time, so a sort on it must break ties by id.
      await env.DB.prepare("UPDATE numbers SET status = ?, created_at = ? WHERE id = ?")
        .bind(at(statuses, i % statuses.length), base + Math.floor(i / 3) * DAY, number.number_id)
        .run();
    }
    const numbers = (await json(await listNumbers(customer, { limit: "100" }), 200)).data;
    expect(numbers.map((n) => n.number_id).sort()).toEqual(allocated.map((n) => n.number_id).sort());
    return { customer, numbers };
  }

  /** Nine users with repeated names, roles, statuses and creation times; four never logged in, three at the same time. */
  async function usersAccount() {
    const customer = await createCustomer("users-sort");
    const names = ["Ada", "Bob", "Ada", "Cy", "Bob", "Dee", "Ada", "Eve", "Bob"];
    const roles = ["owner", "admin", "member"] as const;
    const statuses = ["active", "inactive", "active", "locked"] as const;
    const base = Date.parse("2026-02-01T00:00:00.000Z");
    const logins = [null, base + DAY, base + DAY, null, base + 3 * DAY, base + 2 * DAY, null, base + DAY, null];
    for (const [i, name] of names.entries()) {
      const user = await json(
        await createUser(customer.slug, {
          email: `${name.toLowerCase()}.${i}@example.com`,
          name,
          role: at(roles, i % roles.length),
          status: at(statuses, i % statuses.length),
        }),
        201,
      );
      // There is no API to log in: last_login_at is written directly, as a sign-in would.
      await env.DB.prepare("UPDATE users SET created_at = ?, last_login_at = ? WHERE id = ?")
        .bind(base + Math.floor(i / 2) * 1000, at(logins, i), user.user_id)
        .run();
    }
    const users = (await json(await listUsers(customer, { limit: "100" }), 200)).data;
    expect(users).toHaveLength(names.length);
    expect(users.filter((u) => u.last_login_at === null)).toHaveLength(4);
    return { customer, users };
  }

  let numbersList: Awaited<ReturnType<typeof numbersAccount>>;
  let usersList: Awaited<ReturnType<typeof usersAccount>>;
  beforeAll(async () => {
    numbersList = await numbersAccount();
    usersList = await usersAccount();
  });

  for (const sortBy of NUMBER_SORT_KEYS) {
    for (const direction of ["asc", "desc"] as const) {
      it(`pages through the numbers by sort_by=${sortBy}&sort_order=${direction} with limit 3, each once in order`, async () => {
        const { customer, numbers } = numbersList;
        const { items, pages } = await allPages(async (page) =>
          json(await listNumbers(customer, { sort_by: sortBy, sort_order: direction, limit: "3", page: String(page) }), 200),
        );
        expect(pages).toBe(4);
        expect(items.map((n) => n.number_id)).toEqual(
          contractOrder(
            numbers,
            (n) => n[sortBy],
            (n) => n.number_id,
            direction,
          ),
        );
      });
    }
  }

  for (const sortBy of USER_SORT_KEYS) {
    for (const direction of ["asc", "desc"] as const) {
      it(`pages through the users by sort_by=${sortBy}&sort_order=${direction} with limit 2, each once in order`, async () => {
        const { customer, users } = usersList;
        const { items, pages } = await allPages(async (page) =>
          json(await listUsers(customer, { sort_by: sortBy, sort_order: direction, limit: "2", page: String(page) }), 200),
        );
        expect(pages).toBe(5);
        expect(items.map((u) => u.user_id)).toEqual(
          contractOrder(
            users,
            (u) => u[sortBy],
            (u) => u.user_id,
            direction,
          ),
        );
      });
    }
  }

  it("puts users who never logged in last in both directions", async () => {
    for (const direction of ["asc", "desc"] as const) {
      const body = await json(
        await listUsers(usersList.customer, { sort_by: "last_login_at", sort_order: direction, limit: "100" }),
        200,
      );
      const firstNull = body.data.findIndex((u) => u.last_login_at === null);
      expect(firstNull, direction).toBe(5);
      expect(
        body.data.slice(firstNull).every((u) => u.last_login_at === null),
        direction,
      ).toBe(true);
    }
  });
});
