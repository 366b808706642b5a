// The return-to-stock job (LIFECYCLE.md, Back to stock): released tenures whose restore window has passed are closed
// and their phone numbers go back to stock, quarantined until the pair's quarantine ends; a later run makes them
// available. Every write is guarded by the state it moves from, so a rerun or an overlapping run changes nothing twice.
import { and, asc, eq, inArray, isNull, lt, lte, type SQL, sql } from "drizzle-orm";
import { batchByName } from "../db/batch.ts";
import type { Database } from "../db/client.ts";
import {
  catalogSettings,
  DEFAULT_QUARANTINE_DAYS,
  type NumberStatus,
  numbers,
  RELEASE_DUE_INDEX,
  type StockSource,
  type StockStatus,
  stockNumbers,
} from "../db/schema.ts";
import { inJsonList, literal } from "../db/sql.ts";
import { DAY_MS } from "../lib/time.ts";

/** Tenures closed per D1 batch. */
const RETURNS_PER_BATCH = 1000;
/** Batches per run at most (of each phase); what is left waits for the next run. */
const MAX_BATCHES = 200;
/** Quarantined numbers made available per statement. */
const RELEASES_PER_STATEMENT = 5000;

/** What a run did, for its log line: D1's SQL time in all and of its slowest batch. */
export interface ReturnsReport {
  closed: number;
  quarantined: number;
  madeAvailable: number;
  batches: number;
  d1Ms: number;
  slowestBatchMs: number;
}

/** A D1 session that counts its SQL time (db/session.ts's request session). */
interface MeteredDatabase {
  db: Database;
  usage: { durationMs: number };
}

/**
 * A released tenure past its restore window and not yet closed (literals as numbers_release_due_idx states its WHERE,
 * so SQLite may use that partial index). Past means after restorable_until: a restore at restorable_until still wins.
 */
function dueForStock(now: number): SQL {
  return and(
    sql`${numbers.status} = ${literal("released" satisfies NumberStatus)}`,
    isNull(numbers.closedAt),
    lt(numbers.restorableUntil, now),
  )!;
}

/**
 * Runs the job at `now`: closes due tenures a batch at a time, then makes available the quarantined numbers whose
 * quarantine has ended.
 */
export async function returnNumbersToStock(session: MeteredDatabase, now: number): Promise<ReturnsReport> {
  const { db, usage } = session;
  const report: ReturnsReport = { closed: 0, quarantined: 0, madeAvailable: 0, batches: 0, d1Ms: 0, slowestBatchMs: 0 };
  const startedMs = usage.durationMs;
  const timed = async <T>(run: () => Promise<T>): Promise<T> => {
    const before = usage.durationMs;
    const result = await run();
    report.batches++;
    report.slowestBatchMs = Math.max(report.slowestBatchMs, usage.durationMs - before);
    return result;
  };
  for (let batch = 0; batch < MAX_BATCHES; batch++) {
    const closed = await timed(() => closeDueTenures(db, now));
    if (closed === undefined) break;
    report.closed += closed.closed;
    report.quarantined += closed.quarantined;
  }
  for (let batch = 0; batch < MAX_BATCHES; batch++) {
    const made = await timed(() => makeDueAvailable(db, now));
    report.madeAvailable += made;
    if (made < RELEASES_PER_STATEMENT) break;
  }
  report.d1Ms = usage.durationMs - startedMs;
  return report;
}

/**
 * One batch: up to RETURNS_PER_BATCH due tenures, oldest deadline first. Their phone numbers go to stock and the
 * tenures close in one D1 batch, both under the same guard, so a tenure restored or closed since the read is skipped
 * whole. Undefined when none was due.
 */
async function closeDueTenures(db: Database, now: number): Promise<{ closed: number; quarantined: number } | undefined> {
  const due = await db
    // A column of a table named in SQL text, not by drizzle's from(): selected as an expression.
    .select({ id: sql<string>`${numbers.id}`.as("id") })
    .from(sql`${numbers} INDEXED BY ${sql.identifier(RELEASE_DUE_INDEX)}`)
    .where(dueForStock(now))
    .orderBy(asc(numbers.restorableUntil))
    .limit(RETURNS_PER_BATCH);
  if (due.length === 0) return undefined;
  const ids = due.map((row) => row.id);
  // By id (the primary key), still due: the unary + keeps SQLite from scanning every released number by status.
  const these = and(
    inJsonList(numbers.id, ids),
    sql`+${numbers.status} = ${"released" satisfies NumberStatus}`,
    isNull(numbers.closedAt),
    lt(numbers.restorableUntil, now),
  )!;
  // The later of the restore deadline and the pair's quarantine (its settings as they are now) from the release.
  const quarantineDays = sql`coalesce(${catalogSettings.quarantineDays}, ${DEFAULT_QUARANTINE_DAYS})`;
  const availableAt = sql`max(${numbers.restorableUntil}, ${numbers.releasedAt} + ${quarantineDays} * ${DAY_MS})`;
  const { stocked, closed } = await batchByName(db, {
    // First, while the tenures are unclosed: the guard reads closed_at.
    stocked: db
      .insert(stockNumbers)
      .select(
        db
          .select({
            phoneNumber: numbers.phoneNumber,
            countryCode: numbers.countryCode,
            numberType: numbers.numberType,
            importId: sql`${numbers.id}`.as("import_id"),
            importedAt: sql`${now}`.as("imported_at"),
            status:
              sql`CASE WHEN ${availableAt} <= ${now} THEN ${"available" satisfies StockStatus} ELSE ${"quarantined" satisfies StockStatus} END`.as(
                "status",
              ),
            availableAt: availableAt.as("available_at"),
            source: sql`${"released" satisfies StockSource}`.as("source"),
            reservationId: sql`NULL`.as("reservation_id"),
            heldUntil: sql`NULL`.as("held_until"),
          })
          .from(numbers)
          .leftJoin(
            catalogSettings,
            and(eq(catalogSettings.countryCode, numbers.countryCode), eq(catalogSettings.numberType, numbers.numberType)),
          )
          .where(these),
      )
      // A number is never in stock while a tenure holds it (the import skips held ones); should one be, it stays as is.
      .onConflictDoNothing()
      .returning({ status: stockNumbers.status }),
    closed: db.update(numbers).set({ closedAt: now }).where(these).returning({ id: numbers.id }),
  });
  return { closed: closed.length, quarantined: stocked.filter((row) => row.status === "quarantined").length };
}

/** Marks available up to RELEASES_PER_STATEMENT quarantined numbers whose available_at has come; how many it marked. */
async function makeDueAvailable(db: Database, now: number): Promise<number> {
  const quarantined = sql`${stockNumbers.status} = ${literal("quarantined" satisfies StockStatus)}`;
  const due = db
    .select({ phoneNumber: stockNumbers.phoneNumber })
    .from(stockNumbers)
    .where(and(quarantined, lte(stockNumbers.availableAt, now)))
    .limit(RELEASES_PER_STATEMENT);
  const { made } = await batchByName(db, {
    made: db
      .update(stockNumbers)
      .set({ status: "available" })
      .where(and(quarantined, inArray(stockNumbers.phoneNumber, due)))
      .returning({ phoneNumber: stockNumbers.phoneNumber }),
  });
  return made.length;
}
