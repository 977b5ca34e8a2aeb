/**
 * The one tokenizer of lexical search: the write path indexes with it, the query side and
 * saved-message search read with it, so a term is found exactly as it was written.
 *
 * Tokens serve code as well as prose:
 * - a compound such as `src/app/main.ts`, `max-old-space-size` or `Foo.barBaz` is indexed whole,
 *   by each dotted/path/dash segment, and each segment by its camelCase and snake_case parts;
 * - matching is case-insensitive and takes any Unicode letter or digit;
 * - common English words are dropped on both sides, so a query of only such words (or of only
 *   punctuation) has no terms and finds nothing;
 * - the index holds each English word by its Porter stem ("rotated" and "rotating" are both
 *   `rotat`); a query asks for the stem and the word as typed, so rows indexed before stemming
 *   (which hold words as typed) are still found until they are re-indexed.
 */

import { porterStem } from './porter-stemmer';

/** Letters, digits and `_`, joined by `.`, `-`, `/`, `\` or `:` into one compound. */
const COMPOUND = /[\p{L}\p{N}_]+(?:[./\\:-][\p{L}\p{N}_]+)*/gu;
const SEGMENT_SEPARATORS = /[./\\:-]+/u;
/** camelCase / PascalCase / acronym boundaries and digit runs inside one segment. */
const CAMEL_PARTS = /\p{Lu}+(?=\p{Lu}\p{Ll})|\p{Lu}?\p{Ll}+|\p{Lu}+|\p{N}+|[\p{L}\p{M}]+/gu;

/** A word with no separator, digit or case boundary inside: `tokenMatches` yields it alone. */
const PLAIN_WORD = /^[A-Z]?[a-z]+$/;

/** Terms longer than this are not indexed: long runs are hashes and blobs, never typed back. */
export const MAX_TERM_CHARS = 64;

// A short list on purpose: code words such as `for`, `if`, `not` or `null` carry meaning in a
// developer's query, so only words that never do are dropped.
const STOPWORDS = new Set(
  (
    'a an and are as at be been but by did do does for from had has have he her him his how i in into is it its ' +
    'me my of on or our she so than that the their them then there these they this those to us was we were what ' +
    'when where which who whom why will with would you your'
  ).split(' '),
);

export interface TokenMatch {
  term: string;
  /** UTF-16 index of the compound the term came from (for a centred excerpt). */
  at: number;
}

/** Every term of `text`, in order, a compound followed by its parts (duplicates kept: they are term frequency). */
export function tokenMatches(text: string): TokenMatch[] {
  const out: TokenMatch[] = [];
  for (const match of text.matchAll(COMPOUND)) {
    const at = match.index;
    const compound = match[0];
    const seen = new Set<string>();
    const emit = (raw: string, part = false): void => {
      const term = raw.toLowerCase();
      // A one-character part (the `v` of `v2`, the `e` of `E11000`) matches too much to mean anything.
      if (seen.has(term) || term.length === 0 || (part && Array.from(term).length < 2) || term.length > MAX_TERM_CHARS || STOPWORDS.has(term)) return;
      seen.add(term);
      out.push({ term, at });
    };
    emit(compound);
    // A plain word (the most of prose) is its own only part: the splits below would find it again.
    if (PLAIN_WORD.test(compound)) continue;
    for (const segment of compound.split(SEGMENT_SEPARATORS)) {
      emit(segment, segment !== compound);
      for (const snake of segment.split('_')) {
        emit(snake, snake !== compound);
        for (const part of snake.match(CAMEL_PARTS) ?? []) emit(part, part !== compound);
      }
    }
  }
  return out;
}

/** The terms of `text` (with repeats). */
export function tokenize(text: string): string[] {
  return tokenMatches(text).map((m) => m.term);
}

/** Stems already computed: prose repeats its words, and every append stems every token. */
const stems = new Map<string, string>();
const MAX_CACHED_STEMS = 100_000;

/** The term the index stores for a token: English words by their stem, anything else as it is. */
export function indexTerm(token: string): string {
  let stem = stems.get(token);
  if (stem === undefined) {
    stem = porterStem(token);
    // Dropped whole when full: a bound on memory that a vocabulary's words quickly refill.
    if (stems.size >= MAX_CACHED_STEMS) stems.clear();
    stems.set(token, stem);
  }
  return stem;
}

/** The distinct terms of a query, in order of first appearance: each token's stem, then the token as typed when it differs. */
export function queryTerms(query: string): string[] {
  return [...new Set(tokenize(query).flatMap((t) => [indexTerm(t), t]))];
}

/** Term frequencies (by stem) and document length of one text, as the index stores them. */
export function termFrequencies(text: string): { tf: Map<string, number>; length: number } {
  const tf = new Map<string, number>();
  let length = 0;
  for (const token of tokenize(text)) {
    const term = indexTerm(token);
    tf.set(term, (tf.get(term) ?? 0) + 1);
    length += 1;
  }
  return { tf, length };
}

/**
 * UTF-16 index of the first place `text` holds one of `terms` as written, or failing that by
 * stem ("billing" for `bill`); undefined when it holds neither. Written first: an excerpt for
 * `BILL-77123` shows the ticket, not the first "billing" of the text.
 */
export function firstMatch(text: string, terms: readonly string[]): number | undefined {
  const wanted = new Set(terms);
  const matches = tokenMatches(text);
  return (matches.find((m) => wanted.has(m.term)) ?? matches.find((m) => wanted.has(indexTerm(m.term))))?.at;
}
