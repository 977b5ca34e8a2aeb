/**
 * Issue 10 (vector speed): how many candidates a cheaper first stage must hand to the exact
 * re-score so that no hit the exact cosine keeps above the floor is lost. Pure computation, no
 * engine: every scorer below is what a SQL first stage would rank by, evaluated here on the same
 * vectors (hashed provider) over two corpora:
 * - the bench's synthetic coding turns (`--synthetic N`, default 50,000; queries as the bench's);
 * - LoCoMo, every conversation in one pool, all its questions (skipped without ../shared/data).
 *
 * For each scorer and pool size K it prints the mean share of the exact top 10 (score >= floor)
 * that the scorer's top K holds, and the median and worst rank of an exact top-10 hit.
 *
 *   npm run --silent build && node dist/bench/src/eval/first-stage-recall.js [--synthetic 50000] [--floor 0.3]
 */
import { existsSync } from 'node:fs';
import { HashedEmbeddingProvider } from '@loom/providers';
import { loadLocomo, LOCOMO_PATH } from '../locomo/data';
import { TurnGenerator } from '../workload/text';

type Scorer = (q: Float64Array, row: number) => number;

interface Corpus {
  name: string;
  vectors: Float64Array[];
  queries: Float64Array[];
}

const POOLS = [40, 100, 200, 500, 1_000, 2_000, 5_000];

/** The scorers a first stage could rank by: sign bits (symmetric and asymmetric), 2 bits, Int4, Int8 (Loom's today). */
function scorers(vectors: Float64Array[]): Record<string, Scorer> {
  const dims = vectors[0]!.length;
  const scaled = (bits: number) => {
    const top = 2 ** (bits - 1) - 1;
    return vectors.map((v) => {
      const max = v.reduce((m, x) => Math.max(m, Math.abs(x)), 0);
      const scale = max / top || 1;
      return { scale, q: Int8Array.from(v, (x) => Math.round(x / scale)) };
    });
  };
  const q8 = scaled(8);
  const q4 = scaled(4);
  // 2 bits: the sign, and whether |x| is in the row's top quarter (weights 1 and 3).
  const big = vectors.map((v) => {
    const sorted = Array.from(v, Math.abs).sort((a, b) => a - b);
    return sorted[Math.floor(dims * 0.75)]!;
  });
  const dot = (a: Int8Array, q: Float64Array): number => {
    let s = 0;
    for (let d = 0; d < dims; d++) s += a[d]! * q[d]!;
    return s;
  };
  return {
    'sign bits, hamming': (q, r) => {
      const v = vectors[r]!;
      let h = 0;
      for (let d = 0; d < dims; d++) if (v[d]! > 0 !== q[d]! > 0) h++;
      return -h;
    },
    'sign bits, float query': (q, r) => {
      const v = vectors[r]!;
      let s = 0;
      for (let d = 0; d < dims; d++) s += v[d]! > 0 ? q[d]! : -q[d]!;
      return s;
    },
    '2 bits, float query': (q, r) => {
      const v = vectors[r]!;
      let s = 0;
      for (let d = 0; d < dims; d++) s += (Math.abs(v[d]!) > big[r]! ? 3 : 1) * (v[d]! > 0 ? q[d]! : -q[d]!);
      return s * q8[r]!.scale;
    },
    Int4: (q, r) => dot(q4[r]!.q, q) * q4[r]!.scale,
    'Int8 (today)': (q, r) => dot(q8[r]!.q, q) * q8[r]!.scale,
  };
}

function measure(corpus: Corpus, floor: number): void {
  const { vectors, queries } = corpus;
  const norms = vectors.map((v) => Math.hypot(...v));
  const all = scorers(vectors);
  const stats = new Map<string, { recall: number[]; worst: number[]; n: number }>();
  let counted = 0;
  for (const q of queries) {
    const qn = Math.hypot(...q);
    if (qn === 0) continue;
    const exact = vectors
      .map((v, i) => {
        let s = 0;
        for (let d = 0; d < v.length; d++) s += v[d]! * q[d]!;
        return { i, score: norms[i] ? s / (qn * norms[i]!) : 0 };
      })
      .sort((a, b) => b.score - a.score);
    const want = exact.filter((e) => e.score >= floor).slice(0, 10).map((e) => e.i);
    if (want.length === 0) continue;
    counted += 1;
    for (const [name, score] of Object.entries(all)) {
      const order = vectors.map((_, i) => ({ i, s: score(q, i) })).sort((a, b) => b.s - a.s);
      const rank = new Map(order.map((o, r) => [o.i, r]));
      const s = stats.get(name) ?? { recall: POOLS.map(() => 0), worst: [], n: 0 };
      s.worst.push(Math.max(...want.map((w) => rank.get(w)!)));
      s.n += 1;
      POOLS.forEach((k, j) => (s.recall[j]! += want.filter((w) => rank.get(w)! < k).length / want.length));
      stats.set(name, s);
    }
  }
  console.log(`\n## ${corpus.name}: ${vectors.length} turns, ${counted} queries with a hit above the floor ${floor}`);
  console.log(`| first stage | ${POOLS.map((k) => `top ${k}`).join(' | ')} | worst rank of an exact top-10 hit: median / max |`);
  console.log(`|---|${POOLS.map(() => '---').join('|')}|---|`);
  for (const [name, s] of stats) {
    const worst = [...s.worst].sort((a, b) => a - b);
    console.log(`| ${name} | ${s.recall.map((r) => (r / s.n).toFixed(3)).join(' | ')} | ${worst[worst.length >> 1]} / ${worst[worst.length - 1]} |`);
  }
}

function argument(name: string, fallback: number): number {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? Number(process.argv[at + 1]) : fallback;
}

function main(): void {
  const provider = new HashedEmbeddingProvider();
  const embed = (text: string): Float64Array => Float64Array.from(provider.embedOne(text.slice(0, 2048)));
  const floor = argument('floor', 0.3);
  const size = argument('synthetic', 50_000);
  // The bench's own turns and queries (bench/src/parts/search.ts): same seeds, same generator.
  const turns = new TurnGenerator(99);
  const asked = new TurnGenerator(4242);
  measure(
    {
      name: 'synthetic coding turns (the search bench)',
      vectors: Array.from({ length: size }, () => embed(turns.turn(turns.int(5_000) % TurnGenerator.topicCount).content)),
      queries: Array.from({ length: 40 }, (_, i) => embed(asked.query(i % TurnGenerator.topicCount))),
    },
    floor,
  );
  if (!existsSync(LOCOMO_PATH)) {
    console.log(`\nLoCoMo skipped: ${LOCOMO_PATH} not found`);
    return;
  }
  const locomo = loadLocomo();
  const questions = locomo.conversations.flatMap((c) => c.questions.map((q) => q.question));
  measure(
    {
      name: 'LoCoMo, all conversations in one pool',
      vectors: locomo.conversations.flatMap((c) => c.turns.map((t) => embed(t.content))),
      // Every fifth question: the pool is small, the scorers are slow in JS.
      queries: questions.filter((_, i) => i % 5 === 0).map(embed),
    },
    floor,
  );
}

main();
