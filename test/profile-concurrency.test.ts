// Profiles under concurrency (COMPLIANCE.md, Profiles): attaches of overlapping sets of numbers to three profiles,
// detaches, a number's own verification submitted and deleted, and an allocation to an order naming a profile, all
// at once, a few rounds in a seeded order. Whatever order they ran in, each number ends attached to one profile at
// most and never while it has its own verification, every report accounts for each number asked once, every
// attachment and detachment reported is one row written and one number in an event, and the numbers list, each
// number's KYC and each profile's count say the same as the database.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { seededRandom } from "../src/lib/seeded-random.ts";
import { TEST_ADMIN_TOKEN } from "./constants.ts";
import {
  allocateNumbers,
  bodyOf,
  call,
  callJson,
  createCustomer,
  INDIVIDUAL_ADDRESS,
  keyRing,
  makeOrderable,
  type TestCustomer,
  uniquePhoneNumber,
} from "./helpers.ts";

const ADMIN = { Authorization: `Bearer ${TEST_ADMIN_TOKEN}` };
const SEED = 0x5eed_2024;
const ROUNDS = 3;
const PER_ROUND_ALLOCATION = 3;

type Wire = Record<string, unknown> & { id: string };
interface Refused {
  number_id: string;
  code: string;
}
interface AttachReport {
  attached: string[];
  already_attached: string[];
  refused: Refused[];
}
interface DetachReport {
  detached: string[];
  already_detached: string[];
  refused: Refused[];
}

