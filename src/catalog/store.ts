// Queries for the orderable catalog of (country_code, number_type) pairs.
import { and, asc, count, eq } from "drizzle-orm";
import { pageAndTotal } from "../db/batch.ts";
import type { Database } from "../db/client.ts";
import { type Outcome, ok, refuse } from "../db/outcome.ts";
import type { PageWindow } from "../db/paging.ts";
import { type CatalogRow, catalog } from "../db/schema.ts";

export type CatalogPair = Pick<CatalogRow, "countryCode" | "numberType">;

function pairIs(pair: CatalogPair) {
  return and(eq(catalog.countryCode, pair.countryCode), eq(catalog.numberType, pair.numberType));
}

/** A page of the catalog, by country_code, then number_type. */
export async function listCatalog(db: Database, window: PageWindow): Promise<{ rows: CatalogRow[]; total: number }> {
  return pageAndTotal(
    db,
    db
      .select()
      .from(catalog)
      .orderBy(asc(catalog.countryCode), asc(catalog.numberType))
      .limit(window.limit)
      .offset(window.offset),
    db.select({ total: count() }).from(catalog),
  );
}

/** Makes a pair orderable; idempotent. `created` tells whether the pair was new. */
export async function addCatalogPair(
  db: Database,
  pair: CatalogPair,
  now: number,
): Promise<{ row: CatalogRow; created: boolean }> {
  // A concurrent removal can slip between the two statements; the next attempt then inserts.
  for (;;) {
    const [inserted] = await db
      .insert(catalog)
      .values({ ...pair, createdAt: now })
      .onConflictDoNothing()
      .returning();
    if (inserted) return { row: inserted, created: true };
    const existing = await db.select().from(catalog).where(pairIs(pair)).get();
    if (existing) return { row: existing, created: false };
  }
}

export async function removeCatalogPair(db: Database, pair: CatalogPair): Promise<Outcome<CatalogRow, "not_found">> {
  const [removed] = await db.delete(catalog).where(pairIs(pair)).returning();
  return removed ? ok(removed) : refuse("not_found");
}
