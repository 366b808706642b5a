// Properties of every operation /openapi.json lists, over random valid and invalid paths, queries, headers, JSON bodies
// and upload forms (a new route is covered as soon as it is described): no 5xx; every answer as its route declares it;
// a refused request (or a read, but for the audit event of a staff member's GET of a document) changes no row and no
// object; an account's key never sees anything of another account.
import { env } from "cloudflare:workers";
import { fc, test } from "@fast-check/vitest";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { IDEMPOTENCY_KEY_HEADER } from "../src/http/idempotency.ts";
import { PROBLEM_CODES } from "../src/lib/problem.ts";
import { type DescribedOperation, describedOperations, expectDeclared, type Sent, sendQuietly } from "./api-description.ts";
import { calendarDate, later, type Pools, type RequestSpec, requestFor, requestInit } from "./arbitraries.ts";
import { TEST_ADMIN_TOKEN } from "./constants.ts";
import { createdDocument, pdf, uploadFile } from "./files.ts";
import {
  clientAddress,
  createCustomer,
  createWebhookEndpoint,
  json,
  type KeyRing,
  keyRing,
  makeOrderable,
  operator,
  submittedVerification,
  type TestCustomer,
  uniquePhoneNumber,
} from "./helpers.ts";
import { installWriteCounter, removeWriteCounter, storageFingerprint } from "./write-counter.ts";

/** Generated requests per property. */
const RUNS = 1000;

/**
 * An account with something of everything: orders in each state, numbers, verifications in each state, files, users,
 * webhook endpoints (enabled and disabled) with deliveries in each state, and the events of it all.
 */
