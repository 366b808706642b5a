// Requirements per orderable pair (COMPLIANCE.md): compliance and admin staff set a pair's whole set or remove it, each
// change with its audit event; bad sets are refused naming the field and change nothing; customers read the orderable
// pairs with their requirements (a list, filtered and paginated, and one pair), and the admin's catalog list shows them.
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { REQUIREMENT_FIELDS } from "../src/db/schema.ts";
import { TEST_ADMIN_TOKEN } from "./constants.ts";
import { bodyOf, call, callJson, createCustomer, makeOrderable, problem, type TestCustomer } from "./helpers.ts";
import { type StaffMember, staffMember } from "./staff.ts";

let viewer: StaffMember;
let fulfilment: StaffMember;
let compliance: StaffMember;
let admin: StaffMember;
let customer: TestCustomer;

beforeAll(async () => {
  [viewer, fulfilment, compliance, admin] = await Promise.all([
    staffMember("viewer"),
    staffMember("fulfilment"),
    staffMember("compliance"),
    staffMember("admin"),
  ]);
  customer = await createCustomer("catalog");
});

/** A number type of its own per test (sorting after `prefix`), so each test's pairs are its own. */
function freshType(prefix = "rq"): string {
  return `${prefix}${crypto.randomUUID().replaceAll("-", "").slice(0, 10)}`;
}

/** A new orderable pair of its own type. */
async function orderablePair(countryCode = "DE"): Promise<{ countryCode: string; numberType: string }> {
  const numberType = freshType();
  await makeOrderable(countryCode, numberType);
  return { countryCode, numberType };
}

type Pair = { countryCode: string; numberType: string };

const FULL = {
  verification_types: ["individual", "business"],
  address_in_country: true,
  fields: { individual: ["phone_number"], business: ["company_name", "tax_id"] },
  documents: [
    {
      key: "identity",
      document_types: ["identity"],
      applies_to: ["individual"],
      description: "A passport or national identity card",
    },
    {
      key: "registration",
      document_types: ["business_registration", "tax_certificate"],
      applies_to: ["business"],
      description: "  An extract from the trade register  ",
    },
  ],
};

/** FULL as it is stored and shown: descriptions trimmed. */
const FULL_SHOWN = {
  ...FULL,
  documents: [FULL.documents[0], { ...FULL.documents[1], description: "An extract from the trade register" }],
};

const SMALL = {
  verification_types: ["business"],
  address_in_country: false,
  fields: { business: ["email"] },
  documents: [],
};

const SMALL_SHOWN = { ...SMALL, fields: { individual: [], business: ["email"] } };

function requirementsPath({ countryCode, numberType }: Pair): string {
  return `/admin/catalog/${countryCode}/${numberType}/requirements`;
}

function putRequirements(pair: Pair, body: unknown, who: { headers: Record<string, string> } = compliance): Promise<Response> {
  return callJson("PUT", requirementsPath(pair), body, who.headers);
}

function deleteRequirements(pair: Pair, who: { headers: Record<string, string> } = compliance): Promise<Response> {
  return call(requirementsPath(pair), { method: "DELETE", headers: who.headers });
}

function customerPair(pair: Pair, slug = customer.slug): string {
  return `/api/customers/${slug}/catalog/${pair.countryCode}/${pair.numberType}`;
}

/** The stored column, as text (null: none; undefined: no row). */
async function storedRequirements(pair: Pair): Promise<string | null | undefined> {
  const row = await env.DB.prepare("SELECT requirements FROM catalog WHERE country_code = ? AND number_type = ?")
    .bind(pair.countryCode, pair.numberType)
    .first<{ requirements: string | null }>();
  return row === null ? undefined : row.requirements;
}

async function auditCount(pair: Pair): Promise<number> {
  return (await env.DB.prepare("SELECT count(*) AS n FROM audit_events WHERE target_type = 'catalog_pair' AND target_id = ?")
    .bind(`${pair.countryCode}/${pair.numberType}`)
    .first<{ n: number }>())!.n;
}

