// The operator's queues across accounts: every page of every sort and filter equals the contract's plain query over
// the rows (read here from D1 and sorted in the test), with status counts, each order's account, age and stock, and
// each verification's account and subject.
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import {
  allPages,
  createCustomer,
  INDIVIDUAL_ADDRESS,
  json,
  makeOrderable,
  operator,
  problem,
  type TestCustomer,
  uniquePhoneNumber,
} from "./helpers.ts";
import { type StaffMember, staffMember } from "./staff.ts";

let viewer: StaffMember;
/** A number type of this file's own, so the queues filtered by it hold this file's orders only. */
const TYPE = `queue${crypto.randomUUID().slice(0, 6)}`;
let customers: TestCustomer[];

interface Row {
  id: string;
  slug: string;
  status: string;
  quantity: number;
  requestedAt: number;
  countryCode: string;
}

/** Every order of this file's type, as D1 holds them. */
async function rows(): Promise<Row[]> {
  const { results } = await env.DB.prepare(
    `SELECT o.id, c.slug, o.status, o.quantity, o.requested_at AS requestedAt, o.country_code AS countryCode
     FROM orders o JOIN customers c ON c.id = o.customer_id WHERE o.number_type = ?`,
  )
    .bind(TYPE)
    .all<Row>();
  return results;
}

/** The contract's order: the key in the direction, then requested_at, then the id, all in the same direction. */
function sorted(list: Row[], by: "requested_at" | "quantity" | "customer_slug", order: "asc" | "desc"): Row[] {
  const key = (r: Row): (string | number)[] =>
    by === "requested_at" ? [r.requestedAt, r.id] : by === "quantity" ? [r.quantity, r.id] : [r.slug, r.requestedAt, r.id];
  const sign = order === "asc" ? 1 : -1;
  return list.toSorted((a, b) => {
    const [x, y] = [key(a), key(b)];
    for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return x[i]! < y[i]! ? -sign : sign;
    return 0;
  });
}

beforeAll(async () => {
  viewer = await staffMember("viewer");
  await makeOrderable("US", TYPE);
  await makeOrderable("GB", TYPE);
  customers = [await createCustomer("qa"), await createCustomer("qb"), await createCustomer("qc")];
  const place = async (customer: TestCustomer, country: string, quantity: number) =>
    json(
      await customer.account.orders.$post({
        param: { customer_slug: customer.slug },
        json: { number_type: TYPE, country_code: country, quantity },
      }),
      201,
    );
  const placed = [];
  for (let i = 0; i < 18; i++) placed.push(await place(customers[i % 3]!, i % 4 === 0 ? "GB" : "US", ((i * 7) % 10) + 1));
  // Every status: some processing, some cancelled, one fulfilled.
  const move = (orderId: string, status: "processing" | "cancelled") =>
    operator.admin.orders[":order_id"].status.$post({ param: { order_id: orderId }, json: { status } });
  for (const order of placed.slice(0, 4)) await json(await move(order.order_id, "processing"), 200);
  for (const order of placed.slice(4, 7)) await json(await move(order.order_id, "cancelled"), 200);
  const fulfilled = placed[7]!;
  await json(
    await operator.admin.orders[":order_id"].numbers.$post({
      param: { order_id: fulfilled.order_id },
      json: { phone_numbers: Array.from({ length: fulfilled.quantity }, uniquePhoneNumber) },
    }),
    201,
  );
  // Stock for one of the pairs.
  await json(
    await operator.admin.stock.$post({
      json: {
        numbers: Array.from({ length: 3 }, () => ({ phone_number: uniquePhoneNumber(), country_code: "GB", number_type: TYPE })),
      },
    }),
    201,
  );
});

