// An action's rules in one object: the problems it answers, when its target allows it, and its run. Every front end
// (the API's routes, the portal, the console) takes them from it; an operator's action adds its roles
// (src/staff/roles.ts).
import type { ProblemCode } from "./problem.ts";

export interface Action<Run extends (...args: never[]) => unknown, Target = never> {
  /** The problem codes `run` can answer: its route's description lists them. */
  readonly refusals: readonly ProblemCode[];
  /** Whether its target allows it now (a page shows its form only then); the store's guard decides a race. */
  readonly available?: (target: Target, now: number) => boolean;
  readonly run: Run;
}

/** Declares an action (its types kept as written). */
export function action<Run extends (...args: never[]) => unknown, Target = never>(
  declared: Action<Run, Target>,
): Action<Run, Target> {
  return declared;
}

/** Whether the target allows the action now (an action that declares no condition always is). */
export function availableOn<Run extends (...args: never[]) => unknown, Target>(
  declared: Action<Run, Target>,
  target: Target,
  now: number,
): boolean {
  return declared.available?.(target, now) ?? true;
}
