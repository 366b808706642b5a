// The stock's search as an action: the customer API's route (and the portal's page) take its refusals from here.
import { notOrderable } from "../catalog/refusals.ts";
import type { Work } from "../env.ts";
import { action } from "../lib/action.ts";
import { done, type Result, refusals, refused } from "../lib/problem.ts";
import { type StockSearch, searchStock } from "./store.ts";

const SEARCH_REFUSALS = refusals("not_orderable");

/** The numbers of the pair anyone may take now that match the patterns, in phone-number order, at most `limit`. */
async function searchNumbers(work: Work, search: StockSearch): Promise<Result<string[], typeof SEARCH_REFUSALS>> {
  const found = await searchStock(work.db, search, work.now);
  return found.ok ? done(found.value) : refused(notOrderable(search.pair, "query", "number_type"));
}

export const searchNumbersAction = action({ refusals: SEARCH_REFUSALS, run: searchNumbers });
