// The console's forms and pages (OPERATOR.md, "The console"; docs/console.md) through HTTP, as a browser sends them:
// each form runs an operator API operation and takes its roles, which a walk holds against OPERATOR.md's matrix
// written by hand (test/role-matrix.ts) by posting every form, and opening every guarded page, as every role: a
// refused role gets the 403 page and nothing changes, no audit event included. Then the pages of the staff's day: the
// review page's evidence before its decision, a document opened only when asked for, an approval without documents
// asked first; the requirements form judged by the API's schema with its errors beside the fields; opening an account;
// the home page's counts; invited people counted as invited.
import { env } from "cloudflare:workers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../src/app.ts";
import { createDatabase } from "../src/db/client.ts";
import { pageWindow } from "../src/db/paging.ts";
import { type StaffRole, VERIFICATION_FIELDS } from "../src/db/schema.ts";
import { teamListQuery, toTeamListQuery } from "../src/users/schemas.ts";
import { teamListStatements } from "../src/users/store.ts";
import { type Console, inConsole } from "./console.ts";
import { TEST_ADMIN_TOKEN } from "./constants.ts";
import { png } from "./files.ts";
import {
  allocateNumbers,
  bodyOf,
  call,
  callJson,
  createCustomer,
  INDIVIDUAL_ADDRESS,
  makeOrderable,
  type TestCustomer,
  uniqueNumberType,
  uniquePhoneNumber,
} from "./helpers.ts";
import { invitedUser, PASSWORD, pageText, postForm, signedIn } from "./portal.ts";
import { ROLE_MATRIX } from "./role-matrix.ts";
import { installWriteCounter, removeWriteCounter, storageFingerprint } from "./write-counter.ts";

const ADMIN_TOKEN = { Authorization: `Bearer ${TEST_ADMIN_TOKEN}` };
const ROLES: StaffRole[] = ["viewer", "fulfilment", "compliance", "admin"];

/** The audit events a person wrote, newest first. */
async function auditOf(email: string): Promise<{ action: string; target: { id: string } }[]> {
  const body = await bodyOf<{ data: { action: string; target: { id: string } }[] }>(
    await call(`/admin/audit-events?actor=${encodeURIComponent(email)}&limit=100`, { headers: ADMIN_TOKEN }),
  );
  return body.data;
}

/** Every console form (its POST) and every page that only some roles may open, with the change it is. */
const GUARDED: { method: "GET" | "POST"; path: string; change: string }[] = [
  { method: "POST", path: "/ops/orders/:order_id/numbers", change: "allocateNumbers" },
  { method: "POST", path: "/ops/orders/:order_id/status", change: "changeOrderStatus" },
  { method: "GET", path: "/ops/orders/:order_id/cancel", change: "changeOrderStatus" },
  { method: "POST", path: "/ops/orders/:order_id/cancel", change: "changeOrderStatus" },
  { method: "POST", path: "/ops/reviews/kyc/:kyc_id/review", change: "reviewKycVerification" },
  { method: "GET", path: "/ops/reviews/kyc/:kyc_id/approve", change: "reviewKycVerification" },
  { method: "POST", path: "/ops/reviews/kyc/:kyc_id/approve", change: "reviewKycVerification" },
  { method: "POST", path: "/ops/reviews/profiles/:profile_id/review", change: "reviewKycProfile" },
  { method: "GET", path: "/ops/reviews/profiles/:profile_id/approve", change: "reviewKycProfile" },
  { method: "POST", path: "/ops/reviews/profiles/:profile_id/approve", change: "reviewKycProfile" },
  { method: "GET", path: "/ops/documents/:document_id", change: "downloadAnyKycDocument" },
  { method: "POST", path: "/ops/stock/import", change: "importStock" },
  { method: "GET", path: "/ops/stock/remove", change: "removeStockNumber" },
  { method: "POST", path: "/ops/stock/remove", change: "removeStockNumber" },
  { method: "POST", path: "/ops/catalog/pairs", change: "addCatalogPair" },
  { method: "GET", path: "/ops/catalog/:country_code/:number_type/remove", change: "removeCatalogPair" },
  { method: "POST", path: "/ops/catalog/:country_code/:number_type/remove", change: "removeCatalogPair" },
  { method: "POST", path: "/ops/catalog/:country_code/:number_type/settings", change: "addCatalogPair" },
  { method: "POST", path: "/ops/catalog/:country_code/:number_type/requirements", change: "setCatalogRequirements" },
  { method: "POST", path: "/ops/catalog/:country_code/:number_type/requirements/remove", change: "removeCatalogRequirements" },
  { method: "POST", path: "/ops/staff", change: "putStaff" },
  { method: "POST", path: "/ops/accounts", change: "createCustomer" },
  { method: "POST", path: "/ops/accounts/:slug/keys", change: "createApiKey" },
  { method: "GET", path: "/ops/accounts/:slug/keys/:id/revoke", change: "revokeApiKey" },
  { method: "POST", path: "/ops/accounts/:slug/keys/:id/revoke", change: "revokeApiKey" },
  { method: "POST", path: "/ops/accounts/:slug/users", change: "createUser" },
  { method: "POST", path: "/ops/numbers/suspend", change: "suspendNumbers" },
  { method: "POST", path: "/ops/numbers/resume", change: "resumeNumbers" },
  { method: "POST", path: "/ops/numbers/release", change: "releaseNumbersByOperator" },
  { method: "POST", path: "/ops/numbers/restore", change: "restoreNumbersByOperator" },
  { method: "POST", path: "/ops/numbers/:number_id/suspend", change: "suspendNumbers" },
  { method: "POST", path: "/ops/numbers/:number_id/resume", change: "resumeNumbers" },
  { method: "POST", path: "/ops/numbers/:number_id/release", change: "releaseNumbersByOperator" },
  { method: "POST", path: "/ops/numbers/:number_id/restore", change: "restoreNumbersByOperator" },
];

