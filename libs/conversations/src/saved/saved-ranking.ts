/**
 * Both legs of saved-message search ranked in this process over a kept corpus (ADR 0037): the
 * same scores and the same order as the engine statements in saved-statements.ts
 * (`savedVectorStatement`, `savedBm25Statement`), over what `SavedCorpusCache` holds of the live
 * versions only, so no row here is stale and none needs dropping afterwards.
 */

/** BM25's usual constants, as in conversation search and `savedBm25Statement`. */
export const K1 = 1.2;
export const B = 0.75;

/** A live saved message, as the ranking names it (the engine orders ties by thread_id, msg_id). */
export interface HeldDoc {
  key: string;
  thread_id: string;
  msg_id: string;
}

/** A live message's vector at its live version, with its norm computed once when read. */
export interface HeldVector extends HeldDoc {
  version: string;
  model: string;
  /** Undefined when that version has no vector (a failed embed): the vector leg never finds it. */
  vector: Float32Array | undefined;
  norm: number;
}

/** One live posting of a term: the message, the term's count in it and its length in terms. */
export interface HeldPosting {
  doc: HeldDoc;
  tf: number;
  dl: number;
}

export interface RankedKey {
  key: string;
  score: number;
}

/** What BM25 needs of the corpus besides the postings (SAVE-SEARCH-10: this user's only). */
export interface Bm25Statistics {
  docs: number;
  avgLength: number;
  df: ReadonlyMap<string, number>;
}

/** The Euclidean norm of a vector, summed in double precision. */
export function normOf(vector: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < vector.length; i += 1) sum += vector[i]! * vector[i]!;
  return Math.sqrt(sum);
}

/**
 * The best `limit` held vectors of `model` by cosine with `query`, at or above `floor`, best
 * first, ties by (thread_id, msg_id). Exact over every held vector: at 10,000 vectors of 384
 * dimensions it is a few milliseconds, less than the engine's fixed cost for one statement. The
 * query is taken at Float32, as the engine takes its `Array(Float32)` parameter.
 */
export function rankByCosine(query: readonly number[], model: string, held: Iterable<HeldVector>, floor: number, limit: number): RankedKey[] {
  const q = Float32Array.from(query);
  const qNorm = normOf(q);
  const best: Array<{ doc: HeldDoc; score: number }> = [];
  if (limit <= 0 || qNorm === 0) return [];
  for (const h of held) {
    const v = h.vector;
    if (v === undefined || h.model !== model || v.length !== q.length || h.norm === 0) continue;
    let dot = 0;
    for (let i = 0; i < v.length; i += 1) dot += v[i]! * q[i]!;
    const score = dot / (qNorm * h.norm);
    if (!(score >= floor)) continue;
    keepBest(best, { doc: h, score }, limit);
  }
  return best.map((b) => ({ key: b.doc.key, score: b.score }));
}

/**
 * BM25 (K1, B) over the held live postings of `terms`, with the corpus's statistics: the idf,
 * mean length and formula of `savedBm25Statement`, so the same scores; the best `limit`, ties by
 * (thread_id, msg_id). A term with no held postings (never in the index) adds nothing.
 */
export function rankBm25(terms: readonly string[], postings: ReadonlyMap<string, readonly HeldPosting[]>, stats: Bm25Statistics, limit: number): RankedKey[] {
  if (terms.length === 0 || stats.docs === 0 || limit <= 0) return [];
  const scores = new Map<string, { doc: HeldDoc; score: number }>();
  // The statement matches `term IN terms`: a term asked twice counts once.
  for (const term of new Set(terms)) {
    const df = stats.df.get(term) ?? 0;
    const idf = bm25Idf(stats.docs, df);
    for (const p of postings.get(term) ?? []) {
      const s = (idf * p.tf * (K1 + 1)) / (p.tf + K1 * (1 - B + (B * p.dl) / stats.avgLength));
      const at = scores.get(p.doc.key);
      if (at) at.score += s;
      else scores.set(p.doc.key, { doc: p.doc, score: s });
    }
  }
  const best: Array<{ doc: HeldDoc; score: number }> = [];
  for (const hit of scores.values()) keepBest(best, hit, limit);
  return best.map((b) => ({ key: b.doc.key, score: b.score }));
}

/** BM25's idf, as the service passes it to `savedBm25Statement`. */
export function bm25Idf(docs: number, df: number): number {
  return Math.log(1 + (docs - df + 0.5) / (df + 0.5));
}

/**
 * The engine's `ORDER BY score DESC, thread_id, msg_id`. JavaScript compares UTF-16 units and
 * the engine UTF-8 bytes: the orders differ only between a character above U+FFFF and one in
 * U+E000-U+FFFF, which ids do not hold in practice.
 */
function before(a: { doc: HeldDoc; score: number }, b: { doc: HeldDoc; score: number }): boolean {
  if (a.score !== b.score) return a.score > b.score;
  if (a.doc.thread_id !== b.doc.thread_id) return a.doc.thread_id < b.doc.thread_id;
  return a.doc.msg_id < b.doc.msg_id;
}

/** Inserts `hit` into `best` (sorted, at most `limit` long) when it ranks among them. */
function keepBest(best: Array<{ doc: HeldDoc; score: number }>, hit: { doc: HeldDoc; score: number }, limit: number): void {
  if (best.length === limit && !before(hit, best[best.length - 1]!)) return;
  let i = best.length;
  while (i > 0 && before(hit, best[i - 1]!)) i -= 1;
  best.splice(i, 0, hit);
  if (best.length > limit) best.pop();
}
