// Model-based test of the order life cycle: random sequences of creates (orderable or not), customer updates and cancels, the
// operator's status moves and number allocations, each answer checked against a plain in-memory model written from
// SPEC.md and DECISIONS.md (not from the store), and the final state read back through the API after every run.
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import {
  type Call,
  type DescribedOperation,
  describedOperations,
  type Exchange,
  exchangeWith,
  expectDuring,
  expectRefusal,
  operationNamed,
} from "./api-description.ts";
import { TEST_ADMIN_TOKEN } from "./constants.ts";
import { createCustomer, json, type KeyRing, keyRing, makeOrderable, operator, type TestCustomer } from "./helpers.ts";

type Status = "pending" | "processing" | "fulfilled" | "cancelled";
const STATUSES: Status[] = ["pending", "processing", "fulfilled", "cancelled"];

/** The pairs this file orders: these orderable, the others below not (whatever other pairs the catalog holds). */
const ORDERABLE = [
  ["US", "mobile"],
  ["US", "toll_free"],
  ["GB", "landline"],
  ["DE", "mobile"],
] as const;
const NOT_ORDERABLE = [
  ["FR", "mobile"],
  ["US", "landline"],
  ["JP", "toll_free"],
] as const;
const isOrderable = (country: string, type: string) => ORDERABLE.some(([c, t]) => c === country && t === type);

/** The operator's moves (DECISIONS, Admin). */
const MOVES: Record<Status, Status[]> = {
  pending: ["processing", "cancelled"],
  processing: ["cancelled"],
  fulfilled: [],
  cancelled: [],
};

interface ModelOrder {
  id: string;
  orderNumber: string;
  numberType: string;
  countryCode: string;
  quantity: number;
  notes: string | null;
  status: Status;
  phoneNumbers: string[];
  requestedAt: string;
  createdAt: string;
  updatedAt: string;
  fulfilledAt: string | null;
}

interface Model {
  orders: ModelOrder[];
}

/** What the commands act on: this run's account and its keys, and the file's other account. */
interface Real {
  customer: TestCustomer;
  keys: KeyRing;
}

let operations: DescribedOperation[];
const op = (id: string) => operationNamed(operations, id);
/** The last order number handed out: the sequence is global and gap-free, so each create takes the next one. */
let lastSequence = 0;
/** Another account's order and allocated number: never visible to this run's key, and taken for allocation. */
let foreign: { orderId: string; phoneNumber: string };
let requests = 0;
/** Outcomes met so far ("createOrder 201", "fulfilled", …), so a run that never reached a state fails. */
const seen = new Set<string>();
let phoneCounter = 0;

/** A phone number no one has been allocated yet. */
function freshPhoneNumber(): string {
  phoneCounter++;
  return `+4479${String(Date.now() % 10_000).padStart(4, "0")}${String(phoneCounter).padStart(5, "0")}`;
}

/** A request to an operation, counted, its outcome noted, its answer checked against the route's declaration. */
async function send(token: string, operationId: string, path: string, call?: Call): Promise<Exchange> {
  requests++;
  const answer = await exchangeWith(token, op(operationId), path, call);
  seen.add(`${operationId} ${answer.status}`);
  return answer;
}

type WireOrder = Record<string, unknown>;

/** Every field of an order answer against the model. */
function expectOrder(actual: WireOrder, order: ModelOrder, label: string): void {
  expect(actual, label).toEqual({
    order_id: order.id,
    order_number: order.orderNumber,
    number_type: order.numberType,
    country_code: order.countryCode,
    quantity: order.quantity,
    status: order.status,
    fulfilled_quantity: order.phoneNumbers.length,
    notes: order.notes,
    requested_at: order.requestedAt,
    fulfilled_at: order.fulfilledAt,
    created_at: order.createdAt,
    updated_at: order.updatedAt,
    kyc_profile_id: null,
    reservation_id: null,
  });
}

