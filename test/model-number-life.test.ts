// Model-based test of a number's life after allocation (LIFECYCLE.md: Tenures and states, Release and restore, Back to
// stock, Suspension): random sequences of allocations (listed numbers, from stock, over quarantine), the customer's
// releases (dry runs, protected numbers) and restores, the operator's releases (forced), restores, suspensions and
// resumes, protection, stock imports, quarantine settings, days passing on the use cases' clock and runs of the
// return-to-stock job, each answer checked against a plain model of tenures and stock written from the contract. After
// every command the operator's numbers list, the pair's stock and its summary must equal the model, and D1 must hold
// at most one unclosed tenure per phone number and none in stock while held. One pair of its own per run, two accounts,
// six phone numbers.
import { env } from "cloudflare:workers";
import fc from "fast-check";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { openRequestSession } from "../src/db/session.ts";
import { returnNumbersToStock } from "../src/stock/returns.ts";
import {
  type Call,
  type DescribedOperation,
  describedOperations,
  type Exchange,
  exchangeWith,
  expectRefusal,
  operationNamed,
} from "./api-description.ts";
import { TEST_ADMIN_TOKEN } from "./constants.ts";
import {
  bodyOf,
  call,
  createCustomer,
  json,
  type KeyRing,
  keyRing,
  makeOrderable,
  type TestCustomer,
  uniqueNumberType,
  uniquePhoneNumber,
} from "./helpers.ts";

const DAY = 86_400_000;
/** LIFECYCLE.md: a release can be undone for 10 days. */
const RESTORE_DAYS = 10;
/** A pair without settings of its own quarantines for 90 days. */
const DEFAULT_QUARANTINE_DAYS = 90;
const PHONES = 6;
const ADMIN = { Authorization: `Bearer ${TEST_ADMIN_TOKEN}` };

type Status = "active" | "suspended" | "released";
type Mover = "customer" | "operator";

interface Tenure {
  id: string;
  phone: string;
  /** Which of the run's two accounts holds it. */
  owner: number;
  status: Status;
  suspendedAt: number | null;
  suspensionReason: string | null;
  releasedAt: number | null;
  restorableUntil: number | null;
  releaseReason: Mover | null;
  protected: boolean;
  closedAt: number | null;
}

interface Stocked {
  status: "available" | "quarantined";
  availableAt: number;
  importedAt: number;
  source: "import" | "released";
}

interface Model {
  now: number;
  quarantineDays: number;
  /** Every tenure of the run's phone numbers, closed ones too, in allocation order. */
  tenures: Tenure[];
  stock: Map<string, Stocked>;
}

interface Account {
  customer: TestCustomer;
  keys: KeyRing;
  orderId: string;
}

interface Real {
  type: string;
  phones: string[];
  accounts: Account[];
}

let operations: DescribedOperation[];
let requests = 0;
/** Outcomes met (`operationId status[ code]` and each report outcome), for the coverage check. */
const seen = new Set<string>();

async function send(token: string, operationId: string, path: string, request?: Call): Promise<Exchange> {
  requests++;
  const answer = await exchangeWith(token, operationNamed(operations, operationId), path, request);
  const code = (answer.body as { code?: unknown } | undefined)?.code;
  seen.add(`${operationId} ${answer.status}${answer.status >= 400 ? ` ${code}` : ""}`);
  return answer;
}

const unclosedHolder = (model: Model, phone: string) => model.tenures.find((t) => t.phone === phone && t.closedAt === null);

type Command = fc.AsyncCommand<Model, Real>;

function command(description: string, run: (model: Model, real: Real) => Promise<void>): Command {
  return {
    check: () => true,
    run: async (model, real) => {
      await run(model, real);
      await expectAgreement(model, real, description);
    },
    toString: () => description,
  };
}

/** A number a command names: one of the model's tenures (by index, wrapped), or an id no tenure has. */
type Target = number | "unknown";
const target: fc.Arbitrary<Target> = fc.oneof({ arbitrary: fc.nat(40), weight: 12 }, fc.constant<Target>("unknown"));
const targets = fc.array(target, { minLength: 1, maxLength: 3 });

