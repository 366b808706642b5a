// The table of a number's moves (src/numbers/lifecycle.ts) gives both the stores' SQL guards and the reports' and
// pages' predicates in JS: for generated rows written into D1, each guard selects the row exactly when its predicate
// allows the move. The moves themselves are held by the number tests through the API.
import { env } from "cloudflare:workers";
import { and, eq } from "drizzle-orm";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { createDatabase } from "../src/db/client.ts";
import { NUMBER_STATUSES, numbers, RELEASE_REASONS } from "../src/db/schema.ts";
import { DAY_MS } from "../src/lib/time.ts";
import {
  type MoveOptions,
  type MoveState,
  mayMoveNumber,
  moveGuard,
  moveRefusal,
  NUMBER_MOVES,
  type NumberMove,
  type NumberMover,
  RESTORE_WINDOW_MS,
  RESTORED_STATUS,
  restoredStatus,
} from "../src/numbers/lifecycle.ts";
import { allocateNumbers, createCustomer } from "./helpers.ts";

const db = createDatabase(env.DB);
let numberId = "";

beforeAll(async () => {
  const [number] = await allocateNumbers(await createCustomer("lifecycle"), 1);
  if (!number) expect.fail("no number allocated");
  numberId = number.number_id;
});

const NOW_MIN = Date.UTC(2026, 0, 1);

/** Every (move, mover, force) the table allows a mover to try. */
const TRIES = Object.entries(NUMBER_MOVES).flatMap(([move, rule]) =>
  rule.movers.flatMap((mover: NumberMover) =>
    (move === "release" && mover === "operator" ? [false, true] : [false]).map((force) => ({
      move: move as NumberMove,
      mover,
      force,
    })),
  ),
);
const tryName = (t: (typeof TRIES)[number]) => `${t.mover} ${t.move}${t.force ? " forced" : ""}`;

/** A tenure's state relative to `now`: the restore window's edge (to the millisecond) and anywhere around it. */
const state = fc.record({
  now: fc.integer({ min: NOW_MIN, max: NOW_MIN + 365 * DAY_MS }),
  status: fc.constantFrom(...NUMBER_STATUSES),
  releaseProtected: fc.boolean(),
  releaseReason: fc.constantFrom(null, ...RELEASE_REASONS),
  restorableIn: fc.oneof(
    fc.constant(null),
    fc.integer({ min: -2, max: 2 }),
    fc.integer({ min: -RESTORE_WINDOW_MS, max: RESTORE_WINDOW_MS }),
  ),
  closed: fc.boolean(),
  suspended: fc.boolean(),
});
type State = typeof state extends fc.Arbitrary<infer S> ? S : never;

/** Writes the state, then reads the row back and which guards select it, in one D1 call. */
async function guardsOn(generated: State) {
  const { now } = generated;
  const thisNumber = eq(numbers.id, numberId);
  const written: Partial<MoveState> = {
    status: generated.status,
    releaseProtected: generated.releaseProtected,
    releaseReason: generated.releaseReason,
    restorableUntil: generated.restorableIn === null ? null : now + generated.restorableIn,
    closedAt: generated.closed ? now - DAY_MS : null,
  };
  const suspendedAt = generated.suspended ? now - DAY_MS : null;
  const [, [row], [restored], ...selected] = await db.batch([
    db
      .update(numbers)
      .set({ ...written, suspendedAt })
      .where(thisNumber),
    db.select().from(numbers).where(thisNumber),
    db.select({ status: RESTORED_STATUS }).from(numbers).where(thisNumber),
    ...TRIES.map((t) =>
      db
        .select({ id: numbers.id })
        .from(numbers)
        .where(and(thisNumber, moveGuard(t.move, t.mover, { now, force: t.force }))),
    ),
  ]);
  if (!row || !restored) expect.fail("the number was not read back");
  // A restore returns the number to the state it was released from, in SQL as in JS.
  expect(restored.status).toBe(restoredStatus(row));
  return { row, selected: Object.fromEntries(TRIES.map((t, i) => [tryName(t), selected[i]?.length === 1])) };
}

describe("what a number allows in each state", () => {
  it("each move's guard selects the row exactly when its predicate allows the move", async () => {
    const seen = new Set<string>();
    try {
      await fc.assert(
        fc.asyncProperty(state, async (generated) => {
          const { row, selected } = await guardsOn(generated);
          const allowed = Object.fromEntries(
            TRIES.map((t) => {
              const options: MoveOptions = { now: generated.now, force: t.force };
              const yes = mayMoveNumber(row, t.move, t.mover, options);
              // A refusal names its reason; an allowed move has none.
              expect(moveRefusal(row, t.move, t.mover, options) === undefined).toBe(yes);
              return [tryName(t), yes];
            }),
          );
          expect(selected, JSON.stringify(generated)).toEqual(allowed);
          for (const [name, yes] of Object.entries(allowed)) seen.add(`${name} ${yes}`);
        }),
        { numRuns: 150 },
      );
    } finally {
      await db
        .update(numbers)
        .set({ status: "active", restorableUntil: null, closedAt: null, suspendedAt: null })
        .where(eq(numbers.id, numberId));
    }
    // Each try seen allowed and refused, so the property cannot hold by never reaching a case.
    expect([...seen].sort()).toEqual(TRIES.flatMap((t) => [`${tryName(t)} false`, `${tryName(t)} true`]).sort());
  });

  it("names why a move is refused", () => {
    const now = NOW_MIN;
    const base: MoveState = {
      status: "active",
      releaseProtected: false,
      releaseReason: null,
      restorableUntil: null,
      closedAt: null,
    };
    const released: MoveState = { ...base, status: "released", releaseReason: "customer", restorableUntil: now };
    const options = { now };
    expect(moveRefusal({ ...base, status: "released" }, "release", "customer", options)).toBe("already_released");
    expect(moveRefusal({ ...base, releaseProtected: true }, "release", "customer", options)).toBe("release_protected");
    expect(moveRefusal({ ...base, releaseProtected: true }, "release", "operator", options)).toBe("release_protected");
    expect(moveRefusal({ ...base, releaseProtected: true }, "release", "operator", { now, force: true })).toBeUndefined();
    expect(moveRefusal(base, "restore", "customer", options)).toBe("not_released");
    expect(moveRefusal(released, "restore", "customer", options)).toBeUndefined();
    expect(moveRefusal(released, "restore", "customer", { now: now + 1 })).toBe("restore_window_passed");
    expect(moveRefusal({ ...released, closedAt: now }, "restore", "operator", options)).toBe("restore_window_passed");
    expect(moveRefusal({ ...released, releaseReason: "operator" }, "restore", "customer", options)).toBe("released_by_operator");
    expect(moveRefusal({ ...released, releaseReason: "operator" }, "restore", "operator", options)).toBeUndefined();
    expect(moveRefusal({ ...base, status: "suspended" }, "suspend", "operator", options)).toBe("already_suspended");
    expect(moveRefusal(released, "suspend", "operator", options)).toBe("number_released");
    expect(moveRefusal(base, "resume", "operator", options)).toBe("not_suspended");
    expect(moveRefusal(released, "resume", "operator", options)).toBe("number_released");
    expect(() => moveRefusal(base, "suspend", "customer", options)).toThrow();
  });
});
