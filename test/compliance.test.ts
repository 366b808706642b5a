// Compliance at bulk scale (COMPLIANCE.md) through the API: profiles that numbers join (by id, by order, at order
// time), the 409s of a number whose verification is its profile's, structured rejection reasons and the way back,
// deleting a number's own verification, events once per change, the expiry notices once each, and renewal.
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createDatabase } from "../src/db/client.ts";
import { KYC_TYPES, VERIFICATION_FIELDS } from "../src/db/schema.ts";
import { sendExpiryNotices } from "../src/kyc/expiry.ts";
import { TEST_ADMIN_TOKEN } from "./constants.ts";
import { callOverFaults, FaultPlan } from "./faulty-storage.ts";
import { createdDocument, pdf, uploadFile } from "./files.ts";
import {
  allocateNumbers,
  bodyOf,
  callJson,
  createCustomer,
  createWebhookEndpoint,
  INDIVIDUAL_ADDRESS,
  makeOrderable,
  problem,
  type TestCustomer,
} from "./helpers.ts";

const ADMIN = { Authorization: `Bearer ${TEST_ADMIN_TOKEN}` };
type Wire = Record<string, unknown> & { id: string };

function profilesPath(customer: TestCustomer, rest = ""): string {
  return `/api/customers/${customer.slug}/kyc-profiles${rest}`;
}

async function createProfile(customer: TestCustomer, name = "Head office"): Promise<Wire> {
  return bodyOf<Wire>(await customer.callJson("POST", profilesPath(customer), { name, ...INDIVIDUAL_ADDRESS }), 201);
}

async function uploadToProfile(customer: TestCustomer, profileId: string): Promise<Wire> {
  const form = new FormData();
  form.set("document_type", "identity");
  form.set("file", new File([pdf()], "passport.pdf", { type: "application/pdf" }));
  return bodyOf<Wire>(await customer.call(profilesPath(customer, `/${profileId}/files`), { method: "POST", body: form }), 201);
}

function review(profileId: string, body: unknown): Promise<Response> {
  return callJson("POST", `/admin/kyc-profiles/${profileId}/review`, body, ADMIN);
}

async function attach(customer: TestCustomer, profileId: string, body: unknown, status = 200) {
  return bodyOf<{ attached: string[]; already_attached: string[]; refused: { number_id: string; code: string }[] }>(
    await customer.callJson("POST", profilesPath(customer, `/${profileId}/numbers`), body),
    status,
  );
}

/** A pending order of two US mobile numbers that names the profile. */
async function usMobileOrder(customer: TestCustomer, profile: Wire): Promise<Wire & { order_id: string }> {
  const path = `/api/customers/${customer.slug}/orders`;
  const body = { country_code: "US", number_type: "mobile", quantity: 2, kyc_profile_id: profile.id };
  return bodyOf<Wire & { order_id: string }>(await customer.callJson("POST", path, body), 201);
}

/** The webhook deliveries of the order's order.processing events. */
async function processingDeliveries(orderId: string): Promise<number> {
  const row = await env.DB.prepare(
    `SELECT count(*) AS n FROM webhook_deliveries JOIN events ON events.id = webhook_deliveries.event_id
     WHERE events.type = 'order.processing' AND json_extract(events.data, '$.order_id') = ?`,
  )
    .bind(orderId)
    .first<{ n: number }>();
  return row!.n;
}

async function eventsOf(customer: TestCustomer, type: string): Promise<Wire[]> {
  const body = await bodyOf<{ data: Wire[] }>(
    await customer.call(`/api/customers/${customer.slug}/events?type=${type}&limit=100`),
  );
  return body.data;
}