function resolve(model: Model, to: Target): { tenure?: Tenure; id: string } {
  if (to === "unknown" || model.tenures.length === 0) return { id: crypto.randomUUID() };
  const tenure = model.tenures[to % model.tenures.length] as Tenure;
  return { tenure, id: tenure.id };
}

/** The ids a command sends and, once each, the tenure each names (a repeated id counts once). */
function resolveAll(model: Model, to: Target[]) {
  const named = to.map((t) => resolve(model, t));
  const distinct = [...new Map(named.map((n) => [n.id, n])).values()];
  return { ids: named.map((n) => n.id), distinct };
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** The outcome of a move for one number, from LIFECYCLE.md (not from src/numbers/lifecycle.ts). */
type Move = "release" | "restore" | "suspend" | "resume";
interface Mode {
  mover: Mover;
  /** The customer's account, whose numbers it may name. */
  owner?: number;
  force?: boolean;
  dryRun?: boolean;
}

function outcomeOf(model: Model, move: Move, mode: Mode, tenure: Tenure | undefined): string {
  if (!tenure || (mode.mover === "customer" && tenure.owner !== mode.owner)) return "not_found";
  switch (move) {
    case "release":
      if (tenure.status === "released") return "already_released";
      if (tenure.protected && !mode.force) return "release_protected";
      return mode.dryRun ? "would_release" : "released";
    case "restore":
      if (tenure.status !== "released") return "not_released";
      if (mode.mover === "customer" && tenure.releaseReason === "operator") return "released_by_operator";
      if (tenure.closedAt !== null || model.now > (tenure.restorableUntil as number)) return "restore_window_passed";
      return "restored";
    case "suspend":
      if (tenure.status === "released") return "number_released";
      return tenure.status === "suspended" ? "already_suspended" : "suspended";
    case "resume":
      if (tenure.status === "released") return "number_released";
      return tenure.status === "active" ? "not_suspended" : "resumed";
  }
}

function apply(model: Model, move: Move, mode: Mode, tenure: Tenure, reason?: string): void {
  switch (move) {
    case "release":
      Object.assign(tenure, {
        status: "released",
        releasedAt: model.now,
        restorableUntil: model.now + RESTORE_DAYS * DAY,
        releaseReason: mode.mover,
      });
      return;
    case "restore":
      Object.assign(tenure, {
        status: tenure.suspendedAt === null ? "active" : "suspended",
        releasedAt: null,
        restorableUntil: null,
        releaseReason: null,
      });
      return;
    case "suspend":
      Object.assign(tenure, { status: "suspended", suspendedAt: model.now, suspensionReason: reason });
      return;
    case "resume":
      Object.assign(tenure, { status: "active", suspendedAt: null, suspensionReason: null });
      return;
  }
}

const COUNTED: Record<Move, string> = { release: "released", restore: "restored", suspend: "suspended", resume: "resumed" };
const OPERATION: Record<Mover, Partial<Record<Move, string>>> = {
  customer: { release: "releaseNumbers", restore: "restoreNumbers" },
  operator: {
    release: "releaseNumbersByOperator",
    restore: "restoreNumbersByOperator",
    suspend: "suspendNumbers",
    resume: "resumeNumbers",
  },
};

/** A move of some numbers, its report checked number by number against the model, then applied to it. */
function moveCommand(move: Move, mode: Mode, to: Target[], reason?: string): Command {
  const flags = [mode.force ? "force" : "", mode.dryRun ? "dry run" : "", reason ?? ""].filter(Boolean).join(" ");
  const who = mode.mover === "customer" ? `customer ${mode.owner}` : "operator";
  return command(`${move}(${who} [${to.join(",")}]${flags ? ` ${flags}` : ""})`, async (model, real) => {
    const { ids, distinct } = resolveAll(model, to);
    const operationId = OPERATION[mode.mover][move] as string;
    let token = TEST_ADMIN_TOKEN;
    let path = `/admin/numbers/${move}`;
    const body: Record<string, unknown> = { number_ids: ids };
    if (mode.mover === "customer") {
      const account = real.accounts[mode.owner as number] as Account;
      token = await account.keys.next();
      path = `/api/customers/${account.customer.slug}/numbers/${move}`;
      if (mode.dryRun) body.dry_run = true;
    } else {
      if (mode.force) body.force = true;
      if (reason) body.reason = reason;
      if (move !== "suspend") body.note = `model: ${move}`;
    }
    const answer = await send(token, operationId, path, { method: "POST", json: body });
    expect(answer.status, answer.label).toBe(200);
    const report = answer.body as { results: { number_id: string; outcome: string; effects: unknown[] }[] } & Record<
      string,
      unknown
    >;
    const expected = distinct.map(({ tenure, id }) => {
      const outcome = outcomeOf(model, move, mode, tenure);
      seen.add(`${operationId} ${outcome}`);
      const moved = outcome === COUNTED[move] || outcome === "would_release";
      // The orders stay open (each asks for more numbers than a run allocates): a release says so; nothing else has effects.
      const effects =
        moved && move === "release"
          ? [{ code: "order_still_open", order_id: (real.accounts[tenure!.owner] as Account).orderId }]
          : [];
      return {
        number_id: id,
        phone_number: outcome === "not_found" ? null : tenure!.phone,
        outcome,
        effects,
      };
    });
    expect(report.results, answer.label).toEqual(expected);
    const movedCount = expected.filter((r) => r.outcome === COUNTED[move] || r.outcome === "would_release").length;
    expect(report[COUNTED[move]], answer.label).toBe(movedCount);
    if (mode.dryRun) {
      expect(report.dry_run, answer.label).toBe(true);
      return;
    }
    for (const result of expected) {
      if (result.outcome !== COUNTED[move]) continue;
      apply(model, move, mode, distinct.find((d) => d.id === result.number_id)!.tenure!, reason);
    }
  });
}

/** The customer sets (or clears) a number's release protection. */
function protect(owner: number, to: Target, value: boolean): Command {
  return command(`protect(customer ${owner} ${to} ${value})`, async (model, real) => {
    const { tenure, id } = resolve(model, to);
    const account = real.accounts[owner] as Account;
    const answer = await send(
      await account.keys.next(),
      "updateNumber",
      `/api/customers/${account.customer.slug}/numbers/${id}`,
      {
        method: "PATCH",
        json: { release_protected: value },
      },
    );
    if (!tenure || tenure.owner !== owner) return expectRefusal(answer, [404, "not_found"]);
    if (tenure.status === "released") return expectRefusal(answer, [409, "number_released"]);
    expect(answer.status, answer.label).toBe(200);
    tenure.protected = value;
    expect(answer.body, answer.label).toMatchObject({ number_id: tenure.id, release_protected: value, status: tenure.status });
  });
}

/** New tenures for these phone numbers, as the allocation's answer names them. */
function addTenures(model: Model, owner: number, answer: Exchange, phones: string[]): void {
  const { numbers } = answer.body as { numbers: { number_id: string; phone_number: string; status: string }[] };
  expect(numbers.map((n) => n.phone_number).sort(), answer.label).toEqual([...phones].sort());
  for (const number of numbers) {
    expect(number.status, answer.label).toBe("active");
    model.stock.delete(number.phone_number);
    model.tenures.push({
      id: number.number_id,
      phone: number.phone_number,
      owner,
      status: "active",
      suspendedAt: null,
      suspensionReason: null,
      releasedAt: null,
      restorableUntil: null,
      releaseReason: null,
      protected: false,
      closedAt: null,
    });
  }
}

/** The admin allocates listed phone numbers to an account's order, overriding quarantine or not. */
function allocateListed(owner: number, picks: number[], ignoreQuarantine: boolean): Command {
  return command(`allocate(customer ${owner} [${picks}]${ignoreQuarantine ? " ignore_quarantine" : ""})`, async (model, real) => {
    const phones = picks.map((p) => real.phones[p] as string);
    const account = real.accounts[owner] as Account;
    const body: Record<string, unknown> = { phone_numbers: phones };
    if (ignoreQuarantine) body.ignore_quarantine = true;
    const answer = await send(TEST_ADMIN_TOKEN, "allocateNumbers", `/admin/orders/${account.orderId}/numbers`, {
      method: "POST",
      json: body,
    });
    // A tenure holds its phone number until the job closes it, restore window or not; a quarantined one waits.
    const refusals: [number, string][] = [];
    if (phones.some((phone) => unclosedHolder(model, phone))) refusals.push([409, "conflict"]);
    if (!ignoreQuarantine && phones.some((phone) => model.stock.get(phone)?.status === "quarantined")) {
      refusals.push([409, "number_quarantined"]);
    }
    if (refusals.length > 0) return expectRefusal(answer, ...refusals);
    expect(answer.status, answer.label).toBe(201);
    addTenures(model, owner, answer, phones);
  });
}

/** Fulfilment allocates the oldest available numbers of the pair's stock. */
function allocateFromStock(owner: number, count: number): Command {
  return command(`allocate(customer ${owner} from_stock ${count})`, async (model, real) => {
    const account = real.accounts[owner] as Account;
    const answer = await send(TEST_ADMIN_TOKEN, "allocateNumbers", `/admin/orders/${account.orderId}/numbers`, {
      method: "POST",
      json: { from_stock: count },
    });
    // Oldest available_at first, then import time, then number.
    const available = [...model.stock.entries()]
      .filter(([, s]) => s.status === "available")
      .sort(([pa, a], [pb, b]) => a.availableAt - b.availableAt || a.importedAt - b.importedAt || (pa < pb ? -1 : 1))
      .map(([phone]) => phone);
    if (available.length < count) return expectRefusal(answer, [409, "insufficient_stock"]);
    expect(answer.status, answer.label).toBe(201);
    addTenures(model, owner, answer, available.slice(0, count));
  });
}

/** The operator imports phone numbers into the pair's stock: those in stock or held are duplicates. */
function importStock(picks: number[]): Command {
  return command(`import([${picks}])`, async (model, real) => {
    const phones = picks.map((p) => real.phones[p] as string);
    const answer = await send(TEST_ADMIN_TOKEN, "importStock", "/admin/stock", {
      method: "POST",
      json: { numbers: phones.map((phone_number) => ({ phone_number, country_code: "US", number_type: real.type })) },
    });
    expect(answer.status, answer.label).toBe(201);
    const duplicates = phones.filter((phone) => model.stock.has(phone) || unclosedHolder(model, phone));
    const report = answer.body as { imported: number; duplicates: string[] };
    expect(report.duplicates.toSorted(), answer.label).toEqual(duplicates.toSorted());
    expect(report.imported, answer.label).toBe(phones.length - duplicates.length);
    for (const phone of phones) {
      if (duplicates.includes(phone)) continue;
      model.stock.set(phone, { status: "available", availableAt: model.now, importedAt: model.now, source: "import" });
    }
  });
}

function setQuarantine(days: number): Command {
  return command(`quarantine_days(${days})`, async (model, real) => {
    const answer = await send(TEST_ADMIN_TOKEN, "addCatalogPair", `/admin/catalog/US/${real.type}`, {
      method: "PUT",
      json: { quarantine_days: days },
    });
    expect(answer.status, answer.label).toBe(200);
    expect(answer.body, answer.label).toMatchObject({ quarantine_days: days });
    model.quarantineDays = days;
  });
}

/** Time passes on the use cases' clock (Date, faked). */
function advance(days: number, extraMs: number): Command {
  return command(`advance(${days} days${extraMs ? ` + ${extraMs} ms` : ""})`, async (model) => {
    model.now += days * DAY + extraMs;
    vi.setSystemTime(model.now);
  });
}

/**
 * The return-to-stock job now: a released tenure past restorable_until closes, its number to stock until the later of
 * restorable_until and released_at + the pair's quarantine_days; then quarantined numbers whose time has come are
 * available.
 */
function runJob(): Command {
  return command("job()", async (model) => {
    await returnNumbersToStock(openRequestSession(env.DB, "POST"), model.now);
    for (const tenure of model.tenures) {
      if (tenure.status !== "released" || tenure.closedAt !== null || model.now <= (tenure.restorableUntil as number)) continue;
      tenure.closedAt = model.now;
      const availableAt = Math.max(tenure.restorableUntil as number, (tenure.releasedAt as number) + model.quarantineDays * DAY);
      model.stock.set(tenure.phone, {
        status: availableAt <= model.now ? "available" : "quarantined",
        availableAt,
        importedAt: model.now,
        source: "released",
      });
      seen.add(availableAt <= model.now ? "job: closed to available" : "job: closed to quarantine");
    }
    for (const stocked of model.stock.values()) {
      if (stocked.status === "quarantined" && stocked.availableAt <= model.now) {
        stocked.status = "available";
        seen.add("job: quarantine ended");
      }
    }
  });
}

type Wire = Record<string, unknown>;

function wireTenure(tenure: Tenure, real: Real): Wire {
  return {
    customer_slug: (real.accounts[tenure.owner] as Account).customer.slug,
    number_id: tenure.id,
    phone_number: tenure.phone,
    status: tenure.status,
    released_at: iso(tenure.releasedAt),
    restorable_until: iso(tenure.restorableUntil),
    release_reason: tenure.releaseReason,
    suspended_at: iso(tenure.suspendedAt),
    suspension_reason: tenure.suspensionReason,
    release_protected: tenure.protected,
  };
}

/** The fields of a number the model predicts. */
const NUMBER_KEYS = [
  "customer_slug",
  "number_id",
  "phone_number",
  "status",
  "released_at",
  "restorable_until",
  "release_reason",
  "suspended_at",
  "suspension_reason",
  "release_protected",
];
const pick = (item: Wire, keys: string[]) => Object.fromEntries(keys.map((k) => [k, item[k]]));
const byId = (a: Wire, b: Wire) => (String(a.number_id) < String(b.number_id) ? -1 : 1);

/** The operator's list, the pair's stock and summary, and D1's invariants, against the model. */
async function expectAgreement(model: Model, real: Real, label: string): Promise<void> {
  const expectedNumbers = model.tenures.map((t) => wireTenure(t, real)).sort(byId);
  const listed = await bodyOf<{ data: Wire[] }>(
    await call(`/admin/numbers?number_type=${real.type}&limit=100`, { headers: ADMIN }),
  );
  expect(listed.data.map((n) => pick(n, NUMBER_KEYS)).sort(byId), `numbers after ${label}`).toEqual(expectedNumbers);

  const stock = await bodyOf<{ data: Wire[]; meta: { total: number } }>(
    await call(`/admin/stock?number_type=${real.type}&limit=100`, { headers: ADMIN }),
  );
  const expectedStock = [...model.stock.entries()]
    .map(([phone, s]) => ({ phone_number: phone, status: s.status, source: s.source, available_at: iso(s.availableAt) }))
    .sort((a, b) => (a.phone_number < b.phone_number ? -1 : 1));
  expect(
    stock.data
      .map((row) => pick(row, ["phone_number", "status", "source", "available_at"]))
      .sort((a, b) => (String(a.phone_number) < String(b.phone_number) ? -1 : 1)),
    `stock after ${label}`,
  ).toEqual(expectedStock);
  expect(stock.meta.total, label).toBe(model.stock.size);

  const summary = await bodyOf<{ data: Wire[] }>(await call("/admin/stock/summary", { headers: ADMIN }));
  const counts = (status: string) => [...model.stock.values()].filter((s) => s.status === status).length;
  const pair = summary.data.find((row) => row.number_type === real.type);
  const expectedSummary =
    model.stock.size === 0
      ? undefined
      : {
          country_code: "US",
          number_type: real.type,
          count: model.stock.size,
          available: counts("available"),
          quarantined: counts("quarantined"),
          reserved: 0,
        };
  expect(pair, `summary after ${label}`).toEqual(expectedSummary);

  // D1 itself: which tenures are closed and when, one unclosed tenure per phone number, none of them in stock.
  const { results } = await env.DB.prepare(
    `SELECT n.id, n.closed_at,
       (SELECT count(*) FROM numbers o WHERE o.phone_number = n.phone_number AND o.closed_at IS NULL) AS unclosed,
       EXISTS (SELECT 1 FROM stock_numbers s WHERE s.phone_number = n.phone_number) AS stocked
     FROM numbers n WHERE n.number_type = ?`,
  )
    .bind(real.type)
    .all<{ id: string; closed_at: number | null; unclosed: number; stocked: number }>();
  expect(Object.fromEntries(results.map((r) => [r.id, r.closed_at])), `closed tenures after ${label}`).toEqual(
    Object.fromEntries(model.tenures.map((t) => [t.id, t.closedAt])),
  );
  for (const row of results) {
    expect(row.unclosed, `unclosed tenures of one phone number after ${label}`).toBeLessThanOrEqual(1);
    if (row.closed_at === null) expect(row.stocked, `in stock and held after ${label}`).toBe(0);
  }
}

/** Each account's own list: its tenures, closed ones among them, as the model has them. */
async function expectAccountsAgree(model: Model, real: Real): Promise<void> {
  for (const [owner, account] of real.accounts.entries()) {
    const answer = await send(
      await account.keys.next(),
      "listNumbers",
      `/api/customers/${account.customer.slug}/numbers?limit=100`,
    );
    expect(answer.status, answer.label).toBe(200);
    const { data } = answer.body as { data: Wire[] };
    const expected = model.tenures.filter((t) => t.owner === owner).map((t) => wireTenure(t, real));
    const keys = NUMBER_KEYS.filter((k) => k !== "customer_slug");
    expect(data.map((n) => pick(n, keys)).sort(byId), answer.label).toEqual(expected.map((t) => pick(t, keys)).sort(byId));
  }
}

const owner = fc.integer({ min: 0, max: 1 });
const phonePicks = (max: number) => fc.uniqueArray(fc.nat(PHONES - 1), { minLength: 1, maxLength: max });
const REASONS = ["kyc_expired", "non_payment", "abuse", "customer_request", "other"] as const;

/** Each kind of command with its weight: moves and days most, so numbers get released, restored and returned. */
const commands = [
  [3, fc.tuple(owner, phonePicks(2), fc.nat(3)).map(([o, p, q]) => allocateListed(o, p, q === 0))],
  [1, fc.tuple(owner, fc.integer({ min: 1, max: 2 })).map(([o, n]) => allocateFromStock(o, n))],
  [1, phonePicks(3).map(importStock)],
  [
    4,
    fc
      .tuple(owner, targets, fc.nat(3))
      .map(([o, t, d]) => moveCommand("release", { mover: "customer", owner: o, dryRun: d === 0 }, t)),
  ],
  [3, fc.tuple(owner, targets).map(([o, t]) => moveCommand("restore", { mover: "customer", owner: o }, t))],
  [2, fc.tuple(targets, fc.boolean()).map(([t, f]) => moveCommand("release", { mover: "operator", force: f }, t))],
  [1, targets.map((t) => moveCommand("restore", { mover: "operator" }, t))],
  [2, fc.tuple(targets, fc.constantFrom(...REASONS)).map(([t, r]) => moveCommand("suspend", { mover: "operator" }, t, r))],
  [1, targets.map((t) => moveCommand("resume", { mover: "operator" }, t))],
  [2, fc.tuple(owner, target, fc.nat(2)).map(([o, t, v]) => protect(o, t, v > 0))],
  [3, fc.tuple(fc.constantFrom(1, 2, 5, 9, 10, 10, 11, 30, 90, 100), fc.constantFrom(0, 0, 1)).map(([d, ms]) => advance(d, ms))],
  [3, fc.constant(null).map(runJob)],
  [1, fc.constantFrom(0, 5, 30, 90, 365).map(setQuarantine)],
] as const;
const weighted = commands.flatMap(([weight, arbitrary]) => Array.from({ length: weight }, () => arbitrary));

async function setUp(): Promise<{ model: Model; real: Real }> {
  const type = uniqueNumberType();
  await makeOrderable("US", type);
  const accounts: Account[] = [];
  for (const prefix of ["life-model-a", "life-model-b"]) {
    const customer = await createCustomer(prefix);
    const order = await json(
      await customer.account.orders.$post({
        param: { customer_slug: customer.slug },
        // More than a run allocates: the orders stay open.
        json: { number_type: type, country_code: "US", quantity: 500 },
      }),
      201,
    );
    accounts.push({ customer, keys: keyRing(customer.slug, customer.key), orderId: order.order_id });
  }
  const real: Real = { type, phones: Array.from({ length: PHONES }, uniquePhoneNumber), accounts };
  const model: Model = { now: Date.now(), quarantineDays: DEFAULT_QUARANTINE_DAYS, tenures: [], stock: new Map() };
  // A start with something to move: three numbers held by one account, one by the other, one in stock, one free.
  for (const step of [allocateListed(0, [0, 1, 2], false), allocateListed(1, [3], false), importStock([4])]) {
    await step.run(model, real);
  }
  return { model, real };
}

async function runAgainstModel(cmds: Iterable<Command>): Promise<void> {
  // The use cases' clock stands still but for the model's days: every answer's time is the model's.
  vi.useFakeTimers({ now: Date.now(), toFake: ["Date"] });
  try {
    const setup = await setUp();
    await fc.asyncModelRun(() => setup, cmds);
    await expectAccountsAgree(setup.model, setup.real);
  } finally {
    vi.useRealTimers();
  }
}

beforeAll(async () => {
  operations = await describedOperations();
});

describe("a number's life against a model", () => {
  it("keeps tenures, windows and stock as the model has them through every move, day and run of the job", async () => {
    requests = 0;
    const started = Date.now();
    await fc.assert(fc.asyncProperty(fc.commands(weighted, { maxCommands: 25, size: "max" }), runAgainstModel), {
      numRuns: 15,
      seed: 20_261_201,
    });
    console.info(`model-number-life: ${requests} requests in ${Date.now() - started} ms`);
  }, 120_000);

  it("refuses a protected number to the customer and to the unforced operator, and holds an operator's release, its window and its quarantine", async () => {
    const customerRelease = (t: Target[]) => moveCommand("release", { mover: "customer", owner: 0 }, t);
    const customerRestore = (t: Target[]) => moveCommand("restore", { mover: "customer", owner: 0 }, t);
    await runAgainstModel([
      protect(0, 0, true),
      customerRelease([0]),
      moveCommand("release", { mover: "operator" }, [0]),
      moveCommand("release", { mover: "operator", force: true }, [0, 3]),
      customerRestore([0]),
      moveCommand("restore", { mover: "operator" }, [3]),
      moveCommand("suspend", { mover: "operator" }, [0, 2], "non_payment"),
      customerRelease([1, 2]),
      advance(10, 0),
      // At restorable_until itself the window is open; the suspended number comes back suspended.
      customerRestore([2]),
      moveCommand("resume", { mover: "operator" }, [2]),
      advance(0, 1),
      customerRestore([1]),
      moveCommand("restore", { mover: "operator" }, [0, 1]),
      allocateListed(1, [1], false),
      // Read when the job closes the tenures: 30 days from their release.
      setQuarantine(30),
      runJob(),
      allocateListed(1, [1, 5], false),
      advance(19, 0),
      runJob(),
      allocateFromStock(1, 2),
      advance(1, 0),
      runJob(),
      allocateFromStock(1, 3),
      allocateFromStock(1, 2),
      allocateListed(0, [0], true),
    ]);
  });

  // Last: the random runs (this seed) reach every outcome of the moves they make, refusals as much as moves.
  it("reaches every outcome of the life cycle", () => {
    const outcomes = [
      "releaseNumbers released",
      "releaseNumbers would_release",
      "releaseNumbers already_released",
      "releaseNumbers release_protected",
      "releaseNumbers not_found",
      "restoreNumbers restored",
      "restoreNumbers not_released",
      "restoreNumbers released_by_operator",
      "restoreNumbers restore_window_passed",
      "restoreNumbers not_found",
      "releaseNumbersByOperator released",
      "releaseNumbersByOperator release_protected",
      "releaseNumbersByOperator already_released",
      "restoreNumbersByOperator restored",
      "restoreNumbersByOperator restore_window_passed",
      "restoreNumbersByOperator not_released",
      "suspendNumbers suspended",
      "suspendNumbers already_suspended",
      "suspendNumbers number_released",
      "resumeNumbers resumed",
      "resumeNumbers not_suspended",
      "resumeNumbers number_released",
      "updateNumber 200",
      "updateNumber 404 not_found",
      "updateNumber 409 number_released",
      "allocateNumbers 201",
      "allocateNumbers 409 conflict",
      "allocateNumbers 409 number_quarantined",
      "allocateNumbers 409 insufficient_stock",
      "importStock 201",
      "job: closed to quarantine",
      "job: closed to available",
      "job: quarantine ended",
    ];
    expect(
      outcomes.filter((outcome) => !seen.has(outcome)),
      `outcomes met: ${[...seen].sort().join(", ")}`,
    ).toEqual([]);
  });
});
