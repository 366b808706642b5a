// Queries for the orderable catalog of (country_code, number_type) pairs.
import { and, asc, count, eq, sql } from "drizzle-orm";
import { auditStatement } from "../audit/store.ts";
import { batchByName, ifWritten, pageAndTotal } from "../db/batch.ts";
import type { Database } from "../db/client.ts";
import { type Outcome, ok, refuse } from "../db/outcome.ts";
import type { PageWindow } from "../db/paging.ts";
import { type CatalogRow, catalog } from "../db/schema.ts";
import type { AuditContext } from "../env.ts";

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

/** The catalog pair as audit events name it: "US/mobile". */
function pairId(pair: CatalogPair): string {
  return `${pair.countryCode}/${pair.numberType}`;
}

/** Makes a pair orderable, with its audit event when it was new; idempotent. `created` tells whether it was new. */
export async function addCatalogPair(
  db: Database,
  audit: AuditContext,
  pair: CatalogPair,
  now: number,
): Promise<{ row: CatalogRow; created: boolean }> {
  // A concurrent removal can slip between the two statements; the next attempt then inserts.
  for (;;) {
    const added = await batchByName(db, {
      pair: ifWritten(
        db
          .insert(catalog)
          .values({ ...pair, createdAt: now })
          .onConflictDoNothing()
          .returning(),
        (written) => ({
          audit: auditStatement(
            db,
            { ...audit, now },
            { action: "catalog.pair_added", target: { type: "catalog_pair", id: pairId(pair) }, customerId: null },
            { from: sql`(SELECT 1)`, where: written },
          ),
        }),
      ),
    });
    const [inserted] = added.pair.write;
    if (inserted) return { row: inserted, created: true };
    const existing = await db.select().from(catalog).where(pairIs(pair)).get();
    if (existing) return { row: existing, created: false };
  }
}

/** Makes a pair not orderable, with its audit event. */
export async function removeCatalogPair(
  db: Database,
  audit: AuditContext,
  pair: CatalogPair,
  now: number,
): Promise<Outcome<CatalogRow, "not_found">> {
  const removal = await batchByName(db, {
    pair: ifWritten(db.delete(catalog).where(pairIs(pair)).returning(), (written) => ({
      audit: auditStatement(
        db,
        { ...audit, now },
        { action: "catalog.pair_removed", target: { type: "catalog_pair", id: pairId(pair) }, customerId: null },
        { from: sql`(SELECT 1)`, where: written },
      ),
    })),
  });
  const [removed] = removal.pair.write;
  return removed ? ok(removed) : refuse("not_found");
}