interface AuditEvent {
  actor: { type: string; email?: string };
  action: string;
  target: { type: string; id: string };
  changes: Record<string, [unknown, unknown]>;
}

async function auditEvents(action: string, pair: Pair): Promise<AuditEvent[]> {
  const query = new URLSearchParams({ action, target_id: `${pair.countryCode}/${pair.numberType}`, limit: "100" });
  const body = await bodyOf<{ data: AuditEvent[] }>(
    await call(`/admin/audit-events?${query}`, { headers: { Authorization: `Bearer ${TEST_ADMIN_TOKEN}` } }),
  );
  return body.data;
}

interface Entry {
  country_code: string;
  number_type: string;
  kyc_required: boolean;
  requirements: unknown;
}

interface Page<T> {
  data: T[];
  meta: { total: number; page: number; limit: number; totalPages: number; hasNextPage: boolean; hasPreviousPage: boolean };
}

async function customerList(query: Record<string, string>, who: TestCustomer = customer): Promise<Page<Entry>> {
  return bodyOf(await who.call(`/api/customers/${who.slug}/catalog?${new URLSearchParams(query)}`));
}

/** The pair's item of the admin's catalog list, looked for on every page. */
async function adminListItem(pair: Pair): Promise<Record<string, unknown> | undefined> {
  for (let page = 1; ; page++) {
    const body = await bodyOf<Page<Record<string, unknown>>>(
      await call(`/admin/catalog?page=${page}&limit=100`, { headers: viewer.headers }),
    );
    const found = body.data.find((item) => item.country_code === pair.countryCode && item.number_type === pair.numberType);
    if (found || !body.meta.hasNextPage) return found;
  }
}

/** What a customer's entry shows of a pair never given settings, with no stock. */
const UNSTOCKED_DEFAULTS = { auto_fulfil: false, availability: "none" };