/** An updated_at the operator's move may or may not have changed: never earlier, never later than the answer. */
function laterUpdate(actual: unknown, order: ModelOrder, answer: Exchange): string {
  expect(Date.parse(String(actual)), answer.label).toBeGreaterThanOrEqual(Date.parse(order.updatedAt));
  expect(Date.parse(String(actual)), answer.label).toBeLessThanOrEqual(answer.to);
  return String(actual);
}

type Command = fc.AsyncCommand<Model, Real>;

/** A command that always applies (a request that must be refused is as much a part of the life cycle as any other). */
function command(description: string, run: (model: Model, real: Real) => Promise<void>): Command {
  return { check: () => true, run, toString: () => description };
}

/** Which order a command addresses: one of the model's, another account's, or one that does not exist. */
type Target = { kind: "own"; pick: number } | { kind: "foreign" } | { kind: "unknown" };
const target: fc.Arbitrary<Target> = fc.oneof(
  { arbitrary: fc.nat().map((pick): Target => ({ kind: "own", pick })), weight: 10 },
  { arbitrary: fc.constant<Target>({ kind: "foreign" }), weight: 1 },
  { arbitrary: fc.constant<Target>({ kind: "unknown" }), weight: 1 },
);

/** The order a target names now: the model's order, or an id that must answer 404 (to this account). */
function resolve(model: Model, to: Target): { order?: ModelOrder; id: string } {
  if (to.kind === "own" && model.orders.length > 0) {
    const order = model.orders[to.pick % model.orders.length] as ModelOrder;
    return { order, id: order.id };
  }
  return { id: to.kind === "foreign" ? foreign.orderId : crypto.randomUUID() };
}

const describeTarget = (to: Target) => (to.kind === "own" ? `#${to.pick}` : to.kind);

/** Notes: absent, null, text up to the 1,000-character limit. */
const someNotes = fc.option(
  fc.oneof(fc.constantFrom("Austin office", "zürich ✓", "100%_sure", "x".repeat(1000)), fc.string({ maxLength: 30 })),
  {
    nil: null,
  },
);
const somePair = fc.oneof({ arbitrary: fc.constantFrom(...ORDERABLE), weight: 4 }, fc.constantFrom(...NOT_ORDERABLE));
/** Small quantities mostly, so allocations fulfil orders; sometimes the bounds. */
const someQuantity = fc.oneof({ arbitrary: fc.integer({ min: 1, max: 4 }), weight: 6 }, fc.constantFrom(1, 10_000));

/** Bodies that break a rule of the wire format, each with the field rule it breaks. */
const CREATE_DEFECTS = {
  "quantity 0": (b: WireOrder) => ({ ...b, quantity: 0 }),
  "quantity 10001": (b: WireOrder) => ({ ...b, quantity: 10_001 }),
  "quantity 1.5": (b: WireOrder) => ({ ...b, quantity: 1.5 }),
  "quantity as text": (b: WireOrder) => ({ ...b, quantity: "3" }),
  "notes of 1001": (b: WireOrder) => ({ ...b, notes: "n".repeat(1001) }),
  "number_type empty": (b: WireOrder) => ({ ...b, number_type: "" }),
  "number_type of 51": (b: WireOrder) => ({ ...b, number_type: "m".repeat(51) }),
  "country lowercase": (b: WireOrder) => ({ ...b, country_code: "us" }),
  "status given": (b: WireOrder) => ({ ...b, status: "fulfilled" }),
  "fulfilled_quantity given": (b: WireOrder) => ({ ...b, fulfilled_quantity: 1 }),
  "no quantity": ({ quantity: _, ...rest }: WireOrder) => rest,
};
const { "no quantity": _optionalInUpdates, ...BROKEN_FIELDS } = CREATE_DEFECTS;
const UPDATE_DEFECTS = {
  ...BROKEN_FIELDS,
  "empty body": () => ({}),
  "order_number given": (b: WireOrder) => ({ ...b, order_number: "#000001" }),
};
const someDefect = <D extends Record<string, unknown>>(defects: D) =>
  // One request in five breaks a rule of the wire format.
  fc.oneof({ arbitrary: fc.constant(null), weight: 4 }, fc.constantFrom(...(Object.keys(defects) as (keyof D & string)[])));

