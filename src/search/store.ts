// The stock's search (LIFECYCLE.md "Search and coverage before ordering"): the numbers of an orderable pair anyone may
// take now, in phone-number order, whose digits match the patterns. Fast at a million numbers in one pair: every
// pattern is read through an index (docs/performance.md measures it).
import { and, count, eq, type SQL, sql } from "drizzle-orm";
import { pairIs } from "../catalog/store.ts";
import { batchByName } from "../db/batch.ts";
import type { Database } from "../db/client.ts";
import { type Outcome, ok, refuse } from "../db/outcome.ts";
import { catalog, stockNumbers, stockPairs, stockTrigrams } from "../db/schema.ts";
import { trigramQuery } from "../db/search.ts";
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
 * Index candidates a search reads before it counts its patterns as common. Fewer: they are every number of the pair
 * with the patterns' trigrams, checked, sorted and cut to the limit (a few thousand lookups at most). This many or
 * more: matches are dense enough that a scan of the pair's takeable numbers in phone order meets `limit` of them soon
 * (spread evenly over a million numbers, within limit × 1,000,000 / SEARCH_CANDIDATES rows), while reading every
 * candidate of a pattern as common as "123" would not be.
 */
export const SEARCH_CANDIDATES = 2_000;

/** The stock number contains the digits ("+" is no digit, so the E.164 form answers as the bare digits would). */
function containing(digits: string | undefined): SQL | undefined {
  if (digits === undefined) return undefined;
  return sql`instr(${stockNumbers.phoneNumber}, ${digits}) > 0`;
}

function endingWith(digits: string | undefined): SQL | undefined {
  if (digits === undefined) return undefined;
  return sql`substr(${stockNumbers.phoneNumber}, ${-digits.length}) = ${digits}`;
}

/** The trigram index's query every number matching contains and ends_with matches; undefined when neither has 3 digits. */
function indexQuery(patterns: DigitPatterns): string | undefined {
  const parts = [patterns.contains, patterns.endsWith].flatMap((digits) => {
    const query = digits === undefined ? undefined : trigramQuery(digits);
    return query === undefined ? [] : [query];
  });
  return parts.length === 0 ? undefined : parts.join(" AND ");
}

/** Bits below a pair's number in a stock_trigrams rowid (migrations/0019): 2^50 exceeds every 15-digit number. */
const PAIR_SHIFT = 50;
/** A rowid's digits: its bits below the pair's number. */
const DIGITS_MASK = sql.raw(String(2 ** PAIR_SHIFT - 1));

/** The pair's rowid range in stock_trigrams: its numbers' rowids, and no other pair's. */
function pairRowids(pair: StockPair): SQL {
  const number = sql`(SELECT ${stockPairs.number} FROM ${stockPairs} WHERE ${stockPairs.countryCode} = ${pair.countryCode} AND ${stockPairs.numberType} = ${pair.numberType})`;
  const shift = sql.raw(String(PAIR_SHIFT));
  // Up to the last rowid of the pair, not below the next pair's first: (8191 + 1) << 50 overflows 64 bits.
  return sql`${stockTrigrams.rowid} BETWEEN (${number} << ${shift}) AND (${number} << ${shift}) + ${DIGITS_MASK}`;
}

/**
 * The searches, each a few index ranges:
 * - without a contains or ends_with of 3 digits or more: the first takeable numbers of the pair (of the starts_with
 *   range) in phone order that match the patterns (1 or 2 digits match one number in ten or a hundred: dense);
 * - else at most SEARCH_CANDIDATES numbers of the pair with the patterns' trigrams, counted in the same batch; fewer is
 *   every match (checked, sorted, cut); otherwise the patterns are common, and a scan in phone order answers.
 */
export async function searchStock(db: Database, search: StockSearch, now: number): Promise<Outcome<string[], "not_orderable">> {
  const { pair, patterns, limit } = search;
  const orderable = db.select({ countryCode: catalog.countryCode }).from(catalog).where(pairIs(pair));
  const matching = and(containing(patterns.contains), endingWith(patterns.endsWith));
  const query = indexQuery(patterns);
  const scan = () => phoneNumbersOf(db, firstTakeable(pair, patterns.startsWith, limit, now, matching));
  const found = await batchByName(db, {
    orderable,
    first: query === undefined ? scan() : undefined,
    candidates: query === undefined ? undefined : candidateCount(db, search, query),
    rare: query === undefined ? undefined : rareMatches(db, search, query, matching, now),
  });
  if (found.orderable.length === 0) return refuse("not_orderable", pair);
  if (found.first) return ok(found.first.map((row) => row.phoneNumber));
  if (found.rare && (found.candidates?.[0]?.count ?? 0) < SEARCH_CANDIDATES) {
    return ok(found.rare.map((row) => row.phoneNumber));
  }
  // Common patterns: their matches are dense, so reading the pair in phone order meets `limit` of them sooner than
  // reading every candidate.
  return ok((await scan()).map((row) => row.phoneNumber));
}

/**
 * The first SEARCH_CANDIDATES numbers of the pair with the query's trigrams that contain and end with the patterns, as
 * phone numbers. The patterns are checked on the index's rowid (the number's digits), without a read of the stock: the
 * count is of numbers that match, so a pattern counts as common only when its matches are dense (a trigram as common
 * as "000" with few numbers ending in 00000 is rare, and read whole, not scanned for).
 */
function candidates(db: Database, search: StockSearch, query: string) {
  const { contains, endsWith } = search.patterns;
  // Parenthesised: SQLite's || binds tighter than &.
  const digits = sql`(${stockTrigrams.rowid} & ${DIGITS_MASK})`;
  return db
    .select({ phoneNumber: sql<string>`'+' || ${digits}`.as("candidate") })
    .from(stockTrigrams)
    .where(
      and(
        sql`${stockTrigrams} MATCH ${query}`,
        pairRowids(search.pair),
        contains === undefined ? undefined : sql`instr(${digits}, ${contains}) > 0`,
        // The last digits as a number: a shorter number may pass (0123 as 123), which the stock row's check settles.
        endsWith === undefined ? undefined : sql`${digits} % ${10 ** endsWith.length} = ${Number(endsWith)}`,
      ),
    )
    .limit(SEARCH_CANDIDATES)
    .as("candidates");
}

function candidateCount(db: Database, search: StockSearch, query: string) {
  return db.select({ count: count() }).from(candidates(db, search, query));
}

/**
 * The takeable numbers among the first SEARCH_CANDIDATES candidates that match every pattern, in phone order: every
 * match when the count says there were fewer candidates than that.
 */
function rareMatches(db: Database, search: StockSearch, query: string, matching: SQL | undefined, now: number) {
  const found = candidates(db, search, query);
  // The candidates first (CROSS JOIN keeps SQLite's join order): each is one lookup of a stock row by its number.
  return db
    .select({ phoneNumber: stockNumbers.phoneNumber })
    .from(found)
    .crossJoin(stockNumbers)
    .where(
      and(eq(stockNumbers.phoneNumber, found.phoneNumber), takeableNow(now), startingWith(search.patterns.startsWith), matching),
    )
    .orderBy(stockNumbers.phoneNumber)
    .limit(search.limit);
}

/** The rows of a subquery of phone numbers (firstTakeable's), as a statement a batch takes. */
function phoneNumbersOf(db: Database, subquery: SQL) {
  return db.select({ phoneNumber: sql<string>`phone_number` }).from(sql`(${subquery})`);
}
