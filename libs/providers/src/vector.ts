/**
 * Returns a new plain array scaled to unit length. A zero (or non-finite) norm yields an all-zero
 * vector rather than NaNs, because an empty text has no direction and must not poison a cosine sum.
 */
export function l2Normalize(vector: ArrayLike<number>): number[] {
  let sumSquares = 0;
  for (let i = 0; i < vector.length; i++) {
    const v = vector[i] as number;
    sumSquares += v * v;
  }
  const out = new Array<number>(vector.length);
  const norm = Math.sqrt(sumSquares);
  if (norm === 0 || !Number.isFinite(norm)) {
    out.fill(0);
    return out;
  }
  for (let i = 0; i < vector.length; i++) out[i] = (vector[i] as number) / norm;
  return out;
}

/** Cosine similarity; 0 when either side is a zero vector (instead of NaN). */
export function cosineSimilarity(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) {
    throw new RangeError(`cosineSimilarity: length mismatch (${a.length} vs ${b.length})`);
  }
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as number;
    const y = b[i] as number;
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  if (na === 0 || nb === 0) return 0;
  return dot / Math.sqrt(na * nb);
}
