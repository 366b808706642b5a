// A number's state machine (LIFECYCLE.md): which moves each mover may make from which states, and on what else each
// depends (release protection, the restore window, who released it). The stores' SQL guards and the JS predicates
// (reports, dry runs, pages) are both built from this table, so they cannot disagree.
import { and, eq, gte, inArray, isNull, or, type SQL, sql } from "drizzle-orm";
import type { AuditAction } from "../db/audit.ts";
import { type EventType, type NumberRow, type NumberStatus, numbers, type ReleaseReason } from "../db/schema.ts";
import { DAY_MS } from "../lib/time.ts";

/** Who moves a number: its account (the API, the portal) or the operator (the admin API, the console). */
export type NumberMover = "customer" | "operator";

/** How long after a release it can be undone; the return-to-stock job closes the tenure after that. */
export const RESTORE_WINDOW_MS = 10 * DAY_MS;

/** Why a number in this state does not take the move: the report's outcome for it. */
export type MoveRefusal =
  | "already_released"
  | "not_released"
  | "already_suspended"
  | "not_suspended"
  | "number_released"
  | "release_protected"
  | "restore_window_passed"
  | "released_by_operator";

interface MoveRule {
  /** The statuses the move starts from. */
  from: readonly NumberStatus[];
  /** Who may make it. */
  movers: readonly NumberMover[];
  /** The outcome for a number in each other status. */
  wrongState: Readonly<Partial<Record<NumberStatus, MoveRefusal>>>;
  event: EventType;
  audit: AuditAction;
}

/**
 * The moves. A release keeps suspended_at and suspension_reason, so a restore returns the number to `suspended` when
 * suspended_at is set and to `active` otherwise.
 */
export const NUMBER_MOVES = {
  release: {
    from: ["active", "suspended"],
    movers: ["customer", "operator"],
    wrongState: { released: "already_released" },
    event: "number.released",
    audit: "number.released",
  },
  restore: {
    from: ["released"],
    movers: ["customer", "operator"],
    wrongState: { active: "not_released", suspended: "not_released" },
    event: "number.restored",
    audit: "number.restored",
  },
  suspend: {
    from: ["active"],
    movers: ["operator"],
    wrongState: { suspended: "already_suspended", released: "number_released" },
    event: "number.suspended",
    audit: "number.suspended",
  },
  resume: {
    from: ["suspended"],
    movers: ["operator"],
    wrongState: { active: "not_suspended", released: "number_released" },
    event: "number.resumed",
    audit: "number.resumed",
  },
} as const satisfies Record<string, MoveRule>;

export type NumberMove = keyof typeof NUMBER_MOVES;

/** A release by the operator with `force` takes protected numbers too. */
export interface MoveOptions {
  /** The use case's clock (Work.now): the restore window ends at restorable_until. */
  now: number;
  force?: boolean;
}

/** The columns the rules read. */
export type MoveState = Pick<NumberRow, "status" | "releaseProtected" | "releaseReason" | "restorableUntil" | "closedAt">;

function rule(move: NumberMove, mover: NumberMover): MoveRule {
  const found: MoveRule = NUMBER_MOVES[move];
  if (!found.movers.includes(mover)) throw new Error(`the ${mover} cannot ${move} a number`);
  return found;
}

/** Whether a protected number gives way: only to the operator's forced release. */
function overridesProtection(mover: NumberMover, options: MoveOptions): boolean {
  return mover === "operator" && options.force === true;
}

/**
 * Why `mover` may not make `move` on the number now, or undefined when it may. Checked in this order: the state, then
 * protection (release), then who released it and the window (restore).
 */
export function moveRefusal(
  number: MoveState,
  move: NumberMove,
  mover: NumberMover,
  options: MoveOptions,
): MoveRefusal | undefined {
  const { from, wrongState } = rule(move, mover);
  if (!from.includes(number.status)) return wrongState[number.status];
  if (move === "release" && number.releaseProtected && !overridesProtection(mover, options)) return "release_protected";
  if (move === "restore") {
    if (mover === "customer" && number.releaseReason === ("operator" satisfies ReleaseReason)) return "released_by_operator";
    if (number.closedAt !== null || number.restorableUntil === null || options.now > number.restorableUntil) {
      return "restore_window_passed";
    }
  }
  return undefined;
}

/** Whether `mover` may make `move` on the number now (the pages' forms ask). */
export function mayMoveNumber(number: MoveState, move: NumberMove, mover: NumberMover, options: MoveOptions): boolean {
  return moveRefusal(number, move, mover, options) === undefined;
}

/** moveRefusal as the guard of a statement over numbers: the rows `mover` may make `move` on now. */
export function moveGuard(move: NumberMove, mover: NumberMover, options: MoveOptions): SQL {
  const { from } = rule(move, mover);
  const inState = inArray(numbers.status, [...from]);
  switch (move) {
    case "release":
      return overridesProtection(mover, options) ? inState : and(inState, eq(numbers.releaseProtected, false))!;
    case "restore":
      return and(
        inState,
        mover === "customer"
          ? or(isNull(numbers.releaseReason), sql`${numbers.releaseReason} <> ${"operator" satisfies ReleaseReason}`)
          : undefined,
        isNull(numbers.closedAt),
        gte(numbers.restorableUntil, options.now),
      )!;
    case "suspend":
    case "resume":
      return inState;
  }
}

/** The status a restore returns a released number to: suspended when it was suspended at its release. */
export function restoredStatus(number: Pick<NumberRow, "suspendedAt">): NumberStatus {
  return number.suspendedAt === null ? "active" : "suspended";
}

/** restoredStatus in SQL, for the restore's UPDATE. */
export const RESTORED_STATUS = sql`CASE WHEN ${numbers.suspendedAt} IS NULL THEN ${"active" satisfies NumberStatus} ELSE ${"suspended" satisfies NumberStatus} END`;
