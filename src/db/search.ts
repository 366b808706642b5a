// Substring search through an FTS5 trigram index: the index query that narrows a search down without losing a match.

/** The tokenizer's unit: a needle shorter than this cannot be looked up in a trigram index. */
const TRIGRAM_LENGTH = 3;

/**
 * The FTS5 query that every text containing `needle` (case-insensitively) matches: its first and last trigram.
 * Any subset of a needle's trigrams keeps every match, since the index folds case character by character, as the
 * exact test that follows does for ASCII; two bound the index work to two posting lists and cut the candidates
 * enough for that exact test. Undefined when the index cannot help: under three characters, or text an FTS5
 * query cannot carry (a NUL, a lone surrogate).
 */
export function trigramQuery(needle: string): string | undefined {
  const chars = [...needle];
  if (chars.length < TRIGRAM_LENGTH || /[\0\p{Cs}]/u.test(needle)) return undefined;
  const first = chars.slice(0, TRIGRAM_LENGTH).join("");
  const last = chars.slice(-TRIGRAM_LENGTH).join("");
  return [...new Set([first, last])].map((trigram) => `"${trigram.replaceAll('"', '""')}"`).join(" AND ");
}
