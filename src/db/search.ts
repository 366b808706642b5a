// Substring search through an FTS5 trigram index.

/** The tokenizer's unit: a needle shorter than this cannot be looked up in a trigram index. */
const TRIGRAM_LENGTH = 3;
/** Trigrams in the index query: each narrows the candidates, and each costs a walk of its posting list. */
const TRIGRAMS_PER_QUERY = 2;

/** Digits and punctuation are far rarer in free text than letters and spaces: a guess, as no statistics are kept. */
function rarity(trigram: string): number {
  return [...trigram].filter((char) => !/[\p{L}\s]/u.test(char)).length;
}

/**
 * The FTS5 query that every text containing `needle` (case-insensitively) matches: two of its trigrams. Any subset
 * of a needle's trigrams keeps every match, since the index folds case character by character, as the exact test
 * that follows does for ASCII. Which two only decides the cost: a common trigram's posting list is long to walk and
 * narrows little, so the rarest-looking ones are taken (those with digits or punctuation), and among equals the
 * first and the last, which narrow best together. Undefined when the index cannot help: under three characters,
 * or text an FTS5 query cannot carry (a NUL, a lone surrogate).
 */
export function trigramQuery(needle: string): string | undefined {
  const chars = [...needle];
  if (chars.length < TRIGRAM_LENGTH || /[\0\p{Cs}]/u.test(needle)) return undefined;
  const trigrams = chars.slice(0, 1 - TRIGRAM_LENGTH).map((_, i) => chars.slice(i, i + TRIGRAM_LENGTH).join(""));
  const fromEnds = (i: number) => Math.min(i, trigrams.length - 1 - i);
  const chosen = trigrams
    .map((trigram, i) => ({
      trigram,
      rarity: rarity(trigram),
      fromEnds: fromEnds(i),
    }))
    .sort((a, b) => b.rarity - a.rarity || a.fromEnds - b.fromEnds)
    .map((t) => t.trigram);
  return [...new Set(chosen)]
    .slice(0, TRIGRAMS_PER_QUERY)
    .map((trigram) => `"${trigram.replaceAll('"', '""')}"`)
    .join(" AND ");
}
