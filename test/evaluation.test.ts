// Property test of the compliance evaluation (src/compliance/evaluation.ts): random requirement sets and random
// verifications with documents, each answer checked against a plain model of COMPLIANCE.md's rules written here.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type EvaluatedDocument, type EvaluatedVerification, evaluate, type Pair } from "../src/compliance/evaluation.ts";
import {
  type Evaluation,
  type EvaluationCode,
  REQUIREMENT_KEY_PATTERN,
  type RequirementStatus,
} from "../src/compliance/types.ts";
import {
  DOCUMENT_STATUSES,
  DOCUMENT_TYPES,
  type DocumentRequirement,
  KYC_STATUSES,
  KYC_TYPES,
  REQUIREMENT_FIELDS,
  type RequirementField,
  type Requirements,
} from "../src/db/schema.ts";

const DAY = 86_400_000;
const COUNTRIES = ["GB", "US", "DE"] as const;
/** Mid-2026, so generated instants stay well inside the calendar. */
const BASE = Date.UTC(2026, 5, 15);

type Subject = { verification: EvaluatedVerification; documents: EvaluatedDocument[] } | null;

interface ModelReason {
  code: EvaluationCode;
  field?: RequirementField;
  document_id?: string;
}
interface ModelResult {
  requirement: string;
  status: RequirementStatus;
  reasons: ModelReason[];
}

/** The verification's value of each requirable field. */
function fieldValueOf(verification: EvaluatedVerification, field: RequirementField): string | null {
  switch (field) {
    case "company_name":
      return verification.companyName;
    case "tax_id":
      return verification.taxId;
    case "contact_person":
      return verification.contactPerson;
    case "phone_number":
      return verification.phoneNumber;
    case "email":
      return verification.email;
    case "address_line_2":
      return verification.addressLine2;
  }
}

/** COMPLIANCE.md's rules, plainly. */
function model(pair: Pair, requirements: Requirements | null, subject: Subject, now: number) {
  if (requirements === null) return { kyc_required: false, compliant: true, results: [] as ModelResult[] };
  const fieldNames: RequirementField[] = [];
  for (const field of [...requirements.fields.individual, ...requirements.fields.business]) {
    if (!fieldNames.includes(field)) fieldNames.push(field);
  }
  const names = [
    "verification_type",
    "address",
    ...fieldNames.map((f) => `field:${f}`),
    ...requirements.documents.map((d) => `document:${d.key}`),
  ];
  const judged = (requirement: string, reasons: ModelReason[]): ModelResult => ({
    requirement,
    status: reasons.length > 0 ? "unmet" : "met",
    reasons,
  });
  let results: ModelResult[];
  if (subject === null) {
    results = names.map((name) => judged(name, [{ code: "not_submitted" }]));
  } else {
    const { verification: v, documents } = subject;
    const today = new Date(now).toISOString().slice(0, 10);
    const typeReasons: ModelReason[] = [];
    if (!requirements.verification_types.includes(v.type)) typeReasons.push({ code: "verification_type_not_accepted" });
    if (v.status === "approved" && v.expiresAt !== null && v.expiresAt <= now) typeReasons.push({ code: "verification_expired" });
    results = [
      judged("verification_type", typeReasons),
      judged(
        "address",
        requirements.address_in_country && v.country !== pair.countryCode ? [{ code: "address_not_in_country" }] : [],
      ),
    ];
    for (const field of fieldNames) {
      if (!requirements.fields[v.type].includes(field)) {
        results.push({ requirement: `field:${field}`, status: "not_applicable", reasons: [] });
        continue;
      }
      const value = fieldValueOf(v, field);
      const filled = value !== null && value.trim().length > 0;
      results.push(judged(`field:${field}`, filled ? [] : [{ code: "field_missing", field }]));
    }
    for (const requirement of requirements.documents) {
      const name = `document:${requirement.key}`;
      if (!requirement.applies_to.includes(v.type)) {
        results.push({ requirement: name, status: "not_applicable", reasons: [] });
        continue;
      }
      const candidates = documents.filter((d) => requirement.document_types.includes(d.documentType));
      const good = candidates.filter((d) => d.status !== "rejected" && (d.expirationDate === null || d.expirationDate >= today));
      if (good.length > 0) results.push(judged(name, []));
      else if (candidates.length === 0) results.push(judged(name, [{ code: "document_missing" }]));
      else {
        results.push(
          judged(
            name,
            candidates.map((d) => ({
              code: d.status === "rejected" ? "document_rejected" : "document_expired",
              document_id: `doc_${d.id}`,
            })),
          ),
        );
      }
    }
  }
  return { kyc_required: true, compliant: results.every((r) => r.status !== "unmet"), results };
}