function createOrder(
  pair: readonly [string, string],
  quantity: number,
  notes: string | null | undefined,
  defect: keyof typeof CREATE_DEFECTS | null,
): Command {
  return command(
    `create(${pair.join("/")} x${quantity}${notes === undefined ? "" : ` notes=${JSON.stringify(notes?.slice(0, 20))}`}${defect ? ` !${defect}` : ""})`,
    async (model: Model, real: Real) => {
      const [country, type] = pair;
      let body: WireOrder = { number_type: type, country_code: country, quantity: quantity };
      if (notes !== undefined) body.notes = notes;
      if (defect) body = CREATE_DEFECTS[defect](body);
      const answer = await send(await real.keys.next(), "createOrder", `/api/customers/${real.customer.slug}/orders`, {
        method: "POST",
        json: body,
      });
      if (defect) return expectRefusal(answer, [400, "validation_error"]);
      if (!isOrderable(country, type)) return expectRefusal(answer, [400, "not_orderable"]);
      expect(answer.status, answer.label).toBe(201);
      const created = answer.body as WireOrder;
      lastSequence++;
      const at = expectDuring(created.created_at, answer);
      const order: ModelOrder = {
        id: String(created.order_id),
        orderNumber: `#${String(lastSequence).padStart(6, "0")}`,
        numberType: type,
        countryCode: country,
        quantity,
        notes: notes ?? null,
        status: "pending",
        phoneNumbers: [],
        requestedAt: expectDuring(created.requested_at, answer),
        createdAt: at,
        updatedAt: expectDuring(created.updated_at, answer),
        fulfilledAt: null,
      };
      expectOrder(created, order, answer.label);
      expect(answer.headers.get("Location"), answer.label).toBe(`/api/customers/${real.customer.slug}/orders/${order.id}`);
      model.orders.push(order);
    },
  );
}

interface Changes {
  pair?: readonly [string, string];
  countryOnly?: string;
  quantity?: number;
  notes?: string | null;
}

function updateOrder(to: Target, changes: Changes, defect: keyof typeof UPDATE_DEFECTS | null): Command {
  return command(
    `update(${describeTarget(to)} ${JSON.stringify(changes).slice(0, 80)}${defect ? ` !${defect}` : ""})`,
    async (model: Model, real: Real) => {
      const { order, id } = resolve(model, to);
      let body: WireOrder = {};
      if (changes.pair) Object.assign(body, { country_code: changes.pair[0], number_type: changes.pair[1] });
      if (changes.countryOnly) body.country_code = changes.countryOnly;
      if (changes.quantity !== undefined) body.quantity = changes.quantity;
      if (changes.notes !== undefined) body.notes = changes.notes;
      if (defect) body = UPDATE_DEFECTS[defect](body);
      const answer = await send(await real.keys.next(), "updateOrder", `/api/customers/${real.customer.slug}/orders/${id}`, {
        method: "PUT",
        json: body,
      });
      if (defect || Object.keys(body).length === 0) return expectRefusal(answer, [400, "validation_error"]);
      if (!order) return expectRefusal(answer, [404, "not_found"]);
      const country = (body.country_code as string | undefined) ?? order.countryCode;
      const type = (body.number_type as string | undefined) ?? order.numberType;
      // The pair is checked when the update names it (DECISIONS: "update when either changes"); the rules do not say
      // which refusal wins when an order is both past pending and asked for a pair that is not orderable.
      const pairRefused = (body.country_code !== undefined || body.number_type !== undefined) && !isOrderable(country, type);
      if (order.status !== "pending") {
        return pairRefused
          ? expectRefusal(answer, [403, "order_not_pending"], [400, "not_orderable"])
          : expectRefusal(answer, [403, "order_not_pending"]);
      }
      if (pairRefused) return expectRefusal(answer, [400, "not_orderable"]);
      expect(answer.status, answer.label).toBe(200);
      const updated = answer.body as WireOrder;
      order.countryCode = country;
      order.numberType = type;
      if (body.quantity !== undefined) order.quantity = body.quantity as number;
      if (body.notes !== undefined) order.notes = body.notes as string | null;
      order.updatedAt = expectDuring(updated.updated_at, answer);
      expectOrder(updated, order, answer.label);
    },
  );
}

