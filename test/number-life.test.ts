// A number's moves through the API (LIFECYCLE.md "Release, preview, restore", "Suspension"): the account's release,
// its preview and restore, the operator's suspend, resume, release and restore; each outcome and effect, the profile a
// released number leaves and joins again, the events (250 numbers an event), one audit event per number.
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { DAY_MS } from "../src/lib/time.ts";
import {
  allocateNumbers,
  bodyOf,
  callJson,
  createCustomer,
  INDIVIDUAL_ADDRESS,
  json,
  makeOrderable,
  operator,
  type TestCustomer,
  uniquePhoneNumber,
} from "./helpers.ts";
import { type StaffMember, staffMember } from "./staff.ts";

interface Result {
  number_id: string;
  phone_number: string | null;
  outcome: string;
  effects: Record<string, unknown>[];
}
interface Report {
  dry_run?: boolean;
  released?: number;
  restored?: number;
  suspended?: number;
  resumed?: number;
  results: Result[];
}

async function sqlAll<T = Record<string, unknown>>(query: string, ...params: unknown[]): Promise<T[]> {
  return (
    await env.DB.prepare(query)
      .bind(...params)
      .all<T>()
  ).results;
}

async function release(customer: TestCustomer, body: unknown, status = 200): Promise<Report> {
  return bodyOf<Report>(await customer.callJson("POST", `/api/customers/${customer.slug}/numbers/release`, body), status);
}

async function restore(customer: TestCustomer, numberIds: string[], status = 200): Promise<Report> {
  return bodyOf<Report>(
    await customer.callJson("POST", `/api/customers/${customer.slug}/numbers/restore`, { number_ids: numberIds }),
    status,
  );
}

async function admin(path: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return callJson("POST", `/admin/numbers/${path}`, body, headers);
}

const tokenHeaders = { Authorization: `Bearer ${env.ADMIN_TOKEN}` };

async function byAdmin(path: string, body: unknown): Promise<Report> {
  return bodyOf<Report>(await admin(path, body, tokenHeaders));
}

/** The account's number.* and kyc_profile.* events, oldest first, with their data. */
async function eventsOf(customerId: string, type: string) {
  const rows = await sqlAll<{ data: string }>(
    "SELECT data FROM events WHERE customer_id = ? AND type = ? ORDER BY created_at, rowid",
    customerId,
    type,
  );
  return rows.map((row) => JSON.parse(row.data) as Record<string, unknown>);
}

async function auditsOf(numberId: string) {
  const rows = await sqlAll<{ action: string; changes: string; actor_type: string }>(
    "SELECT action, changes, actor_type FROM audit_events WHERE target_type = 'number' AND target_id = ? ORDER BY created_at, rowid",
    `num_${numberId}`,
  );
  return rows.map((row) => ({ ...row, changes: JSON.parse(row.changes) as Record<string, unknown> }));
}

async function numberRow(id: string) {
  const [row] = await sqlAll("SELECT * FROM numbers WHERE id = ?", id);
  return row!;
}

async function createProfile(customer: TestCustomer): Promise<string> {
  const created = await bodyOf<{ id: string }>(
    await customer.callJson("POST", `/api/customers/${customer.slug}/kyc-profiles`, { name: "Main", ...INDIVIDUAL_ADDRESS }),
    201,
  );
  return created.id;
}

async function attach(customer: TestCustomer, profileId: string, numberIds: string[]): Promise<void> {
  const path = `/api/customers/${customer.slug}/kyc-profiles/${profileId}/numbers`;
  const report = await bodyOf<{ attached: string[] }>(await customer.callJson("POST", path, { number_ids: numberIds }));
  expect(report.attached).toHaveLength(numberIds.length);
}

afterEach(() => {
  vi.useRealTimers();
});

