// The refusal of an order whose profile does not meet its pair's requirements: one error per unmet requirement.
import { type FieldError, Problem } from "../lib/problem.ts";
import { words } from "../lib/words.ts";
import { requirementWords } from "./evaluation.ts";
import type { Evaluation } from "./types.ts";

export function requirementsNotMet(evaluation: Evaluation, pointer: string): Problem<"requirements_not_met"> {
  const errors: FieldError[] = evaluation.results
    .filter((result) => result.status === "unmet")
    .map((result) => ({
      location: "body",
      pointer,
      message: `${requirementWords(result.requirement)}: ${result.reasons.map((reason) => reason.detail).join("; ")}`,
    }));
  return new Problem(
    "requirements_not_met",
    `The profile does not meet ${errors.length} requirement${errors.length === 1 ? "" : "s"} of ` +
      `${evaluation.country_code} ${words(evaluation.number_type)} numbers: ${errors.map((e) => e.message).join(" | ")}`,
    { errors },
  );
}