/** The evaluation without its words, after checking every reason has some. */
function withoutDetails(evaluation: Evaluation) {
  for (const result of evaluation.results) {
    for (const reason of result.reasons) {
      expect(typeof reason.detail).toBe("string");
      expect(reason.detail.trim().length).toBeGreaterThan(0);
    }
  }
  return {
    ...evaluation,
    results: evaluation.results.map((result) => ({
      ...result,
      reasons: result.reasons.map(({ detail: _detail, ...rest }) => rest),
    })),
  };
}

const documentRequirement: fc.Arbitrary<Omit<DocumentRequirement, "key">> = fc.record({
  document_types: fc.shuffledSubarray([...DOCUMENT_TYPES], { minLength: 1 }),
  applies_to: fc.shuffledSubarray([...KYC_TYPES], { minLength: 1 }),
  description: fc.constantFrom("", "Proof of address", "Company registration"),
});

const requirementsArb: fc.Arbitrary<Requirements | null> = fc.option(
  fc.record({
    verification_types: fc.shuffledSubarray([...KYC_TYPES], { minLength: 1 }),
    address_in_country: fc.boolean(),
    fields: fc.record({
      individual: fc.shuffledSubarray([...REQUIREMENT_FIELDS]),
      business: fc.shuffledSubarray([...REQUIREMENT_FIELDS]),
    }),
    documents: fc
      .tuple(
        fc.uniqueArray(fc.stringMatching(REQUIREMENT_KEY_PATTERN), { maxLength: 4 }),
        fc.array(documentRequirement, { minLength: 4, maxLength: 4 }),
      )
      .map(([keys, bodies]) => keys.map((key, i) => ({ key, ...bodies[i]! }))),
  }),
  { freq: 5 },
);

/** Missing (null, empty, blank) or filled, filled more often so that some subjects comply. */
const fieldValue = fc.oneof(
  { weight: 1, arbitrary: fc.constantFrom(null, "", "  ") },
  { weight: 2, arbitrary: fc.constant("Acme Ltd") },
);

/** A subject with its times as offsets from `now`: expires_at in milliseconds, expiration dates in days. */
const subjectArb = fc.option(
  fc.record({
    verification: fc.record({
      type: fc.constantFrom(...KYC_TYPES),
      status: fc.constantFrom(...KYC_STATUSES),
      country: fc.constantFrom(...COUNTRIES),
      expiresIn: fc.option(fc.oneof(fc.constant(0), fc.constantFrom(-1, 1), fc.integer({ min: -3 * DAY, max: 3 * DAY }))),
      addressLine2: fieldValue,
      companyName: fieldValue,
      taxId: fieldValue,
      contactPerson: fieldValue,
      phoneNumber: fieldValue,
      email: fieldValue,
    }),
    documents: fc.array(
      fc.record({
        id: fc.uuid(),
        filename: fc.string({ minLength: 1, maxLength: 20 }),
        documentType: fc.constantFrom(...DOCUMENT_TYPES),
        status: fc.constantFrom(...DOCUMENT_STATUSES),
        expiresInDays: fc.option(fc.integer({ min: -2, max: 2 })),
      }),
      { maxLength: 5 },
    ),
  }),
  { freq: 5 },
);

type SubjectSpec = NonNullable<typeof subjectArb extends fc.Arbitrary<infer T> ? T : never>;

function dateIn(now: number, days: number): string {
  return new Date(now + days * DAY).toISOString().slice(0, 10);
}

/** The generated subject with its offsets turned into times around `now`. */
function subjectAt(now: number, generated: SubjectSpec | null): Subject {
  if (generated === null) return null;
  const { expiresIn, ...verification } = generated.verification;
  return {
    verification: { ...verification, expiresAt: expiresIn === null ? null : now + expiresIn },
    documents: generated.documents.map(({ expiresInDays, ...document }) => ({
      ...document,
      expirationDate: expiresInDays === null ? null : dateIn(now, expiresInDays),
    })),
  };
}

