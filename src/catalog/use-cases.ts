// The operator's actions on the orderable catalog.
import type { CatalogRow, Requirements } from "../db/schema.ts";
import type { Work } from "../env.ts";
import { done, notFound, type Result, refusals, refused } from "../lib/problem.ts";
import { ADMIN, COMPLIANCE, operatorAction } from "../staff/roles.ts";
import {
  addCatalogPair,
  type CatalogItem,
  type CatalogPair,
  removeCatalogPair,
  type SettingsChange,
  writeRequirements,
} from "./store.ts";

const MAKE_ORDERABLE_REFUSALS = refusals();

/**
 * Makes a pair orderable and sets the settings `change` names, keeping the others (a pair never given settings has
 * the defaults, which its settings keep through removal and re-adding); idempotent: `created` tells whether it was new.
 */
async function makeOrderable(
  work: Work,
  pair: CatalogPair,
  change: SettingsChange = {},
): Promise<Result<{ row: CatalogItem; created: boolean }, typeof MAKE_ORDERABLE_REFUSALS>> {
  return done(await addCatalogPair(work.db, work, pair, work.now, change));
}

/** The pair is not orderable: each action on a catalog pair but adding it. */
const CATALOG_PAIR_REFUSALS = refusals("not_found");

/** Makes a pair not orderable: existing orders keep it, new ones and changes to it are refused. */
async function stopOrdering(work: Work, pair: CatalogPair): Promise<Result<CatalogRow, typeof CATALOG_PAIR_REFUSALS>> {
  const removed = await removeCatalogPair(work.db, work, pair, work.now);
  return removed.ok ? done(removed.value) : refused(notFound("Catalog pair"));
}

/**
 * States what a verification for a number of the pair must hold, replacing the whole set before it; the pair as it is
 * after. An unchanged set changes nothing (and records nothing). Refused with not_found when the pair is not orderable.
 */
async function setRequirements(
  work: Work,
  pair: CatalogPair,
  requirements: Requirements,
): Promise<Result<CatalogRow, typeof CATALOG_PAIR_REFUSALS>> {
  const written = await writeRequirements(work.db, work, pair, requirements, work.now);
  return written.ok ? done(written.value) : refused(notFound("Catalog pair"));
}

/**
 * Numbers of the pair need no verification any more; removing none changes nothing. Refused with not_found when not
 * orderable.
 */
async function removeRequirements(work: Work, pair: CatalogPair): Promise<Result<CatalogRow, typeof CATALOG_PAIR_REFUSALS>> {
  const written = await writeRequirements(work.db, work, pair, null, work.now);
  return written.ok ? done(written.value) : refused(notFound("Catalog pair"));
}

export const addCatalogPairAction = operatorAction({
  operationId: "addCatalogPair",
  roles: ADMIN,
  refusals: MAKE_ORDERABLE_REFUSALS,
  run: makeOrderable,
});

export const removeCatalogPairAction = operatorAction({
  operationId: "removeCatalogPair",
  roles: ADMIN,
  refusals: CATALOG_PAIR_REFUSALS,
  run: stopOrdering,
});

export const setRequirementsAction = operatorAction({
  operationId: "setCatalogRequirements",
  roles: COMPLIANCE,
  refusals: CATALOG_PAIR_REFUSALS,
  run: setRequirements,
});

export const removeRequirementsAction = operatorAction({
  operationId: "removeCatalogRequirements",
  roles: COMPLIANCE,
  refusals: CATALOG_PAIR_REFUSALS,
  run: removeRequirements,
});
