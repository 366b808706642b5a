// The operator's moves of numbers in the console (suspend, resume, release, restore): one form whose buttons post the
// chosen numbers to a move, the routes that run each move through its action, and the report shown after the redirect.
import type { z } from "@hono/zod-openapi";
import type { Context, Handler } from "hono";
import { SUSPENSION_REASONS } from "../db/schema.ts";
import type { ConsoleEnv, Work } from "../env.ts";
import { workOf } from "../http/request-context.ts";
import type { Problem, Result } from "../lib/problem.ts";
import { capitalised, words } from "../lib/words.ts";
import {
  operatorReleaseNumbersBody,
  operatorRestoreNumbersBody,
  resumeNumbersBody,
  suspendNumbersBody,
} from "../numbers/life-schemas.ts";
import {
  forcedReleaseAvailable,
  releaseNumbersByOperatorAction,
  restoreNumbersByOperatorAction,
  resumeNumbersAction,
  suspendNumbersAction,
} from "../numbers/life-use-cases.ts";
import type { MoveState, NumberMove } from "../numbers/lifecycle.ts";
import { MOVED_OUTCOMES, type MoveReport } from "../numbers/tenure-store.ts";
import { changeGuard, mayChange, mayRaise, type OperatorAction, offered } from "../staff/roles.ts";
import { leaveAfterRedirect, takeAfterRedirect } from "../ui/after-redirect.ts";
import { plural } from "../ui/format.ts";
import { fieldMessages, readForm, Select, TextArea } from "../ui/forms.tsx";
import { staffNote } from "./admin-common.tsx";

type C = Context<ConsoleEnv>;
type Form = Record<string, string>;

export const NUMBERS = "/ops/numbers";

/** A number's console page. */
export const numberHref = (numberId: string) => `${NUMBERS}/${numberId}`;

/** What a posted move gives: each field's error, or the action's answer. */
type Submitted = { errors: Form } | Result<MoveReport>;

/** The form's text as the API's body, judged by its schema; then the action runs it. */
async function submitted<B>(parsed: z.ZodSafeParseResult<B>, run: (body: B) => Promise<Result<MoveReport>>): Promise<Submitted> {
  return parsed.success ? run(parsed.data) : { errors: fieldMessages(parsed.error.issues) };
}

/** An optional text field: blank says nothing. */
const optional = (value: string | undefined) => (value === undefined || value.trim() === "" ? undefined : value);

/** Each move: its action, its button, and how a form becomes the API's body and runs. */
const CONSOLE_MOVES = {
  suspend: {
    action: suspendNumbersAction,
    button: "Suspend",
    submit: (work: Work, form: Form, ids: string[]) =>
      submitted(
        suspendNumbersBody.safeParse({ number_ids: ids, reason: optional(form.reason), note: optional(form.note) }),
        (b) => suspendNumbersAction.run(work, b.number_ids, b.reason, { note: b.note }),
      ),
  },
  resume: {
    action: resumeNumbersAction,
    button: "Resume",
    submit: (work: Work, form: Form, ids: string[]) =>
      submitted(resumeNumbersBody.safeParse({ number_ids: ids, note: optional(form.note) }), (b) =>
        resumeNumbersAction.run(work, b.number_ids, { note: b.note }),
      ),
  },
  release: {
    action: releaseNumbersByOperatorAction,
    button: "Release",
    submit: (work: Work, form: Form, ids: string[]) =>
      submitted(
        operatorReleaseNumbersBody.safeParse({
          number_ids: ids,
          note: optional(form.note),
          force: form.force === "true" ? true : undefined,
        }),
        (b) => releaseNumbersByOperatorAction.run(work, b.number_ids, { note: b.note, force: b.force }),
      ),
  },
  restore: {
    action: restoreNumbersByOperatorAction,
    button: "Restore",
    submit: (work: Work, form: Form, ids: string[]) =>
      submitted(operatorRestoreNumbersBody.safeParse({ number_ids: ids, note: optional(form.note) }), (b) =>
        restoreNumbersByOperatorAction.run(work, b.number_ids, { note: b.note }),
      ),
  },
} as const satisfies Record<NumberMove, unknown>;

const MOVES = Object.keys(CONSOLE_MOVES) as NumberMove[];

/** A move's action, as every move's (its run aside) is. */
const moveAction = (move: NumberMove): OperatorAction<(...args: never[]) => unknown, MoveState> => CONSOLE_MOVES[move].action;

/** Whether the move is offered on the number now: a release by a role that may force it takes protected numbers too. */
function offeredOn(c: C, move: NumberMove, number: MoveState): boolean {
  const { operator, now } = c.var;
  if (offered(operator, moveAction(move), number, now)) return true;
  return move === "release" && mayRaise(operator, releaseNumbersByOperatorAction) && forcedReleaseAvailable(number, now);
}

/** The moves the operator may make on at least one of the numbers now. */
export function offeredMoves(c: C, numbers: readonly MoveState[]): NumberMove[] {
  return MOVES.filter((move) => numbers.some((number) => offeredOn(c, move, number)));
}

/** Whether the operator may make any move at all: whether a page shows its numbers' checkboxes. */
export function movesAnyNumber(c: C): boolean {
  return MOVES.some((move) => mayChange(c.var.operator, moveAction(move)));
}