function moveOrder(to: Target, status: string): Command {
  return command(`move(${describeTarget(to)} → ${status})`, async (model: Model) => {
    // The operator sees every account's order: "foreign" here would be a real order of the other account, so it names none.
    const { order, id } = resolve(model, to.kind === "foreign" ? { kind: "unknown" } : to);
    const answer = await send(TEST_ADMIN_TOKEN, "changeOrderStatus", `/admin/orders/${id}/status`, {
      method: "POST",
      json: { status },
    });
    if (!STATUSES.includes(status as Status)) return expectRefusal(answer, [400, "validation_error"]);
    if (!order) return expectRefusal(answer, [404, "not_found"]);
    if (!MOVES[order.status].includes(status as Status)) return expectRefusal(answer, [409, "conflict"]);
    expect(answer.status, answer.label).toBe(200);
    const moved = answer.body as WireOrder;
    order.status = status as Status;
    order.updatedAt = laterUpdate(moved.updated_at, order, answer);
    expectOrder(moved, order, answer.label);
  });
}

/** The customer cancels its own order: only while pending (DECISIONS: the customer's cancel), 403 otherwise. */
function cancelOrder(to: Target): Command {
  return command(`cancel(${describeTarget(to)})`, async (model: Model, real: Real) => {
    const { order, id } = resolve(model, to);
    const answer = await send(await real.keys.next(), "cancelOrder", `/api/customers/${real.customer.slug}/orders/${id}/cancel`, {
      method: "POST",
    });
    if (!order) return expectRefusal(answer, [404, "not_found"]);
    if (order.status !== "pending") return expectRefusal(answer, [403, "order_not_pending"]);
    expect(answer.status, answer.label).toBe(200);
    const cancelled = answer.body as WireOrder;
    order.status = "cancelled";
    order.updatedAt = laterUpdate(cancelled.updated_at, order, answer);
    expectOrder(cancelled, order, answer.label);
  });
}

/** How an allocation's phone numbers are made up. */
type Allocation = { fresh: number; taken: "none" | "own" | "foreign"; repeated: boolean };

function allocate(to: Target, allocation: Allocation): Command {
  return command(`allocate(${describeTarget(to)} ${JSON.stringify(allocation)})`, async (model: Model) => {
    const { order, id } = resolve(model, to.kind === "foreign" ? { kind: "unknown" } : to);
    const phoneNumbers = Array.from({ length: allocation.fresh }, freshPhoneNumber);
    const allocated = model.orders.flatMap((o) => o.phoneNumbers);
    const taken = allocation.taken === "own" && allocated.length > 0 ? allocated[allocation.fresh % allocated.length] : undefined;
    if (taken) phoneNumbers.push(taken);
    if (allocation.taken === "foreign") phoneNumbers.push(foreign.phoneNumber);
    if (allocation.repeated && phoneNumbers.length > 0) phoneNumbers.push(phoneNumbers[0] as string);
    const answer = await send(TEST_ADMIN_TOKEN, "allocateNumbers", `/admin/orders/${id}/numbers`, {
      method: "POST",
      json: { phone_numbers: phoneNumbers },
    });
    // The body's own rules first: 1 to 1,000 distinct E.164 numbers.
    if (phoneNumbers.length === 0 || new Set(phoneNumbers).size !== phoneNumbers.length) {
      return expectRefusal(answer, [400, "validation_error"]);
    }
    if (!order) return expectRefusal(answer, [404, "not_found"]);
    // Every refusal that applies; the rules do not order them, so any one of them may be the answer. All or nothing.
    const refusals: [number, string][] = [];
    if (order.status !== "pending" && order.status !== "processing") refusals.push([409, "conflict"]);
    if (phoneNumbers.length > order.quantity - order.phoneNumbers.length) refusals.push([400, "validation_error"]);
    if (taken || allocation.taken === "foreign") refusals.push([409, "conflict"]);
    if (refusals.length > 0) return expectRefusal(answer, ...refusals);
    expect(answer.status, answer.label).toBe(201);
    expect(answer.headers.get("Location"), answer.label).toBe(`/admin/orders/${order.id}`);
    const { order: after, numbers } = answer.body as { order: WireOrder; numbers: WireOrder[] };
    order.phoneNumbers.push(...phoneNumbers);
    order.status = order.phoneNumbers.length === order.quantity ? "fulfilled" : "processing";
    if (order.status === "fulfilled") {
      order.fulfilledAt = expectDuring(after.fulfilled_at, answer);
      seen.add("fulfilled");
    }
    order.updatedAt = laterUpdate(after.updated_at, order, answer);
    expectOrder(after, order, answer.label);
    expect(numbers.map((n) => n.phone_number).sort(), answer.label).toEqual([...phoneNumbers].sort());
    for (const number of numbers) {
      expect(number, answer.label).toMatchObject({
        country_code: order.countryCode,
        number_type: order.numberType,
        status: "active",
        order_id: order.id,
        kyc_status: null,
      });
    }
  });
}