function shuffled<T>(items: readonly T[], random: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

function between(random: () => number, min: number, max: number): number {
  return min + Math.floor(random() * (max - min + 1));
}

const bare = (id: string) => id.replace(/^(num|kyp|kyc)_/, "");
const num = (id: string) => `num_${bare(id)}`;

/** One request of a round, described as data so that the round's order is a seeded shuffle of them. */
type Operation =
  | { kind: "attach"; profile: string; ids: string[] }
  | { kind: "attach_order"; profile: string }
  | { kind: "detach"; profile: string; ids: string[] }
  | { kind: "detach_one"; profile: string; id: string }
  | { kind: "submit"; id: string }
  | { kind: "delete_own"; id: string }
  | { kind: "allocate"; phones: string[] };

/**
 * The answers each operation may give whatever ran beside it: a status, and a refusal's code. A detach of one number
 * that is not attached there is 404; a number's own verification is refused while the number is attached (409
 * kyc_managed_by_profile) or while it has one (409 kyc_exists), and deleting it while it has none is 404.
 */
const ANSWERS: Record<Operation["kind"], string[]> = {
  attach: ["200"],
  attach_order: ["200"],
  detach: ["200"],
  detach_one: ["200", "404 not_found"],
  submit: ["201", "409 kyc_managed_by_profile", "409 kyc_exists"],
  delete_own: ["200", "409 kyc_managed_by_profile", "404 not_found"],
  allocate: ["201"],
};

interface Outcome {
  op: Operation;
  status: number;
  body: Record<string, unknown>;
}

describe("profiles under concurrent attach, detach, own verifications and allocation", () => {
  it("never attaches a number twice or beside its own verification, and every report, count and event agrees", async () => {
    const random = seededRandom(SEED);
    const customer: TestCustomer = await createCustomer("pconc");
    const ring = keyRing(customer.slug);
    const as = (key: string) => ({ Authorization: `Bearer ${key}` });
    const get = async (path: string) => call(path, { headers: as(await ring.next()) });
    const send = async (method: string, path: string, payload?: unknown) =>
      payload === undefined
        ? call(path, { method, headers: as(await ring.next()) })
        : callJson(method, path, payload, as(await ring.next()));
    const profilesPath = (rest = "") => `/api/customers/${customer.slug}/kyc-profiles${rest}`;

    // Three profiles in three statuses, so a number's kyc_status tells which one it follows.
    const profiles: Wire[] = [];
    for (const name of ["A", "B", "C"]) {
      profiles.push(await bodyOf<Wire>(await send("POST", profilesPath(), { name, ...INDIVIDUAL_ADDRESS }), 201));
    }
    const [profileA, profileB, profileC] = profiles as [Wire, Wire, Wire];
    const review = (id: string, status: string) => callJson("POST", `/admin/kyc-profiles/${id}/review`, { status }, ADMIN);
    await bodyOf(await review(profileB.id, "under_review"), 200);
    await bodyOf(await review(profileC.id, "under_review"), 200);
    await bodyOf(await review(profileC.id, "approved"), 200);
    const profileStatus = new Map([
      [bare(profileA.id), "pending"],
      [bare(profileB.id), "under_review"],
      [bare(profileC.id), "approved"],
    ]);

    const numbers = (await allocateNumbers(customer, 30)).map((n) => n.number_id);
    // Five numbers start with a verification of their own.
    const ownAtStart = shuffled(numbers, random).slice(0, 5);
    for (const id of ownAtStart) await bodyOf(await send("POST", `/v1/numbers/${id}/KYC/address`, INDIVIDUAL_ADDRESS), 201);

    await makeOrderable("US", "mobile");
    const order = await bodyOf<{ order_id: string; kyc_profile_id: string }>(
      await send("POST", `/api/customers/${customer.slug}/orders`, {
        country_code: "US",
        number_type: "mobile",
        quantity: 10,
        kyc_profile_id: profileA.id,
      }),
      201,
    );
    expect(order.kyc_profile_id).toBe(profileA.id);

    // What the answers say happened, across every round: each row written is one report entry.
    const attachedEntries: string[] = []; // `${profile}:${number}` per number an attach (or the allocation) attached
    const detachedEntries: string[] = []; // the same per number a detach detached
    const ownBalance = new Map<string, number>(numbers.map((id) => [id, ownAtStart.includes(id) ? 1 : 0]));
    const allocated: string[] = [];
    let ownSubmitted = 0;
    let ownDeleted = 0;
    const faults: string[] = [];

    async function run(op: Operation, key: string): Promise<Outcome> {
      const headers = as(key);
      let response: Response;
      switch (op.kind) {
        case "attach":
          response = await callJson("POST", profilesPath(`/${op.profile}/numbers`), { number_ids: op.ids }, headers);
          break;
        case "attach_order":
          response = await callJson("POST", profilesPath(`/${op.profile}/numbers`), { order_id: order.order_id }, headers);
          break;
        case "detach":
          response = await callJson("POST", profilesPath(`/${op.profile}/numbers/detach`), { number_ids: op.ids }, headers);
          break;
        case "detach_one":
          response = await call(profilesPath(`/${op.profile}/numbers/${num(op.id)}`), { method: "DELETE", headers });
          break;
        case "submit":
          response = await callJson("POST", `/v1/numbers/${op.id}/KYC/address`, INDIVIDUAL_ADDRESS, headers);
          break;
        case "delete_own":
          response = await call(`/v1/numbers/${op.id}/KYC`, { method: "DELETE", headers });
          break;
        case "allocate":
          response = await callJson("POST", `/admin/orders/${order.order_id}/numbers`, { phone_numbers: op.phones }, ADMIN);
          break;
      }
      const text = await response.text();
      return { op, status: response.status, body: text === "" ? {} : JSON.parse(text) };
    }

    /** A subset of the 30 numbers, some ids bare and some prefixed, one of them named twice (counted once). */
    function subset(min: number, max: number): string[] {
      const chosen = shuffled(numbers, random).slice(0, between(random, min, max));
      const ids = chosen.map((id) => (random() < 0.5 ? id : num(id)));
      ids.push(random() < 0.5 ? chosen[0]! : num(chosen[0]!));
      return ids;
    }

    for (let round = 1; round <= ROUNDS; round++) {
      const ops: Operation[] = [];
      for (const profile of profiles) {
        for (let i = 0; i < 3; i++) ops.push({ kind: "attach", profile: profile.id, ids: subset(8, 14) });
        for (let i = 0; i < 2; i++) ops.push({ kind: "detach", profile: profile.id, ids: subset(3, 8) });
        ops.push({ kind: "detach_one", profile: profile.id, id: shuffled(numbers, random)[0]! });
      }
      ops.push({ kind: "attach_order", profile: profileA.id }, { kind: "attach_order", profile: profileB.id });
      for (const id of shuffled(numbers, random).slice(0, 4)) ops.push({ kind: "submit", id });
      for (const id of shuffled(numbers, random).slice(0, 4)) ops.push({ kind: "delete_own", id });
      const phones = Array.from({ length: PER_ROUND_ALLOCATION }, uniquePhoneNumber);
      ops.push({ kind: "allocate", phones });

      const sequence = shuffled(ops, random);
      const keys: string[] = [];
      for (const op of sequence) keys.push(op.kind === "allocate" ? "" : await ring.next());
      const outcomes = await Promise.all(sequence.map((op, i) => run(op, keys[i]!)));

      for (const { op, status, body: answer } of outcomes) {
        const what = `round ${round}: ${JSON.stringify(op)} → ${status} ${JSON.stringify(answer)}`;
        // A wrong answer is noted and checked last, so that the state's invariants are checked first (a refused or
        // failed request wrote nothing, and adds nothing to what the answers say happened).
        if (!ANSWERS[op.kind].includes(`${status}${status < 300 ? "" : ` ${answer.code}`}`)) {
          faults.push(what);
          continue;
        }
        if (status >= 300) continue;
        switch (op.kind) {
          case "attach": {
            const report = answer as unknown as AttachReport;
            const asked = [...new Set(op.ids.map(num))].sort();
            const told = [...report.attached, ...report.already_attached, ...report.refused.map((r) => r.number_id)];
            // Every distinct id asked is in exactly one of the three lists.
            expect(told.sort(), what).toEqual(asked);
            for (const r of report.refused) expect(["has_own_verification", "attached_to_other_profile"], what).toContain(r.code);
            for (const id of report.attached) attachedEntries.push(`${bare(op.profile)}:${bare(id)}`);
            break;
          }
          case "attach_order": {
            const report = answer as unknown as AttachReport;
            // An order's numbers join its profile in the allocation's own batch: nothing is left for an attach to do,
            // its profile finds them already attached, another profile finds them attached to another.
            const right =
              report.attached.length === 0 &&
              report.already_attached.length + report.refused.length <= allocated.length + PER_ROUND_ALLOCATION &&
              (op.profile === profileA.id
                ? report.refused.length === 0
                : report.already_attached.length === 0 && report.refused.every((r) => r.code === "attached_to_other_profile"));
            if (!right) faults.push(what);
            break;
          }
          case "detach":
          case "detach_one": {
            const report = answer as unknown as DetachReport;
            const asked = op.kind === "detach" ? [...new Set(op.ids.map(num))].sort() : [num(op.id)];
            const told = [...report.detached, ...report.already_detached, ...report.refused.map((r) => r.number_id)];
            expect(told.sort(), what).toEqual(asked);
            for (const r of report.refused) expect(r.code, what).toBe("attached_to_other_profile");
            if (op.kind === "detach_one") expect(report.detached, what).toEqual([num(op.id)]);
            for (const id of report.detached) detachedEntries.push(`${bare(op.profile)}:${bare(id)}`);
            break;
          }
          case "submit":
            ownSubmitted++;
            ownBalance.set(op.id, ownBalance.get(op.id)! + 1);
            break;
          case "delete_own":
            ownDeleted++;
            ownBalance.set(op.id, ownBalance.get(op.id)! - 1);
            break;
          case "allocate": {
            const got = answer.numbers as { number_id: string; kyc_profile_id: string | null }[];
            expect(
              got.map((n) => n.kyc_profile_id),
              what,
            ).toEqual(got.map(() => profileA.id));
            for (const n of got) {
              allocated.push(n.number_id);
              attachedEntries.push(`${bare(profileA.id)}:${n.number_id}`);
            }
            break;
          }
        }
      }

      await expectConsistent(round);
    }

    /** Checks the database, the API and the events against each other and against what the answers said. */
    async function expectConsistent(round: number) {
      const where = `after round ${round}`;
      const everyNumber = [...numbers, ...allocated];
      const { results: attachments } = await env.DB.prepare(
        "SELECT number_id, profile_id FROM kyc_profile_numbers WHERE customer_id = ?",
      )
        .bind(customer.customerId)
        .all<{ number_id: string; profile_id: string }>();
      const profileOf = new Map(attachments.map((a) => [a.number_id, a.profile_id]));
      expect(profileOf.size, where).toBe(attachments.length);
      const { results: own } = await env.DB.prepare(
        "SELECT number_id, status FROM kyc_verifications WHERE customer_id = ? AND number_id IS NOT NULL",
      )
        .bind(customer.customerId)
        .all<{ number_id: string; status: string }>();
      const ownStatus = new Map(own.map((v) => [v.number_id, v.status]));
      expect(ownStatus.size, where).toBe(own.length);
      // Never a number attached while it has a verification of its own.
      expect(
        attachments.filter((a) => ownStatus.has(a.number_id)).map((a) => a.number_id),
        `${where}: numbers both attached and with their own verification`,
      ).toEqual([]);

      // Each (profile, number) was attached exactly once more than it was detached when it is attached now, else as often:
      // every attached and detached a report names is one row written, and nothing else wrote one.
      const count = (entries: string[]) => {
        const counts = new Map<string, number>();
        for (const e of entries) counts.set(e, (counts.get(e) ?? 0) + 1);
        return counts;
      };
      const attachedCount = count(attachedEntries);
      const detachedCount = count(detachedEntries);
      for (const id of everyNumber) {
        for (const profile of profileStatus.keys()) {
          const key = `${profile}:${id}`;
          const balance = (attachedCount.get(key) ?? 0) - (detachedCount.get(key) ?? 0);
          expect(balance, `${where}: attaches minus detaches of ${key}`).toBe(profileOf.get(id) === profile ? 1 : 0);
        }
      }
      for (const id of numbers) {
        expect(ownBalance.get(id), `${where}: own verifications submitted minus deleted of ${id}`).toBe(
          ownStatus.has(id) ? 1 : 0,
        );
      }
      for (const id of allocated) expect(profileOf.get(id), `${where}: allocated ${id}`).toBe(bare(profileA.id));

      // The numbers list says what the database holds, and so does each number's KYC.
      const listed = new Map<string, { kyc_profile_id: string | null; kyc_status: string | null }>();
      for (let page = 1; ; page++) {
        const list = await bodyOf<{
          data: { number_id: string; kyc_profile_id: string | null; kyc_status: string | null }[];
          meta: { hasNextPage: boolean };
        }>(await get(`/api/customers/${customer.slug}/numbers?limit=100&page=${page}`), 200);
        for (const n of list.data) listed.set(n.number_id, n);
        if (!list.meta.hasNextPage) break;
      }
      expect([...listed.keys()].sort(), where).toEqual([...everyNumber].sort());
      const kycAnswers = await Promise.all(
        everyNumber.map(async (id) => {
          const response = await get(`/v1/numbers/${id}/KYC`);
          return { id, status: response.status, kyc: JSON.parse(await response.text()) as Record<string, unknown> };
        }),
      );
      for (const { id, status, kyc } of kycAnswers) {
        const item = listed.get(id)!;
        const profile = profileOf.get(id);
        const what = `${where}: number ${id} listed ${JSON.stringify(item)}, KYC ${status} ${JSON.stringify(kyc)}`;
        if (profile !== undefined) {
          expect(item, what).toEqual(
            expect.objectContaining({ kyc_profile_id: `kyp_${profile}`, kyc_status: profileStatus.get(profile) }),
          );
          expect(status, what).toBe(200);
          expect(kyc, what).toMatchObject({
            number_id: num(id),
            profile_id: `kyp_${profile}`,
            status: profileStatus.get(profile),
          });
        } else if (ownStatus.has(id)) {
          expect(item, what).toEqual(expect.objectContaining({ kyc_profile_id: null, kyc_status: ownStatus.get(id) }));
          expect(status, what).toBe(200);
          expect(kyc, what).toMatchObject({ number_id: num(id), profile_id: null, status: ownStatus.get(id) });
        } else {
          expect(item, what).toEqual(expect.objectContaining({ kyc_profile_id: null, kyc_status: null }));
          expect(status, what).toBe(404);
        }
      }

      // Each profile's number_count, its status, and the list filtered by it: its attachments.
      for (const profile of profiles) {
        const attachedHere = attachments.filter((a) => a.profile_id === bare(profile.id)).length;
        const read = await bodyOf<Wire>(await get(profilesPath(`/${profile.id}`)), 200);
        expect(read, `${where}: profile ${profile.name}`).toMatchObject({
          number_count: attachedHere,
          status: profileStatus.get(bare(profile.id)),
        });
        const filtered = await bodyOf<{ meta: { total: number } }>(
          await get(`/api/customers/${customer.slug}/numbers?limit=1&kyc_profile_id=${profile.id}`),
          200,
        );
        expect(filtered.meta.total, `${where}: numbers listed for profile ${profile.name}`).toBe(attachedHere);
      }

      // One number in a numbers_attached (numbers_detached) event per number a report attached (detached).
      const inEvents = async (type: string) => {
        const entries: string[] = [];
        for (let page = 1; ; page++) {
          const events = await bodyOf<{
            data: { data: { profile_id: string; number_ids: string[] } }[];
            meta: { hasNextPage: boolean };
          }>(await get(`/api/customers/${customer.slug}/events?type=${type}&limit=100&page=${page}`), 200);
          for (const e of events.data) for (const id of e.data.number_ids) entries.push(`${bare(e.data.profile_id)}:${bare(id)}`);
          if (!events.meta.hasNextPage) return entries.sort();
        }
      };
      expect(await inEvents("kyc_profile.numbers_attached"), `${where}: numbers_attached events`).toEqual(
        [...attachedEntries].sort(),
      );
      expect(await inEvents("kyc_profile.numbers_detached"), `${where}: numbers_detached events`).toEqual(
        [...detachedEntries].sort(),
      );
    }

    // The race did something: numbers joined each profile, some left, and own verifications came and went.
    const attachedTo = new Set(attachedEntries.map((e) => e.split(":")[0]));
    expect([...attachedTo].sort()).toEqual([...profileStatus.keys()].sort());
    expect(detachedEntries.length).toBeGreaterThan(0);
    expect(ownSubmitted).toBeGreaterThan(0);
    expect(ownDeleted).toBeGreaterThan(0);
    expect(allocated).toHaveLength(ROUNDS * PER_ROUND_ALLOCATION);
    // Answers that misreport (checked last, so that every invariant above is checked first).
    expect(faults, "answers that misreport what happened").toEqual([]);
  });
});