/** A form posted again after a refusal: its values, the numbers ticked, each field's error, or the action's refusal. */
export interface MoveFormState {
  values?: Form;
  chosen?: readonly string[];
  errors?: Form;
  problem?: Problem;
}

/**
 * The moves' fields and buttons, for the `moves` offered: the suspension's reason, a note, the admin's force, and one
 * button per move posting to `actionOf(move)`. Inside a form that holds the numbers (`number_ids`).
 */
export function MoveFields({
  c,
  moves,
  actionOf,
  state = {},
}: {
  c: C;
  moves: readonly NumberMove[];
  actionOf: (move: NumberMove) => string;
  state?: MoveFormState | undefined;
}) {
  const { values = {}, errors = {} } = state;
  const forceable = moves.includes("release") && mayRaise(c.var.operator, CONSOLE_MOVES.release.action);
  return (
    <div class="stack">
      {errors.number_ids ? (
        <p class="field-error" id="number_ids-error">
          {errors.number_ids}
        </p>
      ) : null}
      {moves.includes("suspend") ? (
        <Select
          name="reason"
          label="Reason for a suspension"
          value={values.reason}
          blank="Choose…"
          options={SUSPENSION_REASONS.map((reason) => [reason, capitalised(reason)] as const)}
          error={errors.reason}
        />
      ) : null}
      <TextArea
        name="note"
        label="Note"
        value={values.note}
        error={errors.note}
        hint="Why, for the audit log (optional; at most 500 characters)"
        rows={2}
      />
      {forceable ? (
        <label class="check">
          <input type="checkbox" name="force" value="true" checked={values.force === "true"} />
          Release protected numbers too (force)
        </label>
      ) : null}
      <div class="actions">
        {moves.map((move) => (
          <button type="submit" formaction={actionOf(move)} class={move === "release" ? "danger" : undefined}>
            {CONSOLE_MOVES[move].button}
          </button>
        ))}
      </div>
    </div>
  );
}

/** What a move's redirect leads to: how many moved, and each number that did not with why. */
interface ShownReport {
  move: NumberMove;
  moved: number;
  refused: { number: string; outcome: string }[];
  refusedCount: number;
}

const MOVE_REPORT = "vn_once_number_moves";

function shownReport(move: NumberMove, report: MoveReport): ShownReport {
  const refused = report.results
    .filter((r) => r.outcome !== MOVED_OUTCOMES[move])
    .map((r) => ({ number: r.phoneNumber ?? r.numberId, outcome: r.outcome }));
  return { move, moved: report.moved, refused, refusedCount: refused.length };
}

/** A report with half its refusals, until none are left (the count stays). */
function fewerRefusals(shown: ShownReport): ShownReport | undefined {
  return shown.refused.length === 0
    ? undefined
    : { ...shown, refused: shown.refused.slice(0, Math.floor(shown.refused.length / 2)) };
}

/** The report a move left for this page, once. */
export function takeMoveReport(c: C): Promise<ShownReport | undefined> {
  return takeAfterRedirect<ShownReport>(c, staffNote(c, MOVE_REPORT));
}

export function MoveReportCard({ report }: { report: ShownReport }) {
  const moved = MOVED_OUTCOMES[report.move];
  return (
    <section class={`notice ${report.refusedCount === 0 ? "success" : "warning"}`} role="status" aria-label="Report">
      <p>
        {plural(report.moved, "number")} {moved}
        {report.refusedCount > 0 ? `; ${plural(report.refusedCount, "number")} not ${moved}:` : "."}
      </p>
      {report.refused.length > 0 ? (
        <ul>
          {report.refused.map((r) => (
            <li>
              {r.number}: {words(r.outcome)}
            </li>
          ))}
        </ul>
      ) : null}
    </section>
  );
}

/**
 * The route of a move: the numbers ticked (`number_ids`), run through the move's action; then a 303 to `back`, which
 * shows the report, or `refusedPage` with the form's errors (400) or the action's refusal.
 */
export function moveRoute(
  move: NumberMove,
  pages: {
    back: (c: C) => string;
    idsOf: (c: C, posted: string[]) => string[];
    refusedPage: (c: C, state: MoveFormState, status: number) => Response | Promise<Response>;
  },
): [ReturnType<typeof changeGuard>, Handler<ConsoleEnv>] {
  return [
    changeGuard(moveAction(move)),
    async (c) => {
      const form = await readForm(c);
      const chosen = form.list("number_ids");
      const ids = pages.idsOf(c, chosen);
      const posted = { values: form.fields, chosen };
      if (ids.length === 0)
        return pages.refusedPage(c, { ...posted, errors: { number_ids: "Choose at least one number." } }, 400);
      const answer = await CONSOLE_MOVES[move].submit(workOf(c), form.fields, ids);
      if ("errors" in answer) return pages.refusedPage(c, { ...posted, errors: answer.errors }, 400);
      if (!answer.ok) return pages.refusedPage(c, { ...posted, problem: answer.problem }, answer.problem.status);
      await leaveAfterRedirect(c, staffNote(c, MOVE_REPORT), shownReport(move, answer.value), fewerRefusals);
      return c.redirect(pages.back(c), 303);
    },
  ];
}
