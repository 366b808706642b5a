// Queries for the number stock; allocation from stock is in src/orders/allocation-store.ts.
import { and, asc, count, desc, eq, not, type SQL, sql } from "drizzle-orm";
import { type AuditContext, auditBeforeWrite, auditStatement } from "../db/audit.ts";
import { batchByName, pageAndTotal, writeInPhases } from "../db/batch.ts";
import type { Database } from "../db/client.ts";
import { type Outcome, ok, refuse } from "../db/outcome.ts";
import type { PageWindow } from "../db/paging.ts";
import {
  catalog,
  numbers,
  type StockNumberRow,
  type StockSource,
  type StockStatus,
  stockCounts,
  stockNumbers,
} from "../db/schema.ts";
import { containsText, inJsonList, iso } from "../db/sql.ts";
import { heldNow } from "./holds.ts";

/** A number to stock, valid. */
export interface StockRow {
  phoneNumber: string;
  countryCode: string;
  numberType: string;
}

/**
 * Rows per INSERT: each statement carries its rows as one JSON parameter (D1 binds at most 100 parameters), and keeps
 * it well under D1's limits on a statement's size.
 */
const ROWS_PER_STATEMENT = 2000;

/** A (country_code, number_type) pair as one string, for sets and maps of pairs. */
export function pairKey(countryCode: string, numberType: string): string {
  return `${countryCode}/${numberType}`;
}

/**
 * Imports the rows (distinct numbers) in one batch, so an import is whole or not at all: each statement inserts its
 * share, skipping a number in stock already or held by an unclosed tenure (a number is never both), and returns what
 * it inserted. The audit event counts the import's rows as they landed; `repeated` and `invalid` are what the request
 * held besides, counted in its event too. Last, which of the rows' pairs the catalog holds (as pairKey), read in the
 * same transaction.
 */
export async function importStock(
  db: Database,
  audit: AuditContext,
  rows: StockRow[],
  counts: { repeated: number; invalid: number },
  now: number,
): Promise<{ importId: string; imported: Set<string>; catalogued: Set<string> }> {
  const importId = crypto.randomUUID();
  const value = (path: string) => sql`json_extract(row.value, ${path})`;
  const statements = Object.fromEntries(
    Array.from({ length: Math.ceil(rows.length / ROWS_PER_STATEMENT) }, (_, i) => {
      const share = rows.slice(i * ROWS_PER_STATEMENT, (i + 1) * ROWS_PER_STATEMENT);
      const json = JSON.stringify(share.map((r) => [r.phoneNumber, r.countryCode, r.numberType]));
      return [
        `rows${i + 1}`,
        db
          .insert(stockNumbers)
          .select(
            db
              .select({
                phoneNumber: value("$[0]").as("phone_number"),
                countryCode: value("$[1]").as("country_code"),
                numberType: value("$[2]").as("number_type"),
                importId: sql`${importId}`.as("import_id"),
                importedAt: sql`${now}`.as("imported_at"),
                status: sql`${"available" satisfies StockStatus}`.as("status"),
                availableAt: sql`${now}`.as("available_at"),
                source: sql`${"import" satisfies StockSource}`.as("source"),
                reservationId: sql`NULL`.as("reservation_id"),
                heldUntil: sql`NULL`.as("held_until"),
              })
              .from(sql`json_each(${json}) AS row`)
              // A number an unclosed tenure holds (in its restore window too) is not stock.
              .where(
                sql`NOT EXISTS (SELECT 1 FROM ${numbers} WHERE ${numbers.phoneNumber} = ${value("$[0]")} AND ${numbers.closedAt} IS NULL)`,
              ),
          )
          .onConflictDoNothing()
          .returning({ phoneNumber: stockNumbers.phoneNumber }),
      ];
    }),
  );
  const landed = sql`(SELECT count(*) FROM ${stockNumbers} WHERE ${eq(stockNumbers.importId, importId)})`;
  const pairs = [...new Map(rows.map((r) => [pairKey(r.countryCode, r.numberType), [r.countryCode, r.numberType]])).values()];
  const written = await batchByName(db, {
    rows: statements,
    audit: auditStatement(
      db,
      { ...audit, now },
      {
        action: "stock.imported",
        target: { type: "stock_import", id: importId },
        customerId: null,
        changes: {
          imported: [null, landed],
          duplicates: [null, sql`${rows.length + counts.repeated} - ${landed}`],
          invalid: [null, counts.invalid],
        },
      },
    ),
    catalogued: db
      .select({ countryCode: catalog.countryCode, numberType: catalog.numberType })
      .from(catalog)
      .innerJoin(
        sql`json_each(${JSON.stringify(pairs)}) AS pair`,
        and(
          eq(catalog.countryCode, sql`json_extract(pair.value, '$[0]')`),
          eq(catalog.numberType, sql`json_extract(pair.value, '$[1]')`),
        ),
      ),
  });
  const imported = new Set(Object.values(written.rows).flatMap((inserted) => inserted.map((row) => row.phoneNumber)));
  const catalogued = new Set(written.catalogued.map((pair) => pairKey(pair.countryCode, pair.numberType)));
  return { importId, imported, catalogued };
}