describe("the orders' queue", () => {
  it("pages every sort and filter as the plain query over the orders, open ones by default, oldest first", async () => {
    const all = await rows();
    expect(new Set(all.map((r) => r.status))).toEqual(new Set(["pending", "processing", "cancelled", "fulfilled"]));
    const cases: { query: Record<string, string>; keep: (r: Row) => boolean }[] = [
      { query: {}, keep: (r) => ["pending", "processing"].includes(r.status) },
      { query: { status: "cancelled,fulfilled" }, keep: (r) => ["cancelled", "fulfilled"].includes(r.status) },
      { query: { country_code: "GB" }, keep: (r) => r.countryCode === "GB" && ["pending", "processing"].includes(r.status) },
      {
        query: { customer_slug: customers[1]!.slug },
        keep: (r) => r.slug === customers[1]!.slug && r.status !== "cancelled" && r.status !== "fulfilled",
      },
      {
        query: { status: "pending,processing,cancelled,fulfilled", customer_slug: customers[2]!.slug, country_code: "US" },
        keep: (r) => r.slug === customers[2]!.slug && r.countryCode === "US",
      },
    ];
    for (const { query, keep } of cases) {
      for (const sort_by of ["requested_at", "quantity", "customer_slug"] as const) {
        for (const sort_order of ["asc", "desc"] as const) {
          const expected = sorted(all.filter(keep), sort_by, sort_order).map((r) => r.id);
          const got = await allPages(async (page) =>
            json(
              await viewer.api.admin.orders.$get({
                query: { ...query, number_type: TYPE, sort_by, sort_order, page: String(page), limit: "4" },
              }),
              200,
            ),
          );
          expect(
            got.items.map((o) => o.order_id),
            JSON.stringify({ query, sort_by, sort_order }),
          ).toEqual(expected);
        }
      }
    }
  });

  it("answers each order with its account, age and stock, and the counts of every status", async () => {
    const answer = await json(await viewer.api.admin.orders.$get({ query: { number_type: TYPE, limit: "100" } }), 200);
    const all = await rows();
    const count = (status: string) => all.filter((r) => r.status === status).length;
    expect(answer.meta.status_counts).toEqual({
      pending: count("pending"),
      processing: count("processing"),
      fulfilled: count("fulfilled"),
      cancelled: count("cancelled"),
    });
    expect(answer.meta.total).toBe(count("pending") + count("processing"));
    for (const order of answer.data) {
      expect(customers.map((c) => c.slug)).toContain(order.customer_slug);
      expect(order.age_hours).toBe(0);
      expect(order.stock_available).toBe(order.country_code === "GB" ? 3 : 0);
    }
    const byAccount = await json(
      await viewer.api.admin.orders.$get({
        query: { number_type: TYPE, customer_slug: customers[0]!.slug, status: "cancelled" },
      }),
      200,
    );
    expect(byAccount.meta.total).toBe(all.filter((r) => r.slug === customers[0]!.slug && r.status === "cancelled").length);
  });

  it("refuses what it cannot answer", async () => {
    await problem(await viewer.api.admin.orders.$get({ query: { status: "lost" } }), 400, "validation_error");
    await problem(await viewer.api.admin.orders.$get({ query: { sort_by: "notes" as "quantity" } }), 400, "validation_error");
    await problem(
      await viewer.api.admin.orders.$get({ query: { requested_from: "2026-02-02", requested_to: "2026-02-01" } }),
      400,
      "validation_error",
    );
    expect(await json(await viewer.api.admin.orders.$get({ query: { customer_slug: "no-such-account" } }), 200)).toMatchObject({
      data: [],
      meta: { total: 0 },
    });
  });
});

describe("the review queue", () => {
  it("lists verifications awaiting staff, oldest submission first, with their account and subject, and reads one", async () => {
    await makeOrderable("US", "mobile");
    const customer = await createCustomer("review");
    const order = await json(
      await customer.account.orders.$post({
        param: { customer_slug: customer.slug },
        json: { number_type: "mobile", country_code: "US", quantity: 3 },
      }),
      201,
    );
    const { numbers } = await json(
      await operator.admin.orders[":order_id"].numbers.$post({
        param: { order_id: order.order_id },
        json: { phone_numbers: [uniquePhoneNumber(), uniquePhoneNumber(), uniquePhoneNumber()] },
      }),
      201,
    );
    const kycIds: string[] = [];
    for (const number of numbers) {
      const submitted = await json(
        await customer.api.v1.numbers[":number_id"].KYC.address.$post({
          param: { number_id: number.number_id },
          json: INDIVIDUAL_ADDRESS,
        }),
        201,
      );
      kycIds.push(submitted.id);
    }
    const review = (kycId: string, status: "under_review" | "approved") =>
      operator.admin.kyc[":kyc_id"].review.$post({ param: { kyc_id: kycId }, json: { status } });
    await json(await review(kycIds[1]!, "under_review"), 200);
    await json(await review(kycIds[2]!, "under_review"), 200);
    await json(await review(kycIds[2]!, "approved"), 200);

    const queue = await json(await viewer.api.admin.kyc.$get({ query: { customer_slug: customer.slug } }), 200);
    expect(queue.data.map((v) => v.id)).toEqual([kycIds[0], kycIds[1]]);
    expect(queue.meta.status_counts).toEqual({ pending: 1, under_review: 1, approved: 1, rejected: 0 });
    expect(queue.data[0]).toMatchObject({
      customer_slug: customer.slug,
      subject: {
        type: "number",
        id: `num_${numbers[0]!.number_id}`,
        phone_number: numbers[0]!.phone_number,
        country_code: "US",
        number_type: "mobile",
      },
    });
    const newestFirst = await json(
      await viewer.api.admin.kyc.$get({
        query: { customer_slug: customer.slug, sort_order: "desc", status: "pending,under_review,approved" },
      }),
      200,
    );
    expect(newestFirst.data.map((v) => v.id)).toEqual([...kycIds].reverse());
    expect(
      (await json(await viewer.api.admin.kyc.$get({ query: { customer_slug: customer.slug, number_type: "landline" } }), 200))
        .data,
    ).toEqual([]);
    expect(
      (await json(await viewer.api.admin.kyc.$get({ query: { customer_slug: customer.slug, subject_type: "profile" } }), 200))
        .data,
    ).toEqual([]);
    const one = await json(await viewer.api.admin.kyc[":kyc_id"].$get({ param: { kyc_id: kycIds[0]! } }), 200);
    expect(one).toMatchObject({ id: kycIds[0], customer_slug: customer.slug, status: "pending" });
    await problem(
      await viewer.api.admin.kyc[":kyc_id"].$get({ param: { kyc_id: `kyc_${crypto.randomUUID()}` } }),
      404,
      "not_found",
    );
  });
});