interface Account {
  customer: TestCustomer;
  /** In every text the account stores, so its data is recognisable in any answer. */
  token: string;
  orderIds: string[];
  numberIds: string[];
  phoneNumbers: string[];
  kycIds: string[];
  documentIds: string[];
  userIds: string[];
  endpointIds: string[];
  deliveryIds: string[];
  eventIds: string[];
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const bare = (id: string) => id.replace(/^[a-z]+_/, "");

async function populatedAccount(prefix: string): Promise<Account> {
  const customer = await createCustomer(prefix);
  const token = `${prefix}${crypto.randomUUID().slice(0, 8)}`;
  const param = { customer_slug: customer.slug };
  // Endpoints first, so every change below has deliveries: one for every type, one for order.created only (disabled).
  const everything = await createWebhookEndpoint(customer, {
    url: `https://hooks.test/${token}/all`,
    description: `${token} hook`,
  });
  const created = await createWebhookEndpoint(customer, {
    url: `https://hooks.test/${token}/created`,
    event_types: ["order.created"],
  });
  const place = async (quantity: number) =>
    json(
      await customer.account.orders.$post({
        param,
        json: { number_type: "mobile", country_code: "US", quantity, notes: `${token} order notes` },
      }),
      201,
    );
  const move = async (orderId: string, status: "processing" | "cancelled") =>
    json(await operator.admin.orders[":order_id"].status.$post({ param: { order_id: orderId }, json: { status } }), 200);
  const orders = [await place(3), await place(4), await place(2), await place(5)];
  const [, processing, cancelled, fulfilled] = orders.map((o) => o.order_id);
  if (!processing || !cancelled || !fulfilled) throw new Error("orders were not placed");
  await move(processing, "processing");
  await move(cancelled, "cancelled");
  const phoneNumbers = Array.from({ length: 5 }, uniquePhoneNumber);
  const { numbers } = await json(
    await operator.admin.orders[":order_id"].numbers.$post({
      param: { order_id: fulfilled },
      json: { phone_numbers: phoneNumbers },
    }),
    201,
  );
  // Number 0 has no verification; 1 to 4 are pending, under review, approved and rejected, each with one file.
  const kycIds: string[] = [];
  const documentIds: string[] = [];
  const reviews = [[], ["under_review"], ["under_review", "approved"], ["under_review", "rejected"]] as const;
  for (const [i, steps] of reviews.entries()) {
    const numberId = numbers[i + 1]?.number_id ?? "";
    const verification = await json(
      await customer.api.v1.numbers[":number_id"].KYC.address.$post({
        param: { number_id: numberId },
        json: {
          verification_type: i % 2 === 0 ? "individual" : "business",
          company_name: `${token} Company`,
          address_line_1: `${token} Main Street`,
          city: `${token} City`,
          state_province: "CA",
          postal_code: "94105",
          country: "US",
          email: `${token}@example.com`,
        },
      }),
      201,
    );
    kycIds.push(verification.id);
    documentIds.push((await createdDocument(await uploadFile(customer, numberId, pdf(), `${token}.pdf`))).id);
    for (const status of steps) {
      const body = status === "rejected" ? { status, rejection_reason: `${token} reason` } : { status };
      await json(await operator.admin.kyc[":kyc_id"].review.$post({ param: { kyc_id: verification.id }, json: body }), 200);
    }
  }
  // A profile awaiting review: the review queue lists it beside the numbers' verifications (number_id null).
  const profile = await customer.callJson("POST", `/api/customers/${customer.slug}/kyc-profiles`, {
    name: `${token} profile`,
    verification_type: "individual",
    address_line_1: `${token} Profile Street`,
    city: `${token} City`,
    state_province: "CA",
    postal_code: "94105",
    country: "US",
  });
  expect(profile.status, await profile.clone().text()).toBe(201);
  kycIds.push(((await profile.json()) as { id: string }).id);
  const userIds: string[] = [];
  for (const role of ["owner", "member"] as const) {
    const user = await json(
      await operator.admin.customers[":slug"].users.$post({
        param: { slug: customer.slug },
        json: { email: `${role}.${token}@example.com`, name: `${token} ${role}`, role },
      }),
      201,
    );
    userIds.push(user.user_id);
  }
  await json(
    await customer.account["webhook-endpoints"][":endpoint_id"].$patch({
      param: { ...param, endpoint_id: created.id },
      json: { status: "disabled" },
    }),
    200,
  );
  // Deliveries in every state: most pending (nothing is sent in this file), one succeeded, one failed.
  const { results: deliveries } = await env.DB.prepare("SELECT id FROM webhook_deliveries WHERE customer_id = ? ORDER BY rowid")
    .bind(customer.customerId)
    .all<{ id: string }>();
  await env.DB.batch(
    (["succeeded", "failed"] as const).map((status, i) =>
      env.DB.prepare("UPDATE webhook_deliveries SET status = ?, attempts = 1, next_attempt_at = NULL WHERE id = ?").bind(
        status,
        deliveries[i]?.id ?? "",
      ),
    ),
  );
  const { results: events } = await env.DB.prepare("SELECT id FROM events WHERE customer_id = ?")
    .bind(customer.customerId)
    .all<{ id: string }>();
  return {
    customer,
    token,
    orderIds: orders.map((o) => o.order_id),
    numberIds: numbers.map((n) => n.number_id),
    phoneNumbers,
    kycIds: kycIds.map(bare),
    documentIds: documentIds.map(bare),
    userIds,
    endpointIds: [everything.id, created.id].map(bare),
    deliveryIds: deliveries.map((d) => d.id),
    eventIds: events.map((e) => e.id),
  };
}

/** An id as clients may write it (bare, prefixed, upper case) or subtly wrong. */
function idsOf(own: string[], others: string[], prefix?: string): fc.Arbitrary<string> {
  const forms = (id: string) =>
    prefix ? [id, `${prefix}_${id}`, `${prefix}_${id}`.toUpperCase(), id.toUpperCase()] : [id, id.toUpperCase()];
  const wrong = (id: string) => [
    `${prefix ?? "id"}_x${id}`,
    id.slice(0, -1),
    `${id}0`,
    `num_${id}`,
    `kyc_${id}`,
    `doc_${id}`,
    ` ${id}`,
  ];
  const groups: fc.WeightedArbitrary<string>[] = [{ arbitrary: fc.uuid({ version: 4 }), weight: 1 }];
  if (own.length > 0)
    groups.push(
      { arbitrary: fc.constantFrom(...own.flatMap(forms)), weight: 8 },
      { arbitrary: fc.constantFrom(...own.flatMap(wrong)), weight: 2 },
    );
  if (others.length > 0) groups.push({ arbitrary: fc.constantFrom(...others.flatMap(forms)), weight: 3 });
  return fc.oneof(...groups);
}

const commaList = (items: string[]) =>
  fc.uniqueArray(fc.constantFrom(...items), { minLength: 1, maxLength: 3 }).map((list) => list.join(","));

/** The values the generated requests draw on: mostly the first account's, sometimes the second's, sometimes neither. */
function poolsFor(a: Account, b: Account, revocableKeyIds: string[]): Pools {
  const freshPhoneNumbers = fc.uniqueArray(fc.stringMatching(/^\+[1-9]\d{9,13}$/), { minLength: 1, maxLength: 4 });
  return {
    params: {
      customer_slug: fc.oneof(
        { arbitrary: fc.constant(a.customer.slug), weight: 12 },
        fc.constant(b.customer.slug),
        fc.constant("demo"),
      ),
      order_id: idsOf(a.orderIds, b.orderIds),
      number_id: idsOf(a.numberIds, b.numberIds, "num"),
      document_id: idsOf(a.documentIds, b.documentIds, "doc"),
      kyc_id: idsOf(a.kycIds, b.kycIds, "kyc"),
      user_id: idsOf(a.userIds, b.userIds),
      endpoint_id: idsOf(a.endpointIds, b.endpointIds, "we"),
      delivery_id: idsOf(a.deliveryIds, b.deliveryIds, "whd"),
      event_id: idsOf(a.eventIds, b.eventIds, "evt"),
      // Only keys no test uses: revoking one of the accounts' keys would turn the rest of the run into 401s.
      id: idsOf(revocableKeyIds, []),
      slug: fc.constantFrom(a.customer.slug, b.customer.slug, "no-such-account"),
      country_code: fc.constantFrom("US", "GB", "DE", "FR"),
      number_type: fc.constantFrom("mobile", "landline", "toll_free", "fax"),
      code: fc.constantFrom(...PROBLEM_CODES, "unknown", "__proto__", "constructor", "toString"),
    },
    query: {
      status: commaList([
        "pending",
        "processing",
        "fulfilled",
        "cancelled",
        "active",
        "suspended",
        "released",
        "inactive",
        "locked",
        "shipped",
      ]),
      country_code: commaList(["US", "GB", "DE", "FR", "us", "X"]),
      number_type: commaList(["mobile", "landline", "toll_free", "fax"]),
      role: commaList(["owner", "admin", "member", "root"]),
      // The other account's phone number and token: a search never finds another account's data.
      search: fc.constantFrom(a.token, b.token, b.phoneNumbers[0] ?? "+1", a.phoneNumbers[0] ?? "+1", "%", "_", "#0", "555"),
      requested_from: calendarDate,
      fulfilled_to: calendarDate,
    },
    fields: {
      country_code: fc.constantFrom("US", "GB", "DE", "FR"),
      number_type: fc.constantFrom("mobile", "landline", "toll_free", "national"),
      country: fc.constantFrom("US", "DE"),
      url: fc.constantFrom(
        `https://hooks.test/${a.token}`,
        "https://hooks.example.com/x",
        "http://hooks.test/plain",
        "https://127.0.0.1/",
        "https://localhost/x",
        "https://user@hooks.test/",
      ),
      phone_numbers: fc.oneof(
        { arbitrary: freshPhoneNumbers, weight: 4 },
        fc.constant([b.phoneNumbers[0]]),
        fc.constant([a.phoneNumbers[1], "+15550000000"]),
      ),
    },
  };
}

/** Everything of an account that must never reach another: its ids, slug, phone numbers and the texts it stored. */
async function secretsOf(account: Account): Promise<string[]> {
  const id = account.customer.customerId;
  const rows = await env.DB.batch([
    env.DB.prepare("SELECT id, slug, name FROM customers WHERE id = ?").bind(id),
    env.DB.prepare("SELECT id FROM orders WHERE customer_id = ?").bind(id),
    env.DB.prepare("SELECT id, phone_number FROM numbers WHERE customer_id = ?").bind(id),
    env.DB.prepare("SELECT id FROM kyc_verifications WHERE customer_id = ?").bind(id),
    env.DB.prepare("SELECT id FROM kyc_documents WHERE customer_id = ?").bind(id),
    env.DB.prepare("SELECT id, email, name FROM users WHERE customer_id = ?").bind(id),
    env.DB.prepare("SELECT id, prefix FROM api_keys WHERE customer_id = ?").bind(id),
    env.DB.prepare("SELECT id, url, secret FROM webhook_endpoints WHERE customer_id = ?").bind(id),
    env.DB.prepare("SELECT id FROM webhook_deliveries WHERE customer_id = ?").bind(id),
    env.DB.prepare("SELECT id FROM events WHERE customer_id = ?").bind(id),
  ]);
  const values = rows.flatMap((r) => r.results.flatMap((row) => Object.values(row as Record<string, unknown>).map(String)));
  // Only what is the account's alone: generated requests may have changed its names to short common words.
  const distinctive = (value: string) =>
    UUID.test(value) ||
    /^\+\d{7,}$/.test(value) ||
    value.startsWith("vnk_") ||
    value.startsWith("whsec_") ||
    value.includes(account.token) ||
    value.includes(account.customer.slug);
  return [...new Set([...values.filter(distinctive), account.token])].map((v) => v.toLowerCase());
}

let operations: DescribedOperation[];
let byId: Map<string, DescribedOperation>;
let first: Account;
let second: Account;
let pools: Pools;
let keys: KeyRing;

beforeAll(async () => {
  // Nothing goes on the delivery queue: a consumer running beside the requests would write rows they did not.
  vi.spyOn(env.WEBHOOK_DELIVERIES, "sendBatch").mockResolvedValue({
    metadata: { metrics: { backlogCount: 0, backlogBytes: 0 } },
  });
  operations = await describedOperations();
  byId = new Map(operations.map((o) => [o.operationId, o]));
  await makeOrderable("US", "mobile");
  await makeOrderable("GB", "landline");
  first = await populatedAccount("first");
  second = await populatedAccount("second");
  // Keys of an account no test uses, for the operator's revocation to hit real keys.
  const spare = await createCustomer("spare");
  const revocable: string[] = [];
  for (let i = 0; i < 3; i++) {
    const created = await json(
      await operator.admin.customers[":slug"]["api-keys"].$post({ param: { slug: spare.slug }, json: { name: `spare ${i}` } }),
      201,
    );
    revocable.push(created.id);
  }
  pools = poolsFor(first, second, revocable);
  keys = keyRing(first.customer.slug);
});

/** Requests for any of these operations, each operation as likely as the next. */
const requestsFor = (chosen: () => DescribedOperation[]) =>
  later(() => fc.oneof(...chosen().map((operation) => requestFor(operation, pools))));
const anyRequest = requestsFor(() => operations);
const customerRequest = requestsFor(() => operations.filter((o) => o.audience === "customer"));

function operationOf(spec: RequestSpec): DescribedOperation {
  const operation = byId.get(spec.operationId);
  if (!operation) throw new Error(`no operation ${spec.operationId}`);
  return operation;
}

/** The credential of the operation's audience: the first account's key, the operator's token, or none. */
async function credentialFor(spec: RequestSpec): Promise<Record<string, string>> {
  const { audience } = operationOf(spec);
  if (audience === "public") return {};
  if (audience === "operator") return { Authorization: `Bearer ${TEST_ADMIN_TOKEN}` };
  const key = await keys.next();
  return spec.apiKeyHeader ? { "X-API-Key": key } : { Authorization: `Bearer ${key}` };
}

/**
 * A credential as clients get it wrong: none, a key that does not exist, or the other audience's (the operator's
 * token on the customer API, a customer's key on /admin). Sent from one of a few addresses of their own, so a run both
 * answers 401s and spends an address's budget (30 a minute) into 429s, while the right credentials keep the file's own.
 */
const wrongCredential = fc.record({
  kind: fc.constantFrom("none", "unknown key", "other audience"),
  address: fc.constantFrom(...Array.from({ length: 4 }, clientAddress)),
});

async function wrongCredentialFor(spec: RequestSpec, wrong: { kind: string; address: string }): Promise<Record<string, string>> {
  const address = { "CF-Connecting-IP": wrong.address };
  if (wrong.kind === "none") return address;
  if (wrong.kind === "unknown key") return { ...address, Authorization: `Bearer vnk_${"0".repeat(40)}` };
  const other = operationOf(spec).audience === "operator" ? await keys.next() : TEST_ADMIN_TOKEN;
  return { ...address, Authorization: `Bearer ${other}` };
}

function send(spec: RequestSpec, credential: Record<string, string>): Promise<Sent> {
  return sendQuietly(spec.path + spec.query, requestInit(spec, credential));
}

const TIMEOUT = 120_000;

describe("every described operation, under random valid and invalid requests", () => {
  it("covers every operation the description lists, with a route of the app behind each", () => {
    expect(operations.length).toBeGreaterThan(30);
    expect(new Set(operations.map((o) => o.audience))).toEqual(new Set(["public", "customer", "operator"]));
  });

  test.prop([anyRequest], { numRuns: RUNS })(
    "never answers with a 5xx",
    async (spec) => {
      const { status, label } = await send(spec, await credentialFor(spec));
      expect(status, label).toBeLessThan(500);
    },
    TIMEOUT,
  );

  describe("with a wrong credential one request in four", () => {
    const seen = new Set<number>();
    // A few Idempotency-Keys shared by the run's POSTs and PATCHes: a key's later, different requests are its 422,
    // a same one its replay, each answered with the headers the description declares for them.
    const idempotencyKey = fc.option(fc.constantFrom("walk-1", "walk-2", "walk-3"), { freq: 3 });

    test.prop([anyRequest, fc.oneof({ arbitrary: fc.constant(null), weight: 3 }, wrongCredential), idempotencyKey], {
      // A quarter of them with a wrong credential, so the right credential still gets RUNS requests.
      numRuns: Math.ceil((RUNS * 4) / 3),
    })(
      "answers only with a status, headers, content type and body its route declares",
      async (request, wrong, key) => {
        const keyed = key !== null && (request.method === "POST" || request.method === "PATCH");
        const spec = keyed ? { ...request, headers: { ...request.headers, [IDEMPOTENCY_KEY_HEADER]: key } } : request;
        const credential = wrong === null ? await credentialFor(spec) : await wrongCredentialFor(spec, wrong);
        const { status, headers, text } = await send(spec, credential);
        seen.add(status);
        expectDeclared(operationOf(spec), status, headers, text);
      },
      TIMEOUT,
    );

    it("saw refused credentials answered, both 401 and, once an address's budget was spent, 429, and reused keys (422)", () => {
      expect([...seen]).toEqual(expect.arrayContaining([200, 201, 401, 422, 429]));
    });
  });

  describe("the answers a random walk may miss, checked every time", () => {
    it("answers the review queue with a profile in it as the document describes it", async () => {
      const queue = byId.get("listReviewQueue")!;
      const path = `/admin/kyc?customer_slug=${first.customer.slug}&subject_type=profile`;
      const sent = await sendQuietly(path, { headers: { Authorization: `Bearer ${TEST_ADMIN_TOKEN}` } });
      const answer = expectDeclared(queue, sent.status, sent.headers, sent.text);
      expect(answer.status, sent.label).toBe(200);
      // The account's profile, and any the random requests before created.
      const queued = (answer.body as { data: { number_id: unknown }[] }).data;
      expect(queued.length, sent.label).toBeGreaterThan(0);
      expect(queued.map((item) => item.number_id)).toEqual(queued.map(() => null));
    });

    it("answers a download's 304, to the If-None-Match its operation declares", async () => {
      // A document of its own: the random requests before may have deleted the accounts' ones.
      const probe = await submittedVerification("etag");
      const document = await createdDocument(await uploadFile(probe.customer, probe.numberId, pdf(), "probe.pdf"));
      const downloads: [string, string, Record<string, string>][] = [
        ["downloadKycDocument", `/v1/kyc/documents/${document.id}/download`, { Authorization: `Bearer ${probe.customer.key}` }],
        [
          "downloadAnyKycDocument",
          `/admin/kyc/documents/${document.id}/download`,
          { Authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
        ],
      ];
      for (const [operationId, path, credential] of downloads) {
        const operation = byId.get(operationId)!;
        const file = await sendQuietly(path, { headers: credential });
        expect(expectDeclared(operation, file.status, file.headers, file.text).status, file.label).toBe(200);
        const again = await sendQuietly(path, { headers: { ...credential, "If-None-Match": file.headers.get("ETag")! } });
        expect(expectDeclared(operation, again.status, again.headers, again.text).status, again.label).toBe(304);
      }
    });

    it("describes a HEAD beside every GET, answered with the GET's status and headers and no body", async () => {
      const gets = operations.filter((o) => o.method === "GET");
      const heads = new Map(operations.filter((o) => o.method === "HEAD").map((o) => [o.path, o]));
      expect(gets.filter((o) => !heads.has(o.path)).map((o) => o.operationId)).toEqual([]);
      for (const get of gets) {
        const head = heads.get(get.path)!;
        const spec = fc.sample(requestFor(get, pools), { numRuns: 1, seed: 25 })[0]!;
        // A credential per request: the key ring counts each key's requests against the per-key rate limit.
        const asGet = await send(spec, await credentialFor(spec));
        const asHead = await send({ ...spec, method: "HEAD" }, await credentialFor(spec));
        expectDeclared(head, asHead.status, asHead.headers, asHead.text);
        expect(asHead.status, `${asHead.label} (GET: ${asGet.label})`).toBe(asGet.status);
        const names = (sent: Sent) =>
          [...sent.headers.keys()].filter((name) => !["x-request-id", "x-d1-bookmark"].includes(name));
        expect(names(asHead), asHead.label).toEqual(names(asGet));
      }
    });
  });

  describe("with every row write counted", () => {
    /** The storage after the last request: the next one's "before", unless a key was made for the run in between. */
    let last: Awaited<ReturnType<typeof storageFingerprint>>;
    let keysMade = 0;

    afterAll(removeWriteCounter);
    beforeAll(async () => {
      const tables = await installWriteCounter();
      expect(tables).toEqual(
        expect.arrayContaining(["orders", "numbers", "kyc_verifications", "kyc_documents", "api_keys", "order_counts"]),
      );
      // The fingerprint sees a write and an upload (else the property would hold vacuously).
      const before = await storageFingerprint();
      // A verification of its own (the random requests before may have deleted the account's ones).
      const probe = await submittedVerification("probe");
      await createdDocument(await uploadFile(probe.customer, probe.numberId, pdf(), "probe.pdf"));
      last = await storageFingerprint();
      expect(last.rowWrites).toBeGreaterThan(before.rowWrites);
      expect(last.objects.length).toBe(before.objects.length + 1);
    });

    test.prop([anyRequest], { numRuns: RUNS })(
      "changes no row and no object when it answers 4xx, or only reads (but for the audit event of a staff read)",
      async (spec) => {
        const credential = await credentialFor(spec);
        if (keys.made !== keysMade) {
          keysMade = keys.made;
          last = await storageFingerprint();
        }
        const before = last;
        const { status, label } = await send(spec, credential);
        last = await storageFingerprint();
        if (status < 400 && spec.method !== "GET" && spec.method !== "HEAD") return;
        // A GET may record that it was made (a staff member's read of a document), and change nothing else; a HEAD nothing.
        if (status < 400 && spec.method === "GET")
          expect({ ...last, auditWrites: 0 }, label).toEqual({ ...before, auditWrites: 0 });
        else expect(last, label).toEqual(before);
      },
      TIMEOUT,
    );
  });

  describe("with the other account's ids, slug, phone numbers and texts known", () => {
    let secrets: string[];

    beforeAll(async () => {
      secrets = await secretsOf(second);
      expect(secrets.length).toBeGreaterThan(20);
    });

    test.prop([customerRequest], { numRuns: RUNS })(
      "shows an account's key nothing of another account, in any answer's body or headers",
      async (spec) => {
        const { status, headers, text, label } = await send(spec, await credentialFor(spec));
        const answer = `${text} ${[...headers].map(([name, value]) => `${name}: ${value}`).join(" ")}`.toLowerCase();
        // An error may quote what the request said; anything else of the other account's is a leak.
        const sent = JSON.stringify(spec).toLowerCase();
        const leaked = secrets.filter((secret) => answer.includes(secret) && !(status >= 400 && sent.includes(secret)));
        expect(leaked, `${JSON.stringify(leaked)} leaked: ${label}`).toEqual([]);
      },
      TIMEOUT,
    );
  });
});