describe("the console's roles", () => {
  let staff: Record<StaffRole, Console>;
  beforeAll(async () => {
    staff = {
      viewer: await inConsole("viewer"),
      fulfilment: await inConsole("fulfilment"),
      compliance: await inConsole("compliance"),
      admin: await inConsole("admin"),
    };
    await installWriteCounter();
  });
  afterAll(removeWriteCounter);

  it("are walked for every form of the console", () => {
    const posts = createApp()
      .routes.filter((route) => route.method === "POST" && route.path.startsWith("/ops") && route.path !== "/ops/sign-out")
      .map((route) => route.path);
    expect([...new Set(posts)].toSorted()).toEqual(
      GUARDED.filter((g) => g.method === "POST")
        .map((g) => g.path)
        .toSorted(),
    );
  });

  it("refuse a role a form is not theirs with the 403 page before anything is read, and change nothing", {
    timeout: 30_000,
  }, async () => {
    let refused = 0;
    // Nothing else writes meanwhile (a workerd runs its files one after another): the walk as a whole changes nothing.
    const before = await storageFingerprint();
    for (const { method, path, change } of GUARDED) {
      // Every parameter malformed: anything but the role check would answer 404 or 400.
      const url = path.replace(/:\w+/g, "%20not%20valid%20");
      for (const role of ROLES) {
        const label = `${method} ${path} as ${role}`;
        const answer = method === "GET" ? await staff[role].get(url) : await staff[role].post(url, { junk: "x" });
        const text = await answer.text();
        if (ROLE_MATRIX[change]?.includes(role)) {
          expect(answer.status, label).not.toBe(403);
          expect(answer.status, label).toBeLessThan(500);
        } else {
          refused++;
          expect(answer.status, label).toBe(403);
          expect(answer.headers.get("Content-Type"), label).toMatch(/^text\/html/);
          expect(text, label).toContain(`yours is ${role}`);
        }
      }
    }
    expect(refused).toBeGreaterThan(40);
    expect(await storageFingerprint()).toEqual(before);
  });
});

/** A profile of the account, submitted, and (by the operator's API) put under review; with a PNG when asked. */
async function profileUnderReview(
  customer: TestCustomer,
  withImage: boolean,
  fields: Record<string, string> = {},
): Promise<{ id: string; documentId?: string }> {
  const profile = await bodyOf<{ id: string }>(
    await customer.callJson("POST", `/api/customers/${customer.slug}/kyc-profiles`, {
      name: "Head office",
      ...INDIVIDUAL_ADDRESS,
      ...fields,
    }),
    201,
  );
  let documentId: string | undefined;
  if (withImage) {
    const form = new FormData();
    form.set("document_type", "identity");
    form.set("file", new File([png()], "passport.png", { type: "image/png" }));
    const uploaded = await customer.call(`/api/customers/${customer.slug}/kyc-profiles/${profile.id}/files`, {
      method: "POST",
      body: form,
    });
    documentId = (await bodyOf<{ id: string }>(uploaded, 201)).id;
  }
  await bodyOf(await callJson("POST", `/admin/kyc-profiles/${profile.id}/review`, { status: "under_review" }, ADMIN_TOKEN));
  return { id: profile.id, documentId };
}

