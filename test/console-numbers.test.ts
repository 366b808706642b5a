// The console's numbers (LIFECYCLE.md, "Events, audit, pages": the console): the list across accounts with its search,
// the moves of ticked numbers and of one number on its page, each offered by the move's action (roles, and the
// number's state now), the admin-only force, and a number's history; quarantine on the stock, order and catalog pages.
// The role walk of every form is in console-pages.test.ts.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { inConsole } from "./console.ts";
import { TEST_ADMIN_TOKEN } from "./constants.ts";
import {
  allocateNumbers,
  bodyOf,
  call,
  createCustomer,
  makeOrderable,
  type TestCustomer,
  uniqueNumberType,
  uniquePhoneNumber,
} from "./helpers.ts";
import { pageText } from "./portal.ts";

const ADMIN_TOKEN = { Authorization: `Bearer ${TEST_ADMIN_TOKEN}` };

async function statusOf(customer: TestCustomer, id: string): Promise<string> {
  const number = await bodyOf<{ status: string }>(await customer.call(`/api/customers/${customer.slug}/numbers/${id}`));
  return number.status;
}

async function auditCount(id: string): Promise<number> {
  const body = await bodyOf<{ meta: { total: number } }>(
    await call(`/admin/audit-events?target_type=number&target_id=num_${id}`, { headers: ADMIN_TOKEN }),
  );
  return body.meta.total;
}

