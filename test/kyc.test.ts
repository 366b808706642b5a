// Number verification: address submit and update with every field rule and state rule, reading, the operator's review.
import type { InferRequestType } from "hono/client";
import { describe, expect, it } from "vitest";
import { TEST_ADMIN_TOKEN } from "./constants.ts";
import { createdDocument, pdf, uploadFile } from "./files.ts";
import {
  allocateNumbers,
  anonymous,
  callJson,
  createCustomer,
  INDIVIDUAL_ADDRESS,
  json,
  operator,
  problem,
  type TestCustomer,
  withLogs,
} from "./helpers.ts";

type Verification = TestCustomer["api"]["v1"]["numbers"][":number_id"]["KYC"];
type SubmitAddress = InferRequestType<Verification["address"]["$post"]>["json"];
type UpdateAddress = InferRequestType<Verification["address"]["$patch"]>["json"];
type Review = InferRequestType<(typeof operator)["admin"]["kyc"][":kyc_id"]["review"]["$post"]>["json"];

const individual = INDIVIDUAL_ADDRESS;
const business = {
  ...individual,
  verification_type: "business",
  company_name: "Acme Telecom Inc.",
  tax_id: "12-3456789",
  contact_person: "Ada Lovelace",
  phone_number: "+14155550123",
  email: "kyc@acme.example",
  address_line_2: "Suite 300",
} satisfies SubmitAddress;

const kycPath = (numberId: string) => `/v1/numbers/num_${numberId}/KYC`;

/** The verification routes of a number, as `customer` reaches them; the id goes in as given. */
const verificationOf = (customer: TestCustomer) => customer.api.v1.numbers[":number_id"].KYC;

function getVerification(customer: TestCustomer, numberId: string) {
  return verificationOf(customer).$get({ param: { number_id: numberId } });
}

function submitAddress(customer: TestCustomer, numberId: string, body: SubmitAddress) {
  return verificationOf(customer).address.$post({ param: { number_id: numberId }, json: body });
}

function updateAddress(customer: TestCustomer, numberId: string, body: UpdateAddress) {
  return verificationOf(customer).address.$patch({ param: { number_id: numberId }, json: body });
}

async function customerWithNumber(): Promise<{ customer: TestCustomer; numberId: string }> {
  const customer = await createCustomer();
  const [number] = await allocateNumbers(customer);
  if (!number) throw new Error("no number allocated");
  return { customer, numberId: number.number_id };
}

async function submitted(body: SubmitAddress = individual) {
  const { customer, numberId } = await customerWithNumber();
  const verification = await json(await submitAddress(customer, `num_${numberId}`, body), 201);
  return { customer, numberId, verification };
}

const review = (kycId: string, body: Review) =>
  operator.admin.kyc[":kyc_id"].review.$post({ param: { kyc_id: kycId }, json: body });
/** A review body the types refuse (a status no review moves to), sent raw with the operator's token. */
const reviewRaw = (kycId: string, body: unknown) =>
  callJson("POST", `/admin/kyc/${kycId}/review`, body, { Authorization: `Bearer ${TEST_ADMIN_TOKEN}` });

async function uploadPdf(customer: TestCustomer, numberId: string) {
  return createdDocument(await uploadFile(customer, `num_${numberId}`, pdf(), "proof.pdf", { document_type: "address_proof" }));
}