async function profileStatus(customer: TestCustomer, id: string): Promise<string> {
  return (await bodyOf<{ status: string }>(await customer.call(`/api/customers/${customer.slug}/kyc-profiles/${id}`))).status;
}

describe("the review page", () => {
  it("shows the evidence before the decision, and opens a document only when asked, beside the details", async () => {
    const customer = await createCustomer("review");
    const profile = await profileUnderReview(customer, true);
    const compliance = await inConsole("compliance");
    const path = `/ops/reviews/profiles/${profile.id}`;

    const page = await pageText(await compliance.get(path), 200);
    const at = (label: string) => page.indexOf(`aria-label="${label}"`);
    expect(at("Documents")).toBeGreaterThan(0);
    expect(at("Documents")).toBeLessThan(at("Details"));
    expect(at("Details")).toBeLessThan(at("Decision"));
    expect(page.indexOf("Approve")).toBeGreaterThan(at("Decision"));
    // No document is open, so the page reads no file: no view is recorded.
    expect(page).not.toContain("<img");
    expect(page).toContain(`href="${path}?document=${profile.documentId}"`);
    expect((await auditOf(compliance.member.email)).filter((e) => e.action === "kyc.document_viewed")).toEqual([]);

    const open = await pageText(await compliance.get(`${path}?document=${profile.documentId}`), 200);
    expect(open).toContain(`<img src="/ops/documents/${profile.documentId}" alt="passport.png"`);
    expect(open.indexOf("<img")).toBeLessThan(open.indexOf('aria-label="Details"'));
    const bytes = await compliance.get(`/ops/documents/${profile.documentId}`);
    expect(bytes.headers.get("Content-Security-Policy")).toBe("sandbox");
    expect(bytes.headers.get("X-Content-Type-Options")).toBe("nosniff");
    expect(bytes.headers.get("Cache-Control")).toBe("no-store");
    await bytes.arrayBuffer();
    expect((await auditOf(compliance.member.email)).filter((e) => e.action === "kyc.document_viewed")).toHaveLength(1);

    // Another verification's document, or none, opens nothing.
    const stranger = await pageText(await compliance.get(`${path}?document=doc_${crypto.randomUUID()}`), 200);
    expect(stranger).not.toContain("<img");
    expect(stranger).toContain("This verification has no such document");
    // A viewer is shown the documents' names, never a file.
    const viewer = await inConsole("viewer");
    const seen = await pageText(await viewer.get(`${path}?document=${profile.documentId}`), 200);
    expect(seen).not.toContain("<img");
    // Who may open them, as the roles' declaration says.
    expect(seen).toContain("Documents&#39; files are for the Compliance and Admin roles to open.");
    expect(seen).toContain("Reviews are for the Compliance and Admin roles: yours, Viewer, reads this verification only.");
  });

  it("rejects a person's verification with a reason about a field it has, shown beside it", async () => {
    const customer = await createCustomer("fields");
    const person = await profileUnderReview(customer, false, { tax_id: "DE123456789" });
    const compliance = await inConsole("compliance");
    const path = `/ops/reviews/profiles/${person.id}`;
    const form = await pageText(await compliance.get(path), 200);
    // Its fields, a business's given (the tax id) among them, and none it has not given.
    for (const field of VERIFICATION_FIELDS.filter((f) => f !== "company_name" && f !== "contact_person"))
      expect(form).toContain(`name="field_code_${field}"`);
    expect(form).not.toContain('name="field_code_company_name"');
    const rejected = await compliance.post(`${path}/review`, {
      status: "rejected",
      rejection_reason: "Check your tax id",
      field_code_tax_id: "field_invalid",
      field_note_tax_id: "Not a valid number",
    });
    expect(rejected.status).toBe(303);
    expect(rejected.headers.get("Location")).toBe(`${path}?done=rejected`);
    const profile = await bodyOf<{ status: string; rejection_reasons: unknown[] }>(
      await customer.call(`/api/customers/${customer.slug}/kyc-profiles/${person.id}`),
    );
    expect(profile).toMatchObject({
      status: "rejected",
      rejection_reasons: [{ code: "field_invalid", field: "tax_id", note: "Not a valid number" }],
    });
    const page = await pageText(await compliance.get(path), 200);
    expect(page).toContain('aria-label="Reasons about Tax ID"');
  });

  it("asks before approving a verification without documents; with documents it approves at once", async () => {
    const customer = await createCustomer("bare");
    const bare = await profileUnderReview(customer, false);
    const compliance = await inConsole("compliance");
    const path = `/ops/reviews/profiles/${bare.id}`;
    const page = await pageText(await compliance.get(path), 200);
    expect(page).toContain(`href="${path}/approve"`);
    expect(page).not.toMatch(/<button type="submit">Approve<\/button>/);

    // A post of the review form itself is asked about first, and changes nothing.
    const asked = await compliance.post(`${path}/review`, { status: "approved" });
    expect(asked.status).toBe(303);
    expect(asked.headers.get("Location")).toBe(`${path}/approve`);
    expect(await profileStatus(customer, bare.id)).toBe("under_review");
    const question = await pageText(await compliance.get(`${path}/approve`), 200);
    expect(question).toContain("without documents?");
    const approved = await compliance.post(`${path}/approve`);
    expect(approved.status).toBe(303);
    expect(approved.headers.get("Location")).toBe(`${path}?done=approved`);
    expect(await profileStatus(customer, bare.id)).toBe("approved");
    expect((await auditOf(compliance.member.email)).map((e) => e.action)).toEqual(["kyc_profile.reviewed"]);

    const documented = await profileUnderReview(customer, true);
    const documentedPath = `/ops/reviews/profiles/${documented.id}`;
    expect((await compliance.get(`${documentedPath}/approve`)).headers.get("Location")).toBe(documentedPath);
    const direct = await compliance.post(`${documentedPath}/review`, { status: "approved" });
    expect(direct.headers.get("Location")).toBe(`${documentedPath}?done=approved`);
    expect(await profileStatus(customer, documented.id)).toBe("approved");
  });
});