export interface StockListQuery {
  countryCodes?: readonly string[] | undefined;
  numberTypes?: readonly string[] | undefined;
  statuses?: readonly StockStatus[] | undefined;
  /** A substring of the phone number. */
  search?: string | undefined;
  importId?: string | undefined;
}

/** A page of the stock, newest import first, then by number; and how many numbers match. */
export async function listStock(
  db: Database,
  q: StockListQuery,
  window: PageWindow,
): Promise<{ rows: StockNumberRow[]; total: number }> {
  const pairs = and(
    q.countryCodes && inJsonList(stockNumbers.countryCode, q.countryCodes),
    q.numberTypes && inJsonList(stockNumbers.numberType, q.numberTypes),
  );
  const where = and(
    pairs,
    q.statuses && inJsonList(stockNumbers.status, q.statuses),
    q.search === undefined ? undefined : containsText(stockNumbers.phoneNumber, q.search),
    q.importId === undefined ? undefined : eq(stockNumbers.importId, q.importId),
  );
  // Filtered by pairs and statuses alone, the total is the pairs' counts (a few rows), not a count of the numbers.
  const counted = q.statuses
    ? sql.join(
        q.statuses.map((status) => stockCounts[status]),
        sql` + `,
      )
    : stockCounts.count;
  const total =
    q.search === undefined && q.importId === undefined
      ? db
          .select({ total: sql<number>`total(${counted})`.mapWith(Number) })
          .from(stockCounts)
          .where(
            and(
              q.countryCodes && inJsonList(stockCounts.countryCode, q.countryCodes),
              q.numberTypes && inJsonList(stockCounts.numberType, q.numberTypes),
            ),
          )
      : db.select({ total: count() }).from(stockNumbers).where(where);
  return pageAndTotal(
    db,
    db
      .select()
      .from(stockNumbers)
      .where(where)
      .orderBy(desc(stockNumbers.importedAt), asc(stockNumbers.phoneNumber))
      .limit(window.limit)
      .offset(window.offset),
    total,
  );
}

/** The stock's counts per (country_code, number_type), in all and per status, by country then type. */
export async function stockSummary(db: Database): Promise<(typeof stockCounts.$inferSelect)[]> {
  return db.select().from(stockCounts).orderBy(asc(stockCounts.countryCode), asc(stockCounts.numberType));
}

/**
 * Takes a number out of the stock (an unallocated one: a number in stock never is), with its audit event; not one a
 * reservation holds now (a lapsed hold holds nothing).
 */
export async function removeFromStock(
  db: Database,
  audit: AuditContext,
  phoneNumber: string,
  now: number,
): Promise<Outcome<StockNumberRow, "not_found" | "held">> {
  const inStock: SQL = and(eq(stockNumbers.phoneNumber, phoneNumber), not(heldNow(now)))!;
  const removed = await batchByName(db, {
    number: writeInPhases({
      before: {
        audit: auditBeforeWrite(
          db,
          { ...audit, now },
          {
            action: "stock.removed",
            target: { type: "stock_number", id: phoneNumber },
            customerId: null,
            changes: {
              country_code: [stockNumbers.countryCode, null],
              number_type: [stockNumbers.numberType, null],
              imported_at: [iso(stockNumbers.importedAt), null],
            },
          },
          { from: stockNumbers, guard: inStock },
        ),
      },
      write: db.delete(stockNumbers).where(inStock).returning(),
    }),
  });
  const [row] = removed.number.write;
  if (row) return ok(row);
  const held = await db
    .select({ phoneNumber: stockNumbers.phoneNumber })
    .from(stockNumbers)
    .where(and(eq(stockNumbers.phoneNumber, phoneNumber), heldNow(now)));
  return held.length > 0 ? refuse("held", { phoneNumbers: [phoneNumber] }) : refuse("not_found");
}
