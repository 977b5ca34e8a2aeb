/**
 * Plain Okapi BM25 (k1 = 1.2, b = 0.75) over one conversation's turns, as a lexical reference
 * for the vector providers. Tokenisation: lower-case, runs of [a-z0-9], a short English
 * stop-word list removed; no stemming.
 */
const STOP_WORDS = new Set(
  (
    'a an the is are was were be been of to in on at for and or but with by from as it its this that these those ' +
    'i you he she we they me him her us them my your his our their what when where who whom which why how do does ' +
    'did has have had not no so if then than there here about into over after before up down out can could would ' +
    'should will shall may might must just also very'
  ).split(' '),
);

export function tokenize(text: string, stopWords = true): string[] {
  const tokens = text.toLowerCase().match(/[a-z0-9]+/g) ?? [];
  return stopWords ? tokens.filter((t) => !STOP_WORDS.has(t)) : tokens;
}

export class Bm25Index {
  private readonly tf: Array<Map<string, number>>;
  private readonly lengths: number[];
  private readonly df = new Map<string, number>();
  private readonly avgLength: number;

  constructor(
    private readonly ids: readonly string[],
    texts: readonly string[],
    private readonly options: { k1?: number; b?: number; stopWords?: boolean } = {},
  ) {
    this.tf = texts.map((text) => {
      const counts = new Map<string, number>();
      for (const t of tokenize(text, options.stopWords ?? true)) counts.set(t, (counts.get(t) ?? 0) + 1);
      return counts;
    });
    this.lengths = this.tf.map((m) => [...m.values()].reduce((a, b) => a + b, 0));
    for (const m of this.tf) for (const t of m.keys()) this.df.set(t, (this.df.get(t) ?? 0) + 1);
    this.avgLength = this.lengths.reduce((a, b) => a + b, 0) / Math.max(1, this.lengths.length);
  }

  /** Each document's score for the query, in document order. */
  scores(query: string): number[] {
    const k1 = this.options.k1 ?? 1.2;
    const b = this.options.b ?? 0.75;
    const n = this.tf.length;
    const terms = tokenize(query, this.options.stopWords ?? true);
    return this.tf.map((tf, i) => {
      let s = 0;
      for (const term of terms) {
        const f = tf.get(term);
        if (!f) continue;
        const df = this.df.get(term) ?? 0;
        const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
        s += (idf * f * (k1 + 1)) / (f + k1 * (1 - b + (b * this.lengths[i]!) / this.avgLength));
      }
      return s;
    });
  }

  /** The ids of the top `k` documents, best first (ties keep document order). */
  search(query: string, k: number): string[] {
    return this.scores(query)
      .map((s, i) => ({ i, s }))
      .sort((x, y) => y.s - x.s || x.i - y.i)
      .slice(0, k)
      .map((x) => this.ids[x.i]!);
  }
}