describe("the requirements form", () => {
  it("saves the set it states, judged by the API's schema, each error beside its field, and removes a document", async () => {
    const type = uniqueNumberType();
    await makeOrderable("NL", type);
    const compliance = await inConsole("compliance");
    const path = `/ops/catalog/NL/${type}/requirements`;
    const form = await pageText(await compliance.get(path), 200);
    // The empty set's form: both verification types ticked, one empty document group to fill.
    expect(form).toContain('name="verification_types" value="individual" checked=""');
    expect(form).toContain('name="documents.0.key"');
    expect(form).not.toContain('name="documents.1.key"');

    const refused = await compliance.post(path, {
      "fields.business": ["company_name", "tax_id"],
      "documents.0.key": "Proof",
      "documents.0.description": "A utility bill",
      "documents.0.document_types": "utility_bill",
      "documents.1.key": "",
      "documents.1.description": "",
    });
    const text = await pageText(refused, 400);
    expect(text).toMatch(/id="verification_types-error">Verifications accepted must name at least one verification type</);
    expect(text).toContain(
      'id="documents.0.key-error">Key must be a lowercase identifier of 1-40 characters (letters, digits, _), starting with a letter<',
    );
    expect(text).toMatch(/id="documents.0.applies_to-error">Asked of must name at least one verification type</);
    // What was typed is shown again, with an empty group to add another.
    expect(text).toContain('value="Proof"');
    expect(text).toMatch(
      /aria-label="New document requirement"><legend>New document requirement<\/legend>.*?name="documents.1.key"/,
    );
    const pair = async () =>
      (
        await bodyOf<{ data: { number_type: string; requirements: unknown }[] }>(
          await call(`/admin/catalog?limit=100`, { headers: ADMIN_TOKEN }),
        )
      ).data.find((row) => row.number_type === type);
    expect((await pair())?.requirements).toBeNull();

    // Two document groups filled and the empty one, as the browser posts them.
    const twoDocuments = {
      verification_types: ["individual", "business"],
      address_in_country: "true",
      "fields.business": ["company_name", "tax_id"],
      "documents.0.key": "proof_of_address",
      "documents.0.description": "A utility bill under 3 months old",
      "documents.0.document_types": ["utility_bill", "bank_statement"],
      "documents.0.applies_to": ["individual", "business"],
      "documents.1.key": "registration",
      "documents.1.description": "The company's registration",
      "documents.1.document_types": "business_registration",
      "documents.1.applies_to": "business",
      "documents.2.key": "",
      "documents.2.description": "",
    };
    const saved = await compliance.post(path, twoDocuments);
    expect(saved.status).toBe(303);
    expect(saved.headers.get("Location")).toBe(`${path}?done=requirements`);
    expect((await pair())?.requirements).toEqual({
      verification_types: ["individual", "business"],
      address_in_country: true,
      fields: { individual: [], business: ["company_name", "tax_id"] },
      documents: [
        {
          key: "proof_of_address",
          document_types: ["utility_bill", "bank_statement"],
          applies_to: ["individual", "business"],
          description: "A utility bill under 3 months old",
        },
        {
          key: "registration",
          document_types: ["business_registration"],
          applies_to: ["business"],
          description: "The company's registration",
        },
      ],
    });
    // The saved set fills the form again: two groups and an empty one.
    const again = await pageText(await compliance.get(path), 200);
    expect(again).toMatch(/name="documents.1.key"[^>]*value="registration"/);
    expect(again).toMatch(
      /aria-label="New document requirement"><legend>New document requirement<\/legend>.*?name="documents.2.key"/,
    );

    // A group ticked for removal goes; nothing else changes.
    const removed = await compliance.post(path, { ...twoDocuments, "documents.0.remove": "true" });
    expect(removed.status).toBe(303);
    const after = (await pair())?.requirements as { documents: { key: string }[] };
    expect(after.documents.map((d) => d.key)).toEqual(["registration"]);
    expect((await auditOf(compliance.member.email)).map((e) => e.action)).toEqual([
      "requirements.changed",
      "requirements.changed",
    ]);

    // A viewer reads the set in words, with no form.
    const viewer = await inConsole("viewer");
    const read = await pageText(await viewer.get(path), 200);
    expect(read).not.toContain('name="verification_types"');
    expect(read).toContain("The company&#39;s registration");
  });
});

