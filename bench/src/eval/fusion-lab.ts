import { HashedEmbeddingProvider } from '@loom/providers';
import { porterStem, queryTerms, termFrequencies } from '@loom/conversations';
import { codingSet } from './coding-set';
import { locomoSet } from './locomo-set';
import { scoreTable } from './metrics';
import type { EvalSet, Rankings } from './types';

/**
 * An in-process replica of conversation.search's hybrid, to try fusion settings in seconds
 * instead of a full `npm run eval`: the same tokenizer, BM25 statistics per namespace (the whole
 * set), the same embedder on the first 2,048 characters, pools as the eval asks (thread or set).
 *
 *   npm run --silent build && node dist/bench/src/eval/fusion-lab.js [--conversations N] [--only label,label]
 *
 * It agrees with `npm run eval` within about 0.005 recall@10 (figures in spec-decisions.md).
 */

type Embed = (text: string) => number[];

interface Prepared {
  set: EvalSet;
  docTf: Array<Map<string, number>>;
  docLen: number[];
  df: Map<string, number>;
  avgdl: number;
  docVec: number[][];
  pools: Map<string, number[]>;
  queryVec: number[][];
  queryTerms: string[][];
}

const stemmed = (tf: Map<string, number>): Map<string, number> => {
  const out = new Map<string, number>();
  for (const [t, n] of tf) out.set(porterStem(t), (out.get(porterStem(t)) ?? 0) + n);
  return out;
};

function prepare(set: EvalSet, embed: Embed, stem: boolean): Prepared {
  const docTf: Array<Map<string, number>> = [];
  const docLen: number[] = [];
  const df = new Map<string, number>();
  for (const d of set.docs) {
    const raw = termFrequencies(d.content);
    const tf = stem ? stemmed(raw.tf) : raw.tf;
    const length = raw.length;
    docTf.push(tf);
    docLen.push(length);
    for (const t of tf.keys()) df.set(t, (df.get(t) ?? 0) + 1);
  }
  const avgdl = docLen.reduce((a, b) => a + b, 0) / Math.max(1, docLen.length);
  const docVec = set.docs.map((d) => embed(Array.from(d.content).slice(0, 2048).join('')));
  const pools = new Map<string, number[]>();
  set.docs.forEach((d, i) => {
    (pools.get(d.thread) ?? pools.set(d.thread, []).get(d.thread)!).push(i);
    (pools.get('*') ?? pools.set('*', []).get('*')!).push(i);
  });
  return { set, docTf, docLen, df, avgdl, docVec, pools, queryVec: set.questions.map((q) => embed(q.query)), queryTerms: set.questions.map((q) => [...new Set(queryTerms(q.query).map((t) => (stem ? porterStem(t) : t)))]) };
}

interface Config {
  label: string;
  k1: number;
  b: number;
  floor: number;
  depth: number;
  /** How deep the vector leg alone ranks (default `depth`): hybrid's vector leg costs more with each candidate. */
  vectorDepth?: number;
  fusion: 'rrf' | 'convex' | 'lexical' | 'vector';
  rrfK: number;
  weight: number;
  /** Rocchio: the query vector plus beta times the mean of the top `prfK` lexical hits' vectors. */
  prfK?: number;
  prfBeta?: number;
  /** The vector leg is a tf-idf cosine over the stemmed terms (an upper bound for an IDF-aware embedder). */
  tfidf?: boolean;
  /** Each turn's final score gains this share of its neighbours' (previous and next turn in its thread). */
  neighbour?: number;
  /** Only the top this-many fused turns pass a share to their neighbours. */
  neighbourFrom?: number;
  /** A neighbour takes the larger of its two neighbours' shares instead of their sum. */
  neighbourMax?: boolean;
  /** A turn only the vector leg found is kept only at this cosine or above. */
  vectorOnlyFloor?: number;
  /** Cosine is scaled from the leg's floor (not the worst candidate's) to its best. */
  fromFloor?: boolean;
}

