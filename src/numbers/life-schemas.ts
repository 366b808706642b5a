// Wire format of a number's moves: the release, restore, suspend and resume bodies and their per-number reports.
import { z } from "@hono/zod-openapi";
import { SUSPENSION_REASONS } from "../db/schema.ts";
import { multiLineText, oneSelection, prefixedId } from "../http/fields.ts";
import { withPrefix } from "../lib/ids.ts";
import { type MoveRefusal, NUMBER_MOVES, type NumberMove, type NumberMover } from "./lifecycle.ts";
import { MOVED_OUTCOMES, type MoveEffect, type MoveReport, type TenureSelection } from "./tenure-store.ts";

/** At most this many ids in one request. */
const MAX_MOVED = 1_000;
/** At most this many numbers of one order in one release. */
export const MAX_ORDER_RELEASE = 10_000;
const MAX_NOTE_LENGTH = 500;

const numberIds = z
  .array(prefixedId("num"))
  .min(1)
  .max(MAX_MOVED)
  .meta({ description: `1 to ${MAX_MOVED.toLocaleString("en-US")} ids, num_<uuid> or bare; a repeated id counts once.` });

const note = multiLineText()
  .max(MAX_NOTE_LENGTH)
  .optional()
  .meta({ description: `Why, in at most ${MAX_NOTE_LENGTH} characters: kept in the audit log only.` });

export const releaseNumbersBody = z
  .strictObject({
    number_ids: numberIds.optional(),
    order_id: z
      .uuid()
      .optional()
      .meta({
        description: `Instead: every number of this order of the account (at most ${MAX_ORDER_RELEASE.toLocaleString("en-US")}).`,
      }),
    dry_run: z.boolean().optional().meta({ description: "Report what would happen and change nothing (the release preview)." }),
  })
  .superRefine(oneSelection)
  .openapi("ReleaseNumbers");

export function toTenureSelection(body: { number_ids?: string[] | undefined; order_id?: string | undefined }): TenureSelection {
  return body.order_id !== undefined ? { orderId: body.order_id } : { numberIds: body.number_ids ?? [] };
}

export const restoreNumbersBody = z.strictObject({ number_ids: numberIds }).openapi("RestoreNumbers");

export const suspendNumbersBody = z
  .strictObject({ number_ids: numberIds, reason: z.enum(SUSPENSION_REASONS), note })
  .openapi("SuspendNumbers");
export const resumeNumbersBody = z.strictObject({ number_ids: numberIds, note }).openapi("ResumeNumbers");
export const operatorReleaseNumbersBody = z
  .strictObject({
    number_ids: numberIds,
    note,
    force: z.boolean().optional().meta({ description: "Release protected numbers too (admin only)." }),
  })
  .openapi("OperatorReleaseNumbers");
export const operatorRestoreNumbersBody = z.strictObject({ number_ids: numberIds, note }).openapi("OperatorRestoreNumbers");

const effectSchema = z
  .discriminatedUnion("code", [
    z.object({ code: z.literal("detached_from_profile"), profile_id: z.string() }),
    z.object({ code: z.literal("own_verification_kept"), kyc_id: z.string() }),
    z.object({ code: z.literal("order_still_open"), order_id: z.uuid() }),
    z.object({ code: z.literal("reattached_to_profile"), profile_id: z.string() }),
    z.object({ code: z.literal("profile_gone") }),
  ])
  .openapi("NumberMoveEffect");

function toEffect(effect: MoveEffect): z.infer<typeof effectSchema> {
  switch (effect.code) {
    case "detached_from_profile":
    case "reattached_to_profile":
      return { code: effect.code, profile_id: withPrefix("kyp", effect.profileId) };
    case "own_verification_kept":
      return { code: effect.code, kyc_id: withPrefix("kyc", effect.kycId) };
    case "order_still_open":
      return { code: effect.code, order_id: effect.orderId };
    case "profile_gone":
      return { code: effect.code };
  }
}

/** The refusals moveRefusal gives beside the wrong states (src/numbers/lifecycle.ts). */
const RULE_REFUSALS: Record<NumberMove, Partial<Record<NumberMover, readonly MoveRefusal[]>>> = {
  release: { customer: ["release_protected"], operator: ["release_protected"] },
  restore: { customer: ["released_by_operator", "restore_window_passed"], operator: ["restore_window_passed"] },
  suspend: {},
  resume: {},
};

/** Every outcome of the move by the mover: moved (would move), not found, or each refusal. */
function outcomesOf(move: NumberMove, mover: NumberMover, dryRun: boolean): [string, ...string[]] {
  return [
    MOVED_OUTCOMES[move],
    ...(dryRun ? ["would_release"] : []),
    "not_found",
    ...new Set(Object.values(NUMBER_MOVES[move].wrongState)),
    ...(RULE_REFUSALS[move][mover] ?? []),
  ];
}

/** The report of a move: how many moved, under `counted`, and each number's outcome. */
function reportSchema<const K extends string>(name: string, move: NumberMove, mover: NumberMover, counted: K, dryRun = false) {
  const result = z
    .object({
      number_id: z.string().openapi({ description: "The number's id; the id as given when not_found." }),
      phone_number: z.string().nullable().openapi({ description: "null when not_found." }),
      outcome: z.enum(outcomesOf(move, mover, dryRun)),
      effects: z.array(effectSchema).openapi({ description: "What else it did (would do) to the number; empty when refused." }),
    })
    .openapi(`${name}Result`);
  const shape = {
    [counted]: z.int().openapi({ description: `How many numbers were ${MOVED_OUTCOMES[move]}.` }),
    results: z.array(result).openapi({ description: "One per distinct number asked for, in the request's order." }),
  } as Record<K, z.ZodInt> & { results: z.ZodArray<typeof result> };
  return z.object(shape);
}

export const releaseReportSchema = reportSchema("ReleaseReport", "release", "customer", "released", true)
  .extend({ dry_run: z.boolean() })
  .openapi("ReleaseReport");
export const restoreReportSchema = reportSchema("RestoreReport", "restore", "customer", "restored").openapi("RestoreReport");
export const suspendReportSchema = reportSchema("SuspendReport", "suspend", "operator", "suspended").openapi("SuspendReport");
export const resumeReportSchema = reportSchema("ResumeReport", "resume", "operator", "resumed").openapi("ResumeReport");
export const operatorReleaseReportSchema = reportSchema("OperatorReleaseReport", "release", "operator", "released").openapi(
  "OperatorReleaseReport",
);
export const operatorRestoreReportSchema = reportSchema("OperatorRestoreReport", "restore", "operator", "restored").openapi(
  "OperatorRestoreReport",
);

/** A move's report on the wire, its count under `counted`. */
export function toMoveReport<const K extends string>(report: MoveReport, counted: K) {
  return {
    [counted]: report.moved,
    results: report.results.map((r) => ({
      number_id: r.numberId,
      phone_number: r.phoneNumber,
      outcome: r.outcome,
      effects: r.effects.map(toEffect),
    })),
  } as Record<K, number> & {
    results: { number_id: string; phone_number: string | null; outcome: string; effects: z.infer<typeof effectSchema>[] }[];
  };
}