describe("the catalog's form", () => {
  it("refuses a country ISO 3166-1 does not assign beside the field, adding nothing", async () => {
    const admin = await inConsole("admin");
    const type = `u_${crypto.randomUUID().slice(0, 8)}`;
    const refused = await pageText(await admin.post("/ops/catalog/pairs", { country_code: "xx", number_type: type }), 400);
    expect(refused).toContain('id="country_code-error">');
    expect(refused).toContain("must be a country code that ISO 3166-1 assigns, such as US or GB");
    expect(await auditOf(admin.member.email)).toEqual([]);
    const added = await admin.post("/ops/catalog/pairs", { country_code: "se", number_type: type });
    expect(added.status).toBe(303);
    expect((await auditOf(admin.member.email)).map((e) => [e.action, e.target.id])).toEqual([
      ["catalog.pair_added", `SE/${type}`],
    ]);
  });
});

describe("opening an account", () => {
  it("opens it for an admin (audited) and goes to its page; refuses a bad slug beside the field and a taken one", async () => {
    const admin = await inConsole("admin");
    const slug = `opened-${crypto.randomUUID().slice(0, 8)}`;
    const bad = await pageText(await admin.post("/ops/accounts", { slug: "X", name: "" }), 400);
    expect(bad).toContain(
      'id="slug-error">Slug must be 3-40 lowercase letters, digits or hyphens, starting and ending with a letter or digit<',
    );
    expect(bad).toContain('id="name-error">Name must not be empty<');
    const opened = await admin.post("/ops/accounts", { slug, name: "Opened Telecom" });
    expect(opened.status).toBe(303);
    expect(opened.headers.get("Location")).toBe(`/ops/accounts/${slug}?done=opened`);
    const customer = await bodyOf<{ name: string }>(await call(`/admin/customers/${slug}`, { headers: ADMIN_TOKEN }));
    expect(customer.name).toBe("Opened Telecom");
    expect(await pageText(await admin.get(`/ops/accounts/${slug}?done=opened`), 200)).toContain("The account is open.");

    const taken = await pageText(await admin.post("/ops/accounts", { slug, name: "Again" }), 409);
    expect(taken).toContain("A customer with this slug already exists");
    expect((await auditOf(admin.member.email)).map((e) => [e.action, e.target.id])).toEqual([["customer.created", slug]]);

    const viewer = await inConsole("viewer");
    expect(await pageText(await viewer.get("/ops/accounts"), 200)).not.toContain('action="/ops/accounts"');
  });
});

interface ShortPair {
  country_code: string;
  number_type: string;
  open_orders: number;
  stock: number;
}

