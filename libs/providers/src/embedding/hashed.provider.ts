import type { EmbeddingProvider } from './embedding.provider';

export const HASHED_DEFAULT_DIMS = 384;

/**
 * Bump this whenever tokenisation, features, weights or hashing change: the version is part of
 * `model`, and vectors of different models are never compared, so stale rows are simply re-embedded
 * instead of being silently mis-scored against new ones.
 */
const ALGORITHM_VERSION = 'v1';

const Feature = { Word: 0, Bigram: 1, Gram3: 2, Gram4: 3, Gram5: 4 } as const;
type Feature = (typeof Feature)[keyof typeof Feature];
/**
 * Whole words (after stop-word removal) carry the topic; bigrams reward shared phrasing;
 * character n-grams give partial credit for inflections and typos ("rotate"/"rotated",
 * "credential"/"credentials") but are individually weak because common endings ("ing", "tion")
 * are shared by unrelated words.
 */
const FEATURE_WEIGHT: readonly number[] = [1.0, 0.3, 0.2, 0.27, 0.33];
const FEATURE_SEED: readonly number[] = [0x9747b28c, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x1f83d9ab];
const SIGN_SALT = 0x5bd1e995;
/**
 * Word and bigram features are spread over several signed buckets. With few features per short
 * text, one full-weight bucket collision between two unrelated texts could otherwise add ~0.2 of
 * cosine by itself; spreading keeps the same expected noise but makes such spikes much rarer.
 */
const WORD_PROBES = 2;
const PROBE_STEP = 0x9e3779b9;

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/** Boundary markers cannot collide with word characters because tokens are letters/digits only. */
const WORD_START = 0x02;
const WORD_END = 0x03;

/**
 * Function words that appear in almost any English text; left in, they make unrelated turns look
 * similar ("how do I ..." vs "how do we ..."). Apostrophes are removed before lookup, hence "dont".
 */
const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    'a about above after again against all am an and any are as at be because been before being ' +
    'below between both but by can could did do does doing done down during each few for from further ' +
    'had has have having he her here hers herself him himself his how i if in into is it its itself ' +
    'just me more most my myself no nor not now of off on once only or other our ours ourselves out ' +
    'over own same she should so some such than that the their theirs them themselves then there ' +
    'these they this those through to too under until up very was we were what when where which ' +
    'while who whom why will with would you your yours yourself yourselves ' +
    'im ive id ill youre youve youd youll hes shes its were weve theyre theyve ' +
    'dont doesnt didnt isnt arent wasnt werent cant couldnt wont wouldnt shouldnt hasnt havent hadnt ' +
    'thats theres whats lets also may might must shall us please thanks thank ok okay yes yeah'
  ).split(' '),
);

