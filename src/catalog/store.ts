// Queries for the orderable catalog.
import { and, asc, count, eq, getTableColumns, inArray, isNotNull, type SQL, sql } from "drizzle-orm";
import { type AuditContext, auditBeforeWrite, auditStatement } from "../db/audit.ts";
import { batchByName, pageAndTotal, writeInPhases } from "../db/batch.ts";
import type { Database } from "../db/client.ts";
import { type Outcome, ok, refuse } from "../db/outcome.ts";
import type { PageWindow } from "../db/paging.ts";
import {
  type CatalogRow,
  catalog,
  catalogSettings,
  DEFAULT_QUARANTINE_DAYS,
  type Requirements,
  stockCounts,
} from "../db/schema.ts";

export type CatalogPair = Pick<CatalogRow, "countryCode" | "numberType">;

export function pairIs(pair: CatalogPair): SQL {
  return and(eq(catalog.countryCode, pair.countryCode), eq(catalog.numberType, pair.numberType))!;
}

/** A pair's settings (LIFECYCLE.md, Back to stock); a pair without stored ones has the defaults. */
interface CatalogSettings {
  quarantineDays: number;
  autoFulfil: boolean;
}

/** The settings a change names: only these are written. */
export type SettingsChange = Partial<CatalogSettings>;

/** An orderable pair with its settings and how many of its numbers the stock holds available. */
export interface CatalogItem extends CatalogRow, CatalogSettings {
  available: number;
}

/** The catalog's rows with their settings (defaults where none are stored) and available stock. */
function catalogItems(db: Database) {
  return db
    .select({
      ...getTableColumns(catalog),
      quarantineDays: sql<number>`coalesce(${catalogSettings.quarantineDays}, ${DEFAULT_QUARANTINE_DAYS})`
        .mapWith(Number)
        .as("quarantine_days"),
      autoFulfil: sql<boolean>`coalesce(${catalogSettings.autoFulfil}, 0)`.mapWith(Boolean).as("auto_fulfil"),
      available: sql<number>`coalesce(${stockCounts.available}, 0)`.mapWith(Number).as("available"),
    })
    .from(catalog)
    .leftJoin(
      catalogSettings,
      and(eq(catalogSettings.countryCode, catalog.countryCode), eq(catalogSettings.numberType, catalog.numberType)),
    )
    .leftJoin(stockCounts, and(eq(stockCounts.countryCode, catalog.countryCode), eq(stockCounts.numberType, catalog.numberType)))
    .$dynamic();
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
): Promise<{ rows: CatalogItem[]; total: number }> {
  const where = and(
    filter.countryCodes && inArray(catalog.countryCode, [...filter.countryCodes]),
    filter.numberTypes && inArray(catalog.numberType, [...filter.numberTypes]),
  );
  return pageAndTotal(
    db,
    catalogItems(db)
      .where(where)
      .orderBy(asc(catalog.countryCode), asc(catalog.numberType))
      .limit(window.limit)
      .offset(window.offset),
    db.select({ total: count() }).from(catalog).where(where),
  );
}

/** A page of the catalog, by country_code, then number_type. */
export async function listCatalog(db: Database, window: PageWindow): Promise<{ rows: CatalogItem[]; total: number }> {
  return listCatalogEntries(db, {}, window);
}

/** Every orderable pair with its requirements, by country_code, then number_type (a small table: a row per pair). */
export async function listOrderablePairs(db: Database): Promise<CatalogRow[]> {
  return db.select().from(catalog).orderBy(asc(catalog.countryCode), asc(catalog.numberType));
}

/** One orderable pair with its requirements and settings, or undefined when it is not orderable. */
export async function findCatalogPair(db: Database, pair: CatalogPair): Promise<CatalogItem | undefined> {
  return catalogItems(db).where(pairIs(pair)).get();
}

/** The catalog pair as audit events (and maps of pairs) name it: "US/mobile". */
export function pairId(pair: CatalogPair): string {
  return `${pair.countryCode}/${pair.numberType}`;
}

/** A boolean setting as the audit log records it: JSON true or false. */
function jsonBoolean(value: SQL | boolean): SQL {
  return sql`json(CASE WHEN ${value} THEN 'true' ELSE 'false' END)`;
}

/**
 * Makes a pair orderable, with its audit event when it was new, and sets the settings `change` names (only those), with
 * a `catalog.pair_updated` event of the ones that changed; idempotent. One batch, which reads the pair back as it
 * left it; `created` tells whether the pair was new.
 */
export async function addCatalogPair(
  db: Database,
  audit: AuditContext,
  pair: CatalogPair,
  now: number,
  change: SettingsChange = {},
): Promise<{ row: CatalogItem; created: boolean }> {
  const target = { type: "catalog_pair", id: pairId(pair) } as const;
  const settingsOfPair = and(eq(catalogSettings.countryCode, pair.countryCode), eq(catalogSettings.numberType, pair.numberType));
  // The settings as they are before the change: the stored ones, else the defaults.
  const current = sql`(SELECT
    coalesce((SELECT ${catalogSettings.quarantineDays} FROM ${catalogSettings} WHERE ${settingsOfPair}), ${DEFAULT_QUARANTINE_DAYS}) AS quarantine_days,
    coalesce((SELECT ${catalogSettings.autoFulfil} FROM ${catalogSettings} WHERE ${settingsOfPair}), 0) AS auto_fulfil) AS current`;
  const named = {
    ...(change.quarantineDays === undefined ? {} : { quarantineDays: change.quarantineDays }),
    ...(change.autoFulfil === undefined ? {} : { autoFulfil: change.autoFulfil }),
  };
  const setsAny = Object.keys(named).length > 0;
  const { added, item } = await batchByName(db, {
    added: writeInPhases({
      write: db
        .insert(catalog)
        .values({ ...pair, createdAt: now })
        .onConflictDoNothing()
        .returning({ countryCode: catalog.countryCode }),
      record: (written) =>
        auditStatement(
          db,
          { ...audit, now },
          { action: "catalog.pair_added", target, customerId: null },
          { from: sql`(SELECT 1)`, where: written },
        ),
    }),
    // Written only when a named setting differs, and recording only those that do.
    updated: setsAny
      ? auditStatement(
          db,
          { ...audit, now },
          {
            action: "catalog.pair_updated",
            target,
            customerId: null,
            changes: {
              ...(named.quarantineDays === undefined
                ? {}
                : { quarantine_days: [sql`current.quarantine_days`, named.quarantineDays] as const }),
              ...(named.autoFulfil === undefined
                ? {}
                : { auto_fulfil: [jsonBoolean(sql`current.auto_fulfil`), jsonBoolean(named.autoFulfil)] as const }),
            },
          },
          { from: current, where: undefined },
        )
      : undefined,
    settings: setsAny
      ? db
          .insert(catalogSettings)
          .values({ ...pair, ...named, updatedAt: now })
          .onConflictDoUpdate({
            target: [catalogSettings.countryCode, catalogSettings.numberType],
            set: { ...named, updatedAt: now },
            // An unchanged setting keeps its row as it was (updated_at too).
            setWhere: sql.join(
              Object.keys(named).map((key) => {
                const column = catalogSettings[key as keyof typeof named];
                return sql`${column} IS NOT excluded.${sql.identifier(column.name)}`;
              }),
              sql` OR `,
            ),
          })
      : undefined,
    item: catalogItems(db).where(pairIs(pair)),
  });
  const [row] = item;
  if (!row) throw new Error(`catalog pair ${pairId(pair)} missing right after it was added`);
  return { row, created: added.write.length > 0 };
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