describe("profiles", () => {
  it("verifies once for many numbers: attach, the numbers' KYC is the profile's, detach", async () => {
    const customer = await createCustomer("prof");
    const profile = await createProfile(customer);
    expect(profile).toMatchObject({ name: "Head office", status: "pending", number_count: 0, rejection_reasons: [] });
    expect(profile.id).toMatch(/^kyp_/);
    const document = await uploadToProfile(customer, profile.id);
    expect(document.kyc_id).toBe(profile.id);

    const numbers = await allocateNumbers(customer, 3);
    const ids = numbers.map((n) => `num_${n.number_id}`);
    const report = await attach(customer, profile.id, { number_ids: [...ids, ids[0], numbers[1]!.number_id] });
    // Repeats count once; bare and prefixed ids are the same number.
    expect(report.attached.sort()).toEqual([...ids].sort());
    expect(report.refused).toEqual([]);
    expect((await attach(customer, profile.id, { number_ids: ids })).already_attached.sort()).toEqual([...ids].sort());

    const kyc = await bodyOf<Wire>(await customer.call(`/v1/numbers/${ids[0]}/KYC`));
    expect(kyc).toMatchObject({ number_id: ids[0], profile_id: profile.id, status: "pending" });
    expect(kyc.id).toMatch(/^kyc_/);
    expect(kyc.id).not.toBe(profile.id.replace("kyp_", "kyc_"));
    const listed = await bodyOf<{ data: Wire[] }>(
      await customer.call(`/api/customers/${customer.slug}/numbers?kyc_profile_id=${profile.id}`),
    );
    // An approved profile's numbers expire with it; detached, they no longer do.
    await bodyOf<Wire>(await review(profile.id, { status: "under_review" }));
    const approvedProfile = await bodyOf<Wire>(await review(profile.id, { status: "approved" }));
    const nextYear = new Date(Date.parse(String(approvedProfile.expires_at)) + 86_400_000).toISOString().slice(0, 10);
    const expiring = await bodyOf<{ data: Wire[]; meta: { total: number } }>(
      await customer.call(`/api/customers/${customer.slug}/numbers?kyc_expires_before=${nextYear}`),
    );
    expect(expiring.data.map((n) => `num_${n.number_id}`).sort()).toEqual([...ids].sort());
    expect(expiring.meta.total).toBe(3);
    expect(listed.data.map((n) => n.kyc_profile_id)).toEqual([profile.id, profile.id, profile.id]);
    expect(listed.data.map((n) => n.kyc_status)).toEqual(["pending", "pending", "pending"]);
    expect((await bodyOf<Wire>(await customer.call(profilesPath(customer, `/${profile.id}`)))).number_count).toBe(3);

    // The number's own verification routes are the profile's to change.
    const managed = await problem(
      await customer.callJson("PATCH", `/v1/numbers/${ids[0]}/KYC/address`, { city: "Oakland" }),
      409,
      "kyc_managed_by_profile",
    );
    expect(managed.detail).toContain(profile.id);
    await problem(
      await customer.callJson("POST", `/v1/numbers/${ids[0]}/KYC/address`, INDIVIDUAL_ADDRESS),
      409,
      "kyc_managed_by_profile",
    );
    await problem(await uploadFile(customer, ids[0]!, pdf(), "a.pdf"), 409, "kyc_managed_by_profile");
    await problem(await customer.call(`/v1/numbers/${ids[0]}/KYC`, { method: "DELETE" }), 409, "kyc_managed_by_profile");
    await problem(
      await callJson("POST", `/admin/kyc/${kyc.id}/review`, { status: "under_review" }, ADMIN),
      409,
      "kyc_managed_by_profile",
    );

    // The profile cannot go while numbers are attached.
    await problem(await customer.call(profilesPath(customer, `/${profile.id}`), { method: "DELETE" }), 409, "conflict");
    const detached = await bodyOf<{ detached: string[] }>(
      await customer.callJson("POST", profilesPath(customer, `/${profile.id}/numbers/detach`), { number_ids: ids }),
    );
    expect(detached.detached.sort()).toEqual([...ids].sort());
    await problem(await customer.call(`/v1/numbers/${ids[0]}/KYC`), 404, "not_found");
    // Detached, the number may submit its own.
    await bodyOf<Wire>(await customer.callJson("POST", `/v1/numbers/${ids[0]}/KYC/address`, INDIVIDUAL_ADDRESS), 201);
    await bodyOf<Wire>(await customer.call(profilesPath(customer, `/${profile.id}`), { method: "DELETE" }));
    await problem(await customer.call(profilesPath(customer, `/${profile.id}`)), 404, "not_found");
  });

  it("refuses each number it cannot attach, with its code, and attaches the rest", async () => {
    const customer = await createCustomer("prof");
    const other = await createCustomer("prof");
    const [first, second] = [await createProfile(customer, "A"), await createProfile(customer, "B")];
    const [own, inOther, free] = await allocateNumbers(customer, 3);
    const [foreign] = await allocateNumbers(other, 1);
    await bodyOf<Wire>(await customer.callJson("POST", `/v1/numbers/${own!.number_id}/KYC/address`, INDIVIDUAL_ADDRESS), 201);
    await attach(customer, second.id, { number_ids: [inOther!.number_id] });
    const unknown = crypto.randomUUID();
    const report = await attach(customer, first.id, {
      number_ids: [own!.number_id, inOther!.number_id, free!.number_id, foreign!.number_id, unknown],
    });
    expect(report.attached).toEqual([`num_${free!.number_id}`]);
    expect(report.refused).toEqual([
      expect.objectContaining({ number_id: `num_${own!.number_id}`, code: "has_own_verification" }),
      expect.objectContaining({ number_id: `num_${inOther!.number_id}`, code: "attached_to_other_profile" }),
      // Another account's number and an unknown one are the same to the caller.
      expect.objectContaining({ number_id: `num_${foreign!.number_id}`, code: "not_found" }),
      expect.objectContaining({ number_id: `num_${unknown}`, code: "not_found" }),
    ]);
  });

  it("refuses a pair whose requirements the profile does not meet, naming them at order time", async () => {
    const customer = await createCustomer("prof");
    const numberType = `req${crypto.randomUUID().slice(0, 8)}`;
    await makeOrderable("DE", numberType);
    await bodyOf<Wire>(
      await callJson(
        "PUT",
        `/admin/catalog/DE/${numberType}/requirements`,
        {
          verification_types: ["individual"],
          address_in_country: true,
          fields: { individual: ["email"] },
          documents: [{ key: "identity", document_types: ["identity"], applies_to: ["individual"], description: "A passport" }],
        },
        ADMIN,
      ),
    );
    const profile = await createProfile(customer);
    const refused = await problem(
      await customer.callJson("POST", `/api/customers/${customer.slug}/orders`, {
        country_code: "DE",
        number_type: numberType,
        quantity: 2,
        kyc_profile_id: profile.id,
      }),
      400,
      "requirements_not_met",
    );
    // The US address is not in DE, no e-mail, no identity document: one error each, naming it and saying what to do.
    expect(refused.errors?.map((e) => e.message)).toEqual([
      "Address: The address must be in DE",
      "Email address: Add the email address",
      "Document “identity”: Upload one of: identity (A passport)",
    ]);
    expect(refused.errors?.every((e) => e.pointer === "/kyc_profile_id")).toBe(true);
    const evaluation = await bodyOf<{ compliant: boolean; results: { requirement: string; status: string }[] }>(
      await customer.call(profilesPath(customer, `/${profile.id}/evaluation?country_code=DE&number_type=${numberType}`)),
    );
    expect(evaluation.compliant).toBe(false);

    // A change of an order that is no longer pending is refused for that, whatever profile it names.
    const [number] = await allocateNumbers(customer, 1);
    await problem(
      await customer.callJson("PUT", `/api/customers/${customer.slug}/orders/${number!.order_id}`, {
        country_code: "DE",
        number_type: numberType,
        kyc_profile_id: profile.id,
      }),
      403,
      "order_not_pending",
    );

    const other = await createCustomer("prof");
    const foreign = await createProfile(other);
    const notOurs = await problem(
      await customer.callJson("POST", `/api/customers/${customer.slug}/orders`, {
        country_code: "US",
        number_type: "mobile",
        quantity: 1,
        kyc_profile_id: foreign.id,
      }),
      400,
      "validation_error",
    );
    expect(notOurs.errors?.[0]?.pointer).toBe("/kyc_profile_id");
  });

  it("allocates to the order as it stands when its profile changes between the allocation's read and its batch", async () => {
    const customer = await createCustomer("prof");
    await createWebhookEndpoint(customer);
    await makeOrderable("US", "mobile");
    const [first, second] = [await createProfile(customer, "First"), await createProfile(customer, "Second")];
    const orderNaming = (profile: Wire) => usMobileOrder(customer, profile);
    const rename = (orderId: string, profile: Wire) => async () => {
      const path = `/api/customers/${customer.slug}/orders/${orderId}`;
      await bodyOf(await customer.callJson("PUT", path, { kyc_profile_id: profile.id }));
    };
    const allocation = () => JSON.stringify({ phone_numbers: [`+1415${Math.floor(1e6 + Math.random() * 8e6)}`] });
    const allocating = { method: "POST", headers: { ...ADMIN, "Content-Type": "application/json" } };
    const processing = async (orderId: string) =>
      (await eventsOf(customer, "order.processing")).filter((e) => (e.data as Wire).order_id === orderId);

    // Changed once, before the first batch: the allocation reads the order again and attaches to the profile it names.
    const once = await orderNaming(first);
    let changes = 0;
    const changedOnce = FaultPlan.interleaving(/insert numbers/, async () => {
      if (changes++ === 0) await rename(once.order_id, second)();
    });
    const { response } = await callOverFaults(changedOnce, `/admin/orders/${once.order_id}/numbers`, {
      ...allocating,
      body: allocation(),
    });
    const allocated = await bodyOf<{ order: Wire; numbers: Wire[] }>(response, 201);
    expect(allocated.numbers.map((n) => n.kyc_profile_id)).toEqual([second.id]);
    expect(allocated.order).toMatchObject({ status: "processing", kyc_profile_id: second.id });
    expect(await processing(once.order_id)).toHaveLength(1);
    expect(await processingDeliveries(once.order_id)).toBe(1);

    // Changed before each batch: nothing allocated, the order still pending, and no event (nor its deliveries) written.
    const twice = await orderNaming(first);
    let named = first;
    const changedEachTime = FaultPlan.interleaving(/insert numbers/, async () => {
      named = named === first ? second : first;
      await rename(twice.order_id, named)();
    });
    const refused = await callOverFaults(changedEachTime, `/admin/orders/${twice.order_id}/numbers`, {
      ...allocating,
      body: allocation(),
    });
    const body = await bodyOf<{ code: string; detail: string }>(refused.response, 409);
    expect(body).toMatchObject({
      code: "conflict",
      detail: "The order's KYC profile changed twice while its numbers were being allocated; nothing was allocated: try again",
    });
    const order = await bodyOf<Wire>(await customer.call(`/api/customers/${customer.slug}/orders/${twice.order_id}`));
    expect(order).toMatchObject({ status: "pending", fulfilled_quantity: 0 });
    expect(await processing(twice.order_id)).toEqual([]);
    expect(await processingDeliveries(twice.order_id)).toBe(0);
  });

  it("attaches an order's numbers in the allocation's batch, with one numbers_attached event", async () => {
    const customer = await createCustomer("prof");
    await makeOrderable("US", "mobile");
    const profile = await createProfile(customer);
    const order = await usMobileOrder(customer, profile);
    expect(order.kyc_profile_id).toBe(profile.id);
    const phones = [`+1415${Math.floor(1e6 + Math.random() * 8e6)}`, `+1415${Math.floor(1e6 + Math.random() * 8e6)}`];
    const allocated = await bodyOf<{ numbers: Wire[] }>(
      await callJson("POST", `/admin/orders/${order.order_id}/numbers`, { phone_numbers: phones }, ADMIN),
      201,
    );
    expect(allocated.numbers.map((n) => n.kyc_profile_id)).toEqual([profile.id, profile.id]);
    const events = await eventsOf(customer, "kyc_profile.numbers_attached");
    expect(events).toHaveLength(1);
    expect((events[0]!.data as { number_ids: string[] }).number_ids.sort()).toEqual(
      allocated.numbers.map((n) => `num_${n.number_id}`).sort(),
    );
    // No kyc.* event for numbers attached to a profile.
    expect(await eventsOf(customer, "kyc.submitted")).toEqual([]);
  });

  it("refuses 10,001 ids naming number_ids, and an attach that changes nothing emits no event", async () => {
    const customer = await createCustomer("prof");
    const profile = await createProfile(customer);
    const tooMany = Array.from({ length: 10_001 }, () => crypto.randomUUID());
    const refused = await problem(
      await customer.callJson("POST", profilesPath(customer, `/${profile.id}/numbers`), { number_ids: tooMany }),
      400,
      "validation_error",
    );
    expect(refused.errors?.[0]?.pointer).toBe("/number_ids");
    await attach(customer, profile.id, { number_ids: [crypto.randomUUID()] });
    expect(await eventsOf(customer, "kyc_profile.numbers_attached")).toEqual([]);
  });
});

