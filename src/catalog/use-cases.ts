// The orderable catalog's actions (the operator's), each ending in its value or one Problem.
import type { CatalogRow } from "../db/schema.ts";
import type { Work } from "../env.ts";
import { done, notFound, type Result, refused } from "../lib/problem.ts";
import { addCatalogPair, type CatalogPair, removeCatalogPair } from "./store.ts";

/** Makes a pair orderable; idempotent: `created` tells whether it was new. */
export async function makeOrderable(work: Work, pair: CatalogPair): Promise<Result<{ row: CatalogRow; created: boolean }>> {
  return done(await addCatalogPair(work.db, work, pair, work.now));
}

/** Makes a pair not orderable: existing orders keep it, new ones and changes to it are refused. */
export async function stopOrdering(work: Work, pair: CatalogPair): Promise<Result<CatalogRow>> {
  const removed = await removeCatalogPair(work.db, work, pair, work.now);
  return removed.ok ? done(removed.value) : refused(notFound("Catalog pair"));
}
