// The account's changes of its numbers' own details: one number's tags, reference and protection, and tags on many.
import type { NumberRow } from "../db/schema.ts";
import type { Work } from "../env.ts";
import { action } from "../lib/action.ts";
import { done, notFound, Problem, type Result, refusals, refused } from "../lib/problem.ts";
import { MAX_TAGS, tagKey } from "./schemas.ts";
import type { NumberWithKyc } from "./store.ts";
import { type NumberDetails, type TagJudgement, type TagResult, tagNumbers, updateNumberDetails } from "./tags-store.ts";

/** A released number keeps its details as they were until it is restored. */
const numberReleased = () =>
  new Problem("number_released", "This number is released: restore it before changing its tags, reference or protection");

const UPDATE_NUMBER_REFUSALS = refusals("validation_error", "not_found", "number_released");

async function updateNumber(
  work: Work,
  customerId: string,
  numberId: string,
  details: NumberDetails,
): Promise<Result<NumberWithKyc, typeof UPDATE_NUMBER_REFUSALS>> {
  const updated = await updateNumberDetails(work.db, work.outbox, work, customerId, numberId, details, work.now);
  if (updated.ok) return done(updated.value);
  return refused(updated.reason === "not_found" ? notFound("Number") : numberReleased());
}

/** The account's change of a number's tags, reference or protection, offered while the number is not released. */
export const updateNumberAction = action({
  refusals: UPDATE_NUMBER_REFUSALS,
  available: (number: Pick<NumberRow, "status">) => number.status !== "released",
  run: updateNumber,
});

interface TagChange {
  add: readonly string[];
  remove: readonly string[];
}

/**
 * A number's tags after the change (LIFECYCLE.md): those kept (not removed, in any case), then each added tag not
 * already there (in any case), in the order given; more than MAX_TAGS leaves them as they were.
 */
function retagged(tags: readonly string[], change: TagChange): TagJudgement {
  const removed = new Set(change.remove.map(tagKey));
  const kept = tags.filter((tag) => !removed.has(tagKey(tag)));
  const present = new Set(kept.map(tagKey));
  const after = [...kept, ...change.add.filter((tag) => !present.has(tagKey(tag)))];
  if (after.length === tags.length && after.every((tag, i) => tag === tags[i])) return { outcome: "unchanged" };
  return after.length > MAX_TAGS ? { outcome: "too_many_tags" } : { outcome: "updated", tags: after };
}

interface TagReport {
  /** How many numbers the request changed. */
  updated: number;
  results: TagResult[];
}

async function tagAccountNumbers(
  work: Work,
  customerId: string,
  numberIds: readonly string[],
  change: TagChange,
): Promise<Result<TagReport, typeof TAG_NUMBERS_REFUSALS>> {
  const results = await tagNumbers(work.db, work.outbox, customerId, numberIds, (tags) => retagged(tags, change), work.now);
  return done({ updated: results.filter((result) => result.outcome === "updated").length, results });
}

const TAG_NUMBERS_REFUSALS = refusals("validation_error");

/** Tags added to and removed from many of the account's numbers; each number's outcome in the report. */
export const tagNumbersAction = action({ refusals: TAG_NUMBERS_REFUSALS, run: tagAccountNumbers });