describe("submit address", () => {
  it("answers 201 with a pending verification, no documents, type from verification_type", async () => {
    const { customer, numberId } = await customerWithNumber();
    const response = await submitAddress(customer, `num_${numberId}`, business);
    expect(response.headers.get("Location")).toBe(kycPath(numberId));
    const body = await json(response, 201);
    expect(body).toEqual({
      id: expect.stringMatching(/^kyc_[0-9a-f-]{36}$/),
      number_id: `num_${numberId}`,
      profile_id: null,
      status: "pending",
      type: "business",
      address: {
        address_line_1: "1 Market St",
        address_line_2: "Suite 300",
        city: "San Francisco",
        state_province: "CA",
        postal_code: "94105",
        country: "US",
      },
      company_name: "Acme Telecom Inc.",
      tax_id: "12-3456789",
      contact_person: "Ada Lovelace",
      phone_number: "+14155550123",
      email: "kyc@acme.example",
      documents: [],
      submitted_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      updated_at: null,
      reviewed_at: null,
      rejection_reason: null,
      rejection_reasons: [],
      expires_at: null,
    });
    expect(await json(await getVerification(customer, `num_${numberId}`), 200)).toEqual(body);
  });

  it("takes the number id as num_<uuid> or bare, and answers a malformed one with 400", async () => {
    const { customer, numberId } = await customerWithNumber();
    await json(await submitAddress(customer, numberId, individual), 201);
    await json(await getVerification(customer, numberId), 200);
    for (const bad of ["num_123", "123", `doc_${numberId}`, `num_${numberId}x`]) {
      const body = await problem(await getVerification(customer, bad), 400, "validation_error");
      expect(body.errors).toEqual([
        { location: "path", pointer: "number_id", message: "must be a num_<uuid> identifier or a UUID" },
      ]);
    }
  });

  it("requires company_name for business verification", async () => {
    const { customer, numberId } = await customerWithNumber();
    const body = await problem(
      await submitAddress(customer, `num_${numberId}`, { ...individual, verification_type: "business" }),
      400,
      "validation_error",
    );
    expect(body.errors).toEqual([
      { location: "body", pointer: "/company_name", message: "is required for business verification" },
    ]);
  });

  it("reports a missing company_name together with the other bad fields", async () => {
    const { customer, numberId } = await customerWithNumber();
    const body = await problem(
      await submitAddress(customer, `num_${numberId}`, { ...individual, verification_type: "business", city: "" }),
      400,
      "validation_error",
    );
    expect(body.errors?.map((e) => e.pointer).sort()).toEqual(["/city", "/company_name"]);
  });

  it("names every invalid field at once", async () => {
    const { customer, numberId } = await customerWithNumber();
    const body = await problem(
      await customer.callJson("POST", `${kycPath(numberId)}/address`, {
        address_line_1: "x".repeat(201),
        state_province: "",
        postal_code: 94105,
        country: "usa",
        verification_type: "company",
        email: "not-an-email",
        phone_number: "415-555-0123",
        nickname: "unknown field",
      }),
      400,
      "validation_error",
    );
    expect(body.errors?.map((e) => e.pointer).sort()).toEqual([
      "/address_line_1",
      "/city",
      "/country",
      "/email",
      "/nickname",
      "/phone_number",
      "/postal_code",
      "/state_province",
      "/verification_type",
    ]);
  });

  it("takes as the address's country only one ISO 3166-1 assigns, on submission and amendment", async () => {
    const { customer, numberId } = await customerWithNumber();
    const path = `${kycPath(numberId)}/address`;
    const unassigned = [
      { location: "body", pointer: "/country", message: "must be a country code that ISO 3166-1 assigns, such as US or GB" },
    ];
    for (const country of ["XX", "ZZ", "AA"]) {
      const body = await problem(await customer.callJson("POST", path, { ...individual, country }), 400, "validation_error");
      expect(body.errors, country).toEqual(unassigned);
    }
    await json(await submitAddress(customer, `num_${numberId}`, { ...individual, country: "DE" }), 201);
    const amended = await problem(await customer.callJson("PATCH", path, { country: "XX" }), 400, "validation_error");
    expect(amended.errors).toEqual(unassigned);
  });

  it("answers a second submission with 409 kyc_exists", async () => {
    const { customer, numberId } = await submitted();
    await problem(await submitAddress(customer, `num_${numberId}`, individual), 409, "kyc_exists");
  });

  it("answers 404 for an unknown number and for another account's number, on every verification route", async () => {
    const { customer: owner, numberId } = await submitted();
    const stranger = await createCustomer();
    for (const id of [`num_${numberId}`, `num_${crypto.randomUUID()}`]) {
      await problem(await submitAddress(stranger, id, individual), 404, "not_found");
      await problem(await updateAddress(stranger, id, { city: "Oakland" }), 404, "not_found");
      await problem(await getVerification(stranger, id), 404, "not_found");
      await problem(await uploadFile(stranger, id, pdf(), "a.pdf", { document_type: "other" }), 404, "not_found");
    }
    const untouched = await json(await getVerification(owner, `num_${numberId}`), 200);
    expect(untouched.address.city).toBe("San Francisco");
  });

  it("answers GET and PATCH on a number without verification with 404, and an upload with 409 kyc_not_submitted", async () => {
    const { customer, numberId } = await customerWithNumber();
    await problem(await getVerification(customer, `num_${numberId}`), 404, "not_found");
    await problem(await updateAddress(customer, `num_${numberId}`, { city: "Oakland" }), 404, "not_found");
    const upload = await uploadFile(customer, `num_${numberId}`, pdf(), "a.pdf", { document_type: "other" });
    await problem(upload, 409, "kyc_not_submitted");
  });

  it("needs an API key", async () => {
    const { numberId } = await customerWithNumber();
    await problem(
      await anonymous.v1.numbers[":number_id"].KYC.$get({ param: { number_id: `num_${numberId}` } }),
      401,
      "unauthorized",
    );
  });
});

