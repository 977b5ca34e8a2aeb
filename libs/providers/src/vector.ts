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

/** Float32's largest finite value: a component beyond it is Infinity once stored. */
const FLOAT32_MAX = 3.4028234663852886e38;

/**
 * Why a vector cannot be stored and searched as an embedding, or undefined when it can: it must
 * have `dims` components (when `dims` is known), each a finite Float32, and a norm above zero (a
 * zero vector has no direction: text with no words, for the hashed embedder). Every place that
 * turns a provider's vector into a row or a query checks this first.
 */
export function vectorProblem(vector: unknown, dims?: number): string | undefined {
  if (!Array.isArray(vector) || vector.length === 0) return 'no vector';
  if (dims !== undefined && dims > 0 && vector.length !== dims) return `${vector.length} dimensions where the model has ${dims}`;
  let sumSquares = 0;
  for (const v of vector as unknown[]) {
    if (typeof v !== 'number' || !Number.isFinite(v) || Math.abs(v) > FLOAT32_MAX) return 'a component that is not a finite number';
    sumSquares += v * v;
  }
  // Below this a Float32 copy (and its Int8 quantisation) is all zeros.
  if (!(sumSquares > 1e-30)) return 'a zero vector (the text has nothing to embed)';
  return undefined;
}
