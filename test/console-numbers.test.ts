// The console's numbers (LIFECYCLE.md, "Events, audit, pages": the console): the list across accounts with its search,
// the moves of ticked numbers and of one number on its page, each offered by the move's action (roles, and the
// number's state now), the admin-only force, and a number's history. The role walk of every form is in
// console-pages.test.ts.
import { describe, expect, it } from "vitest";
import { inConsole } from "./console.ts";
import { TEST_ADMIN_TOKEN } from "./constants.ts";
import { allocateNumbers, bodyOf, call, createCustomer, type TestCustomer } from "./helpers.ts";
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

    const suspended = await fulfilment.post("/ops/numbers/suspend?customer_slug=" + customer.slug, {
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