describe("the console's numbers", () => {
  it("finds a number by its start, suspends ticked numbers with a reason and resumes one on its page, with its history", async () => {
    const customer = await createCustomer("cnum");
    const [first, second] = await allocateNumbers(customer, 2);
    const fulfilment = await inConsole("fulfilment");

    const list = await pageText(await fulfilment.get(`/ops/numbers?search=${encodeURIComponent(first!.phone_number)}`), 200);
    expect(list).toContain(first!.phone_number);
    expect(list).not.toContain(second!.phone_number);
    expect(list).toContain(`href="/ops/numbers/${first!.number_id}"`);
    expect(list).toContain('formaction="/ops/numbers/suspend');
    // Active numbers: nothing to resume or restore; force is the admin's.
    expect(list).not.toContain('formaction="/ops/numbers/resume');
    expect(list).not.toContain('name="force"');

    // A suspension without its reason: the error beside the field, nothing changed.
    const refused = await fulfilment.post("/ops/numbers/suspend", { number_ids: [first!.number_id, second!.number_id] });
    expect(refused.status).toBe(400);
    const refusedPage = await refused.text();
    expect(refusedPage).toMatch(/id="reason-error"[^>]*>Reason for a suspension/);
    expect(refusedPage).toContain(`value="${first!.number_id}" checked`);
    expect(await statusOf(customer, first!.number_id)).toBe("active");
    expect(await auditCount(first!.number_id)).toBe(0);
    // Nothing ticked.
    const none = await fulfilment.post("/ops/numbers/suspend", { reason: "abuse" });
    expect(none.status).toBe(400);
    expect(await none.text()).toContain("Choose at least one number.");

    const suspended = await fulfilment.post(`/ops/numbers/suspend?customer_slug=${customer.slug}`, {
      number_ids: [first!.number_id, second!.number_id],
      reason: "abuse",
      note: "Reported by the carrier",
    });
    expect(suspended.headers.get("Location")).toBe(`/ops/numbers?customer_slug=${customer.slug}`);
    expect(await pageText(await fulfilment.follow(suspended), 200)).toContain("2 numbers suspended.");
    expect(await statusOf(customer, first!.number_id)).toBe("suspended");
    expect(await statusOf(customer, second!.number_id)).toBe("suspended");

    // Its page: the account, the suspension's reason, its history, and now Resume and Release but no Suspend.
    const page = await pageText(await fulfilment.get(`/ops/numbers/${first!.number_id}`), 200);
    expect(page).toContain(`href="/ops/accounts/${customer.slug}"`);
    expect(page).toContain("(abuse)");
    expect(page).toContain("Number suspended");
    expect(page).toContain("Reported by the carrier");
    expect(page).toContain(`formaction="/ops/numbers/${first!.number_id}/resume"`);
    expect(page).toContain(`formaction="/ops/numbers/${first!.number_id}/release"`);
    expect(page).not.toContain(`formaction="/ops/numbers/${first!.number_id}/suspend"`);

    // Suspending it again reports why not.
    const again = await fulfilment.post("/ops/numbers/suspend", { number_ids: first!.number_id, reason: "other" });
    expect(await pageText(await fulfilment.follow(again), 200)).toMatch(
      /0 numbers suspended; 1 number not suspended:[\s\S]*already suspended/,
    );

    const resumed = await fulfilment.post(`/ops/numbers/${first!.number_id}/resume`, {});
    expect(resumed.headers.get("Location")).toBe(`/ops/numbers/${first!.number_id}`);
    const after = await pageText(await fulfilment.follow(resumed), 200);
    expect(after).toContain("1 number resumed.");
    expect(after).toContain("Number resumed");
    expect(await statusOf(customer, first!.number_id)).toBe("active");
    expect(await statusOf(customer, second!.number_id)).toBe("suspended");
  });

  it("lets only the admin force the release of a protected number; a viewer sees no form", async () => {
    const customer = await createCustomer("cforce");
    const [number] = await allocateNumbers(customer, 1);
    const id = number!.number_id;
    await bodyOf(await customer.callJson("PATCH", `/api/customers/${customer.slug}/numbers/${id}`, { release_protected: true }));
    const [viewer, fulfilment, admin] = [await inConsole("viewer"), await inConsole("fulfilment"), await inConsole("admin")];

    const seen = await pageText(await viewer.get(`/ops/numbers/${id}`), 200);
    expect(seen).not.toContain("formaction=");
    expect(seen).not.toContain('name="number_ids"');
    expect(
      await pageText(await viewer.get(`/ops/numbers?search=${encodeURIComponent(number!.phone_number)}`), 200),
    ).not.toContain('name="number_ids"');

    expect(await pageText(await fulfilment.get(`/ops/numbers/${id}`), 200)).not.toContain('name="force"');
    // Without force the release is refused for the number (its report says so); fulfilment may not force.
    const unforced = await fulfilment.post(`/ops/numbers/${id}/release`, {});
    expect(await pageText(await fulfilment.follow(unforced), 200)).toContain("release protected");
    expect((await fulfilment.post(`/ops/numbers/${id}/release`, { force: "true" })).status).toBe(403);
    expect(await statusOf(customer, id)).toBe("active");

    expect(await pageText(await admin.get(`/ops/numbers/${id}`), 200)).toContain('name="force" value="true"');
    const forced = await admin.post(`/ops/numbers/${id}/release`, { force: "true", note: "Contract ended" });
    const page = await pageText(await admin.follow(forced), 200);
    expect(page).toContain("1 number released.");
    expect(page).toContain("Number released");
    expect(page).toContain(`formaction="/ops/numbers/${id}/restore"`);
    expect(await statusOf(customer, id)).toBe("released");
  });

  it("links a number's audit events to its page, and answers an unknown number with the 404 page", async () => {
    const customer = await createCustomer("caud");
    const [number] = await allocateNumbers(customer, 1);
    const admin = await inConsole("admin");
    await admin.post(`/ops/numbers/${number!.number_id}/suspend`, { reason: "non_payment" });
    const log = await pageText(await admin.get(`/ops/audit?target_id=num_${number!.number_id}`), 200);
    expect(log).toContain(`href="/ops/numbers/num_${number!.number_id}"`);
    expect(log).toContain("non payment");
    expect(await pageText(await admin.get(`/ops/numbers/num_${number!.number_id}`), 200)).toContain(number!.phone_number);
    expect((await admin.get(`/ops/numbers/num_${crypto.randomUUID()}`)).status).toBe(404);
    expect((await admin.get("/ops/numbers/not-an-id")).status).toBe(404);
  });
});

/** A quarantined number in stock of a new pair (seeded: the test is about the pages, not the return to stock). */
async function quarantinedInStock(): Promise<{ numberType: string; phone: string; availableAt: number }> {
  const numberType = uniqueNumberType();
  await makeOrderable("US", numberType);
  const phone = uniquePhoneNumber();
  const availableAt = Date.UTC(2099, 0, 2, 3, 4);
  await env.DB.prepare(
    `INSERT INTO stock_numbers (phone_number, country_code, number_type, import_id, imported_at, status, available_at, source)
     VALUES (?, 'US', ?, ?, ?, 'quarantined', ?, 'released')`,
  )
    .bind(phone, numberType, crypto.randomUUID(), Date.now(), availableAt)
    .run();
  return { numberType, phone, availableAt };
}

