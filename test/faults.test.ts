// Faults: every multi-step write with each of its storage steps failing in turn, before it reaches storage and after
// (a commit whose answer is lost). Whatever fails, the client gets a clean 500 problem (a retry succeeds) or, for
// best-effort work after the write, the write's own answer; and the state read afterwards through the real bindings is
// exactly the state before or exactly the complete write, with at most an object the orphan sweep removes.
import { env } from "cloudflare:workers";
import { asc, eq, inArray, sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { createDatabase } from "../src/db/client.ts";
import {
  auditEvents,
  events,
  idempotencyKeys,
  kycDocuments,
  kycVerifications,
  numberCounts,
  numbers,
  orderCounts,
  orders,
  reservationNumbers,
  reservations,
  staff,
  stockNumbers,
  webhookDeliveries,
  webhookEndpoints,
} from "../src/db/schema.ts";
import { OBJECT_PREFIX, ORPHAN_AGE_MS, sweepOrphanObjects } from "../src/kyc/documents.ts";
import { TEST_ADMIN_TOKEN } from "./constants.ts";
import { callOverFaults, FaultPlan, type FaultyCall, InjectedFault } from "./faulty-storage.ts";
import { createdDocument, filesPath, pdf, uploadFile } from "./files.ts";
import {
  allocateNumbers,
  createCustomer,
  createWebhookEndpoint,
  expectStatus,
  INDIVIDUAL_ADDRESS,
  json,
  type LogLine,
  makeOrderable,
  operator,
  problem,
  submittedVerification,
  type TestCustomer,
  uniquePhoneNumber,
  withLogs,
} from "./helpers.ts";

/** The real bindings: what the state is read through, whatever the faulty ones did. */
const db = createDatabase(env.DB);

/** What the failure of a step must lead to. */
type OnFault =
  /** A clean 500 problem, the state as before, and a retry of the same request succeeds. */
  | "fails"
  /** Work after the write (or beside it) that may fail: the write's own answer, and the complete state. */
  | "best-effort";

interface Step {
  /** As the plan names it: "D1 insert orders", "R2 put". */
  step: string;
  onFault: OnFault;
}

/** The statements that record an event, in the batch of the change (src/db/outbox.ts). */
const EVENT = " + insert events + insert webhook_deliveries";
/** The statement that records an audit event, in the batch of the change (src/db/audit.ts). */
const AUDIT = " + insert audit_events";

const fails = (step: string): Step => ({ step, onFault: "fails" });
const bestEffort = (step: string): Step => ({ step, onFault: "best-effort" });

interface Write<S> {
  /** Fresh data for one run, made through the real bindings. */
  prepare(): Promise<S>;
  /** The request, built anew for each call (a body is read once). */
  request(s: S): { path: string; init: RequestInit };
  /** The state the write changes, read through the real bindings, without what differs between runs (ids, times). */
  state(s: S): Promise<unknown>;
  /** Stored objects no row names (documents only): outside the state; none may be left but by a best-effort removal. */
  orphans?(s: S): Promise<string[]>;
  /** The status of the write's answer. */
  status: number;
  /** Whether the write records events of the account's (and so sends deliveries after the answer); it does by default. */
  sendsEvents?: boolean;
}

const PROBLEM_FIELDS = ["code", "detail", "request_id", "status", "title", "type"];

/** Whether the error, or one it wraps (Drizzle wraps D1's errors), is the injected fault. */
function isInjected(error: unknown): boolean {
  for (let current = error; current instanceof Error; current = current.cause) {
    if (current instanceof InjectedFault) return true;
  }
  return false;
}

async function call<S>(write: Write<S>, s: S, plan: FaultPlan): Promise<{ result: FaultyCall; lines: LogLine[] }> {
  const { path, init } = write.request(s);
  return withLogs(() => callOverFaults(plan, path, init));
}

/** The request's own log line (the one with its request id). */
function requestLine(lines: LogLine[], response: Response): LogLine | undefined {
  return lines.find((line) => line.request_id === response.headers.get("X-Request-Id") && "status" in line);
}

/** Orphans are kept until they are an hour old, then the sweep removes them. */
async function expectSweptWhenOld(orphans: string[]): Promise<void> {
  await sweepOrphanObjects(db, env.DOCUMENTS, Date.now());
  for (const key of orphans) expect(await env.DOCUMENTS.head(key)).not.toBeNull();
  expect(await sweepOrphanObjects(db, env.DOCUMENTS, Date.now() + ORPHAN_AGE_MS)).toBeGreaterThanOrEqual(orphans.length);
  for (const key of orphans) expect(await env.DOCUMENTS.head(key)).toBeNull();
}

/**
 * The write's tests: with no fault it takes exactly `steps` (so a new step is noticed), then each step fails in turn on
 * fresh data, and the answer, the log and the state are checked against what that step's failure must lead to.
 */
function faultTests<S extends { customer: TestCustomer }>(write: Write<S>, steps: Step[]): void {
  const { prepare, state } = write;
  write = {
    ...write,
    // The account has a webhook endpoint, so a change's event has a delivery to put on the queue after the answer.
    prepare: async () => {
      const s = await prepare();
      await createWebhookEndpoint(s.customer);
      return s;
    },
    // The account's events and their deliveries, and its audit events, join the state: no change without them, and
    // none without a change.
    state: async (s) => ({
      state: await state(s),
      events: await eventState(s.customer.customerId),
      audit: await auditState(s.customer.customerId),
    }),
  };
  // Last, after the answer: the new deliveries go on the queue; a lost message is the sweep's to send.
  if (write.sendsEvents !== false) steps = [...steps, bestEffort("Queue send")];
  let reference: Promise<{ before: unknown; after: unknown; steps: string[] }> | undefined;
  /** One run without a fault: the state before and after the complete write, and the steps it took. */
  function referenceRun() {
    reference ??= (async () => {
      const s = await write.prepare();
      const before = await write.state(s);
      const plan = new FaultPlan();
      const { result } = await call(write, s, plan);
      await expectStatus(result.response, write.status);
      expect(result.background).toBeUndefined();
      return { before, after: await write.state(s), steps: plan.steps };
    })();
    return reference;
  }

  it(`takes ${steps.length} storage step(s) without a fault, and changes the state`, async () => {
    const { before, after, steps: taken } = await referenceRun();
    expect(taken).toEqual(steps.map((s) => s.step));
    expect(after).not.toEqual(before);
  });

  it.for(steps.map((s, i) => ({ ...s, at: i + 1 })))("step $at failing ($step): $onFault", async ({ step, onFault, at }) => {
    const { before, after: complete } = await referenceRun();
    const s = await write.prepare();
    expect(await write.state(s)).toEqual(before);

    const plan = new FaultPlan(at);
    const { result, lines } = await call(write, s, plan);
    expect(plan.steps[at - 1]).toBe(step);
    const { response, background } = result;
    const line = requestLine(lines, response);

    if (onFault === "fails") {
      const body = await problem(response, 500, "internal_error");
      // Nothing of the failure reaches the client: no stack, no SQL, no storage message.
      expect(Object.keys(body).sort()).toEqual(PROBLEM_FIELDS);
      expect(body.detail).toBe("An unexpected error occurred");
      expect(line).toMatchObject({ level: "error", status: 500, request_id: body.request_id });
      expect(line?.error).toContain("InjectedFault");
      expect(await write.state(s)).toEqual(before);
    } else {
      await expectStatus(response, write.status);
      expect(line).toMatchObject({ level: "info", status: write.status });
      // The failure is not lost: it is the failure of the work left to waitUntil, or logged as a warning.
      const warned = lines.some((l) => l.level === "warn" && String(l.error).includes("InjectedFault"));
      expect(warned || isInjected(background), `${step} failed unnoticed`).toBe(true);
      expect(await write.state(s)).toEqual(complete);
    }
    // A failed write cleans up after itself; only a best-effort removal may leave an object to the sweep.
    const orphans = (await write.orphans?.(s)) ?? [];
    if (onFault === "fails") expect(orphans).toEqual([]);
    else if (orphans.length > 0) await expectSweptWhenOld(orphans);

    if (onFault === "fails") {
      const retry = await call(write, s, new FaultPlan());
      await expectStatus(retry.result.response, write.status);
      expect(await write.state(s)).toEqual(complete);
    }
  });

  // A step that reaches storage and then fails (a commit whose answer is lost) leaves the app unsure whether it
  // happened; it must still answer cleanly, and the state must be whole either way.
  it.for(steps.map((s, i) => ({ ...s, at: i + 1 })))("step $at ran but its answer was lost ($step)", async ({ step, at }) => {
    const { before, after: complete } = await referenceRun();
    const s = await write.prepare();
    const plan = FaultPlan.losingAnswers(at);
    const { result, lines } = await call(write, s, plan);
    expect(plan.steps[at - 1]).toBe(step);
    const state = await write.state(s);
    if (result.response.status === 500) {
      const body = await problem(result.response, 500, "internal_error");
      expect(requestLine(lines, result.response)).toMatchObject({ level: "error", request_id: body.request_id });
      expect([before, complete]).toContainEqual(state);
    } else {
      // An answer of success is true: the write is whole.
      await expectStatus(result.response, write.status);
      expect(state).toEqual(complete);
    }
    const orphans = (await write.orphans?.(s)) ?? [];
    if (orphans.length > 0) await expectSweptWhenOld(orphans);
  });
}

const authorization = (key: string) => ({ Authorization: `Bearer ${key}` });
const asOperator = authorization(TEST_ADMIN_TOKEN);

function jsonInit(method: string, headers: Record<string, string>, body: unknown): RequestInit {
  return { method, headers: { ...headers, "Content-Type": "application/json" }, body: JSON.stringify(body) };
}

/** A key of the customer's that no request has used: its first request looks it up before the handler runs. */
async function unusedKey(customer: TestCustomer): Promise<string> {
  const created = await json(
    await operator.admin.customers[":slug"]["api-keys"].$post({ param: { slug: customer.slug }, json: { name: "faults" } }),
    201,
  );
  return created.key;
}

/** A key this isolate knows from an earlier read: its writes carry the key's check in front of their first batch. */
async function knownKey(customer: TestCustomer): Promise<string> {
  const key = await unusedKey(customer);
  const { response } = await callOverFaults(new FaultPlan(), `/api/customers/${customer.slug}/orders`, {
    headers: authorization(key),
  });
  await expectStatus(response, 200);
  return key;
}

/**
 * A customer write is tested twice, as src/customers/api-key-guard.ts makes its steps: on the key's first request (the key is read
 * before the handler, and its last use written after the answer, best-effort), and with a key already known (an
 * assertion that the key is active rides in front of the handler's first batch, in the same transaction).
 */
function customerWriteTests<S extends { customer: TestCustomer }>(
  name: string,
  write: Omit<Write<S & { key: string }>, "prepare"> & { prepare(): Promise<S> },
  handlerSteps: Step[],
): void {
  const [first, ...rest] = handlerSteps;
  if (!first?.step.startsWith("D1 ")) throw new Error("a customer write starts with a D1 call");
  describe(`${name}, on the key's first request`, () => {
    faultTests({ ...write, prepare: async () => withKey(await write.prepare(), unusedKey) }, [
      fails("D1 select api_keys"),
      ...handlerSteps,
      bestEffort("D1 update api_keys"),
    ]);
  });
  describe(`${name}, with a known key`, () => {
    faultTests({ ...write, prepare: async () => withKey(await write.prepare(), knownKey) }, [
      { ...first, step: first.step.replace(/^D1 /, "D1 insert batch_assertions + ") },
      ...rest,
    ]);
  });
}

async function withKey<S extends { customer: TestCustomer }>(s: S, key: (customer: TestCustomer) => Promise<string>) {
  return { ...s, key: await key(s.customer) };
}

// ---- State readers: the rows a write changes, with ids and times left out (fresh data differs in those only).

/** The account's events, oldest first, by type; and how many deliveries they have. */
async function eventState(customerId: string) {
  const rows = await db
    .select({
      type: events.type,
      deliveries: sql<number>`(SELECT count(*) FROM ${webhookDeliveries} WHERE ${webhookDeliveries.eventId} = ${events.id})`,
    })
    .from(events)
    .where(eq(events.customerId, customerId))
    .orderBy(sql`${events}.rowid`);
  return rows;
}

/** The account's audit events, oldest first: what happened, to what, and the changes (ids and times left out). */
async function auditState(customerId: string) {
  const rows = await db
    .select({ action: auditEvents.action, targetType: auditEvents.targetType, changes: auditEvents.changes })
    .from(auditEvents)
    .where(eq(auditEvents.customerId, customerId))
    .orderBy(sql`${auditEvents}.rowid`);
  return rows.map((row) => ({ ...row, changes: Object.keys(JSON.parse(row.changes)).sort() }));
}

/** Whether the account holds an idempotency key (claimed or answered). */
async function idempotencyKeyHeld(customerId: string): Promise<boolean> {
  const [row] = await db.select({ n: sql<number>`count(*)` }).from(idempotencyKeys).where(eq(idempotencyKeys.scope, customerId));
  return row!.n > 0;
}

async function orderState(customerId: string) {
  const rows = await db
    .select({
      numberType: orders.numberType,
      countryCode: orders.countryCode,
      quantity: orders.quantity,
      status: orders.status,
      fulfilledQuantity: orders.fulfilledQuantity,
      notes: orders.notes,
      fulfilled: sql<number>`${orders.fulfilledAt} IS NOT NULL`,
    })
    .from(orders)
    .where(eq(orders.customerId, customerId))
    .orderBy(asc(orders.orderSeq));
  const counts = await db
    .select({
      numberType: orderCounts.numberType,
      countryCode: orderCounts.countryCode,
      status: orderCounts.status,
      count: orderCounts.count,
    })
    .from(orderCounts)
    .where(eq(orderCounts.customerId, customerId))
    .orderBy(asc(orderCounts.status));
  return { orders: rows, counts };
}

/** The customer's numbers, each named by its place in `phoneNumbers` (the numbers differ between runs). */
async function numberState(customerId: string, phoneNumbers: string[]) {
  const rows = await db
    .select({ phoneNumber: numbers.phoneNumber, status: numbers.status, countryCode: numbers.countryCode })
    .from(numbers)
    .where(eq(numbers.customerId, customerId))
    .orderBy(asc(numbers.phoneNumber));
  const counts = await db
    .select({ status: numberCounts.status, count: numberCounts.count })
    .from(numberCounts)
    .where(eq(numberCounts.customerId, customerId));
  return {
    numbers: rows.map((r) => ({ ...r, phoneNumber: phoneNumbers.indexOf(r.phoneNumber) })),
    counts,
  };
}

const bareId = (id: string) => id.replace(/^[a-z]+_/, "");

async function verificationState(numberId: string) {
  const rows = await db
    .select({
      status: kycVerifications.status,
      city: kycVerifications.city,
      rejectionReason: kycVerifications.rejectionReason,
      amended: sql<number>`${kycVerifications.updatedAt} IS NOT NULL`,
      reviewed: sql<number>`${kycVerifications.reviewedAt} IS NOT NULL`,
      expires: sql<number>`${kycVerifications.expiresAt} IS NOT NULL`,
    })
    .from(kycVerifications)
    .where(eq(kycVerifications.numberId, bareId(numberId)));
  return rows;
}

/** The verification's objects in R2, by key. */
async function objectKeys(kyc: { customerId: string; kycId: string }): Promise<string[]> {
  const listed = await env.DOCUMENTS.list({ prefix: `${OBJECT_PREFIX}${kyc.customerId}/${bareId(kyc.kycId)}/` });
  return listed.objects.map((o) => o.key);
}

/** The verification's document rows, each with whether its object is stored. */
async function documentState(kyc: { customerId: string; kycId: string }) {
  const rows = await db
    .select()
    .from(kycDocuments)
    .where(eq(kycDocuments.kycId, bareId(kyc.kycId)))
    .orderBy(asc(kycDocuments.filename));
  const keys = await objectKeys(kyc);
  return rows.map((r) => ({
    filename: r.filename,
    documentType: r.documentType,
    status: r.status,
    fileSize: r.fileSize,
    stored: keys.includes(r.objectKey),
  }));
}

/** Objects of the verification that no document row names. */
async function orphanKeys(kyc: { customerId: string; kycId: string }): Promise<string[]> {
  const rows = await db
    .select({ objectKey: kycDocuments.objectKey })
    .from(kycDocuments)
    .where(eq(kycDocuments.kycId, bareId(kyc.kycId)));
  return (await objectKeys(kyc)).filter((key) => !rows.some((r) => r.objectKey === key));
}

// ---- Fresh data.

// US mobile in the catalog, once for the file: no write here changes that pair.
const US_MOBILE = { orderable: "made-by-file" } as const;
beforeAll(() => makeOrderable("US", "mobile"));

interface OrderSetup {
  customer: TestCustomer;
  orderId: string;
}

async function pendingOrder(quantity = 2): Promise<OrderSetup> {
  const customer = await createCustomer("f");
  const order = await json(
    await customer.account.orders.$post({
      param: { customer_slug: customer.slug },
      json: { number_type: "mobile", country_code: "US", quantity },
    }),
    201,
  );
  return { customer, orderId: order.order_id };
}

interface KycSetup {
  customer: TestCustomer;
  customerId: string;
  numberId: string;
  kycId: string;
}

async function numberOfNewCustomer(): Promise<{ customer: TestCustomer; numberId: string }> {
  const customer = await createCustomer("f");
  const [number] = await allocateNumbers(customer, 1, US_MOBILE);
  if (!number) throw new Error("no number allocated");
  return { customer, numberId: number.number_id };
}

async function submittedKyc(): Promise<KycSetup> {
  const setup = await submittedVerification("f", US_MOBILE);
  return { ...setup, customerId: setup.customer.customerId };
}

async function withDocument(setup: KycSetup): Promise<KycSetup & { documentId: string }> {
  const doc = await createdDocument(await uploadFile(setup.customer, `num_${setup.numberId}`, pdf(), "kept.pdf"));
  return { ...setup, documentId: doc.id };
}

async function review(kycId: string, status: "under_review" | "approved" | "rejected", rejectionReason?: string) {
  const body = rejectionReason === undefined ? { status } : { status, rejection_reason: rejectionReason };
  await json(await operator.admin.kyc[":kyc_id"].review.$post({ param: { kyc_id: kycId }, json: body }), 200);
}

function uploadInit(key: string, headers: Record<string, string> = {}): RequestInit {
  const form = new FormData();
  form.set("file", new File([pdf()], "new.pdf", { type: "application/pdf" }));
  form.set("document_type", "address_proof");
  return { method: "POST", headers: { ...headers, ...authorization(key) }, body: form };
}

// ---- The writes.

customerWriteTests(
  "order create",
  {
    prepare: async () => ({ customer: await createCustomer("f") }),
    request: (s) => ({
      path: `/api/customers/${s.customer.slug}/orders`,
      init: jsonInit("POST", authorization(s.key), { number_type: "mobile", country_code: "US", quantity: 3, notes: "n" }),
    }),
    state: (s) => orderState(s.customer.customerId),
    status: 201,
  },
  // Whether the pair fulfils its orders at once (auto_fulfil), then the order.
  [fails("D1 select catalog_settings"), fails(`D1 insert orders${EVENT}`)],
);

// The idempotency record around a write: claimed before it (riding with the key's check), released when the write
// fails, written with the answer after it (best-effort: the answer stands, and the key stays claimed).
customerWriteTests(
  "order create with an Idempotency-Key",
  {
    prepare: async () => ({ customer: await createCustomer("f") }),
    request: (s) => ({
      path: `/api/customers/${s.customer.slug}/orders`,
      init: jsonInit(
        "POST",
        { ...authorization(s.key), "Idempotency-Key": "retry-safe" },
        { number_type: "mobile", country_code: "US", quantity: 3 },
      ),
    }),
    state: async (s) => ({
      orders: await orderState(s.customer.customerId),
      keyHeld: await idempotencyKeyHeld(s.customer.customerId),
    }),
    status: 201,
  },
  [
    fails("D1 insert idempotency_keys + select idempotency_keys"),
    fails("D1 select catalog_settings"),
    fails(`D1 insert orders${EVENT}`),
    bestEffort("D1 update idempotency_keys"),
  ],
);

customerWriteTests(
  "order update",
  {
    prepare: () => pendingOrder(),
    request: (s) => ({
      path: `/api/customers/${s.customer.slug}/orders/${s.orderId}`,
      init: jsonInit("PUT", authorization(s.key), { quantity: 5, notes: "changed" }),
    }),
    state: (s) => orderState(s.customer.customerId),
    status: 200,
  },
  [fails(`D1 update orders${EVENT}`)],
);

describe("allocation", () => {
  faultTests(
    {
      prepare: async () => ({ ...(await pendingOrder(2)), phoneNumbers: [uniquePhoneNumber(), uniquePhoneNumber()] }),
      request: (s) => ({
        path: `/admin/orders/${s.orderId}/numbers`,
        init: jsonInit("POST", asOperator, { phone_numbers: s.phoneNumbers }),
      }),
      state: async (s) => ({
        ...(await orderState(s.customer.customerId)),
        ...(await numberState(s.customer.customerId, s.phoneNumbers)),
      }),
      status: 201,
    },
    [
      fails("D1 select orders"),
      fails("D1 select numbers"),
      fails("D1 select stock_numbers"),
      fails(
        `D1 insert batch_assertions + insert numbers + delete stock_numbers${EVENT}${AUDIT} + update orders + update events${EVENT}${EVENT}`,
      ),
    ],
  );
});

describe("allocation from stock (the numbers picked inside the batch)", () => {
  faultTests(
    {
      prepare: async () => {
        const type = freshType();
        await makeOrderable("US", type);
        const customer = await createCustomer("f");
        const order = await json(
          await customer.account.orders.$post({
            param: { customer_slug: customer.slug },
            json: { number_type: type, country_code: "US", quantity: 2 },
          }),
          201,
        );
        const phoneNumbers = [uniquePhoneNumber(), uniquePhoneNumber(), uniquePhoneNumber()];
        await json(
          await operator.admin.stock.$post({
            json: { numbers: phoneNumbers.map((phone_number) => ({ phone_number, country_code: "US", number_type: type })) },
          }),
          201,
        );
        return { customer, orderId: order.order_id, type, phoneNumbers };
      },
      request: (s) => ({ path: `/admin/orders/${s.orderId}/numbers`, init: jsonInit("POST", asOperator, { from_stock: 2 }) }),
      // Each run's own type (each its own stock) is named alike in every run's state.
      state: async (s) =>
        JSON.parse(
          JSON.stringify({
            ...(await orderState(s.customer.customerId)),
            ...(await numberState(s.customer.customerId, s.phoneNumbers)),
            stock: (
              await db
                .select({ phoneNumber: stockNumbers.phoneNumber })
                .from(stockNumbers)
                .where(eq(stockNumbers.numberType, s.type))
                .orderBy(asc(stockNumbers.phoneNumber))
            ).map((row) => s.phoneNumbers.indexOf(row.phoneNumber)),
          }).replaceAll(`"${s.type}"`, '"the type"'),
        ),
      status: 201,
    },
    [
      fails("D1 select orders"),
      fails("D1 select stock_counts"),
      fails(
        `D1 insert numbers + delete stock_numbers + insert batch_assertions${EVENT}${AUDIT} + update orders + update events${EVENT}${EVENT}`,
      ),
    ],
  );
});

describe("order status move", () => {
  faultTests(
    {
      prepare: () => pendingOrder(),
      request: (s) => ({
        path: `/admin/orders/${s.orderId}/status`,
        init: jsonInit("POST", asOperator, { status: "processing" }),
      }),
      state: (s) => orderState(s.customer.customerId),
      status: 200,
    },
    [fails(`D1 insert audit_events + update orders${EVENT}`)],
  );
});

customerWriteTests(
  "KYC submit",
  {
    prepare: numberOfNewCustomer,
    request: (s) => ({
      path: `/v1/numbers/num_${s.numberId}/KYC/address`,
      init: jsonInit("POST", authorization(s.key), INDIVIDUAL_ADDRESS),
    }),
    state: (s) => verificationState(s.numberId),
    status: 201,
  },
  [fails(`D1 insert kyc_verifications${EVENT}`)],
);

customerWriteTests(
  "KYC amend of a rejected verification (it re-opens, its documents follow)",
  {
    prepare: async () => {
      const setup = await withDocument(await submittedKyc());
      await review(setup.kycId, "under_review");
      await review(setup.kycId, "rejected", "blurred");
      return setup;
    },
    request: (s) => ({
      path: `/v1/numbers/num_${s.numberId}/KYC/address`,
      init: jsonInit("PATCH", authorization(s.key), { city: "Oakland" }),
    }),
    state: async (s) => ({ verification: await verificationState(s.numberId), documents: await documentState(s) }),
    status: 200,
  },
  [fails(`D1 update kyc_documents + update kyc_verifications${EVENT} + select kyc_documents`)],
);

customerWriteTests(
  "KYC upload",
  {
    prepare: submittedKyc,
    request: (s) => ({ path: filesPath(`num_${s.numberId}`), init: uploadInit(s.key) }),
    state: documentState,
    orphans: orphanKeys,
    status: 201,
  },
  [
    fails("D1 select numbers + select kyc_verifications + select kyc_documents"),
    fails("R2 put"),
    fails(`D1 insert kyc_documents${EVENT}`),
  ],
);

// An upload's key is looked up first (riding with the key's check), claimed only after the checks that need no body.
customerWriteTests(
  "KYC upload with an Idempotency-Key",
  {
    prepare: submittedKyc,
    request: (s) => ({ path: filesPath(`num_${s.numberId}`), init: uploadInit(s.key, { "Idempotency-Key": "scan" }) }),
    state: async (s) => ({ documents: await documentState(s), keyHeld: await idempotencyKeyHeld(s.customerId) }),
    orphans: orphanKeys,
    status: 201,
  },
  [
    fails("D1 select idempotency_keys"),
    fails("D1 select numbers + select kyc_verifications + select kyc_documents"),
    fails("D1 insert idempotency_keys + select idempotency_keys"),
    fails("R2 put"),
    fails(`D1 insert kyc_documents${EVENT}`),
    bestEffort("D1 update idempotency_keys"),
  ],
);

customerWriteTests(
  "KYC delete",
  {
    prepare: async () => withDocument(await submittedKyc()),
    request: (s) => ({ path: `/v1/kyc/documents/${s.documentId}`, init: { method: "DELETE", headers: authorization(s.key) } }),
    state: documentState,
    orphans: orphanKeys,
    status: 200,
  },
  [fails(`D1 insert events + insert webhook_deliveries + delete kyc_documents`), bestEffort("R2 delete")],
);

describe("KYC review (the verification and its documents move together)", () => {
  faultTests(
    {
      prepare: async () => {
        const setup = await withDocument(await submittedKyc());
        await review(setup.kycId, "under_review");
        return setup;
      },
      request: (s) => ({ path: `/admin/kyc/${s.kycId}/review`, init: jsonInit("POST", asOperator, { status: "approved" }) }),
      state: async (s) => ({ verification: await verificationState(s.numberId), documents: await documentState(s) }),
      status: 200,
    },
    [fails(`D1 insert audit_events + update kyc_documents + update kyc_verifications${EVENT} + select kyc_documents`)],
  );
});

describe("KYC upload whose row write fails, and then its clean-up too", () => {
  // With a known key: the key's check with the verification's read, the object, the row (failing), then the clean-up:
  // a read for the row (a failed write may have committed) and, when there is none, the object's removal.
  const steps = [
    "D1 insert batch_assertions + select numbers + select kyc_verifications + select kyc_documents",
    "R2 put",
    `D1 insert kyc_documents${EVENT}`,
    "D1 select kyc_documents",
    "R2 delete",
  ];
  it.for([
    { failing: [3, 5], cleanUp: "the removal fails", taken: steps, warned: true },
    { failing: [3, 4], cleanUp: "the read fails (the object is kept)", taken: steps.slice(0, 4), warned: false },
  ])(
    "answers 500 with no row when $cleanUp; the object left has no row and the sweep removes it once old",
    async ({ failing, taken, warned }) => {
      const setup = await withKey(await submittedKyc(), knownKey);
      const plan = new FaultPlan(...failing);
      const { result, lines } = await withLogs(() =>
        callOverFaults(plan, filesPath(`num_${setup.numberId}`), uploadInit(setup.key)),
      );
      expect(plan.steps).toEqual(taken);
      const body = await problem(result.response, 500, "internal_error");
      expect(requestLine(lines, result.response)).toMatchObject({ level: "error", request_id: body.request_id });
      // Only a removal that failed is reported as an orphan left for the sweep.
      expect(lines.some((l) => l.level === "warn" && l.event === "orphan-left-for-sweep")).toBe(warned);

      expect(await documentState(setup)).toEqual([]);
      const orphans = await orphanKeys(setup);
      expect(orphans).toHaveLength(1);
      await expectSweptWhenOld(orphans);

      const { response } = await callOverFaults(new FaultPlan(), filesPath(`num_${setup.numberId}`), uploadInit(setup.key));
      await expectStatus(response, 201);
      expect(await documentState(setup)).toEqual([
        { filename: "new.pdf", documentType: "address_proof", status: "uploaded", fileSize: pdf().length, stored: true },
      ]);
    },
  );
});

describe("webhook endpoint create (its audit event in the same batch)", () => {
  customerWriteTests(
    "webhook endpoint create",
    {
      prepare: async () => ({ customer: await createCustomer("f") }),
      request: (s) => ({
        path: `/api/customers/${s.customer.slug}/webhook-endpoints`,
        init: jsonInit("POST", authorization(s.key), { url: "https://hooks.test/faults", description: "f" }),
      }),
      state: async (s) =>
        (
          await db
            .select({ url: webhookEndpoints.url })
            .from(webhookEndpoints)
            .where(eq(webhookEndpoints.customerId, s.customer.customerId))
        ).map((r) => r.url),
      status: 201,
      sendsEvents: false,
    },
    [fails(`D1 insert webhook_endpoints${AUDIT}`)],
  );
});

/** A number type of a run's own, for the stock it imports. */
const freshType = () => `f${crypto.randomUUID().slice(0, 8)}`;

describe("stock import (its rows and its audit event in one batch)", () => {
  faultTests(
    {
      prepare: async () => ({
        customer: await createCustomer("f"),
        type: freshType(),
        numbers: [uniquePhoneNumber(), uniquePhoneNumber()],
      }),
      request: (s) => ({
        path: "/admin/stock",
        init: jsonInit("POST", asOperator, {
          numbers: s.numbers.map((phone_number) => ({ phone_number, country_code: "US", number_type: s.type })),
        }),
      }),
      state: async (s) => {
        const stocked = await db
          .select({ importId: stockNumbers.importId })
          .from(stockNumbers)
          .where(eq(stockNumbers.numberType, s.type));
        const imports = [...new Set(stocked.map((r) => r.importId))];
        const audited =
          imports.length === 0
            ? []
            : await db.select({ changes: auditEvents.changes }).from(auditEvents).where(inArray(auditEvents.targetId, imports));
        return { stocked: stocked.length, audited: audited.map((a) => JSON.parse(a.changes)) };
      },
      status: 201,
      sendsEvents: false,
    },
    [fails(`D1 insert stock_numbers${AUDIT} + select catalog`)],
  );
});

describe("staff change (the row and its audit event in one batch)", () => {
  faultTests(
    {
      prepare: async () => ({ customer: await createCustomer("f"), email: `f.${crypto.randomUUID().slice(0, 8)}@operator.test` }),
      request: (s) => ({
        path: `/admin/staff/${s.email}`,
        init: jsonInit("PUT", asOperator, { name: "Faulty", role: "compliance" }),
      }),
      state: async (s) => ({
        staff: await db
          .select({ name: staff.name, role: staff.role, status: staff.status })
          .from(staff)
          .where(eq(staff.email, s.email)),
        audited: (
          await db.select({ changes: auditEvents.changes }).from(auditEvents).where(eq(auditEvents.targetId, s.email))
        ).map((a) => JSON.parse(a.changes)),
      }),
      status: 201,
      sendsEvents: false,
    },
    [fails("D1 select staff"), fails(`D1 insert staff${AUDIT}`)],
  );
});

describe("reservation by quantity (the numbers picked and held inside the batch)", () => {
  customerWriteTests(
    "reservation create",
    {
      prepare: async () => {
        const type = freshType();
        await makeOrderable("US", type);
        const phoneNumbers = [uniquePhoneNumber(), uniquePhoneNumber(), uniquePhoneNumber()].sort();
        await json(
          await operator.admin.stock.$post({
            json: { numbers: phoneNumbers.map((phone_number) => ({ phone_number, country_code: "US", number_type: type })) },
          }),
          201,
        );
        return { customer: await createCustomer("f"), type, phoneNumbers };
      },
      request: (s) => ({
        path: `/api/customers/${s.customer.slug}/reservations`,
        init: jsonInit("POST", authorization(s.key), { country_code: "US", number_type: s.type, quantity: 2 }),
      }),
      // The stock rows by place: their status, and whether a reservation of the account holds them.
      state: async (s) => {
        const rows = await db
          .select({ phoneNumber: stockNumbers.phoneNumber, status: stockNumbers.status, holder: stockNumbers.reservationId })
          .from(stockNumbers)
          .where(inArray(stockNumbers.phoneNumber, s.phoneNumbers))
          .orderBy(asc(stockNumbers.phoneNumber));
        const held = await db
          .select({ quantity: reservations.quantity, phoneNumber: reservationNumbers.phoneNumber })
          .from(reservations)
          .leftJoin(reservationNumbers, eq(reservationNumbers.reservationId, reservations.id))
          .where(eq(reservations.customerId, s.customer.customerId))
          .orderBy(asc(reservationNumbers.phoneNumber));
        return {
          stock: rows.map((row) => [row.status, row.holder !== null]),
          reservations: held.map((row) => [row.quantity, s.phoneNumbers.indexOf(row.phoneNumber ?? "")]),
        };
      },
      status: 201,
    },
    [
      fails("D1 select stock_numbers"),
      fails("D1 select catalog"),
      fails("D1 select reservations"),
      fails(
        `D1 insert reservations + insert reservation_numbers + update stock_numbers + insert batch_assertions + insert batch_assertions${EVENT}`,
      ),
    ],
  );
});