function dot(a: number[], b: number[]): number {
  let s = 0;
  for (let k = 0; k < a.length; k += 1) s += a[k]! * b[k]!;
  return s;
}

function rank(p: Prepared, c: Config): Rankings {
  const out: Rankings = new Map();
  const n = p.set.docs.length;
  p.set.questions.forEach((q, qi) => {
    const pool = p.pools.get(q.thread ?? '*')!;
    const terms = p.queryTerms[qi]!;
    if (terms.length === 0 && c.fusion !== 'vector') return out.set(q.id, []);
    const lex = pool
      .map((di) => {
        let s = 0;
        for (const t of terms) {
          const tf = p.docTf[di]!.get(t);
          if (!tf) continue;
          const df = p.df.get(t)!;
          s += (Math.log(1 + (n - df + 0.5) / (df + 0.5)) * tf * (c.k1 + 1)) / (tf + c.k1 * (1 - c.b + (c.b * p.docLen[di]!) / p.avgdl));
        }
        return { di, s };
      })
      .filter((x) => x.s > 0)
      .sort((a, b) => b.s - a.s)
      .slice(0, c.depth);
    let qv = p.queryVec[qi]!;
    if (c.prfK && lex.length > 0) {
      const top = lex.slice(0, c.prfK);
      const sum = qv.map((x, k) => x + (c.prfBeta! * top.reduce((a, t) => a + p.docVec[t.di]![k]!, 0)) / top.length);
      const norm = Math.sqrt(dot(sum, sum)) || 1;
      qv = sum.map((x) => x / norm);
    }
    const tfidfCos = (di: number): number => {
      const w = (t: string, tf: number): number => (1 + Math.log(tf)) * Math.log(1 + (n - (p.df.get(t) ?? 0) + 0.5) / ((p.df.get(t) ?? 0) + 0.5));
      let num = 0;
      let dn = 0;
      for (const [t, tf] of p.docTf[di]!) dn += w(t, tf) ** 2;
      let qn = 0;
      for (const t of terms) {
        qn += w(t, 1) ** 2;
        const tf = p.docTf[di]!.get(t);
        if (tf) num += w(t, 1) * w(t, tf);
      }
      return num / Math.sqrt(dn * qn || 1);
    };
    const vec = pool
      .map((di) => ({ di, s: c.tfidf ? tfidfCos(di) : dot(qv, p.docVec[di]!) }))
      .filter((x) => x.s >= c.floor)
      .sort((a, b) => b.s - a.s)
      .slice(0, c.vectorDepth ?? c.depth);
    const fused = new Map<number, number>();
    const finish = (): Rankings => {
      let scored = [...fused];
      if (c.neighbour) {
        const pos = new Map(pool.map((di, i) => [di, i]));
        const gains = new Map<number, number>();
        const from = [...fused].sort((a, b) => b[1] - a[1]).slice(0, c.neighbourFrom ?? Infinity);
        for (const [di, sc] of from) {
          const i = pos.get(di)!;
          for (const j of [i - 1, i + 1]) {
            if (j < 0 || j >= pool.length) continue;
            const g = c.neighbour * sc;
            const nd = pool[j]!;
            gains.set(nd, c.neighbourMax ? Math.max(gains.get(nd) ?? 0, g) : (gains.get(nd) ?? 0) + g);
          }
        }
        const boosted = new Map(fused);
        for (const [nd, g] of gains) boosted.set(nd, (boosted.get(nd) ?? 0) + g);
        scored = [...boosted];
      }
      return out.set(q.id, scored.sort((a, b) => b[1] - a[1]).slice(0, 10).map(([di]) => p.set.docs[di]!.key));
    };
    if (c.fusion === 'lexical') {
      const lmax = lex[0]?.s ?? 1;
      lex.forEach((x) => fused.set(x.di, x.s / lmax));
      return finish();
    }
    if (c.fusion === 'vector') {
      vec.forEach((x) => fused.set(x.di, x.s));
      return finish();
    }
    const add = (di: number, s: number): void => void fused.set(di, (fused.get(di) ?? 0) + s);
    if (c.fusion === 'rrf') {
      lex.forEach((x, i) => add(x.di, c.weight / (c.rrfK + i + 1)));
      vec.forEach((x, i) => add(x.di, (1 - c.weight) / (c.rrfK + i + 1)));
    } else {
      const inLex = new Set(lex.map((x) => x.di));
      const vecAll = vec;
      const vec2 = c.vectorOnlyFloor === undefined ? vecAll : vecAll.filter((x) => inLex.has(x.di) || x.s >= c.vectorOnlyFloor!);
      const lmax = lex[0]?.s ?? 1;
      const vmax = vec[0]?.s ?? 1;
      const vmin = c.fromFloor ? c.floor : (vec[vec.length - 1]?.s ?? 0);
      lex.forEach((x) => add(x.di, (c.weight * x.s) / lmax));
      vec2.forEach((x) => add(x.di, ((1 - c.weight) * (x.s - vmin)) / (vmax - vmin || 1)));
    }
    return finish();
  });
  return out;
}

