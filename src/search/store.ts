// The stock's search (LIFECYCLE.md "Search and coverage before ordering"): the numbers of an orderable pair anyone may
// take now, in phone-number order, whose digits match the patterns. Fast at a million numbers in one pair: every
// pattern is read through an index (docs/performance.md measures it).
import { and, count, eq, gte, lt, type SQL, sql } from "drizzle-orm";
import { pairIs } from "../catalog/store.ts";
import { batchByName } from "../db/batch.ts";
import type { Database } from "../db/client.ts";
import { type Outcome, ok, refuse } from "../db/outcome.ts";
import { catalog, stockNumberSuffixes, stockNumbers } from "../db/schema.ts";
import { firstTakeable, type StockPair, startingWith, takeableNow } from "../stock/holds.ts";

/** Digits the number (E.164 without its "+") must start with, contain, end with: each given one must match. */
interface DigitPatterns {
  startsWith?: string | undefined;
  contains?: string | undefined;
  endsWith?: string | undefined;
}

export interface StockSearch {
  pair: StockPair;
  patterns: DigitPatterns;
  limit: number;
}

/**
 * Suffix rows a `contains` reads before it counts as common. Fewer: they are all its matches, checked, sorted and cut
 * to the limit (a few thousand lookups at most). This many or more: matches are dense enough that a scan of the pair's
 * takeable numbers in phone order meets `limit` of them soon (spread evenly over a million numbers, within
 * limit × 1,000,000 / CONTAINS_CANDIDATES rows), while reading every match of a pattern as common as "1" would not be.
 */
export const CONTAINS_CANDIDATES = 2_000;

/** The stock number contains the digits ("+" is no digit, so the E.164 form answers as the bare digits would). */
function containing(digits: string | undefined): SQL | undefined {
  if (digits === undefined) return undefined;
  return sql`instr(${stockNumbers.phoneNumber}, ${digits}) > 0`;
}

function endingWith(digits: string | undefined): SQL | undefined {
  if (digits === undefined) return undefined;
  return sql`substr(${stockNumbers.phoneNumber}, ${-digits.length}) = ${digits}`;
}

function suffixesOf(pair: StockPair, suffix: SQL): SQL {
  return and(eq(stockNumberSuffixes.countryCode, pair.countryCode), eq(stockNumberSuffixes.numberType, pair.numberType), suffix)!;
}

/** The suffix rows of numbers containing the digits: a range of suffixes starting with them (":" sorts after "9"). */
function containsRange(pair: StockPair, digits: string): SQL {
  return suffixesOf(pair, and(gte(stockNumberSuffixes.suffix, digits), lt(stockNumberSuffixes.suffix, `${digits}:`))!);
}

/**
 * The searches, each a few index ranges:
 * - no contains or ends_with: the first takeable numbers of the pair (of the starts_with range), in phone order;
 * - contains: at most CONTAINS_CANDIDATES of its suffix rows, counted in the same batch; fewer is every match
 *   (checked, sorted, cut); otherwise it is common, and the ends_with walk or a scan in phone order answers;
 * - ends_with: the suffix index holds a suffix's numbers in phone order, so the walk checks its rows in order until the
 *   limit, never more than the pattern's own matches (within the starts_with range).
 */