describe("update address", () => {
  it("changes the supplied fields, sets updated_at, keeps documents", async () => {
    const { customer, numberId, verification } = await submitted(business);
    await uploadPdf(customer, numberId);
    const updated = await json(
      await updateAddress(customer, `num_${numberId}`, { city: "Oakland", address_line_2: null, tax_id: "98-7654321" }),
      200,
    );
    expect(updated).toMatchObject({
      id: verification.id,
      status: "pending",
      type: "business",
      address: { ...verification.address, city: "Oakland", address_line_2: null },
      tax_id: "98-7654321",
      company_name: "Acme Telecom Inc.",
    });
    expect(updated.updated_at).toMatch(/Z$/);
    expect(updated.documents).toHaveLength(1);
    expect(updated.expires_at).toBeNull();
  });

  it("refuses verification_type, unknown fields and an empty body", async () => {
    const { customer, numberId } = await submitted();
    const path = `${kycPath(numberId)}/address`;
    await problem(await customer.callJson("PATCH", path, { verification_type: "business" }), 400, "validation_error");
    await problem(await customer.callJson("PATCH", path, { colour: "blue" }), 400, "validation_error");
    await problem(await updateAddress(customer, `num_${numberId}`, {}), 400, "validation_error");
    await problem(await updateAddress(customer, `num_${numberId}`, { country: "U" }), 400, "validation_error");
    await problem(await customer.callJson("PATCH", path, { company_name: null }), 400, "validation_error");
  });

  it("is locked while under review and once approved (409 verification_locked), nothing changed, no row written", async () => {
    const { customer, numberId, verification } = await submitted();
    await uploadPdf(customer, numberId);
    await json(await review(verification.id, { status: "under_review" }), 200);
    const { result, lines } = await withLogs(() => updateAddress(customer, `num_${numberId}`, { city: "Oakland" }));
    await problem(result, 409, "verification_locked");
    // Not even the documents' statuses are written again with the values they have.
    expect(lines.find((line) => line.method === "PATCH")).toMatchObject({ status: 409, d1_rows_written: 0 });
    await json(await review(verification.id, { status: "approved" }), 200);
    await problem(await updateAddress(customer, `num_${numberId}`, { city: "Oakland" }), 409, "verification_locked");
    expect((await json(await getVerification(customer, `num_${numberId}`), 200)).address.city).toBe("San Francisco");
  });

  it("re-opens a rejected verification: pending, reason and review time cleared, documents back to uploaded", async () => {
    const { customer, numberId, verification } = await submitted();
    await uploadPdf(customer, numberId);
    await json(await review(verification.id, { status: "under_review" }), 200);
    const rejected = await json(
      await review(verification.id, { status: "rejected", rejection_reason: "Address does not match the proof" }),
      200,
    );
    expect(rejected).toMatchObject({ status: "rejected", rejection_reason: "Address does not match the proof" });
    expect(rejected.documents[0]?.status).toBe("rejected");

    const reopened = await json(await updateAddress(customer, `num_${numberId}`, { address_line_1: "2 Market St" }), 200);
    expect(reopened).toMatchObject({ status: "pending", rejection_reason: null, reviewed_at: null });
    expect(reopened.documents.map((d) => d.status)).toEqual(["uploaded"]);
  });
});