/** Every pair whose stock is fewer than its open orders, the shortest first, counted from the orders and the stock. */
async function recountShortPairs(): Promise<ShortPair[]> {
  const { results } = await env.DB.prepare(
    `SELECT o.country_code, o.number_type, count(*) AS open_orders,
       (SELECT count(*) FROM stock_numbers s WHERE s.country_code = o.country_code AND s.number_type = o.number_type
          AND s.status = 'available') AS stock
     FROM orders o WHERE o.status IN ('pending', 'processing')
     GROUP BY o.country_code, o.number_type HAVING stock < open_orders
     ORDER BY stock - open_orders, o.country_code, o.number_type`,
  ).all<ShortPair>();
  return results;
}

/** A short pair as the home page names it. */
const shownAs = (pair: ShortPair) =>
  `${pair.country_code} ${pair.number_type.replaceAll("_", " ")}: ${pair.open_orders} open order${pair.open_orders === 1 ? "" : "s"}, ${pair.stock} in stock`;

/** The short pairs the home page names, in its order. */
function shortPairsShown(home: string): string[] {
  const list = /<ul aria-label="Pairs short of stock">(.*?)<\/ul>/.exec(home)?.[1] ?? "";
  return [...list.matchAll(/<li>(.*?)<\/li>/g)].map(([, item]) => (item ?? "").replace(/<[^>]+>/g, ""));
}

describe("the home page", () => {
  it("counts the open orders, the reviews awaiting and the pairs short of stock, as the queues count them", async () => {
    const type = uniqueNumberType();
    await makeOrderable("SE", type);
    const customer = await createCustomer("home");
    for (let i = 0; i < 3; i++) {
      await bodyOf(
        await customer.callJson("POST", `/api/customers/${customer.slug}/orders`, {
          country_code: "SE",
          number_type: type,
          quantity: 2,
        }),
        201,
      );
    }
    const stock = (phones: string[]) =>
      callJson(
        "POST",
        "/admin/stock",
        { numbers: phones.map((phone_number) => ({ phone_number, country_code: "SE", number_type: type })) },
        ADMIN_TOKEN,
      );
    const phones = Array.from({ length: 3 }, uniquePhoneNumber);
    await bodyOf(await stock(phones.slice(0, 2)), 201);

    const viewer = await inConsole("viewer");
    const home = await pageText(await viewer.get("/ops"), 200);
    // The role as the console writes roles elsewhere, and what it may do from the roles' declaration.
    expect(home).toContain("<dt>Role</dt><dd>Viewer</dd>");
    expect(home).toMatch(/<span class="person">[^<]+ · Viewer<\/span>/);
    expect(home).toContain("You change nothing: your role, Viewer, reads only.");
    const queue = await bodyOf<{ meta: { status_counts: Record<string, number> } }>(
      await call("/admin/orders?limit=1", { headers: ADMIN_TOKEN }),
    );
    const reviews = await bodyOf<{ meta: { status_counts: Record<string, number> } }>(
      await call("/admin/kyc?limit=1", { headers: ADMIN_TOKEN }),
    );
    const { pending, processing } = queue.meta.status_counts;
    expect(home).toContain(`<p class="count">${(pending ?? 0) + (processing ?? 0)}</p>`);
    expect(home).toContain(`${pending} pending, ${processing} processing.`);
    const awaiting = (reviews.meta.status_counts.pending ?? 0) + (reviews.meta.status_counts.under_review ?? 0);
    expect(home).toContain(`<p class="count">${awaiting}</p>`);
    // The short pairs as a recount of the orders and the stock finds them: the test's own among them, and the page
    // naming the shortest 20 in order (other tests' pairs may be shorter than this one).
    const ours = (pairs: ShortPair[]) => pairs.find((pair) => pair.country_code === "SE" && pair.number_type === type);
    const short = await recountShortPairs();
    expect(ours(short)).toEqual({ country_code: "SE", number_type: type, open_orders: 3, stock: 2 });
    expect(shortPairsShown(home)).toEqual(short.slice(0, 20).map(shownAs));
    expect(home).not.toContain("You may");

    // One number for each open order: no longer short.
    await bodyOf(await stock(phones.slice(2)), 201);
    const after = await recountShortPairs();
    expect(ours(after)).toBeUndefined();
    expect(shortPairsShown(await pageText(await viewer.get("/ops"), 200))).toEqual(after.slice(0, 20).map(shownAs));
    const fulfilment = await inConsole("fulfilment");
    expect(fulfilment.home).toContain("You may allocate numbers to orders, listed or from the stock.");
    expect(fulfilment.home).toContain("<dt>Role</dt><dd>Fulfilment</dd>");
  });
});