describe("rejection reasons and the way back", () => {
  it("rejects only the documents a reason names, which stay rejected until deleted; resubmit re-opens", async () => {
    const customer = await createCustomer("reasons");
    const profile = await createProfile(customer);
    const blurred = await uploadToProfile(customer, profile.id);
    const fine = await uploadToProfile(customer, profile.id);
    await bodyOf<Wire>(await review(profile.id, { status: "under_review" }));
    const wrongDocument = await problem(
      await review(profile.id, {
        status: "rejected",
        rejection_reason: "Blurred",
        reasons: [{ code: "document_illegible", document_id: `doc_${crypto.randomUUID()}` }],
      }),
      400,
      "validation_error",
    );
    expect(wrongDocument.errors?.[0]?.pointer).toBe("/reasons/0/document_id");
    await problem(
      await review(profile.id, { status: "rejected", rejection_reason: "x", reasons: [{ code: "no_such_code" }] }),
      400,
      "validation_error",
    );
    const reasons = [
      { code: "document_illegible", document_id: blurred.id, note: "Cut off at the bottom" },
      { code: "field_invalid", field: "postal_code" },
    ];
    const rejected = await bodyOf<Wire & { documents: Wire[] }>(
      await review(profile.id, { status: "rejected", rejection_reason: "Blurred scan", reasons }),
    );
    expect(rejected).toMatchObject({ status: "rejected", rejection_reason: "Blurred scan", rejection_reasons: reasons });
    const byId = Object.fromEntries(rejected.documents.map((d) => [d.id, d]));
    expect(byId[blurred.id]).toMatchObject({ status: "rejected", rejection_reasons: [reasons[0]] });
    expect(byId[fine.id]).toMatchObject({ status: "pending_review", rejection_reasons: [] });

    // The document a reason named may be deleted while rejected; the other may not.
    await problem(await customer.call(`/v1/kyc/documents/${fine.id}`, { method: "DELETE" }), 409, "verification_completed");
    await bodyOf<Wire>(await customer.call(`/v1/kyc/documents/${blurred.id}`, { method: "DELETE" }));
    const reopened = await bodyOf<Wire & { documents: Wire[] }>(
      await customer.call(profilesPath(customer, `/${profile.id}/resubmit`), { method: "POST" }),
    );
    expect(reopened).toMatchObject({ status: "pending", rejection_reason: null, rejection_reasons: [], reviewed_at: null });
    expect(reopened.documents.map((d) => d.status)).toEqual(["uploaded"]);
    await problem(
      await customer.call(profilesPath(customer, `/${profile.id}/resubmit`), { method: "POST" }),
      409,
      "verification_locked",
    );
    const profileEvents = await eventsOf(customer, "kyc_profile.rejected");
    expect(profileEvents).toHaveLength(1);
  });

  it("takes a reason naming a field the verification has: a person's business fields only when given, else 400", async () => {
    const customer = await createCustomer("reasons");
    const naming = (field: string) => ({
      status: "rejected",
      rejection_reason: "Please check these details",
      reasons: [
        { code: "field_invalid", field: "postal_code" },
        { code: "field_invalid", field },
      ],
    });
    const underReview = async (body: Record<string, unknown>) => {
      const profile = await bodyOf<Wire>(await customer.callJson("POST", profilesPath(customer), body), 201);
      await bodyOf<Wire>(await review(profile.id, { status: "under_review" }));
      return profile;
    };
    // A person who gave none of a business's fields: a reason naming one is refused, and nothing changes.
    const person = await underReview({ name: "Person", ...INDIVIDUAL_ADDRESS });
    for (const field of ["company_name", "tax_id", "contact_person"]) {
      const refused = await problem(await review(person.id, naming(field)), 400, "validation_error");
      expect(refused.errors, field).toEqual([
        { location: "body", pointer: "/reasons/1/field", message: "is not a field of this verification" },
      ]);
    }
    // A field no verification has.
    expect((await problem(await review(person.id, naming("name")), 400, "validation_error")).errors?.[0]?.pointer).toBe(
      "/reasons/1/field",
    );
    expect(await bodyOf<Wire>(await customer.call(profilesPath(customer, `/${person.id}`)))).toMatchObject({
      status: "under_review",
      rejection_reasons: [],
    });
    // A person who gave them (a pair may ask a person's tax id), and a business: every field of the list.
    const given = { tax_id: "DE123456789", company_name: "Ada's Trading", contact_person: "Ada Lovelace" };
    for (const type of KYC_TYPES) {
      for (const field of VERIFICATION_FIELDS.filter((f) => f !== "verification_type")) {
        const profile = await underReview({ name: `${type} ${field}`, ...INDIVIDUAL_ADDRESS, ...given, verification_type: type });
        const rejected = await bodyOf<Wire>(await review(profile.id, naming(field)), 200);
        expect(rejected, `${type}: ${field}`).toMatchObject({ status: "rejected", rejection_reasons: naming(field).reasons });
      }
    }
    // A number's own verification: the same rule.
    const [first, second] = await allocateNumbers(customer, 2);
    const underReviewNumber = async (numberId: string, body: Record<string, unknown>) => {
      const kyc = await bodyOf<Wire>(await customer.callJson("POST", `/v1/numbers/${numberId}/KYC/address`, body), 201);
      const reviewNumber = (reviewed: unknown) => callJson("POST", `/admin/kyc/${kyc.id}/review`, reviewed, ADMIN);
      await bodyOf<Wire>(await reviewNumber({ status: "under_review" }));
      return reviewNumber;
    };
    const plain = await underReviewNumber(first!.number_id, INDIVIDUAL_ADDRESS);
    expect((await problem(await plain(naming("tax_id")), 400, "validation_error")).errors?.[0]?.pointer).toBe("/reasons/1/field");
    const withTaxId = await underReviewNumber(second!.number_id, { ...INDIVIDUAL_ADDRESS, tax_id: "DE123456789" });
    expect(await bodyOf<Wire>(await withTaxId(naming("tax_id")))).toMatchObject({ status: "rejected" });
  });

  it("keeps every document pending review when the reasons name only fields", async () => {
    const customer = await createCustomer("reasons");
    const profile = await createProfile(customer);
    await uploadToProfile(customer, profile.id);
    await bodyOf<Wire>(await review(profile.id, { status: "under_review" }));
    const rejected = await bodyOf<Wire & { documents: Wire[] }>(
      await review(profile.id, {
        status: "rejected",
        rejection_reason: "Wrong postal code",
        reasons: [{ code: "field_invalid", field: "postal_code" }],
      }),
    );
    expect(rejected.documents.map((d) => d.status)).toEqual(["pending_review"]);
  });

  it("deletes a number's own verification while pending or rejected, with kyc.deleted", async () => {
    const customer = await createCustomer("reasons");
    const [number] = await allocateNumbers(customer, 1);
    const path = `/v1/numbers/${number!.number_id}/KYC`;
    const kyc = await bodyOf<Wire>(await customer.callJson("POST", `${path}/address`, INDIVIDUAL_ADDRESS), 201);
    await createdDocument(await uploadFile(customer, number!.number_id, pdf(), "a.pdf"));
    await bodyOf<Wire>(await callJson("POST", `/admin/kyc/${kyc.id}/review`, { status: "under_review" }, ADMIN));
    await problem(await customer.call(path, { method: "DELETE" }), 409, "verification_locked");
    await bodyOf<Wire>(
      await callJson("POST", `/admin/kyc/${kyc.id}/review`, { status: "rejected", rejection_reason: "No match" }, ADMIN),
    );
    await bodyOf<Wire>(await customer.call(path, { method: "DELETE" }));
    await problem(await customer.call(path), 404, "not_found");
    expect(await eventsOf(customer, "kyc.deleted")).toHaveLength(1);
    const objects = await env.DOCUMENTS.list({ prefix: `kyc/${customer.customerId}/` });
    expect(objects.objects).toEqual([]);
  });
});