describe("the account's release and restore", () => {
  it("previews, releases and restores, reporting each number in request order; another account's ids are not_found", async () => {
    const customer = await createCustomer("life");
    const other = await createCustomer("life-other");
    const [a, b, protectedOne] = await allocateNumbers(customer, 3);
    const [foreign] = await allocateNumbers(other, 1);
    await env.DB.prepare("UPDATE numbers SET release_protected = 1 WHERE id = ?").bind(protectedOne!.number_id).run();
    const unknown = crypto.randomUUID();
    const asked = [`num_${a!.number_id}`, b!.number_id, protectedOne!.number_id, foreign!.number_id, unknown, a!.number_id];
    const before = await sqlAll(
      "SELECT * FROM numbers WHERE customer_id IN (?, ?) ORDER BY id",
      customer.customerId,
      other.customerId,
    );

    const preview = await release(customer, { number_ids: asked, dry_run: true });
    expect(preview).toEqual({
      dry_run: true,
      released: 2,
      results: [
        { number_id: a!.number_id, phone_number: a!.phone_number, outcome: "would_release", effects: [] },
        { number_id: b!.number_id, phone_number: b!.phone_number, outcome: "would_release", effects: [] },
        {
          number_id: protectedOne!.number_id,
          phone_number: protectedOne!.phone_number,
          outcome: "release_protected",
          effects: [],
        },
        { number_id: foreign!.number_id, phone_number: null, outcome: "not_found", effects: [] },
        { number_id: unknown, phone_number: null, outcome: "not_found", effects: [] },
      ],
    });
    // A dry run changes nothing: no row, no event, no audit event.
    expect(
      await sqlAll("SELECT * FROM numbers WHERE customer_id IN (?, ?) ORDER BY id", customer.customerId, other.customerId),
    ).toEqual(before);
    expect(await eventsOf(customer.customerId, "number.released")).toEqual([]);
    expect(await auditsOf(a!.number_id)).toEqual([]);

    const t0 = Date.now();
    const done = await release(customer, { number_ids: asked });
    expect(done.dry_run).toBe(false);
    expect(done.released).toBe(2);
    expect(done.results.map((r) => r.outcome)).toEqual(["released", "released", "release_protected", "not_found", "not_found"]);
    const released = await numberRow(a!.number_id);
    expect(released).toMatchObject({ status: "released", release_reason: "customer", closed_at: null });
    expect(released.released_at as number).toBeGreaterThanOrEqual(t0);
    expect(released.restorable_until).toBe((released.released_at as number) + 10 * DAY_MS);
    expect(await numberRow(protectedOne!.number_id)).toMatchObject({ status: "active" });
    expect(await numberRow(foreign!.number_id)).toEqual(before.find((row) => row.id === foreign!.number_id));
    // The order is not changed by a release.
    const order = await json(await operator.admin.orders[":order_id"].$get({ param: { order_id: a!.order_id } }), 200);
    expect(order).toMatchObject({ status: "fulfilled", fulfilled_quantity: 3 });

    const [event] = await eventsOf(customer.customerId, "number.released");
    const items = (event!.numbers as { number_id: string; status: string; release_reason: string }[]).map((n) => n.number_id);
    expect(items.sort()).toEqual([a!.number_id, b!.number_id].sort());
    expect(await auditsOf(a!.number_id)).toEqual([
      {
        action: "number.released",
        actor_type: "api_key",
        changes: { status: ["active", "released"], release_reason: [null, "customer"] },
      },
    ]);
    expect(await eventsOf(other.customerId, "number.released")).toEqual([]);
    // The account's Activity shows it.
    const activity = await bodyOf<{ data: { action: string; target: { id: string } }[] }>(
      await customer.call(`/api/customers/${customer.slug}/audit-events`),
    );
    expect(
      activity.data
        .filter((e) => e.action === "number.released")
        .map((e) => e.target.id)
        .sort(),
    ).toEqual([`num_${a!.number_id}`, `num_${b!.number_id}`].sort());

    expect((await release(customer, { number_ids: [a!.number_id] })).results[0]!.outcome).toBe("already_released");

    const restored = await restore(customer, [a!.number_id, protectedOne!.number_id, foreign!.number_id]);
    expect(restored).toEqual({
      restored: 1,
      results: [
        { number_id: a!.number_id, phone_number: a!.phone_number, outcome: "restored", effects: [] },
        { number_id: protectedOne!.number_id, phone_number: protectedOne!.phone_number, outcome: "not_released", effects: [] },
        { number_id: foreign!.number_id, phone_number: null, outcome: "not_found", effects: [] },
      ],
    });
    expect(await numberRow(a!.number_id)).toMatchObject({
      status: "active",
      released_at: null,
      restorable_until: null,
      release_reason: null,
    });
    expect((await eventsOf(customer.customerId, "number.restored")).map((e) => (e.numbers as unknown[]).length)).toEqual([1]);
    expect((await auditsOf(a!.number_id)).map((e) => e.action)).toEqual(["number.released", "number.restored"]);
  });

  it("detaches a released number from its profile and attaches it again on restore; profile_gone once it is deleted", async () => {
    const customer = await createCustomer("life-profile");
    const [kept, gone] = await allocateNumbers(customer, 2);
    const profileId = await createProfile(customer);
    const bare = profileId.replace(/^kyp_/, "");
    await attach(customer, profileId, [kept!.number_id, gone!.number_id]);

    const preview = await release(customer, { number_ids: [kept!.number_id], dry_run: true });
    expect(preview.results[0]!.effects).toEqual([{ code: "detached_from_profile", profile_id: profileId }]);
    await release(customer, { number_ids: [kept!.number_id, gone!.number_id] });
    expect(await numberRow(kept!.number_id)).toMatchObject({ kyc_profile_id: null, released_profile_id: bare });
    expect(await sqlAll("SELECT * FROM kyc_profile_numbers WHERE profile_id = ?", bare)).toEqual([]);
    const [detached] = await eventsOf(customer.customerId, "kyc_profile.numbers_detached");
    expect((detached!.number_ids as string[]).sort()).toEqual([`num_${kept!.number_id}`, `num_${gone!.number_id}`].sort());

    const restored = await restore(customer, [kept!.number_id]);
    expect(restored.results[0]!.effects).toEqual([{ code: "reattached_to_profile", profile_id: profileId }]);
    expect(await numberRow(kept!.number_id)).toMatchObject({ status: "active", kyc_profile_id: bare, released_profile_id: null });
    expect(await eventsOf(customer.customerId, "kyc_profile.numbers_attached")).toContainEqual({
      profile_id: profileId,
      number_ids: [`num_${kept!.number_id}`],
    });

    // Profile deletion needs no number attached: detach the restored one, then delete.
    await bodyOf(
      await customer.callJson("POST", `/api/customers/${customer.slug}/kyc-profiles/${profileId}/numbers/detach`, {
        number_ids: [kept!.number_id],
      }),
    );
    await bodyOf(await customer.call(`/api/customers/${customer.slug}/kyc-profiles/${profileId}`, { method: "DELETE" }));
    // The deletion clears released_profile_id (a foreign key) and marks the profile gone for the restore.
    const afterDelete = await restore(customer, [gone!.number_id]);
    expect(afterDelete.results[0]).toMatchObject({ outcome: "restored", effects: [{ code: "profile_gone" }] });
    expect(await numberRow(gone!.number_id)).toMatchObject({
      status: "active",
      kyc_profile_id: null,
      released_profile_gone: 0,
    });
    // A number released without a profile reports no effect on restore.
    await release(customer, { number_ids: [gone!.number_id] });
    expect((await restore(customer, [gone!.number_id])).results[0]).toMatchObject({ outcome: "restored", effects: [] });
  });

  it("names the order still open and the number's own verification kept; releases a whole order by phone number", async () => {
    const customer = await createCustomer("life-order");
    await makeOrderable("US", "mobile");
    const order = await bodyOf<{ order_id: string }>(
      await customer.callJson("POST", `/api/customers/${customer.slug}/orders`, {
        number_type: "mobile",
        country_code: "US",
        quantity: 3,
      }),
      201,
    );
    const phones = [uniquePhoneNumber(), uniquePhoneNumber()].sort().reverse();
    const allocated = await json(
      await operator.admin.orders[":order_id"].numbers.$post({
        param: { order_id: order.order_id },
        json: { phone_numbers: phones },
      }),
      201,
    );
    const [own] = allocated.numbers;
    const kyc = await bodyOf<{ id: string }>(
      await customer.callJson("POST", `/v1/numbers/${own!.number_id}/KYC/address`, INDIVIDUAL_ADDRESS),
      201,
    );
    const report = await release(customer, { order_id: order.order_id, dry_run: true });
    expect(report.results.map((r) => r.phone_number)).toEqual([...phones].sort());
    const ofOwn = report.results.find((r) => r.number_id === own!.number_id)!;
    expect(ofOwn.effects).toEqual([
      { code: "own_verification_kept", kyc_id: kyc.id },
      { code: "order_still_open", order_id: order.order_id },
    ]);
    expect((await release(customer, { order_id: order.order_id })).released).toBe(2);
    const [ownKyc] = await sqlAll("SELECT number_id FROM kyc_verifications WHERE number_id = ?", own!.number_id);
    expect(ownKyc).toBeDefined();

    const other = await createCustomer("life-order-other");
    const refused = await other.callJson("POST", `/api/customers/${other.slug}/numbers/release`, { order_id: order.order_id });
    expect(refused.status).toBe(404);
    expect(refused.headers.get("Content-Type")).toContain("application/problem+json");
  });

  it("refuses a restore after restorable_until, whether or not the job ran", async () => {
    const customer = await createCustomer("life-window");
    const [number] = await allocateNumbers(customer, 1);
    vi.useFakeTimers({ now: Date.now(), toFake: ["Date"] });
    await release(customer, { number_ids: [number!.number_id] });
    const { restorable_until } = await numberRow(number!.number_id);
    vi.setSystemTime((restorable_until as number) + 1);
    const late = await restore(customer, [number!.number_id]);
    expect(late).toMatchObject({ restored: 0, results: [{ outcome: "restore_window_passed" }] });
    vi.setSystemTime(restorable_until as number);
    expect((await restore(customer, [number!.number_id])).restored).toBe(1);
  });

  it("emits one number.released event per 250 numbers: 260 numbers make 2", async () => {
    const customer = await createCustomer("life-chunks");
    const allocated = await allocateNumbers(customer, 260);
    const report = await release(customer, { order_id: allocated[0]!.order_id });
    expect(report.released).toBe(260);
    const events = await eventsOf(customer.customerId, "number.released");
    expect(events.map((e) => (e.numbers as unknown[]).length).sort()).toEqual([10, 250]);
    const [counted] = await sqlAll<{ audits: number }>(
      "SELECT count(*) AS audits FROM audit_events WHERE customer_id = ? AND action = 'number.released'",
      customer.customerId,
    );
    expect(counted?.audits).toBe(260);
  });
});

