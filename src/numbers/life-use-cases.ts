// A number's moves as actions: the account's release and restore, the operator's suspend, resume, release and
// restore. Each names its refusals and when a number allows it (the pages ask `available` whether to offer it).
import type { StaffRole, SuspensionReason } from "../db/schema.ts";
import type { Work } from "../env.ts";
import { action } from "../lib/action.ts";
import { done, notFound, type Result, refusals, refused } from "../lib/problem.ts";
import { ADMIN, operatorAction } from "../staff/roles.ts";
import { type MoveState, mayMoveNumber, type NumberMove, type NumberMover } from "./lifecycle.ts";
import { type MoveReport, type MoveRequest, moveNumbers, type TenureSelection } from "./tenure-store.ts";

/** The staff who change numbers (LIFECYCLE.md). */
const NUMBER_STAFF: readonly StaffRole[] = ["fulfilment", "compliance", "admin"];

/** Whether the mover may make the move on the number now (a page's button). */
function movable(move: NumberMove, mover: NumberMover) {
  return (number: MoveState, now: number) => mayMoveNumber(number, move, mover, { now });
}

async function move(work: Work, request: MoveRequest): Promise<Result<MoveReport, typeof RELEASE_REFUSALS>> {
  const moved = await moveNumbers(work.db, work.outbox, work, request, work.now);
  return moved.ok ? done(moved.value) : refused(notFound("Order"));
}

const RELEASE_REFUSALS = refusals("not_found");
const NO_REFUSALS = refusals();

/** The account's release of its numbers (by ids or by order), or its preview (dry run). */
export const releaseNumbersAction = action({
  refusals: RELEASE_REFUSALS,
  available: movable("release", "customer"),
  run: (work: Work, customerId: string, selection: TenureSelection, dryRun: boolean) =>
    move(work, { move: "release", mover: "customer", customerId, selection, dryRun }),
});

/** The account's restore of numbers it released, within their restore window. */
export const restoreNumbersAction = action({
  refusals: NO_REFUSALS,
  available: movable("restore", "customer"),
  run: (work: Work, customerId: string, numberIds: string[]) =>
    move(work, { move: "restore", mover: "customer", customerId, selection: { numberIds } }),
});

/** Options of the operator's moves: the note kept in the audit log. */
interface OperatorMoveOptions {
  note?: string | undefined;
}

function operatorMove(work: Work, request: Omit<MoveRequest, "mover" | "customerId">) {
  return move(work, { ...request, mover: "operator", customerId: undefined });
}

export const suspendNumbersAction = operatorAction({
  operationId: "suspendNumbers",
  roles: NUMBER_STAFF,
  refusals: NO_REFUSALS,
  available: movable("suspend", "operator"),
  run: (work: Work, numberIds: string[], reason: SuspensionReason, options: OperatorMoveOptions) =>
    operatorMove(work, { move: "suspend", selection: { numberIds }, reason, note: options.note }),
});

export const resumeNumbersAction = operatorAction({
  operationId: "resumeNumbers",
  roles: NUMBER_STAFF,
  refusals: NO_REFUSALS,
  available: movable("resume", "operator"),
  run: (work: Work, numberIds: string[], options: OperatorMoveOptions) =>
    operatorMove(work, { move: "resume", selection: { numberIds }, note: options.note }),
});

/** Whether the operator's release with `force` takes the number now (a protected one too): the page's forced release. */
export function forcedReleaseAvailable(number: MoveState, now: number): boolean {
  return mayMoveNumber(number, "release", "operator", { now, force: true });
}

/** The operator's release; `force` (admin only) releases protected numbers too. */
export const releaseNumbersByOperatorAction = operatorAction({
  operationId: "releaseNumbersByOperator",
  roles: NUMBER_STAFF,
  elevated: { flag: "force", roles: ADMIN },
  refusals: NO_REFUSALS,
  available: movable("release", "operator"),
  run: (work: Work, numberIds: string[], options: OperatorMoveOptions & { force?: boolean | undefined }) =>
    operatorMove(work, { move: "release", selection: { numberIds }, note: options.note, force: options.force }),
});

/** The operator's restore of any release, within the restore window. */
export const restoreNumbersByOperatorAction = operatorAction({
  operationId: "restoreNumbersByOperator",
  roles: NUMBER_STAFF,
  refusals: NO_REFUSALS,
  available: movable("restore", "operator"),
  run: (work: Work, numberIds: string[], options: OperatorMoveOptions) =>
    operatorMove(work, { move: "restore", selection: { numberIds }, note: options.note }),
});