describe("invited people", () => {
  it("are counted and shown as invited, not active, on the portal's Team and the console's account page", async () => {
    const customer = await createCustomer("team");
    const owner = await signedIn(customer);
    const first = await invitedUser(customer, "member");
    const second = await invitedUser(customer, "admin");
    const tabs = async (query = "") => pageText(await owner.get(`/portal/settings/team${query}`), 200);
    const team = await tabs();
    expect(team).toContain("Active (1)");
    expect(team).toContain("Invited (2)");
    const invitedOnly = await tabs("?status=invited");
    expect(invitedOnly).toContain(first.email);
    expect(invitedOnly).toContain(second.email);
    expect(invitedOnly).not.toContain(owner.user.email);
    const activeOnly = await tabs("?status=active");
    expect(activeOnly).toContain(owner.user.email);
    expect(activeOnly).not.toContain(first.email);

    // Once the password is set, active.
    expect((await postForm(first.path, { password: PASSWORD, password_confirmation: PASSWORD })).status).toBe(303);
    const later = await tabs();
    expect(later).toContain("Active (2)");
    expect(later).toContain("Invited (1)");

    const admin = await inConsole("viewer");
    const account = await pageText(await admin.get(`/ops/accounts/${customer.slug}`), 200);
    expect(account).toContain("3 users: 2 active, 1 invited.");
    expect(account).toMatch(new RegExp(`${second.email}.*?<span class="badge invited">invited</span>`, "s"));
  });

  it("are counted through the index of last sign-ins: only users who never signed in are read", async () => {
    const customer = await createCustomer("plan");
    const db = createDatabase(env.DB);
    for (const status of ["", "invited", "active,locked"]) {
      const query = toTeamListQuery(teamListQuery.parse(status ? { status } : {}));
      const { invited } = teamListStatements(db, customer.customerId, query, pageWindow(1, 20));
      const { sql, params } = invited.toSQL();
      const plan = await env.DB.prepare(`EXPLAIN QUERY PLAN ${sql}`)
        .bind(...params)
        .all<{ detail: string }>();
      const details = plan.results.map((r) => r.detail).join("\n");
      expect(details).toMatch(/SEARCH users USING INDEX users_customer_last_login_idx \(customer_id=\? AND last_login_at=\?\)/);
    }
  });
});

describe("an account's new key and invitation", () => {
  it("are made by a POST that redirects to the account's page, which shows the key or the link once", async () => {
    const customer = await createCustomer("keys");
    const other = await createCustomer("keys");
    const admin = await inConsole("admin");
    const page = `/ops/accounts/${customer.slug}`;
    const keyCount = async () =>
      (await bodyOf<{ data: unknown[] }>(await call(`/admin/customers/${customer.slug}/api-keys`, { headers: ADMIN_TOKEN }))).data
        .length;
    const before = await keyCount();

    const created = await admin.post(`${page}/keys`, { name: "from the console" });
    expect(created.status).toBe(303);
    expect(created.headers.get("Location")).toBe(page);
    const shown = await pageText(await admin.follow(created), 200);
    const key = /<p class="secret">([^<]+)<\/p>/.exec(shown)?.[1] ?? "";
    expect(shown).toContain("The key “from the console” is created.");
    expect((await call(`/api/customers/${customer.slug}/orders`, { headers: { Authorization: `Bearer ${key}` } })).status).toBe(
      200,
    );
    // The page again (a reload) shows no key and makes none; what was left is for this account's page only.
    expect(await pageText(await admin.get(page), 200)).not.toContain('class="secret"');
    expect(await keyCount()).toBe(before + 1);
    const leftFor = await admin.post(`${page}/keys`, { name: "second" });
    const elsewhere = await call(`/ops/accounts/${other.slug}`, {
      headers: { ...admin.member.headers, Cookie: leftFor.headers.getSetCookie()[0]!.split(";")[0]! },
    });
    expect(await pageText(elsewhere, 200)).not.toContain('class="secret"');

    const invited = await admin.post(`${page}/users`, { email: "grace@example.com", name: "Grace Hopper", role: "owner" });
    expect(invited.status).toBe(303);
    expect(invited.headers.get("Location")).toBe(page);
    const link = await pageText(await admin.follow(invited), 200);
    expect(link).toMatch(/<p class="secret">https?:\/\/[^<]+\/portal\/invitations\/[^<]+<\/p>/);
    expect(link).toContain("grace@example.com is invited.");
    const again = await pageText(await admin.get(page), 200);
    expect(again).not.toContain("/portal/invitations/");
    expect(again).toContain("1 user: 1 invited.");
  });
});