describe("review", () => {
  it("moves pending → under_review → approved, with documents following and expires_at a year ahead", async () => {
    const { customer, numberId, verification } = await submitted();
    await uploadPdf(customer, numberId);
    const underReview = await json(await review(verification.id, { status: "under_review" }), 200);
    expect(underReview.status).toBe("under_review");
    expect(underReview.reviewed_at).toMatch(/Z$/);
    expect(underReview.documents[0]?.status).toBe("pending_review");
    expect(underReview.expires_at).toBeNull();

    const approved = await json(await review(verification.id.replace("kyc_", ""), { status: "approved" }), 200);
    expect(approved.status).toBe("approved");
    expect(approved.documents[0]?.status).toBe("verified");
    expect(approved.rejection_reason).toBeNull();
    expect(Date.parse(approved.expires_at ?? "") - Date.parse(approved.reviewed_at ?? "")).toBe(365 * 86_400_000);
    expect(await json(await getVerification(customer, `num_${numberId}`), 200)).toEqual(approved);

    const numbers = await json(await customer.account.numbers.$get({ param: { customer_slug: customer.slug }, query: {} }), 200);
    expect(numbers.data[0]?.kyc_status).toBe("approved");
  });

  it("requires a reason to reject, and allows one only then", async () => {
    const { verification } = await submitted();
    await json(await review(verification.id, { status: "under_review" }), 200);
    const missing = await problem(await review(verification.id, { status: "rejected" }), 400, "validation_error");
    expect(missing.errors?.[0]?.pointer).toBe("/rejection_reason");
    await problem(await review(verification.id, { status: "approved", rejection_reason: "no" }), 400, "validation_error");
  });

  it("answers every other move with 409 conflict", async () => {
    const { verification } = await submitted();
    await problem(await review(verification.id, { status: "approved" }), 409, "conflict");
    await problem(await review(verification.id, { status: "rejected", rejection_reason: "x" }), 409, "conflict");
    await json(await review(verification.id, { status: "under_review" }), 200);
    await problem(await review(verification.id, { status: "under_review" }), 409, "conflict");
    await json(await review(verification.id, { status: "approved" }), 200);
    const late: Review[] = [{ status: "under_review" }, { status: "approved" }, { status: "rejected", rejection_reason: "late" }];
    for (const body of late) {
      await problem(await review(verification.id, body), 409, "conflict");
    }
    await problem(await reviewRaw(verification.id, { status: "pending" }), 400, "validation_error");
  });

  it("answers an unknown or malformed verification id with 404 or 400, and customers with 401", async () => {
    await problem(await review(`kyc_${crypto.randomUUID()}`, { status: "under_review" }), 404, "not_found");
    await problem(await review("kyc_nope", { status: "under_review" }), 400, "validation_error");
    const { customer, verification } = await submitted();
    await problem(
      await customer.api.admin.kyc[":kyc_id"].review.$post({
        param: { kyc_id: verification.id },
        json: { status: "under_review" },
      }),
      401,
      "unauthorized",
    );
  });
});