// Letters/digits with optional inner apostrophes, so "don't" stays one token.
const TOKEN_RE = /[\p{L}\p{N}]+(?:['\u2019][\p{L}\p{N}]+)*/gu;
const APOSTROPHE_RE = /['\u2019]/g;
// Splits identifiers like getUserName / HTTPServer into their words.
const CAMEL_RE = /\p{Lu}?\p{Ll}+|\p{Lu}+(?!\p{Ll})|\p{N}+/gu;
const HAS_CAMEL_RE = /\p{Ll}\p{Lu}|\p{Lu}\p{Lu}\p{Ll}/u;

/**
 * Math functions bound once: a global lookup of `Math` inside a hot loop is ~20x slower under
 * jest's VM sandbox (every access goes through the context's global proxy), and other services'
 * tests embed through this provider.
 */
const { imul, sqrt, min } = Math;

function fmix32(h: number): number {
  h ^= h >>> 16;
  h = imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/**
 * FNV-1a over UTF-16 code units, finalised with murmur3's fmix32: FNV alone has weak low bits,
 * and the bucket index is taken modulo a small `dims`.
 */
function hashString(s: string, seed: number): number {
  let h = (FNV_OFFSET ^ seed) >>> 0;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = imul(h, FNV_PRIME);
  }
  return fmix32(h);
}

/**
 * Feature -> (count, kind) table with open addressing, reused across texts. Counting features is
 * most of the embedding's cost, and this roughly doubled short-text throughput over a Map. Keys
 * are already well-mixed hashes, so their low bits index the table directly. Iteration follows
 * insertion order, keeping the summation order (and thus the exact floating-point output)
 * independent of table size.
 */
class FeatureCounter {
  size = 0;
  keys = new Uint32Array(1024);
  counts = new Uint32Array(1024);
  kinds = new Uint8Array(1024);
  order = new Uint32Array(512);

  add(key: number, kind: Feature): void {
    const mask = this.keys.length - 1;
    let slot = key & mask;
    for (;;) {
      const count = this.counts[slot] as number;
      if (count === 0) break;
      if (this.keys[slot] === key) {
        this.counts[slot] = count + 1;
        return;
      }
      slot = (slot + 1) & mask;
    }
    this.keys[slot] = key;
    this.counts[slot] = 1;
    this.kinds[slot] = kind;
    this.order[this.size++] = slot;
    if (this.size === this.order.length) this.grow();
  }

  reset(): void {
    for (let i = 0; i < this.size; i++) this.counts[this.order[i] as number] = 0;
    this.size = 0;
  }

  private grow(): void {
    const { keys, counts, kinds, order, size } = this;
    const capacity = keys.length * 2;
    this.keys = new Uint32Array(capacity);
    this.counts = new Uint32Array(capacity);
    this.kinds = new Uint8Array(capacity);
    this.order = new Uint32Array(capacity / 2);
    this.size = 0;
    const mask = capacity - 1;
    for (let i = 0; i < size; i++) {
      const old = order[i] as number;
      const key = keys[old] as number;
      let slot = key & mask;
      while ((this.counts[slot] as number) !== 0) slot = (slot + 1) & mask;
      this.keys[slot] = key;
      this.counts[slot] = counts[old] as number;
      this.kinds[slot] = kinds[old] as number;
      this.order[this.size++] = slot;
    }
  }
}

/**
 * Light suffix stripping applied to word features only (character n-grams see the surface form),
 * so "rotate", "rotated", "rotates" and "rotating" share one word feature. Deliberately crude:
 * both sides of a comparison go through the same function, so consistency matters more than
 * linguistic accuracy.
 */
function stem(w: string): string {
  const n = w.length;
  if (n <= 4) return w;
  if (w.endsWith('ies') && n > 5) return w.slice(0, -3) + 'y';
  if (w.endsWith('sses')) return w.slice(0, -2);
  if (w.endsWith('ing') && n > 5) return trimE(undouble(w.slice(0, -3)));
  if (w.endsWith('ed') && n > 5) return trimE(undouble(w.slice(0, -2)));
  if (w.endsWith('s') && !w.endsWith('ss') && !w.endsWith('us') && !w.endsWith('is')) {
    return trimE(w.slice(0, -1));
  }
  return trimE(w);
}

function undouble(w: string): string {
  const n = w.length;
  if (n >= 4 && w.charCodeAt(n - 1) === w.charCodeAt(n - 2) && !/[lsz]$/.test(w)) return w.slice(0, -1);
  return w;
}

function trimE(w: string): string {
  return w.length > 4 && w.endsWith('e') ? w.slice(0, -1) : w;
}

/** Lower-cased words of the text, with camelCase identifiers also contributing their parts. */
function tokenize(text: string): { words: string[]; extra: string[] } {
  const words: string[] = [];
  const extra: string[] = [];
  const normalized = text.normalize('NFKC');
  for (const match of normalized.matchAll(TOKEN_RE)) {
    const raw = match[0].includes("'") || match[0].includes('\u2019') ? match[0].replace(APOSTROPHE_RE, '') : match[0];
    words.push(raw.toLowerCase());
    if (HAS_CAMEL_RE.test(raw)) {
      for (const part of raw.matchAll(CAMEL_RE)) extra.push(part[0].toLowerCase());
    }
  }
  return { words, extra };
}

function addCharNgrams(features: FeatureCounter, word: string): void {
  const len = word.length + 2;
  // Walk each start position once and extend the FNV state through lengths 3..5, instead of
  // materialising and re-hashing every substring.
  for (let start = 0; start + 3 <= len; start++) {
    let h3 = (FNV_OFFSET ^ (FEATURE_SEED[Feature.Gram3] as number)) >>> 0;
    let h4 = (FNV_OFFSET ^ (FEATURE_SEED[Feature.Gram4] as number)) >>> 0;
    let h5 = (FNV_OFFSET ^ (FEATURE_SEED[Feature.Gram5] as number)) >>> 0;
    const stop = min(start + 5, len);
    for (let pos = start; pos < stop; pos++) {
      const c = pos === 0 ? WORD_START : pos === len - 1 ? WORD_END : word.charCodeAt(pos - 1);
      const n = pos - start + 1;
      h3 = imul(h3 ^ c, FNV_PRIME);
      h4 = imul(h4 ^ c, FNV_PRIME);
      h5 = imul(h5 ^ c, FNV_PRIME);
      if (n === 3) features.add(fmix32(h3), Feature.Gram3);
      else if (n === 4) features.add(fmix32(h4), Feature.Gram4);
      else if (n === 5) features.add(fmix32(h5), Feature.Gram5);
    }
  }
}

/**
 * Deterministic, offline feature-hashing embedder. The same text gives bit-identical vectors on
 * every machine (only integer hashing and IEEE-exact double arithmetic in a fixed order), which is
 * what lets tests and air-gapped installs use real cosine search without a model. The one
 * external input is the runtime's Unicode tables (NFKC, \p{L}): characters added in a newer
 * Unicode version may tokenise differently on an older Node.
 */
export class HashedEmbeddingProvider implements EmbeddingProvider {
  readonly name = 'hashed';
  readonly model: string;
  readonly dims: number;
  private readonly features = new FeatureCounter();

  constructor(dims: number = HASHED_DEFAULT_DIMS) {
    if (!Number.isInteger(dims) || dims < 16 || dims > 65536) {
      throw new RangeError(`HashedEmbeddingProvider: dims must be an integer in [16, 65536], got ${dims}`);
    }
    this.dims = dims;
    this.model = `hashed-${ALGORITHM_VERSION}-${dims}`;
  }

  async embed(texts: readonly string[]): Promise<number[][]> {
    return this.embedSync(texts);
  }

  /** Synchronous variant for callers that cannot await (e.g. the loopback test server). */
  embedSync(texts: readonly string[]): number[][] {
    return texts.map((t) => this.embedOne(t));
  }

  embedOne(text: string): number[] {
    const vector = new Float64Array(this.dims);
    const { words, extra } = tokenize(text);
    let content = words.filter((w) => !STOP_WORDS.has(w));
    // A text made only of function words ("what is it?") would otherwise embed to zero and be
    // unsearchable; its function words are then all the signal there is.
    if (content.length === 0) content = words;

    const features = this.features;
    features.reset();
    let prevStem: string | undefined;
    for (const word of content) {
      const s = stem(word);
      features.add(hashString(s, FEATURE_SEED[Feature.Word] as number), Feature.Word);
      if (prevStem !== undefined) {
        features.add(hashString(prevStem + ' ' + s, FEATURE_SEED[Feature.Bigram] as number), Feature.Bigram);
      }
      prevStem = s;
      addCharNgrams(features, word);
    }
    for (const part of extra) {
      if (part.length > 1 && !STOP_WORDS.has(part)) {
        features.add(hashString(stem(part), FEATURE_SEED[Feature.Word] as number), Feature.Word);
      }
    }

    let sumSquares = 0;
    for (let i = 0; i < features.size; i++) {
      const slot = features.order[i] as number;
      const key = features.keys[slot] as number;
      const kind = features.kinds[slot] as number;
      const tf = features.counts[slot] as number;
      // Sublinear tf: a word repeated ten times in a long turn is not ten times as relevant.
      // sqrt rather than the usual 1 + ln(tf): IEEE 754 requires sqrt to be correctly rounded,
      // whereas Math.log may differ in the last bit between JS engines, and the output must be
      // bit-identical everywhere.
      const weight = (FEATURE_WEIGHT[kind] as number) * sqrt(tf);
      const probes = kind <= Feature.Bigram ? WORD_PROBES : 1;
      const share = probes === 1 ? weight : weight / sqrt(probes);
      let h = key;
      for (let r = 0; r < probes; r++) {
        const bucket = h % this.dims;
        const signed = fmix32(h ^ SIGN_SALT) & 1 ? share : -share;
        vector[bucket] = (vector[bucket] as number) + signed;
        h = fmix32(h + PROBE_STEP);
      }
    }
    for (let i = 0; i < vector.length; i++) {
      const v = vector[i] as number;
      sumSquares += v * v;
    }

    const out = new Array<number>(this.dims);
    if (sumSquares === 0) {
      out.fill(0);
      return out;
    }
    const inv = 1 / sqrt(sumSquares);
    for (let i = 0; i < vector.length; i++) out[i] = (vector[i] as number) * inv;
    return out;
  }
}