function getOrder(to: Target, asOperator: boolean): Command {
  return command(`get(${describeTarget(to)}${asOperator ? " as operator" : ""})`, async (model: Model, real: Real) => {
    const named = asOperator && to.kind === "foreign" ? { kind: "unknown" as const } : to;
    const { order, id } = resolve(model, named);
    const answer = asOperator
      ? await send(TEST_ADMIN_TOKEN, "getAnyOrder", `/admin/orders/${id}`)
      : await send(await real.keys.next(), "getOrder", `/api/customers/${real.customer.slug}/orders/${id}`);
    if (!order) return expectRefusal(answer, [404, "not_found"]);
    expect(answer.status, answer.label).toBe(200);
    expectOrder(answer.body as WireOrder, order, answer.label);
  });
}

const commands = [
  fc
    .tuple(somePair, someQuantity, fc.option(someNotes, { freq: 2, nil: undefined }), someDefect(CREATE_DEFECTS))
    .map(([p, q, n, d]) => createOrder(p, q, n, d)),
  fc
    .tuple(
      target,
      fc.record(
        {
          pair: fc.oneof({ arbitrary: fc.constantFrom(...ORDERABLE), weight: 3 }, fc.constantFrom(...NOT_ORDERABLE)),
          countryOnly: fc.constantFrom("US", "GB", "DE"),
          quantity: someQuantity,
          notes: someNotes,
        },
        { requiredKeys: [] },
      ),
      someDefect(UPDATE_DEFECTS),
    )
    .map(([t, c, d]) => updateOrder(t, c, d)),
  fc
    .tuple(target, fc.oneof({ arbitrary: fc.constantFrom(...STATUSES), weight: 8 }, fc.constantFrom("shipped", "PENDING", "")))
    .map(([t, s]) => moveOrder(t, s)),
  fc
    .tuple(
      target,
      fc.record({
        fresh: fc.oneof({ arbitrary: fc.integer({ min: 1, max: 3 }), weight: 6 }, fc.constantFrom(0, 5)),
        taken: fc.constantFrom("none", "none", "none", "own", "foreign"),
        repeated: fc.nat(9).map((n) => n < 2),
      }),
    )
    .map(([t, a]) => allocate(t, a as Allocation)),
  target.map(cancelOrder),
  fc.tuple(target, fc.boolean()).map(([t, o]) => getOrder(t, o)),
];

type Page = { data: WireOrder[]; meta: { total: number; hasNextPage: boolean; status_counts?: Record<string, number> } };

/** Every item of a list, page by page. */
async function everything(real: Real, operationId: string, path: string): Promise<{ items: WireOrder[]; first: Page }> {
  const items: WireOrder[] = [];
  let first: Page | undefined;
  for (let page = 1; ; page++) {
    const answer = await send(await real.keys.next(), operationId, `${path}?limit=100&page=${page}`);
    expect(answer.status, answer.label).toBe(200);
    const body = answer.body as Page;
    first ??= body;
    items.push(...body.data);
    if (!body.meta.hasNextPage) return { items, first };
  }
}

