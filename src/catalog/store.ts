// Queries for the orderable catalog.
import { and, asc, count, eq, inArray, isNotNull, type SQL, sql } from "drizzle-orm";
import { type AuditContext, auditBeforeWrite, auditStatement } from "../db/audit.ts";
import { batchByName, pageAndTotal, writeInPhases } from "../db/batch.ts";
import type { Database } from "../db/client.ts";
import { type Outcome, ok, refuse } from "../db/outcome.ts";
import type { PageWindow } from "../db/paging.ts";
import { type CatalogRow, catalog, type Requirements } from "../db/schema.ts";

export type CatalogPair = Pick<CatalogRow, "countryCode" | "numberType">;

export function pairIs(pair: CatalogPair): SQL {
  return and(eq(catalog.countryCode, pair.countryCode), eq(catalog.numberType, pair.numberType))!;
}

/** Which orderable pairs a list takes: any of these country codes, and any of these number types (absent: all). */
interface CatalogFilter {
  countryCodes?: readonly string[] | undefined;
  numberTypes?: readonly string[] | undefined;
}

/** A page of the orderable pairs that pass `filter`, by country_code, then number_type, and how many pass it. */
export async function listCatalogEntries(
  db: Database,
  filter: CatalogFilter,
  window: PageWindow,
): Promise<{ rows: CatalogRow[]; total: number }> {
  const where = and(
    filter.countryCodes && inArray(catalog.countryCode, [...filter.countryCodes]),
    filter.numberTypes && inArray(catalog.numberType, [...filter.numberTypes]),
  );
  return pageAndTotal(
    db,
    db
      .select()
      .from(catalog)
      .where(where)
      .orderBy(asc(catalog.countryCode), asc(catalog.numberType))
      .limit(window.limit)
      .offset(window.offset),
    db.select({ total: count() }).from(catalog).where(where),
  );
}

/** A page of the catalog, by country_code, then number_type. */
export async function listCatalog(db: Database, window: PageWindow): Promise<{ rows: CatalogRow[]; total: number }> {
  return listCatalogEntries(db, {}, window);
}

/** Every orderable pair with its requirements, by country_code, then number_type (a small table: a row per pair). */
export async function listOrderablePairs(db: Database): Promise<CatalogRow[]> {
  return db.select().from(catalog).orderBy(asc(catalog.countryCode), asc(catalog.numberType));
}

/** One orderable pair with its requirements, or undefined when it is not orderable. */
export async function findCatalogPair(db: Database, pair: CatalogPair): Promise<CatalogRow | undefined> {
  return db.select().from(catalog).where(pairIs(pair)).get();
}

/** The catalog pair as audit events (and maps of pairs) name it: "US/mobile". */
export function pairId(pair: CatalogPair): string {
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
      pair: writeInPhases({
        write: db
          .insert(catalog)
          .values({ ...pair, createdAt: now })
          .onConflictDoNothing()
          .returning(),
        record: (written) =>
          auditStatement(
            db,
            { ...audit, now },
            { action: "catalog.pair_added", target: { type: "catalog_pair", id: pairId(pair) }, customerId: null },
            { from: sql`(SELECT 1)`, where: written },
          ),
      }),
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
    pair: writeInPhases({
      write: db.delete(catalog).where(pairIs(pair)).returning(),
      record: (written) =>
        auditStatement(
          db,
          { ...audit, now },
          { action: "catalog.pair_removed", target: { type: "catalog_pair", id: pairId(pair) }, customerId: null },
          { from: sql`(SELECT 1)`, where: written },
        ),
    }),
  });
  const [removed] = removal.pair.write;
  return removed ? ok(removed) : refuse("not_found");
}

/**
 * Sets a pair's requirements (null: none), with its audit event (`requirements.changed`) recording them before and
 * after, in one batch. The write is guarded by the
 * change itself: a set equal to the stored one (or removing none) writes nothing and no event, and answers the pair as
 * it is.
 */
export async function writeRequirements(
  db: Database,
  audit: AuditContext,
  pair: CatalogPair,
  requirements: Requirements | null,
  now: number,
): Promise<Outcome<CatalogRow, "not_found">> {
  // Stored as drizzle's json mode writes it (JSON.stringify), so the stored text of an equal set is the same text.
  const stored = requirements === null ? null : JSON.stringify(requirements);
  const changes: SQL = stored === null ? isNotNull(catalog.requirements) : sql`${catalog.requirements} IS NOT ${stored}`;
  const guard = and(pairIs(pair), changes);
  const { changed } = await batchByName(db, {
    changed: writeInPhases({
      before: {
        audit: auditBeforeWrite(
          db,
          { ...audit, now },
          {
            action: "requirements.changed",
            target: { type: "catalog_pair", id: pairId(pair) },
            customerId: null,
            changes: { requirements: [sql`json(${catalog.requirements})`, stored === null ? null : sql`json(${stored})`] },
          },
          { from: catalog, guard },
        ),
      },
      write: db.update(catalog).set({ requirements }).where(guard).returning(),
    }),
  });
  const [row] = changed.write;
  if (row) return ok(row);
  const current = await findCatalogPair(db, pair);
  return current ? ok(current) : refuse("not_found");
}