describe("the operator's moves", () => {
  let fulfilment: StaffMember;

  it("suspends, resumes, releases (force for protected numbers) and restores any release, audited per number", async () => {
    fulfilment ??= await staffMember("fulfilment");
    const customer = await createCustomer("life-op");
    const other = await createCustomer("life-op-other");
    const [a, protectedOne] = await allocateNumbers(customer, 2);
    const [b] = await allocateNumbers(other, 1);
    await env.DB.prepare("UPDATE numbers SET release_protected = 1 WHERE id = ?").bind(protectedOne!.number_id).run();

    const suspended = await bodyOf<Report>(
      await admin("suspend", { number_ids: [a!.number_id, b!.number_id], reason: "abuse", note: "reported" }, fulfilment.headers),
    );
    expect(suspended).toMatchObject({ suspended: 2, results: [{ outcome: "suspended" }, { outcome: "suspended" }] });
    expect(await numberRow(a!.number_id)).toMatchObject({ status: "suspended", suspension_reason: "abuse" });
    expect(await auditsOf(a!.number_id)).toEqual([
      {
        action: "number.suspended",
        actor_type: "staff",
        changes: { status: ["active", "suspended"], suspension_reason: [null, "abuse"], note: [null, "reported"] },
      },
    ]);
    // One event per account.
    expect(await eventsOf(customer.customerId, "number.suspended")).toHaveLength(1);
    expect(await eventsOf(other.customerId, "number.suspended")).toHaveLength(1);
    expect((await byAdmin("suspend", { number_ids: [a!.number_id], reason: "other" })).results[0]!.outcome).toBe(
      "already_suspended",
    );

    // The customer may release a suspended number; the restore returns it suspended.
    await release(customer, { number_ids: [a!.number_id] });
    expect((await byAdmin("resume", { number_ids: [a!.number_id] })).results[0]!.outcome).toBe("number_released");
    await restore(customer, [a!.number_id]);
    expect(await numberRow(a!.number_id)).toMatchObject({ status: "suspended", suspension_reason: "abuse" });
    const resumed = await byAdmin("resume", { number_ids: [a!.number_id, b!.number_id] });
    expect(resumed.resumed).toBe(2);
    expect(await numberRow(a!.number_id)).toMatchObject({ status: "active", suspended_at: null, suspension_reason: null });
    expect((await byAdmin("resume", { number_ids: [a!.number_id] })).results[0]!.outcome).toBe("not_suspended");

    const unforced = await byAdmin("release", { number_ids: [protectedOne!.number_id, a!.number_id] });
    expect(unforced.results.map((r) => r.outcome)).toEqual(["release_protected", "released"]);
    expect(await numberRow(a!.number_id)).toMatchObject({ status: "released", release_reason: "operator" });
    expect((await restore(customer, [a!.number_id])).results[0]!.outcome).toBe("released_by_operator");
    expect((await byAdmin("restore", { number_ids: [a!.number_id] })).restored).toBe(1);

    const forced = await byAdmin("release", { number_ids: [protectedOne!.number_id], force: true, note: "contract ended" });
    expect(forced.released).toBe(1);
    expect((await auditsOf(protectedOne!.number_id))[0]).toEqual({
      action: "number.released",
      actor_type: "token",
      changes: {
        status: ["active", "released"],
        release_reason: [null, "operator"],
        force: [false, true],
        note: [null, "contract ended"],
      },
    });
    // A customer's release is restored by the operator too.
    await release(customer, { number_ids: [a!.number_id] });
    expect((await byAdmin("restore", { number_ids: [a!.number_id] })).results[0]!.outcome).toBe("restored");
  });
});