describe("the review forms", () => {
  it("are the moves the verification's status allows, and say what the customer may still do under review", async () => {
    const customer = await createCustomer("moves");
    const compliance = await inConsole("compliance");
    const profile = await bodyOf<{ id: string }>(
      await customer.callJson("POST", `/api/customers/${customer.slug}/kyc-profiles`, { name: "Moves", ...INDIVIDUAL_ADDRESS }),
      201,
    );
    const path = `/ops/reviews/profiles/${profile.id}`;
    const moves = (page: string) => [...page.matchAll(/name="status" value="(\w+)"/g)].map((m) => m[1]);

    const pending = await pageText(await compliance.get(path), 200);
    expect(moves(pending)).toEqual(["under_review"]);
    // Under review, uploads and deletions stay open (only the address is locked).
    expect(pending).toContain(
      "While it is reviewed the customer can no longer change the address but may still add and delete documents.",
    );
    expect((await compliance.post(`${path}/review`, { status: "under_review" })).status).toBe(303);
    const reviewing = await pageText(await compliance.get(path), 200);
    // No documents: the approval is a link to its question; the rejection a form.
    expect(moves(reviewing)).toEqual(["rejected"]);
    expect(reviewing).toContain(`href="${path}/approve"`);
    expect((await compliance.post(`${path}/approve`)).status).toBe(303);
    const approved = await pageText(await compliance.get(path), 200);
    expect(moves(approved)).toEqual([]);
    expect(approved).toContain("Nothing to review: the verification is approved.");
  });
});

describe("an order's page", () => {
  it("offers the cancel only while the life cycle allows it: a fulfilled order's confirmation goes back to its page", async () => {
    const customer = await createCustomer("fulfilled");
    const [number] = await allocateNumbers(customer, 1);
    const fulfilment = await inConsole("fulfilment");
    const page = `/ops/orders/${number!.order_id}`;
    const fulfilled = await pageText(await fulfilment.get(page), 200);
    expect(fulfilled).toContain('<span class="badge fulfilled">');
    expect(fulfilled).not.toContain("Cancel the order");
    const asked = await fulfilment.get(`${page}/cancel`);
    expect(asked.status).toBe(303);
    expect(asked.headers.get("Location")).toBe(page);

    const pending = await bodyOf<{ order_id: string }>(
      await customer.callJson("POST", `/api/customers/${customer.slug}/orders`, {
        country_code: "US",
        number_type: "mobile",
        quantity: 1,
      }),
      201,
    );
    const open = `/ops/orders/${pending.order_id}`;
    expect(await pageText(await fulfilment.get(open), 200)).toContain(`href="${open}/cancel"`);
    expect(await pageText(await fulfilment.get(`${open}/cancel`), 200)).toContain("Cancel order");
  });

  it("names the order's profile, linked to it, in the console and in the portal", async () => {
    const customer = await createCustomer("named");
    await makeOrderable("US", "mobile");
    const profile = await bodyOf<{ id: string }>(
      await customer.callJson("POST", `/api/customers/${customer.slug}/kyc-profiles`, {
        name: "Berlin office",
        ...INDIVIDUAL_ADDRESS,
      }),
      201,
    );
    const order = await bodyOf<{ order_id: string }>(
      await customer.callJson("POST", `/api/customers/${customer.slug}/orders`, {
        country_code: "US",
        number_type: "mobile",
        quantity: 1,
        kyc_profile_id: profile.id,
      }),
      201,
    );
    const viewer = await inConsole("viewer");
    const ops = await pageText(await viewer.get(`/ops/orders/${order.order_id}`), 200);
    expect(ops).toContain(`<dt>Profile</dt><dd><a href="/ops/reviews/profiles/${profile.id}">Berlin office</a></dd>`);
    const owner = await signedIn(customer);
    const portal = await pageText(await owner.get(`/portal/orders/${order.order_id}`), 200);
    expect(portal).toContain(`<dt>Profile</dt><dd><a href="/portal/profiles/${profile.id}">Berlin office</a></dd>`);
  });
});

describe("the audit log's filters", () => {
  it("ask what a change is about in words, not for an id", async () => {
    const viewer = await inConsole("viewer");
    const log = await pageText(await viewer.get("/ops/audit"), 200);
    expect(log).toMatch(/<label for="target_id">About which<\/label>/);
    expect(log).not.toContain("Its id");
  });
});
