import { indexTerm, queryTerms, tokenMatches } from '../lexical/tokenizer';
import { B, bm25Idf, K1 } from './saved-ranking';

/**
 * BM25 in this process over a corpus given in full, computed per query, with the constants and
 * idf of saved search's kept-corpus ranking (saved-ranking.ts). Scores depend only on the corpus given. Terms come from the tokenizer
 * the engine-side indexes are written with, so all find an identifier the same way. The
 * excerpt and fusion helpers below are shared by every search.
 */

export interface Bm25Doc {
  key: string;
  text: string;
}

export interface Bm25Hit {
  key: string;
  score: number;
  /** UTF-16 index of the first matched query term, for a centred excerpt. */
  firstMatch: number;
}

export function bm25(docs: readonly Bm25Doc[], query: string): Bm25Hit[] {
  const terms = queryTerms(query);
  if (terms.length === 0 || docs.length === 0) return [];
  const wanted = new Set(terms);
  const indexed = docs.map((doc) => {
    const counts = new Map<string, number>();
    let length = 0;
    let firstMatch = -1;
    for (const { term: token, at } of tokenMatches(doc.text)) {
      const term = indexTerm(token);
      length += 1;
      if (!wanted.has(term)) continue;
      counts.set(term, (counts.get(term) ?? 0) + 1);
      if (firstMatch < 0) firstMatch = at;
    }
    return { key: doc.key, counts, length, firstMatch };
  });
  const averageLength = indexed.reduce((n, d) => n + d.length, 0) / indexed.length || 1;
  const idf = new Map(
    terms.map((term) => {
      const withTerm = indexed.filter((d) => d.counts.has(term)).length;
      return [term, bm25Idf(indexed.length, withTerm)];
    }),
  );
  const hits: Bm25Hit[] = [];
  for (const doc of indexed) {
    if (doc.counts.size === 0) continue;
    let score = 0;
    for (const [term, tf] of doc.counts) {
      score += idf.get(term)! * ((tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * doc.length) / averageLength)));
    }
    hits.push({ key: doc.key, score, firstMatch: doc.firstMatch });
  }
  return hits.sort((a, b) => b.score - a.score);
}

/** `chars` characters of `text` around `at` (a match), never splitting a surrogate pair. */
export function centredExcerpt(text: string, at: number, chars: number): string {
  const points = Array.from(text);
  if (points.length <= chars) return text;
  // `at` is a UTF-16 index; count the code points before it.
  const pointIndex = Array.from(text.slice(0, Math.max(0, at))).length;
  const start = Math.max(0, Math.min(pointIndex - Math.floor(chars / 3), points.length - chars));
  return points.slice(start, start + chars).join('');
}

/** Reciprocal rank fusion: each leg adds weight / (k + rank), rank from 1. */
export function reciprocalRankFusion(legs: Array<{ keys: readonly string[]; weight: number }>, k = 60): Map<string, number> {
  const fused = new Map<string, number>();
  for (const leg of legs) {
    if (leg.weight <= 0) continue;
    leg.keys.forEach((key, i) => fused.set(key, (fused.get(key) ?? 0) + leg.weight / (k + i + 1)));
  }
  return fused;
}