describe("setting requirements", () => {
  it("round-trips: the PUT's answer, the customer's pair and list, and the admin's list all show the set", async () => {
    const pair = await orderablePair();
    const expected = {
      country_code: pair.countryCode,
      number_type: pair.numberType,
      kyc_required: true,
      requirements: FULL_SHOWN,
    };
    expect(await bodyOf(await putRequirements(pair, FULL))).toEqual(expected);
    expect(JSON.parse((await storedRequirements(pair))!)).toEqual(FULL_SHOWN);

    // The customer's entry adds the pair's settings and stock (none here); the admin's its settings.
    const customerEntry = { ...expected, ...UNSTOCKED_DEFAULTS };
    expect(await bodyOf(await customer.call(customerPair(pair)))).toEqual(customerEntry);
    const list = await customerList({ number_type: pair.numberType });
    expect(list.data).toEqual([customerEntry]);
    expect(list.meta.total).toBe(1);

    expect(await adminListItem(pair)).toEqual({
      ...expected,
      quarantine_days: 90,
      auto_fulfil: false,
      created_at: expect.any(String),
    });
  });

  it("shows a pair without requirements as kyc_required false, requirements null", async () => {
    const pair = await orderablePair();
    const expected = {
      country_code: pair.countryCode,
      number_type: pair.numberType,
      kyc_required: false,
      requirements: null,
      ...UNSTOCKED_DEFAULTS,
    };
    expect(await bodyOf(await customer.call(customerPair(pair)))).toEqual(expected);
    expect((await customerList({ number_type: pair.numberType })).data).toEqual([expected]);
    expect(await adminListItem(pair)).toMatchObject({ kyc_required: false, requirements: null });
  });

  it("replaces the whole set with a PUT; field lists left out are empty", async () => {
    const pair = await orderablePair();
    await bodyOf(await putRequirements(pair, FULL));
    const replaced = await bodyOf<Entry>(await putRequirements(pair, SMALL));
    expect(replaced.requirements).toEqual(SMALL_SHOWN);
    expect((await bodyOf<Entry>(await customer.call(customerPair(pair)))).requirements).toEqual(SMALL_SHOWN);

    const noFields = { ...SMALL, fields: {} };
    expect((await bodyOf<Entry>(await putRequirements(pair, noFields))).requirements).toEqual({
      ...SMALL,
      fields: { individual: [], business: [] },
    });
  });

  it("requires of either type any field a submission takes: a person's tax id, company and contact too", async () => {
    const pair = await orderablePair();
    // Some countries ask a person's tax id; a person's submission takes it (src/kyc/schemas.ts).
    const fields = { individual: [...REQUIREMENT_FIELDS], business: [...REQUIREMENT_FIELDS] };
    const set = await bodyOf<Entry>(await putRequirements(pair, { ...SMALL, fields }));
    expect(set.requirements).toMatchObject({ fields });
  });

  it("removes them with DELETE: kyc_required false, requirements null; removing none is 200 and records nothing", async () => {
    const pair = await orderablePair();
    await bodyOf(await putRequirements(pair, FULL));
    const removed = { country_code: pair.countryCode, number_type: pair.numberType, kyc_required: false, requirements: null };
    expect(await bodyOf(await deleteRequirements(pair))).toEqual(removed);
    expect(await storedRequirements(pair)).toBeNull();
    expect(await bodyOf(await customer.call(customerPair(pair)))).toEqual({ ...removed, ...UNSTOCKED_DEFAULTS });

    const events = await auditCount(pair);
    expect(await bodyOf(await deleteRequirements(pair))).toEqual(removed);
    expect(await auditCount(pair)).toBe(events);
  });

  it("records who set what, before and after, and nothing for an unchanged set", async () => {
    const pair = await orderablePair();
    await bodyOf(await putRequirements(pair, FULL, compliance));
    await bodyOf(await putRequirements(pair, FULL, compliance));
    await bodyOf(await putRequirements(pair, SMALL, admin));
    await bodyOf(await deleteRequirements(pair, admin));

    // Newest first: the removal, then the two sets that changed something.
    const [removal, ...set] = await auditEvents("requirements.changed", pair);
    expect(set).toHaveLength(2);
    expect(set[1]).toMatchObject({
      actor: { type: "staff", email: compliance.email },
      action: "requirements.changed",
      target: { type: "catalog_pair", id: `${pair.countryCode}/${pair.numberType}` },
      changes: { requirements: [null, FULL_SHOWN] },
    });
    expect(set[0]).toMatchObject({
      actor: { type: "staff", email: admin.email },
      changes: { requirements: [FULL_SHOWN, SMALL_SHOWN] },
    });
    expect(removal).toMatchObject({
      actor: { type: "staff", email: admin.email },
      changes: { requirements: [SMALL_SHOWN, null] },
    });
  });
});

