/**
 * How hybrid search combines its legs, and how far each leg ranks before it does. The figures
 * are those `npm run eval` measured best with the default offline embedder (bench/results,
 * eval-latest.md; bench/src/eval/fusion-lab.ts tries others in-process).
 */

/** How deep each leg of a hybrid search ranks before fusion: a turn one leg ranks 60th can still win on the other. */
export function fusionDepth(limit: number): number {
  return Math.min(200, Math.max(100, 2 * limit));
}

/** `hybridVectorDepth` for the default limit of 10 (ADR 0029). */
export const HYBRID_VECTOR_DEPTH = 100;

/**
 * How deep the vector leg of a conversation search ranks in hybrid (the BM25 leg ranks
 * `fusionDepth`). A vector candidate costs more than a BM25 one (its text and Float32 vector are
 * read for the exact re-score), and the vector leg ranking 100 took 2-3x a vector search of 10
 * beside the BM25 statement (ADR 0027). Past the first few dozen, a turn only the vector leg
 * holds rarely reaches the top 10: over all of LoCoMo (1,982 questions, `hashed`), depth 100 /
 * 50 / 30 / 20 gave recall@10 0.665 / 0.664 / 0.661 / 0.661 and MRR 0.492 / 0.488 / 0.485 /
 * 0.483 in the in-process lab; but `npm run eval` (same hour as main) gave LoCoMo quick 0.672 at
 * 30 and 0.677 at 50 against 0.686, and at 50 the coding set's paraphrase MRR fell below BM25
 * (0.599 vs 0.604), while a quiet-machine lab showed no measurable gain: kept at 100 (ADR 0029).
 */
export function hybridVectorDepth(limit: number): number {
  return Math.min(fusionDepth(limit), Math.max(HYBRID_VECTOR_DEPTH, 2 * limit));
}

/**
 * The hybrid's vector leg ranks every turn whose cosine is at least this (or the live floor,
 * when that is lower), and a turn the BM25 leg also found takes its share however weak the
 * cosine. A turn only the vector leg found must still reach the live floor, as in a vector
 * search: below it, such turns share next to nothing with the query. Cutting the whole leg at
 * the live floor threw away most of what it adds to BM25 (coding set recall@10 0.438 at 0.30,
 * 0.910 with none).
 */
export const HYBRID_VECTOR_FLOOR = 0.1;

/**
 * A turn next to a strong hit in its thread (the question before an answer, the answer after a
 * question) takes this share of the hit's score: a turn is often found by words its neighbour
 * said ("what did you paint?" / "a sunset over the lake").
 */
export const NEIGHBOUR_SHARE = 0.25;

/** Only the best this-many fused hits pass a share to their neighbours. */
export const NEIGHBOUR_SOURCES = 50;

export interface ScoredKey {
  key: string;
  score: number;
}

/**
 * Convex score fusion: each leg's scores scaled to 0–1 (BM25 by its best score, cosine from the
 * leg's floor `vectorFloor` to its best, so the scale does not hang on how many candidates there
 * were), then `lexicalWeight`·BM25 + (1 − `lexicalWeight`)·cosine. Unlike
 * reciprocal rank, a leg whose best hit is far ahead keeps that lead, which is what BM25 has on
 * a rare identifier. A turn with nothing from either leg scores 0 and is left out, and so is one
 * only the vector leg found below `vectorOnlyFloor` (the live similarity floor).
 */
export function convexFusion(
  lexical: readonly ScoredKey[],
  vector: readonly ScoredKey[],
  options: { lexicalWeight: number; vectorFloor: number; vectorOnlyFloor: number },
): Map<string, number> {
  const { lexicalWeight, vectorFloor, vectorOnlyFloor } = options;
  const fused = new Map<string, number>();
  const add = (key: string, share: number): void => {
    if (share > 0) fused.set(key, (fused.get(key) ?? 0) + share);
  };
  const best = Math.max(0, ...lexical.map((h) => h.score));
  if (lexicalWeight > 0 && best > 0) for (const h of lexical) add(h.key, (lexicalWeight * h.score) / best);
  if (lexicalWeight < 1 && vector.length > 0) {
    const top = Math.max(...vector.map((h) => h.score));
    const lexicalKeys = new Set(lexical.map((h) => h.key));
    for (const h of vector) {
      if (h.score < vectorOnlyFloor && !lexicalKeys.has(h.key)) continue;
      // The best candidate exactly at the floor still gets the whole share, not nothing.
      add(h.key, (1 - lexicalWeight) * (top > vectorFloor ? (h.score - vectorFloor) / (top - vectorFloor) : 1));
    }
  }
  return fused;
}

/**
 * Each neighbour of one of the best `NEIGHBOUR_SOURCES` hits gains `NEIGHBOUR_SHARE` of the
 * larger of its neighbouring hits' scores. `neighboursOf` maps a hit's key to the keys of the
 * turns before and after it in its thread (among the turns the search may return).
 */
export function withNeighbours(fused: ReadonlyMap<string, number>, neighboursOf: ReadonlyMap<string, readonly string[]>): Map<string, number> {
  const sources = [...fused].sort((a, b) => b[1] - a[1]).slice(0, NEIGHBOUR_SOURCES);
  const gains = new Map<string, number>();
  for (const [key, score] of sources) {
    for (const next of neighboursOf.get(key) ?? []) gains.set(next, Math.max(gains.get(next) ?? 0, NEIGHBOUR_SHARE * score));
  }
  const out = new Map(fused);
  for (const [key, gain] of gains) out.set(key, (out.get(key) ?? 0) + gain);
  return out;
}