function main(): void {
  const argv = process.argv.slice(2);
  const at = argv.indexOf('--conversations');
  const conversations = at >= 0 ? Number(argv[at + 1]) : undefined;
  const only = argv.includes('--only') ? argv[argv.indexOf('--only') + 1]!.split(',') : undefined;
  // Turn on one variant at a time here to try a lever; conversations 2 is the quick subset.
  const hashed = new HashedEmbeddingProvider();
  const embed: Embed = (t) => hashed.embedOne(t);
  const started = Date.now();
  const raw = [locomoSet(conversations ? { conversations } : {}), codingSet()];
  const variants = { plain: raw.map((s) => prepare(s, embed, false)), stem: raw.map((s) => prepare(s, embed, true)) };
  process.stderr.write(`prepared in ${Date.now() - started} ms\n`);
  const base: Config = { label: '', k1: 1.2, b: 0.5, floor: 0.1, depth: 100, fusion: 'convex', rrfK: 60, weight: 0.8 };
  // What conversation.search does (search.service.ts, score-fusion.ts), then what it did before.
  const shipped = { ...base, vectorOnlyFloor: 0.3, fromFloor: true, neighbour: 0.25, neighbourFrom: 50, neighbourMax: true, stem: true };
  const configs: Array<Config & { stem?: boolean }> = [
    { ...shipped, label: 'lexical', fusion: 'lexical', neighbour: undefined },
    { ...shipped, label: 'vector (floor 0.30)', fusion: 'vector', floor: 0.3, neighbour: undefined },
    { ...shipped, label: 'hybrid' },
    ...[50, 40, 30, 20].map((vectorDepth) => ({ ...shipped, label: `hybrid, vector depth ${vectorDepth}`, vectorDepth })),
    { ...shipped, label: 'hybrid without neighbours', neighbour: undefined },
    { ...shipped, label: 'hybrid, reciprocal rank', fusion: 'rrf', weight: 0.5 },
    { ...base, label: 'before: hybrid (rrf, floor .3, no stems)', k1: 1.2, b: 0.75, floor: 0.3, depth: 20, fusion: 'rrf', weight: 0.5 },
  ];
  for (const c of configs) {
    if (only && !only.some((o) => c.label.includes(o))) continue;
    const cells = variants[c.stem ? 'stem' : 'plain'].map((p) => {
      const t = scoreTable(p.set.questions, rank(p, c));
      return p.set.name === 'locomo'
        ? `locomo R@10 ${t['overall']!.recallAt10.toFixed(3)} MRR ${t['overall']!.mrr.toFixed(3)}`
        : `coding MRR ${t['overall']!.mrr.toFixed(3)} para ${t['paraphrase']!.mrr.toFixed(3)} ident ${t['identifier']!.mrr.toFixed(3)}`;
    });
    process.stdout.write(`${c.label.padEnd(28)} ${cells.join(' | ')}\n`);
  }
}

main();