describe("bad input", () => {
  /** Everything a refused request could have changed. */
  async function snapshot(customerId: string) {
    return {
      numbers: await sqlAll("SELECT * FROM numbers WHERE customer_id = ? ORDER BY id", customerId),
      events: await sqlAll("SELECT id FROM events WHERE customer_id = ? ORDER BY id", customerId),
      audit: await sqlAll("SELECT id FROM audit_events WHERE customer_id = ? ORDER BY id", customerId),
    };
  }

  it("answers problem+json naming the field, and changes nothing", async () => {
    const customer = await createCustomer("life-bad");
    const [number] = await allocateNumbers(customer, 1);
    const id = number!.number_id;
    const fulfilment = await staffMember("fulfilment");
    const ids = (n: number) => Array.from({ length: n }, () => crypto.randomUUID());
    const before = await snapshot(customer.customerId);
    const customerCases: [string, string, unknown, string][] = [
      ["no ids", "release", { number_ids: [] }, "/number_ids"],
      ["1,001 ids", "release", { number_ids: ids(1001) }, "/number_ids"],
      ["both ids and order", "release", { number_ids: [id], order_id: number!.order_id }, "/order_id"],
      ["neither ids nor order", "release", { dry_run: true }, ""],
      ["an unknown field", "release", { number_ids: [id], force: true }, "/force"],
      ["a malformed id", "release", { number_ids: ["num_nope"] }, "/number_ids/0"],
      ["dry_run not a boolean", "release", { number_ids: [id], dry_run: "yes" }, "/dry_run"],
      ["restore without ids", "restore", {}, "/number_ids"],
      ["restore of 1,001 ids", "restore", { number_ids: ids(1001) }, "/number_ids"],
    ];
    for (const [name, path, body, pointer] of customerCases) {
      const response = await customer.callJson("POST", `/api/customers/${customer.slug}/numbers/${path}`, body);
      expect(response.status, name).toBe(400);
      expect(response.headers.get("Content-Type"), name).toContain("application/problem+json");
      const problem = (await response.json()) as { code: string; errors?: { pointer: string }[] };
      expect(problem.code, name).toBe("validation_error");
      expect(
        problem.errors?.map((e) => e.pointer),
        name,
      ).toContain(pointer);
    }
    const operatorCases: [string, string, unknown, number, string][] = [
      ["a bad reason", "suspend", { number_ids: [id], reason: "whim" }, 400, "validation_error"],
      ["no reason", "suspend", { number_ids: [id] }, 400, "validation_error"],
      ["a note of 501", "suspend", { number_ids: [id], reason: "abuse", note: "x".repeat(501) }, 400, "validation_error"],
      ["a note with NUL", "resume", { number_ids: [id], note: "a\u0000b" }, 400, "validation_error"],
      ["an unknown field", "restore", { number_ids: [id], force: true }, 400, "validation_error"],
      ["force by fulfilment", "release", { number_ids: [id], force: true }, 403, "forbidden"],
    ];
    for (const [name, path, body, status, code] of operatorCases) {
      const response = await admin(path, body, fulfilment.headers);
      expect(response.status, name).toBe(status);
      expect(response.headers.get("Content-Type"), name).toContain("application/problem+json");
      expect(((await response.json()) as { code: string }).code, name).toBe(code);
    }
    const viewer = await staffMember("viewer");
    expect((await admin("suspend", { number_ids: [id], reason: "abuse" }, viewer.headers)).status).toBe(403);
    expect(await snapshot(customer.customerId)).toEqual(before);
    // The same body without force is the fulfilment's to send.
    expect((await bodyOf<Report>(await admin("release", { number_ids: [id], force: false }, fulfilment.headers))).released).toBe(
      1,
    );
  });
});