export async function searchStock(db: Database, search: StockSearch, now: number): Promise<Outcome<string[], "not_orderable">> {
  const { pair, patterns, limit } = search;
  const orderable = db.select({ countryCode: catalog.countryCode }).from(catalog).where(pairIs(pair));
  const plain = patterns.contains === undefined && patterns.endsWith === undefined;
  const found = await batchByName(db, {
    orderable,
    first: plain ? phoneNumbersOf(db, firstTakeable(pair, patterns.startsWith, limit, now)) : undefined,
    candidates: patterns.contains === undefined ? undefined : containsCandidateCount(db, pair, patterns.contains),
    rare: patterns.contains === undefined ? undefined : rareMatches(db, search, patterns.contains, now),
    walk: patterns.contains === undefined && !plain ? endsWithWalk(db, search, now) : undefined,
  });
  if (found.orderable.length === 0) return refuse("not_orderable", pair);
  if (found.first) return ok(found.first.map((row) => row.phoneNumber));
  if (found.walk) return ok(found.walk.map((row) => row.phoneNumber));
  if (found.rare && (found.candidates?.[0]?.count ?? 0) < CONTAINS_CANDIDATES) {
    return ok(found.rare.map((row) => row.phoneNumber));
  }
  // A common contains: its matches are dense, so reading in phone order (the pair's, or only ends_with's matches when
  // given) meets `limit` of them sooner than reading them all.
  const common = patterns.endsWith === undefined ? denseScan(db, search, now) : endsWithWalk(db, search, now);
  return ok((await common).map((row) => row.phoneNumber));
}

/** The first CONTAINS_CANDIDATES suffix rows of numbers containing the digits (a number once per place it has them). */
function containsRows(db: Database, pair: StockPair, digits: string) {
  return db
    .select({ phoneNumber: sql<string>`${stockNumberSuffixes.phoneNumber}`.as("candidate") })
    .from(stockNumberSuffixes)
    .where(containsRange(pair, digits))
    .limit(CONTAINS_CANDIDATES)
    .as("contains_rows");
}

function containsCandidateCount(db: Database, pair: StockPair, digits: string) {
  return db.select({ count: count() }).from(containsRows(db, pair, digits));
}

/**
 * The takeable numbers among the first CONTAINS_CANDIDATES suffix rows containing the digits that match the other
 * patterns, in phone order: every match when the count says there were fewer rows than that.
 */
function rareMatches(db: Database, search: StockSearch, digits: string, now: number) {
  const rows = containsRows(db, search.pair, digits);
  // The candidates first (CROSS JOIN keeps SQLite's join order): each is one lookup of a stock row by its number.
  return db
    .selectDistinct({ phoneNumber: stockNumbers.phoneNumber })
    .from(rows)
    .crossJoin(stockNumbers)
    .where(
      and(
        eq(stockNumbers.phoneNumber, rows.phoneNumber),
        takeableNow(now),
        startingWith(search.patterns.startsWith),
        endingWith(search.patterns.endsWith),
      ),
    )
    .orderBy(stockNumbers.phoneNumber)
    .limit(search.limit);
}

/** The numbers ending with the pattern, in phone order from the suffix index, each checked until the limit. */
function endsWithWalk(db: Database, search: StockSearch, now: number) {
  const { pair, patterns } = search;
  return db
    .select({ phoneNumber: stockNumberSuffixes.phoneNumber })
    .from(stockNumberSuffixes)
    .crossJoin(stockNumbers)
    .where(
      and(
        suffixesOf(pair, eq(stockNumberSuffixes.suffix, patterns.endsWith ?? "")),
        startingWith(patterns.startsWith, stockNumberSuffixes.phoneNumber),
        eq(stockNumbers.phoneNumber, stockNumberSuffixes.phoneNumber),
        takeableNow(now),
        containing(patterns.contains),
      ),
    )
    .orderBy(stockNumberSuffixes.phoneNumber)
    .limit(search.limit);
}

/** A common contains: the pair's takeable numbers in phone order (of the starts_with range) that contain it. */
function denseScan(db: Database, search: StockSearch, now: number) {
  const { pair, patterns, limit } = search;
  return phoneNumbersOf(db, firstTakeable(pair, patterns.startsWith, limit, now, containing(patterns.contains)));
}

/** The rows of a subquery of phone numbers (firstTakeable's), as a statement a batch takes. */
function phoneNumbersOf(db: Database, subquery: SQL) {
  return db.select({ phoneNumber: sql<string>`phone_number` }).from(sql`(${subquery})`);
}