/** The account as the API shows it at the end of a run: its orders, their counts, and the numbers allocated to them. */
async function expectFinalState(model: Model, real: Real): Promise<void> {
  const base = `/api/customers/${real.customer.slug}`;
  const orders = await everything(real, "listOrders", `${base}/orders`);
  const byId = new Map(orders.items.map((o) => [o.order_id, o]));
  expect([...byId.keys()].sort()).toEqual(model.orders.map((o) => o.id).sort());
  for (const order of model.orders) expectOrder(byId.get(order.id) ?? {}, order, `final state of ${order.id}`);
  expect(orders.first.meta.total).toBe(model.orders.length);
  expect(orders.first.meta.status_counts).toEqual(
    Object.fromEntries(STATUSES.map((s) => [s, model.orders.filter((o) => o.status === s).length])),
  );
  const numbers = await everything(real, "listNumbers", `${base}/numbers`);
  const allocated = model.orders.flatMap((o) => o.phoneNumbers.map((phone) => `${phone} ${o.id}`));
  expect(numbers.items.map((n) => `${n.phone_number} ${n.order_id}`).sort()).toEqual(allocated.sort());
}

beforeAll(async () => {
  operations = await describedOperations();
  // The files of one workerd share its database: every other pair an update can reach (these countries and types
  // crossed) is taken out of the catalog, should another file have made it orderable.
  for (const [country, type] of ORDERABLE) await makeOrderable(country, type);
  const pairs = [...ORDERABLE, ...NOT_ORDERABLE];
  for (const country_code of new Set(pairs.map(([country]) => country)))
    for (const number_type of new Set(pairs.map(([, type]) => type)))
      if (!isOrderable(country_code, number_type)) {
        const param = { country_code, number_type };
        const removed = await operator.admin.catalog[":country_code"][":number_type"].$delete({ param });
        expect([200, 404]).toContain(removed.status);
      }
  const other = await createCustomer("foreign");
  const order = await json(
    await other.account.orders.$post({
      param: { customer_slug: other.slug },
      json: { number_type: "mobile", country_code: "US", quantity: 2 },
    }),
    201,
  );
  lastSequence = Number(order.order_number.slice(1));
  const phoneNumber = freshPhoneNumber();
  await json(
    await operator.admin.orders[":order_id"].numbers.$post({
      param: { order_id: order.order_id },
      json: { phone_numbers: [phoneNumber] },
    }),
    201,
  );
  foreign = { orderId: order.order_id, phoneNumber };
});

describe("the order life cycle against a model", () => {
  it("follows the model through creates, updates, cancels, operator moves and allocations, and ends in the model's state", async () => {
    requests = 0;
    await fc.assert(
      fc.asyncProperty(fc.commands(commands, { maxCommands: 40, size: "max" }), async (cmds) => {
        const customer = await createCustomer("model");
        const real: Real = { customer, keys: keyRing(customer.slug, customer.key) };
        const model: Model = { orders: [] };
        await fc.asyncModelRun(() => ({ model, real }), cmds);
        await expectFinalState(model, real);
      }),
      { numRuns: 65 },
    );
    // The budget: at least 1,000 generated requests for this property, reaching every outcome of the life cycle.
    expect(requests).toBeGreaterThanOrEqual(1000);
    const outcomes = [
      "createOrder 201",
      "createOrder 400",
      "updateOrder 200",
      "updateOrder 400",
      "updateOrder 403",
      "updateOrder 404",
      "cancelOrder 200",
      "cancelOrder 403",
      "cancelOrder 404",
      "changeOrderStatus 200",
      "changeOrderStatus 409",
      "allocateNumbers 201",
      "allocateNumbers 400",
      "allocateNumbers 409",
      "fulfilled",
    ];
    expect(
      outcomes.filter((outcome) => !seen.has(outcome)),
      `outcomes met: ${[...seen].sort().join(", ")}`,
    ).toEqual([]);
  }, 120_000);
});