describe("expiry and renewal", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("sends kyc.expiring at 30 and 7 days and kyc.expired once each, even when the job runs twice at once", async () => {
    const customer = await createCustomer("expiry");
    const [number] = await allocateNumbers(customer, 1);
    const kyc = await bodyOf<Wire>(
      await customer.callJson("POST", `/v1/numbers/${number!.number_id}/KYC/address`, INDIVIDUAL_ADDRESS),
      201,
    );
    await bodyOf<Wire>(await callJson("POST", `/admin/kyc/${kyc.id}/review`, { status: "under_review" }, ADMIN));
    const approved = await bodyOf<Wire>(await callJson("POST", `/admin/kyc/${kyc.id}/review`, { status: "approved" }, ADMIN));
    const expiresAt = Date.parse(String(approved.expires_at));
    // The numbers list finds it by its expiry, and not before it.
    const expiringBefore = async (at: number) =>
      (
        await bodyOf<{ data: Wire[] }>(
          await customer.call(
            `/api/customers/${customer.slug}/numbers?kyc_expires_before=${new Date(at).toISOString().slice(0, 10)}`,
          ),
        )
      ).data.map((n) => n.number_id);
    expect(await expiringBefore(expiresAt + 2 * 86_400_000)).toEqual([number!.number_id]);
    expect(await expiringBefore(expiresAt - 2 * 86_400_000)).toEqual([]);
    const db = createDatabase(env.DB);
    const run = (at: number) =>
      Promise.all([sendExpiryNotices(db, env.WEBHOOK_DELIVERIES, at), sendExpiryNotices(db, env.WEBHOOK_DELIVERIES, at)]);
    await run(expiresAt - 40 * 86_400_000);
    expect(await eventsOf(customer, "kyc.expiring")).toEqual([]);
    await run(expiresAt - 29.5 * 86_400_000);
    await run(expiresAt - 29 * 86_400_000);
    await run(expiresAt - 6.2 * 86_400_000);
    const expiring = await eventsOf(customer, "kyc.expiring");
    expect(expiring.map((e) => (e.data as { days_left: number }).days_left)).toEqual([7, 30]);
    await run(expiresAt + 1);
    await run(expiresAt + 86_400_000);
    expect(await eventsOf(customer, "kyc.expired")).toHaveLength(1);

    // Renewal: an approved verification may be amended from 60 days before it expires (and after), and re-opens.
    vi.useFakeTimers({ now: expiresAt - 61 * 86_400_000, toFake: ["Date"] });
    await problem(
      await customer.callJson("PATCH", `/v1/numbers/${number!.number_id}/KYC/address`, { city: "Oakland" }),
      409,
      "verification_locked",
    );
    vi.setSystemTime(expiresAt - 59 * 86_400_000);
    const renewed = await bodyOf<Wire>(
      await customer.callJson("PATCH", `/v1/numbers/${number!.number_id}/KYC/address`, { city: "Oakland" }),
    );
    expect(renewed).toMatchObject({ status: "pending", expires_at: approved.expires_at });
  });
});
