// Re-checks a credential this isolate already knows without a D1 call of its own: the check rides with the request's
// first D1 call, and nothing acts before it answers. If it fails, the guard's refusal replaces the handler's answer.
import type { Context, Next } from "hono";
import { isFailedBatchAssertion } from "../db/errors.ts";
import type { AppEnv } from "../env.ts";
import type { Problem } from "../lib/problem.ts";
import { RefusedCredential, sideEffectsAfter } from "./side-effects.ts";

/**
 * Whether the known credential still holds, asked once (the answer is kept): after the handler, or before an act.
 * `failsItsBatch`: an assertion, which rolls back the batch it rides in front of; a read's check fails nothing, so
 * no write may reach D1 before it has answered.
 */
export type CarriedCheck = (() => Promise<boolean>) & { failsItsBatch: boolean };

type Query = { toSQL(): { sql: string; params: unknown[] } };

function once(ask: () => Promise<boolean>, failsItsBatch: boolean): CarriedCheck {
  let answer: Promise<boolean> | undefined;
  const check = () => {
    answer ??= ask();
    return answer;
  };
  return Object.assign(check, { failsItsBatch });
}

/** A read's check: `state` rides with the first D1 call (or goes alone when an act asks first); `accept` judges it. */
export function carriedRead<E extends AppEnv>(c: Context<E>, state: Query, accept: (rows: unknown[][]) => boolean): CarriedCheck {
  const passenger = c.var.session.carry(state);
  return once(async () => accept(await passenger.rows()), false);
}

/** A write's check: `assertion` stands in front of the first batch, and fails it when the credential no longer holds. */
export function carriedAssertion<E extends AppEnv>(c: Context<E>, assertion: Query): CarriedCheck {
  const passenger = c.var.session.carry(assertion);
  return once(async () => {
    try {
      await passenger.rows();
      return true;
    } catch (error) {
      if (isFailedBatchAssertion(error)) return false;
      throw error;
    }
  }, true);
}

/**
 * Runs the rest of the request with nothing acting before `check` answers: the bindings' side effects wait for it,
 * and so does every D1 call after the first (and a first that writes, unless the check fails its batch). When it says
 * no, `refused()` names the problem that answers instead of the handler (whose own outcome, often a failed statement
 * of a rolled-back batch, is not the answer); it is thrown, so each set of pages answers it as its own error page.
 */
export async function confirmedRequest<E extends AppEnv>(
  c: Context<E>,
  check: CarriedCheck,
  next: Next,
  refused: () => Promise<Problem>,
): Promise<void> {
  const confirm = async () => {
    if (!(await check())) throw new RefusedCredential("The credential no longer holds");
  };
  c.env = sideEffectsAfter(c.env, confirm) as E["Bindings"];
  c.var.session.confirmBeforeLaterCalls(confirm, { beforeWrites: !check.failsItsBatch });
  await next();
  if (await check()) return;
  await c.res.body?.cancel();
  c.error = undefined;
  // Cleared first: Hono's setter would otherwise carry the handler's headers (a download's file name) over.
  c.res = undefined;
  throw await refused();
}