describe("a bad set", () => {
  const document = FULL.documents[0]!;
  const cases: [string, unknown, string][] = [
    ["an unknown top-level key", { ...FULL, extra: true }, "/extra"],
    ["an unknown key in fields", { ...FULL, fields: { ...FULL.fields, other: [] } }, "/fields/other"],
    ["an unknown key in a document", { ...FULL, documents: [{ ...document, extra: 1 }] }, "/documents/0/extra"],
    [
      "an unknown document type",
      { ...FULL, documents: [{ ...document, document_types: ["identity", "passport"] }] },
      "/documents/0/document_types/1",
    ],
    ["a key off the pattern", { ...FULL, documents: [{ ...document, key: "Proof-Of-Id" }] }, "/documents/0/key"],
    ["a key too long", { ...FULL, documents: [{ ...document, key: `k${"x".repeat(40)}` }] }, "/documents/0/key"],
    [
      "a key twice",
      { ...FULL, documents: [document, FULL.documents[1], { ...document, document_types: ["other"] }] },
      "/documents/2/key",
    ],
    ["a field twice", { ...FULL, fields: { business: ["tax_id", "email", "tax_id"] } }, "/fields/business/2"],
    ["a field that is none", { ...FULL, fields: { individual: ["shoe_size"] } }, "/fields/individual/0"],
    ["no verification type", { ...FULL, verification_types: [] }, "/verification_types"],
    ["a verification type twice", { ...FULL, verification_types: ["business", "business"] }, "/verification_types/1"],
    ["an unknown verification type", { ...FULL, verification_types: ["robot"] }, "/verification_types/0"],
    ["a document applying to nobody", { ...FULL, documents: [{ ...document, applies_to: [] }] }, "/documents/0/applies_to"],
    ["a document of no type", { ...FULL, documents: [{ ...document, document_types: [] }] }, "/documents/0/document_types"],
    [
      "a description too long",
      { ...FULL, documents: [{ ...document, description: "x".repeat(501) }] },
      "/documents/0/description",
    ],
    ["a blank description", { ...FULL, documents: [{ ...document, description: "   " }] }, "/documents/0/description"],
    [
      "a description of two lines",
      { ...FULL, documents: [{ ...document, description: "one\ntwo" }] },
      "/documents/0/description",
    ],
    [
      "more than 20 documents",
      { ...FULL, documents: Array.from({ length: 21 }, (_, i) => ({ ...document, key: `doc_${i}` })) },
      "/documents",
    ],
    ["no address_in_country", { ...FULL, address_in_country: undefined }, "/address_in_country"],
    ["address_in_country not a boolean", { ...FULL, address_in_country: "yes" }, "/address_in_country"],
  ];

  it.each(cases)("is refused (400) naming the field, and changes nothing: %s", async (_, body, pointer) => {
    const pair = await orderablePair();
    await bodyOf(await putRequirements(pair, SMALL));
    const [before, events] = [await storedRequirements(pair), await auditCount(pair)];

    const refused = await problem(await putRequirements(pair, body), 400, "validation_error");
    expect(refused.errors?.map((error) => error.pointer)).toContain(pointer);
    expect(refused.errors?.every((error) => error.location === "body")).toBe(true);

    expect(await storedRequirements(pair)).toBe(before);
    expect(await auditCount(pair)).toBe(events);
  });
});

describe("a pair that is not orderable", () => {
  it("is 404 for PUT, DELETE and the customer's read, and nothing is written", async () => {
    const pair = { countryCode: "DE", numberType: freshType() };
    await problem(await putRequirements(pair, FULL), 404, "not_found");
    await problem(await deleteRequirements(pair), 404, "not_found");
    await problem(await customer.call(customerPair(pair)), 404, "not_found");
    expect(await storedRequirements(pair)).toBeUndefined();
    expect(await auditCount(pair)).toBe(0);
  });

  it("is 404 once removed from the catalog, requirements and all", async () => {
    const pair = await orderablePair();
    await bodyOf(await putRequirements(pair, FULL));
    await bodyOf(
      await call(`/admin/catalog/${pair.countryCode}/${pair.numberType}`, { method: "DELETE", headers: admin.headers }),
    );
    await problem(await customer.call(customerPair(pair)), 404, "not_found");
    await problem(await putRequirements(pair, FULL), 404, "not_found");
  });
});

describe("who may change requirements", () => {
  it("refuses viewer and fulfilment staff (403), changing nothing", async () => {
    const pair = await orderablePair();
    await bodyOf(await putRequirements(pair, SMALL));
    const [before, events] = [await storedRequirements(pair), await auditCount(pair)];
    for (const who of [viewer, fulfilment]) {
      await problem(await putRequirements(pair, FULL, who), 403, "forbidden");
      await problem(await deleteRequirements(pair, who), 403, "forbidden");
    }
    expect(await storedRequirements(pair)).toBe(before);
    expect(await auditCount(pair)).toBe(events);
  });

  it("lets compliance and admin staff set and remove them", async () => {
    for (const who of [compliance, admin]) {
      const pair = await orderablePair();
      expect((await bodyOf<Entry>(await putRequirements(pair, FULL, who))).kyc_required).toBe(true);
      expect((await bodyOf<Entry>(await deleteRequirements(pair, who))).kyc_required).toBe(false);
    }
  });

  it("refuses a customer's API key on the operator's routes", async () => {
    const pair = await orderablePair();
    await problem(await customer.callJson("PUT", requirementsPath(pair), FULL), 401, "unauthorized");
    expect(await storedRequirements(pair)).toBeNull();
  });
});