describe("quarantine in the console", () => {
  it("shows a quarantined number under its tab with when it is available and its source, counted per pair", async () => {
    const { numberType, phone } = await quarantinedInStock();
    const viewer = await inConsole("viewer");
    const page = await pageText(await viewer.get(`/ops/stock?status=quarantined&number_type=${numberType}`), 200);
    expect(page).toMatch(/aria-current="page">Quarantined \(\d+\)/);
    expect(page).toContain(phone);
    expect(page).toContain("from 2099-01-02 03:04 UTC");
    expect(page).toContain("Released");
    // The summary's row of the pair: 0 available, 1 quarantined, 0 reserved, 1 in all.
    expect(page).toMatch(
      new RegExp(
        `${numberType.replaceAll("_", " ")}</div></td><td[^>]*><div>0</div></td><td[^>]*><div>1</div></td><td[^>]*><div>0</div></td><td[^>]*><div>1</div>`,
      ),
    );
    const available = await pageText(await viewer.get(`/ops/stock?status=available&number_type=${numberType}`), 200);
    expect(available).not.toContain(phone);
  });

  it("offers ignore quarantine to the admin alone, and shows the refusal's words to the others", async () => {
    const { numberType, phone } = await quarantinedInStock();
    const customer = await createCustomer("cquar");
    const order = await bodyOf<{ order_id: string }>(
      await customer.callJson("POST", `/api/customers/${customer.slug}/orders`, {
        number_type: numberType,
        country_code: "US",
        quantity: 1,
      }),
      201,
    );
    const path = `/ops/orders/${order.order_id}`;
    const [fulfilment, admin] = [await inConsole("fulfilment"), await inConsole("admin")];
    expect(await pageText(await fulfilment.get(path), 200)).not.toContain('name="ignore_quarantine"');
    expect(await pageText(await admin.get(path), 200)).toContain('name="ignore_quarantine" value="true"');

    const refused = await fulfilment.post(`${path}/numbers`, { phone_numbers: phone });
    expect(refused.status).toBe(409);
    expect(await refused.text()).toContain(phone);
    expect((await fulfilment.post(`${path}/numbers`, { phone_numbers: phone, ignore_quarantine: "true" })).status).toBe(403);

    const taken = await admin.post(`${path}/numbers`, { phone_numbers: phone, ignore_quarantine: "true" });
    expect(taken.headers.get("Location")).toBe(`${path}?done=allocated`);
    const numbers = await bodyOf<{ data: { phone_number: string }[] }>(
      await customer.call(`/api/customers/${customer.slug}/numbers`),
    );
    expect(numbers.data.map((n) => n.phone_number)).toEqual([phone]);
  });

  it("shows a pair's quarantine and auto-fulfil, and saves its settings for the admin, judged by the API's schema", async () => {
    const numberType = uniqueNumberType();
    await makeOrderable("US", numberType);
    const settings = `/ops/catalog/US/${numberType}/settings`;
    const [compliance, admin] = [await inConsole("compliance"), await inConsole("admin")];
    const read = await pageText(await compliance.get(settings), 200);
    expect(read).toContain("90 days");
    expect(read).not.toContain('name="quarantine_days"');

    const refused = await admin.post(settings, { quarantine_days: "366" });
    expect(refused.status).toBe(400);
    expect(await refused.text()).toMatch(/id="quarantine_days-error"[^>]*>Quarantine days/);
    expect(await pageText(await compliance.get(settings), 200)).toMatch(/<dt>Auto-fulfil<\/dt><dd>no/);
    const saved = await admin.post(settings, { quarantine_days: "30", auto_fulfil: "true" });
    expect(await pageText(await admin.follow(saved), 200)).toContain("The settings are saved.");
    // The catalog lists every file's pairs (storage is shared): the pair's row is on one of its pages.
    const pages: string[] = [];
    for (let page = 1; page <= 50 && !pages.some((text) => text.includes(`href="${settings}"`)); page++) {
      pages.push(await pageText(await admin.get(`/ops/catalog?limit=100&page=${page}`), 200));
    }
    expect(pages.some((text) => text.includes(`href="${settings}"`))).toBe(true);
    const after = await pageText(await compliance.get(settings), 200);
    expect(after).toMatch(/<dt>Quarantine<\/dt><dd>30 days/);
    expect(after).toMatch(/<dt>Auto-fulfil<\/dt><dd>yes/);
    const events = await bodyOf<{ data: { changes: Record<string, unknown> }[] }>(
      await call(`/admin/audit-events?action=catalog.pair_updated&target_id=US/${numberType}`, { headers: ADMIN_TOKEN }),
    );
    expect(events.data).toHaveLength(1);
  });
});