describe("evaluate", () => {
  it("follows the rules for random requirements and subjects", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...COUNTRIES),
        fc.constantFrom("mobile", "local"),
        requirementsArb,
        subjectArb,
        // Any instant of three days, the start and end of a day among them.
        fc.oneof(fc.integer({ min: 0, max: 3 * DAY - 1 }), fc.constantFrom(0, DAY - 1, DAY, 2 * DAY - 1)),
        (countryCode, numberType, requirements, generated, offset) => {
          const now = BASE + offset;
          const pair = { countryCode, numberType };
          const subject = subjectAt(now, generated);
          for (const document of requirements?.documents ?? []) expect(document.key).toMatch(REQUIREMENT_KEY_PATTERN);
          const evaluation = evaluate(pair, requirements, subject, now);
          const expected = model(pair, requirements, subject, now);
          expect(withoutDetails(evaluation)).toStrictEqual({ country_code: countryCode, number_type: numberType, ...expected });
          for (const result of evaluation.results) {
            if (result.status === "unmet") expect(result.reasons.length).toBeGreaterThan(0);
            else expect(result.reasons).toEqual([]);
          }
          expect(evaluation.compliant).toBe(evaluation.results.every((r) => r.status !== "unmet"));
        },
      ),
      { numRuns: 300 },
    );
  });

  const now = Date.UTC(2026, 0, 15, 10, 30);
  const today = "2026-01-15";
  const pair = { countryCode: "GB", numberType: "mobile" };
  const requirements: Requirements = {
    verification_types: ["business"],
    address_in_country: true,
    fields: { individual: [], business: ["company_name"] },
    documents: [
      {
        key: "proof",
        document_types: ["address_proof", "utility_bill"],
        applies_to: ["individual", "business"],
        description: "",
      },
    ],
  };
  const verification: EvaluatedVerification = {
    type: "business",
    status: "approved",
    country: "GB",
    expiresAt: now + DAY,
    addressLine2: null,
    companyName: "Acme Ltd",
    taxId: null,
    contactPerson: null,
    phoneNumber: null,
    email: null,
  };
  const document = (id: string, changes: Partial<EvaluatedDocument> = {}): EvaluatedDocument => ({
    id,
    filename: `${id}.pdf`,
    documentType: "address_proof",
    status: "verified",
    expirationDate: null,
    ...changes,
  });
  const resultOf = (evaluation: Evaluation, requirement: string) => evaluation.results.find((r) => r.requirement === requirement);

  it("meets a document requirement with a document expiring today", () => {
    const evaluation = evaluate(pair, requirements, { verification, documents: [document("a", { expirationDate: today })] }, now);
    expect(resultOf(evaluation, "document:proof")).toEqual({ requirement: "document:proof", status: "met", reasons: [] });
    expect(evaluation.compliant).toBe(true);
  });

  it("calls a document expired the day after its expiration date", () => {
    const evaluation = evaluate(
      pair,
      requirements,
      { verification, documents: [document("a", { expirationDate: "2026-01-14" })] },
      now,
    );
    expect(resultOf(evaluation, "document:proof")?.reasons).toEqual([
      { code: "document_expired", document_id: "doc_a", detail: expect.stringContaining("2026-01-14") },
    ]);
  });

  it("calls a verification expired at its expires_at instant", () => {
    const evaluation = evaluate(pair, requirements, { verification: { ...verification, expiresAt: now }, documents: [] }, now);
    expect(resultOf(evaluation, "verification_type")?.status).toBe("unmet");
    expect(resultOf(evaluation, "verification_type")?.reasons.map((r) => r.code)).toEqual(["verification_expired"]);
    expect(evaluation.compliant).toBe(false);
  });

  it("gives an approved, expired verification of a type not accepted both reasons", () => {
    const expired = { ...verification, type: "individual" as const, expiresAt: now - DAY };
    const evaluation = evaluate(pair, requirements, { verification: expired, documents: [] }, now);
    const reasons = resultOf(evaluation, "verification_type")?.reasons ?? [];
    expect(reasons.map((r) => r.code)).toEqual(["verification_type_not_accepted", "verification_expired"]);
    expect(reasons[0]?.detail).toContain("business");
    expect(reasons[1]?.detail).toContain("2026-01-14");
  });

  it("meets a document requirement with a valid document beside a rejected one", () => {
    const documents = [
      document("a", { status: "rejected" }),
      document("b", { documentType: "utility_bill", status: "uploaded" }),
    ];
    const evaluation = evaluate(pair, requirements, { verification, documents }, now);
    expect(resultOf(evaluation, "document:proof")).toEqual({ requirement: "document:proof", status: "met", reasons: [] });
  });

  it("names each rejected document when none is valid, and the field that is missing", () => {
    const documents = [document("a", { status: "rejected" }), document("c", { documentType: "identity" })];
    const evaluation = evaluate(pair, requirements, { verification: { ...verification, companyName: "  " }, documents }, now);
    expect(resultOf(evaluation, "document:proof")?.reasons).toStrictEqual([
      { code: "document_rejected", document_id: "doc_a", detail: "The document “a.pdf” was rejected; upload a replacement" },
    ]);
    expect(resultOf(evaluation, "field:company_name")?.reasons).toStrictEqual([
      { code: "field_missing", field: "company_name", detail: "Add the company name" },
    ]);
  });

  it("finds a pair without requirements compliant with no results", () => {
    expect(evaluate(pair, null, null, now)).toStrictEqual({
      country_code: "GB",
      number_type: "mobile",
      kyc_required: false,
      compliant: true,
      results: [],
    });
  });
});