describe("the customer's catalog", () => {
  it("filters by country_code and number_type (comma lists), sorted by country then type, page by page", async () => {
    const prefix = freshType("cf");
    const [a, b] = [`${prefix}a`, `${prefix}b`];
    for (const [countryCode, numberType] of [
      ["FR", a],
      ["DE", b],
      ["AT", b],
      ["DE", a],
    ] as const) {
      await makeOrderable(countryCode, numberType);
    }
    await bodyOf(await putRequirements({ countryCode: "DE", numberType: b }, SMALL));
    const names = (page: Page<Entry>) => page.data.map((entry) => `${entry.country_code}/${entry.number_type}`);

    const both = await customerList({ number_type: `${b},${a}` });
    expect(names(both)).toEqual([`AT/${b}`, `DE/${a}`, `DE/${b}`, `FR/${a}`]);
    expect(both.data[2]).toMatchObject({ kyc_required: true, requirements: SMALL_SHOWN });
    expect(both.data.filter((entry) => entry.kyc_required)).toHaveLength(1);

    expect(names(await customerList({ number_type: `${a},${b}`, country_code: "DE" }))).toEqual([`DE/${a}`, `DE/${b}`]);
    expect(names(await customerList({ number_type: a, country_code: "FR,AT" }))).toEqual([`FR/${a}`]);

    const first = await customerList({ number_type: `${a},${b}`, limit: "3" });
    expect(names(first)).toEqual([`AT/${b}`, `DE/${a}`, `DE/${b}`]);
    expect(first.meta).toEqual({ total: 4, page: 1, limit: 3, totalPages: 2, hasNextPage: true, hasPreviousPage: false });
    const second = await customerList({ number_type: `${a},${b}`, limit: "3", page: "2" });
    expect(names(second)).toEqual([`FR/${a}`]);
    expect(second.meta).toMatchObject({ total: 4, page: 2, hasNextPage: false, hasPreviousPage: true });
  });

  it("refuses a bad filter or page (400, naming it)", async () => {
    for (const [query, pointer] of [
      ["country_code=de", "country_code"],
      ["number_type=", "number_type"],
      ["limit=0", "limit"],
      ["page=x", "page"],
    ]) {
      const refused = await problem(
        await customer.call(`/api/customers/${customer.slug}/catalog?${query}`),
        400,
        "validation_error",
      );
      expect(
        refused.errors?.map((error) => error.pointer),
        query,
      ).toContain(pointer);
    }
    const badPair = await problem(
      await customer.call(`/api/customers/${customer.slug}/catalog/de/mobile`),
      400,
      "validation_error",
    );
    expect(badPair.errors?.map((error) => error.pointer)).toContain("country_code");
  });

  it("is read only with the account's own key and slug: another account's key is 404, none is 401", async () => {
    const pair = await orderablePair();
    const other = await createCustomer("catalog-other");
    await problem(await other.call(`/api/customers/${customer.slug}/catalog`), 404, "not_found");
    await problem(await other.call(customerPair(pair, customer.slug)), 404, "not_found");
    await problem(await call(`/api/customers/${customer.slug}/catalog`), 401, "unauthorized");
    expect((await bodyOf<Entry>(await other.call(customerPair(pair, other.slug)))).number_type).toBe(pair.numberType);
  });
});
