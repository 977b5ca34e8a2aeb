/**
 * Issue 10 (vector speed at 1M): IVF inverted lists built from plain ClickHouse tables, measured
 * beside Loom's exact Int8 statement (ADR 0035). Centroids come from spherical k-means (k-means++
 * seeding, a few Lloyd iterations) on a sample of the stored vectors, in TypeScript. A lists table
 * ordered by (namespace, model, list, thread_id, msg_id) holds every embedded row version's key,
 * version, deleted, filter columns, Int8 vector and its list (nearest centroid). A search computes
 * the query's `nprobe` nearest lists here, ranks only those lists' rows on Int8 (primary-key
 * pruning on `list`), and re-scores the candidates exactly, read by key from Loom's table, with
 * Loom's own stage 2 (latest version, tombstones, floor).
 *
 *   npm run --silent build
 *   node dist/bench/src/lab/ivf-lab.js search --db DIR [--lists 256] [--sample 20000] [--queries 60] [--probes 4,8,16,32] [--copies 10]
 *       DIR is a chDB directory holding Loom's table with bench turns (copy of sparse-query-lab's,
 *       opened and changed in place: give a copy). --copies N also measures N copies of the turns
 *       under new ids (timing only: copies tie in the exact ranking).
 *   node dist/bench/src/lab/ivf-lab.js locomo [--provider hashed|use] [--lists 16,64,256] [--probes 1,2,4,8,16]
 *       recall only, pure computation, LoCoMo turns pooled in one namespace, its questions as queries.
 *   node dist/bench/src/lab/ivf-lab.js insert-cost [--lists 256] [--batches 4]
 *       append cost of the list assignment: none, a materialized view, the writer.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Session } from 'chdb';
import { HashedEmbeddingProvider, UniversalSentenceEncoderProvider } from '@loom/providers';
import { latestLive, quantize, rankExact, vectorCandidatesStatement, type CandidateRow } from '@loom/conversations';
import { loadLocomo } from '../locomo/data';
import { createEmbeddingsTable } from './embeddings-table';
import { summarize } from '../util/stats';
import { TurnGenerator } from '../workload/text';

/** The vectors' dimension: 384 (hashed), 512 when `locomo --provider use`. */
let DIMS = 384;
const FLOOR = 0.3;
const LIMIT = 10;
const CANDIDATES = 2 * LIMIT + 20;

function argument(name: string, fallback: string): string {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? process.argv[at + 1]! : fallback;
}

const numbers = (s: string): number[] => s.split(',').map(Number);
const ms = (from: bigint): number => Number(process.hrtime.bigint() - from) / 1e6;

/** Loom's embeddings table, from its migrations, in database `db`. */
const createMain = (session: Session, db: string): void => createEmbeddingsTable(session, db);

/**
 * The lists table: one row per embedded row version of Loom's table, with the columns stage 1
 * filters and ranks on. Granules of 128 rows: a list of a few hundred rows is a few granules.
 */
function createLists(session: Session, table: string): void {
  session.query(`CREATE TABLE ${table} (
      namespace String, model LowCardinality(String), list UInt16, thread_id String, msg_id String, version UInt64,
      deleted Bool, agent LowCardinality(String), role LowCardinality(String), run_id String, filters_changed Bool,
      embedding_q8 Array(Int8) CODEC(NONE), embedding_scale Float32)
    ENGINE = ReplacingMergeTree(version) ORDER BY (namespace, model, list, thread_id, msg_id, version)
    SETTINGS index_granularity = 128`);
}

// ---------------------------------------------------------------- vectors and k-means

/** Unit copies of the vectors, packed in one Float32Array (row i at i * DIMS). Zero vectors stay zero. */
function pack(vectors: readonly (readonly number[])[]): Float32Array {
  const out = new Float32Array(vectors.length * DIMS);
  vectors.forEach((v, i) => {
    let n = 0;
    for (const x of v) n += x * x;
    const inv = n > 0 ? 1 / Math.sqrt(n) : 0;
    for (let d = 0; d < DIMS; d += 1) out[i * DIMS + d] = v[d]! * inv;
  });
  return out;
}

function dot(a: Float32Array, ai: number, b: Float32Array, bi: number): number {
  let s = 0;
  const ao = ai * DIMS;
  const bo = bi * DIMS;
  for (let d = 0; d < DIMS; d += 1) s += a[ao + d]! * b[bo + d]!;
  return s;
}

/** Nearest centroid of each row (largest dot product of unit vectors). */
function assign(data: Float32Array, centroids: Float32Array, k: number): Uint16Array {
  const n = data.length / DIMS;
  const out = new Uint16Array(n);
  for (let i = 0; i < n; i += 1) {
    let best = -Infinity;
    for (let c = 0; c < k; c += 1) {
      const s = dot(data, i, centroids, c);
      if (s > best) {
        best = s;
        out[i] = c;
      }
    }
  }
  return out;
}

/** The `nprobe` lists nearest to a query. */
function probes(query: Float32Array, centroids: Float32Array, k: number, nprobe: number): number[] {
  const scored = Array.from({ length: k }, (_, c) => ({ c, s: dot(query, 0, centroids, c) }));
  return scored
    .sort((a, b) => b.s - a.s)
    .slice(0, nprobe)
    .map((x) => x.c);
}

/** Spherical k-means: k-means++ seeding (cosine distance), then `iterations` Lloyd steps on the sample. */
function kmeans(data: Float32Array, k: number, iterations: number, seed = 7): Float32Array {
  const n = data.length / DIMS;
  let state = seed;
  const random = (): number => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state / 2_147_483_648;
  };
  const centroids = new Float32Array(k * DIMS);
  const nearest = new Float64Array(n).fill(Infinity);
  let pick = Math.floor(random() * n);
  for (let c = 0; c < k; c += 1) {
    centroids.set(data.subarray(pick * DIMS, (pick + 1) * DIMS), c * DIMS);
    let total = 0;
    for (let i = 0; i < n; i += 1) {
      const d = Math.max(0, 1 - dot(data, i, centroids, c));
      if (d < nearest[i]!) nearest[i] = d;
      total += nearest[i]! * nearest[i]!;
    }
    let r = random() * total;
    pick = n - 1;
    for (let i = 0; i < n; i += 1) {
      r -= nearest[i]! * nearest[i]!;
      if (r <= 0) {
        pick = i;
        break;
      }
    }
  }
  for (let it = 0; it < iterations; it += 1) {
    const labels = assign(data, centroids, k);
    const sums = new Float64Array(k * DIMS);
    const counts = new Uint32Array(k);
    for (let i = 0; i < n; i += 1) {
      const c = labels[i]!;
      counts[c] = counts[c]! + 1;
      for (let d = 0; d < DIMS; d += 1) sums[c * DIMS + d] = sums[c * DIMS + d]! + data[i * DIMS + d]!;
    }
    for (let c = 0; c < k; c += 1) {
      // An empty list keeps its centroid (re-seeding it is the next refinement).
      if (counts[c] === 0) continue;
      let norm = 0;
      for (let d = 0; d < DIMS; d += 1) norm += sums[c * DIMS + d]! ** 2;
      const inv = norm > 0 ? 1 / Math.sqrt(norm) : 0;
      for (let d = 0; d < DIMS; d += 1) centroids[c * DIMS + d] = sums[c * DIMS + d]! * inv;
    }
  }
  return centroids;
}

function listSizes(labels: Uint16Array, k: number): { min: number; p50: number; max: number; empty: number } {
  const counts = new Array<number>(k).fill(0);
  for (const l of labels) counts[l] = counts[l]! + 1;
  const s = summarize(counts);
  return { min: Math.min(...counts), p50: s.p50, max: Math.max(...counts), empty: counts.filter((c) => c === 0).length };
}

// ---------------------------------------------------------------- pure-computation recall (LoCoMo)

/** What the SQL does, computed here: Int8 ranking of the probed rows, top 40, exact re-score, floor, top 10. */
function ivfTop(unit: Float32Array, q8: Int8Array[], scales: number[], labels: Uint16Array | null, lists: Set<number> | null, q: Float32Array, q16: number[]): number[] {
  const n = unit.length / DIMS;
  const pool: Array<{ i: number; s: number }> = [];
  for (let i = 0; i < n; i += 1) {
    if (labels && lists && !lists.has(labels[i]!)) continue;
    let s = 0;
    const v = q8[i]!;
    for (let d = 0; d < DIMS; d += 1) s += v[d]! * q16[d]!;
    pool.push({ i, s: s * scales[i]! });
  }
  pool.sort((a, b) => b.s - a.s || a.i - b.i);
  return pool
    .slice(0, CANDIDATES)
    .map(({ i }) => ({ i, s: dot(unit, i, q, 0) }))
    .filter((x) => x.s >= FLOOR)
    .sort((a, b) => b.s - a.s || a.i - b.i)
    .slice(0, LIMIT)
    .map((x) => x.i);
}

function exactTop(unit: Float32Array, q: Float32Array): number[] {
  const n = unit.length / DIMS;
  const all: Array<{ i: number; s: number }> = [];
  for (let i = 0; i < n; i += 1) all.push({ i, s: dot(unit, i, q, 0) });
  return all
    .filter((x) => x.s >= FLOOR)
    .sort((a, b) => b.s - a.s || a.i - b.i)
    .slice(0, LIMIT)
    .map((x) => x.i);
}

/** The Int8 copy Loom stores (migration 0031): the vector over its largest magnitude / 127, rounded. */
function int8Of(v: readonly number[]): { q8: Int8Array; scale: number } {
  const scale = v.reduce((m, x) => Math.max(m, Math.abs(x)), 0) / 127;
  return { q8: Int8Array.from(v, (x) => (scale > 0 ? Math.round(x / scale) : 0)), scale };
}

async function locomo(): Promise<void> {
  const data = loadLocomo();
  const turns = data.conversations.flatMap((c) => c.turns.map((t) => t.content));
  const questions = data.conversations.flatMap((c) => c.questions.map((q) => q.question));
  const which = argument('provider', 'hashed');
  let embed: (texts: string[]) => Promise<number[][]>;
  if (which === 'use') {
    const use = new UniversalSentenceEncoderProvider();
    DIMS = use.dims;
    embed = (texts) => use.embed(texts);
  } else {
    const hashed = new HashedEmbeddingProvider();
    embed = (texts) => Promise.resolve(texts.map((t) => hashed.embedOne(t)));
  }
  const started = process.hrtime.bigint();
  const vectors = await embed(turns);
  const queryVectors = await embed(questions);
  console.log(`embedded ${turns.length + questions.length} texts with ${which}: ${(ms(started) / 1000).toFixed(0)} s`);
  const unit = pack(vectors);
  const int8 = vectors.map(int8Of);
  const q8 = int8.map((x) => x.q8);
  const scales = int8.map((x) => x.scale);
  const truth = queryVectors.map((q) => exactTop(unit, pack([q])));
  const asked = truth.filter((t) => t.length > 0).length;
  console.log(`LoCoMo: ${turns.length} turns pooled in one namespace, ${questions.length} questions (${asked} with a hit above the floor ${FLOOR}), ${which} provider`);
  console.log('| lists | k-means ms (all turns, 10 iterations) | list sizes min / p50 / max | nprobe | share of rows ranked | recall of the exact top 10 | questions with every hit |');
  console.log('|---|---|---|---|---|---|---|');
  for (const k of numbers(argument('lists', '16,64,256'))) {
    const started = process.hrtime.bigint();
    const centroids = kmeans(unit, k, 10);
    const took = ms(started);
    const labels = assign(unit, centroids, k);
    const sizes = listSizes(labels, k);
    for (const nprobe of numbers(argument('probes', '1,2,4,8,16')).filter((p) => p < k)) {
      let found = 0;
      let wanted = 0;
      let whole = 0;
      let ranked = 0;
      queryVectors.forEach((qv, qi) => {
        const q = pack([qv]);
        const lists = new Set(probes(q, centroids, k, nprobe));
        for (let i = 0; i < labels.length; i += 1) if (lists.has(labels[i]!)) ranked += 1;
        const got = new Set(ivfTop(unit, q8, scales, labels, lists, q, quantize(qv)));
        const hits = truth[qi]!.filter((i) => got.has(i)).length;
        found += hits;
        wanted += truth[qi]!.length;
        if (hits === truth[qi]!.length) whole += 1;
      });
      console.log(
        `| ${k} | ${took.toFixed(0)} | ${sizes.min} / ${sizes.p50} / ${sizes.max} | ${nprobe} | ${(ranked / (turns.length * questions.length)).toFixed(3)} | ${(found / wanted).toFixed(3)} | ${whole} of ${questions.length} |`,
      );
    }
  }
}

// ---------------------------------------------------------------- chDB: build, search, time

const WHERE = "namespace IN {namespaces:Array(String)} AND embed_error = '' AND model = {model:String}";
const CANDIDATE_COLUMNS = `namespace, thread_id, msg_id, agent, role, run_id, user_id, ts,
  substringUTF8(text, 1, {chars:UInt32}) AS excerpt, 1 - cosineDistance(embedding, {q:Array(Float32)}) AS score, deleted, version`;

/** IVF stage 1 (the probed lists ranked on Int8), then every version of the candidates read by key from Loom's table, scored exactly. */
function ivfStatement(main: string, lists: string): string {
  return `SELECT ${CANDIDATE_COLUMNS} FROM ${main}
    WHERE ${WHERE} AND ((agent = {agent:String}) OR filters_changed)
      AND (namespace, thread_id, msg_id) IN (
        SELECT namespace, thread_id, msg_id FROM ${lists}
        WHERE namespace IN {namespaces:Array(String)} AND model = {model:String} AND list IN {lists:Array(UInt16)}
          AND ((agent = {agent:String}) OR filters_changed)
        ORDER BY dotProduct(embedding_q8, {q16:Array(Int16)}) * embedding_scale DESC, version DESC
        LIMIT {candidates:UInt32})`;
}

function parseRows(tsv: string): CandidateRow[] {
  return tsv
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [namespace, thread_id, msg_id, agent, role, run_id, user_id, ts, excerpt, score, deleted, version] = line.split('\t');
      return { namespace: namespace!, thread_id: thread_id!, msg_id: msg_id!, agent: agent!, role: role!, run_id: run_id!, user_id: user_id!, ts: ts!, excerpt: excerpt!, score: Number(score), deleted: deleted === 'true' || deleted === '1', version: version! } as CandidateRow;
    });
}

/** Loom's stage 2 and final cut, on a statement's rows: the keys of the top 10. */
function top(tsv: string): string[] {
  return rankExact(latestLive(parseRows(tsv), { agent: 'default' }), FLOOR, LIMIT).map((r) => `${r.thread_id}/${r.msg_id}`);
}

interface Built {
  centroids: Float32Array;
  k: number;
  listCounts: Map<number, number>;
}

/** Reads a sample's vectors, trains, assigns every row (the writer's computation, here in bulk), and fills the lists table. */
async function buildLists(session: Session, main: string, lists: string, k: number, sampleSize: number, total: number): Promise<Built> {
  const read = (sql: string): number[][] =>
    session
      .query(sql, 'JSONCompactEachRow')
      .split('\n')
      .filter(Boolean)
      .map((l) => (JSON.parse(l) as [number[]])[0]);
  let started = process.hrtime.bigint();
  const every = Math.max(1, Math.floor(total / sampleSize));
  const sample = pack(read(`SELECT embedding FROM ${main} WHERE cityHash64(msg_id) % ${every} = 0 AND length(embedding) = ${DIMS} LIMIT ${sampleSize}`));
  console.log(`sample of ${sample.length / DIMS} vectors read: ${ms(started).toFixed(0)} ms`);
  started = process.hrtime.bigint();
  const centroids = kmeans(sample, k, Number(argument('iterations', '8')));
  console.log(`k-means, ${k} lists, k-means++ seeding and ${argument('iterations', '8')} Lloyd iterations on the sample: ${(ms(started) / 1000).toFixed(1)} s`);
  session.query(`DROP TABLE IF EXISTS ${lists}`);
  session.query(`DROP TABLE IF EXISTS ${lists}_assign`);
  createLists(session, lists);
  session.query(`CREATE TABLE ${lists}_assign (thread_id String, msg_id String, list UInt16) ENGINE = MergeTree ORDER BY (thread_id, msg_id)`);
  let assignMs = 0;
  let readMs = 0;
  const chunk = 10_000;
  for (let from = 0; from < total; from += chunk) {
    let t = process.hrtime.bigint();
    const rows = session
      .query(`SELECT thread_id, msg_id, embedding FROM ${main} WHERE length(embedding) = ${DIMS} ORDER BY thread_id, msg_id LIMIT ${chunk} OFFSET ${from}`, 'JSONCompactEachRow')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as [string, string, number[]]);
    readMs += ms(t);
    t = process.hrtime.bigint();
    const labels = assign(pack(rows.map((r) => r[2])), centroids, k);
    assignMs += ms(t);
    const lines = rows.map((r, i) => JSON.stringify({ thread_id: r[0], msg_id: r[1], list: labels[i] }));
    if (lines.length > 0) await session.insert({ table: `${lists}_assign`, values: Buffer.from(lines.join('\n')), format: 'JSONEachRow' });
  }
  console.log(`nearest centroid of ${total} rows in TypeScript: ${(assignMs / 1000).toFixed(1)} s (${((assignMs / total) * 1000).toFixed(0)} µs a row); reading them back ${(readMs / 1000).toFixed(1)} s`);
  started = process.hrtime.bigint();
  session.query(`INSERT INTO ${lists} SELECT e.namespace, e.model, a.list, e.thread_id, e.msg_id, e.version, e.deleted, e.agent, e.role, e.run_id, e.filters_changed, e.embedding_q8, e.embedding_scale
    FROM ${main} AS e INNER JOIN ${lists}_assign AS a ON e.thread_id = a.thread_id AND e.msg_id = a.msg_id WHERE e.embed_error = ''`);
  session.query(`OPTIMIZE TABLE ${lists} FINAL`);
  console.log(`lists table filled and merged: ${(ms(started) / 1000).toFixed(1)} s`);
  const listCounts = new Map<number, number>();
  for (const line of session.query(`SELECT list, count() FROM ${lists} GROUP BY list`, 'TSV').split('\n').filter(Boolean)) {
    const [l, c] = line.split('\t');
    listCounts.set(Number(l), Number(c));
  }
  return { centroids, k, listCounts };
}

function readBuilt(session: Session, lists: string, k: number, file: string): Built {
  const centroids = Float32Array.from(JSON.parse(readFileSync(file, 'utf8')) as number[]);
  const listCounts = new Map<number, number>();
  for (const line of session.query(`SELECT list, count() FROM ${lists} GROUP BY list`, 'TSV').split('\n').filter(Boolean)) {
    const [l, c] = line.split('\t');
    listCounts.set(Number(l), Number(c));
  }
  console.log(`lists table ${lists} and its centroids reused from an earlier run`);
  return { centroids, k, listCounts };
}

function bytes(session: Session, db: string, table: string): string {
  return session.query(`SELECT sum(rows), sum(bytes_on_disk) FROM system.parts WHERE active AND database = '${db}' AND table = '${table}'`, 'TSV').trim();
}

async function search(): Promise<void> {
  const dir = argument('db', '');
  if (!dir) throw new Error('--db DIR (a copy of a chDB directory holding loom.conversation_embeddings) is required');
  const session = new Session(dir);
  const provider = new HashedEmbeddingProvider();
  const model = provider.model;
  const main = 'loom.conversation_embeddings';
  const total = Number(session.query(`SELECT count() FROM ${main}`, 'TSV').trim());
  const kList = numbers(argument('lists', '256'));
  const probeList = numbers(argument('probes', '4,8,16,32'));
  const queryCount = Number(argument('queries', '60'));
  const asked = new TurnGenerator(4242);
  const texts = Array.from({ length: queryCount }, (_, i) => asked.query(i % TurnGenerator.topicCount));
  const queries = texts.map((t) => provider.embedOne(t));
  const params = (q: number[], extra: Record<string, unknown> = {}): Record<string, unknown> => ({
    q, q16: quantize(q), namespaces: ['bench'], model, agent: 'default', chars: 240, candidates: CANDIDATES, ...extra,
  });
  const loom = vectorCandidatesStatement(main, ['namespace IN {namespaces:Array(String)}', "embed_error = ''", 'model = {model:String}'], ['agent = {agent:String}']);
  // The truth: the exact cosine over every row, floor applied (one version per turn here).
  const truth = queries.map((q) =>
    session
      .queryBind(`SELECT thread_id, msg_id, 1 - cosineDistance(embedding, {q:Array(Float32)}) AS s FROM ${main} WHERE ${WHERE} ORDER BY s DESC, version DESC LIMIT ${LIMIT}`, params(q), 'TSV')
      .split('\n')
      .filter(Boolean)
      .map((l) => l.split('\t'))
      .filter((c) => Number(c[2]) >= FLOOR)
      .map((c) => `${c[0]}/${c[1]}`),
  );
  console.log(`${total} turns, ${queryCount} queries (${truth.filter((t) => t.length > 0).length} with a hit above the floor); main table ${bytes(session, 'loom', 'conversation_embeddings')} (rows, bytes)`);
  const loomTop = queries.map((q) => top(session.queryBind(loom, params(q), 'TSV')));
  const recall = (got: string[][]): string => {
    let found = 0;
    let wanted = 0;
    got.forEach((g, i) => {
      const set = new Set(g);
      found += truth[i]!.filter((k) => set.has(k)).length;
      wanted += truth[i]!.length;
    });
    return (found / wanted).toFixed(3);
  };
  console.log(`Loom's statement, recall of the exact top ${LIMIT}: ${recall(loomTop)}`);
  for (const k of kList) {
    const lists = `loom.ivf_lists_${k}`;
    // A rerun on the same directory reuses the lists table and its centroids.
    const saved = join(dir, `ivf-centroids-${k}.json`);
    const built = existsSync(saved)
      ? readBuilt(session, lists, k, saved)
      : await buildLists(session, main, lists, k, Math.min(Number(argument('sample', '20000')), total), total);
    writeFileSync(saved, JSON.stringify(Array.from(built.centroids)));
    const counts = [...built.listCounts.values()];
    console.log(`lists table ${bytes(session, 'loom', `ivf_lists_${k}`)} (rows, bytes); list sizes min ${Math.min(...counts)} p50 ${summarize(counts).p50} max ${Math.max(...counts)}, ${k - counts.length} empty`);
    const ivf = ivfStatement(main, lists);
    const probed = queries.map((q) => probes(pack([q]), built.centroids, k, Math.max(...probeList)));
    probed.forEach((p, qi) => PROBED.set(`${k}/${qi}`, p));
    const variants: Array<{ name: string; run: (qi: number) => string; share: number }> = [{ name: "Loom's statement (exact Int8 scan)", run: (qi) => session.queryBind(loom, params(queries[qi]!), 'TSV'), share: 1 }];
    for (const nprobe of probeList) {
      const share = probed.reduce((s, p) => s + p.slice(0, nprobe).reduce((a, l) => a + (built.listCounts.get(l) ?? 0), 0), 0) / (total * queryCount);
      variants.push({ name: `IVF ${k} lists, nprobe ${nprobe}`, run: (qi) => session.queryBind(ivf, params(queries[qi]!, { lists: probed[qi]!.slice(0, nprobe) }), 'TSV'), share });
    }
    const answers = new Map<string, string[][]>();
    const samples = new Map<string, number[]>();
    for (const v of variants) for (let qi = 0; qi < 3; qi += 1) v.run(qi); // warm-up
    for (let qi = 0; qi < queryCount; qi += 1) {
      for (const v of variants) {
        const started = process.hrtime.bigint();
        const tsv = v.run(qi);
        samples.set(v.name, [...(samples.get(v.name) ?? []), ms(started)]);
        answers.set(v.name, [...(answers.get(v.name) ?? []), top(tsv)]);
      }
    }
    const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
    console.log(`\n${total} turns, ${k} lists, ${queryCount} queries, variants in turn per query (load ${load})`);
    console.log(`| statement | share of rows ranked | recall of the exact top ${LIMIT} | p50 ms | p95 ms |\n|---|---|---|---|---|`);
    for (const v of variants) {
      const s = summarize(samples.get(v.name)!);
      console.log(`| ${v.name} | ${v.share.toFixed(3)} | ${recall(answers.get(v.name)!)} | ${s.p50} | ${s.p95} |`);
    }
  }
  const copies = Number(argument('copies', '0'));
  if (copies > 1) scaled(session, copies, kList, queries, probeList);
  session.close();
}

/**
 * `copies` copies of the turns under new thread ids, in a fresh table from the migrations, and
 * of the lists rows (same lists). Timing only: each hit has `copies` equal twins.
 */
function scaled(session: Session, copies: number, kList: number[], queries: number[][], probeList: number[]): void {
  const provider = new HashedEmbeddingProvider();
  const model = provider.model;
  createMain(session, 'big');
  for (const k of kList) createLists(session, `big.ivf_lists_${k}`);
  const cols = 'namespace, thread_id, msg_id, agent, role, run_id, user_id, ts, text, model, embedding, embed_error, created_at, version';
  const started = process.hrtime.bigint();
  for (let c = 0; c < copies; c += 1) {
    session.query(`INSERT INTO big.conversation_embeddings (${cols}) SELECT ${cols.replace('thread_id', `concat(thread_id, '-c${c}') AS thread_id`)} FROM loom.conversation_embeddings`);
    for (const k of kList) session.query(`INSERT INTO big.ivf_lists_${k} SELECT * REPLACE (concat(thread_id, '-c${c}') AS thread_id) FROM loom.ivf_lists_${k}`);
    console.error(`copy ${c + 1} of ${copies}: ${(ms(started) / 1000).toFixed(0)} s`);
  }
  session.query('OPTIMIZE TABLE big.conversation_embeddings FINAL');
  for (const k of kList) session.query(`OPTIMIZE TABLE big.ivf_lists_${k} FINAL`);
  console.log(`\n${copies} copies loaded and merged: ${(ms(started) / 1000).toFixed(0)} s; main ${bytes(session, 'big', 'conversation_embeddings')} (rows, bytes)`);
  for (const k of kList) timeScaled(session, copies, k, queries, probeList, model);
}

function timeScaled(session: Session, copies: number, k: number, queries: number[][], probeList: number[], model: string): void {
  let started: bigint;
  console.log(`lists table, ${k} lists: ${bytes(session, 'big', `ivf_lists_${k}`)} (rows, bytes)`);
  const sizes = session.query(`SELECT list, count() FROM big.ivf_lists_${k} GROUP BY list`, 'TSV');
  const listCounts = new Map(sizes.split('\n').filter(Boolean).map((l) => l.split('\t').map(Number) as [number, number]));
  // The copies keep their lists, so the probes are the 100k run's (same centroids, kept in PROBED).
  const main = 'big.conversation_embeddings';
  const loom = vectorCandidatesStatement(main, ['namespace IN {namespaces:Array(String)}', "embed_error = ''", 'model = {model:String}'], ['agent = {agent:String}']);
  const ivf = ivfStatement(main, `big.ivf_lists_${k}`);
  const params = (q: number[], extra: Record<string, unknown> = {}): Record<string, unknown> => ({
    q, q16: quantize(q), namespaces: ['bench'], model, agent: 'default', chars: 240, candidates: CANDIDATES, ...extra,
  });
  const total = Number(session.query(`SELECT count() FROM ${main}`, 'TSV').trim());
  const variants: Array<{ name: string; run: (qi: number) => string; share: number }> = [{ name: "Loom's statement (exact Int8 scan)", run: (qi) => session.queryBind(loom, params(queries[qi]!), 'TSV'), share: 1 }];
  for (const nprobe of probeList) {
    const lists = queries.map((_, qi) => PROBED.get(`${k}/${qi}`)!.slice(0, nprobe));
    const share = lists.reduce((s, p) => s + p.reduce((a, l) => a + (listCounts.get(l) ?? 0), 0), 0) / (total * queries.length);
    variants.push({ name: `IVF ${k} lists, nprobe ${nprobe}`, run: (qi) => session.queryBind(ivf, params(queries[qi]!, { lists: lists[qi] }), 'TSV'), share });
  }
  const samples = new Map<string, number[]>();
  for (const v of variants) for (let qi = 0; qi < 3; qi += 1) v.run(qi);
  for (let qi = 0; qi < queries.length; qi += 1) {
    for (const v of variants) {
      started = process.hrtime.bigint();
      v.run(qi);
      samples.set(v.name, [...(samples.get(v.name) ?? []), ms(started)]);
    }
  }
  const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  console.log(`\n${total} turns (${copies} copies), ${k} lists, ${queries.length} queries, variants in turn per query (load ${load})`);
  console.log('| statement | share of rows ranked | p50 ms | p95 ms |\n|---|---|---|---|');
  for (const v of variants) {
    const s = summarize(samples.get(v.name)!);
    console.log(`| ${v.name} | ${v.share.toFixed(3)} | ${s.p50} | ${s.p95} |`);
  }
}

/** Probed lists per (lists, query), kept by `search` for `scaled`. */
const PROBED = new Map<string, number[]>();

// ---------------------------------------------------------------- insert cost

async function insertCost(): Promise<void> {
  const k = Number(argument('lists', '256'));
  const batches = Number(argument('batches', '2'));
  const dir = mkdtempSync(join(tmpdir(), 'loom-ivf-insert-'));
  const session = new Session(dir);
  const provider = new HashedEmbeddingProvider();
  const gen = new TurnGenerator(99);
  let serial = 0;
  const rows = (n: number): { lines: string[]; vectors: number[][]; keys: Array<[string, string]> } => {
    const lines: string[] = [];
    const vectors: number[][] = [];
    const keys: Array<[string, string]> = [];
    for (let i = 0; i < n; i += 1) {
      serial += 1;
      const thread = gen.int(5_000);
      const text = gen.turn(thread % TurnGenerator.topicCount).content;
      const embedding = provider.embedOne(text);
      vectors.push(embedding);
      keys.push([`s-t${thread}`, `s-${serial}`]);
      lines.push(JSON.stringify({
        namespace: 'bench', thread_id: `s-t${thread}`, msg_id: `s-${serial}`, agent: 'default', role: 'user', run_id: '', user_id: '',
        ts: new Date(1_764_000_000_000 + serial).toISOString().replace('T', ' ').replace('Z', ''), text, model: provider.model, embedding, embed_error: '', created_at: '2026-12-01 00:00:00', version: serial,
      }));
    }
    return { lines, vectors, keys };
  };
  try {
    // Centroids from 5,000 bench turns (their quality does not change the cost).
    const trainSet = rows(5_000);
    const centroids = kmeans(pack(trainSet.vectors), k, 3);
    for (const db of ['plain', 'mv', 'writer']) {
      createMain(session, db);
      createLists(session, `${db}.ivf_lists`);
    }
    // The centroids live in a table (a retrain inserts a new set); the statements read them as one scalar.
    // Unit Float32 centroids: the Int8 row's own scale is one positive factor, so the argmax is the Float32 one up to rounding.
    const centroidRows = Array.from({ length: k }, (_, c) => JSON.stringify({ list: c, c: Array.from(centroids.subarray(c * DIMS, (c + 1) * DIMS)) }));
    for (const db of ['plain', 'mv']) {
      session.query(`CREATE TABLE ${db}.ivf_centroids (list UInt16, c Array(Float32)) ENGINE = MergeTree ORDER BY list`);
      await session.insert({ table: `${db}.ivf_centroids`, values: Buffer.from(centroidRows.join('\n')), format: 'JSONEachRow' });
    }
    const literal = '(SELECT groupArray(c) FROM (SELECT c FROM DB.ivf_centroids ORDER BY list))';
    // Which SQL form assigns cheapest (5,000 rows, SELECT only).
    await session.insert({ table: 'plain.conversation_embeddings', values: Buffer.from(trainSet.lines.slice(0, 2_000).join('\n')), format: 'JSONEachRow' });
    const forms: Record<string, string> = {
      'arrayMap over the centroids (captures embedding_q8)': `SELECT count(), sum(l) FROM (SELECT argMax(i, s) AS l FROM (SELECT msg_id, arrayJoin(arrayEnumerate(ds)) AS i, ds[i] AS s FROM (SELECT msg_id, arrayMap(c -> dotProduct(embedding_q8, c), ${literal}) AS ds FROM plain.conversation_embeddings)) GROUP BY msg_id)`,
      'arrayMap, then indexOf of the maximum': `SELECT count(), sum(l) FROM (SELECT indexOf(ds, arrayMax(ds)) - 1 AS l FROM (SELECT arrayMap(c -> dotProduct(embedding_q8, c), ${literal}) AS ds FROM plain.conversation_embeddings))`,
      'ARRAY JOIN of the centroids, argMax per row': `SELECT count(), sum(l) FROM (SELECT argMax(i, dotProduct(embedding_q8, c)) - 1 AS l FROM plain.conversation_embeddings ARRAY JOIN ${literal} AS c, arrayEnumerate(${literal}) AS i GROUP BY thread_id, msg_id)`,
    };
    console.log(`\nSQL assignment of 2,000 rows to ${k} lists (SELECT only, one run)`);
    console.log('| form | ms |\n|---|---|');
    for (const [name, form] of Object.entries(forms)) {
      const sql = form.replaceAll('DB.', 'plain.');
      const times: number[] = [];
      for (let r = 0; r < 1; r += 1) {
        const started = process.hrtime.bigint();
        session.query(sql, 'TSV');
        times.push(ms(started));
      }
      console.log(`| ${name} | ${Math.min(...times).toFixed(0)} |`);
    }
    session.query('TRUNCATE TABLE plain.conversation_embeddings');
    session.query(`CREATE MATERIALIZED VIEW mv.ivf_lists_writer TO mv.ivf_lists AS
      SELECT namespace, model, toUInt16(indexOf(ds, arrayMax(ds)) - 1) AS list, thread_id, msg_id, version, deleted, agent, role, run_id, filters_changed, embedding_q8, embedding_scale
      FROM (SELECT namespace, model, thread_id, msg_id, version, deleted, agent, role, run_id, filters_changed, embedding_q8, embedding_scale, arrayMap(c -> dotProduct(embedding_q8, c), ${literal.replace('DB.', 'mv.')}) AS ds FROM mv.conversation_embeddings WHERE embed_error = '' AND length(embedding) = ${DIMS})`);
    const timings = new Map<string, number[]>();
    const note = (name: string, value: number): void => void timings.set(name, [...(timings.get(name) ?? []), value]);
    const plan: Array<[number, number]> = [[5_000, batches], [50, 10], [1, 10]];
    for (const [size, count] of plan) {
      for (let b = 0; b < count; b += 1) {
        const batch = rows(size);
        const values = Buffer.from(batch.lines.join('\n'));
        let started = process.hrtime.bigint();
        await session.insert({ table: 'plain.conversation_embeddings', values, format: 'JSONEachRow' });
        note(`${size}|none`, ms(started));
        started = process.hrtime.bigint();
        await session.insert({ table: 'mv.conversation_embeddings', values, format: 'JSONEachRow' });
        note(`${size}|materialized view`, ms(started));
        started = process.hrtime.bigint();
        await session.insert({ table: 'writer.conversation_embeddings', values, format: 'JSONEachRow' });
        const labels = assign(pack(batch.vectors), centroids, k);
        const listRows = batch.vectors.map((v, i) => {
          const { q8, scale } = int8Of(v);
          return JSON.stringify({ namespace: 'bench', model: provider.model, list: labels[i], thread_id: batch.keys[i]![0], msg_id: batch.keys[i]![1], version: Number(batch.keys[i]![1].slice(2)), deleted: false, agent: 'default', role: 'user', run_id: '', filters_changed: false, embedding_q8: Array.from(q8), embedding_scale: scale });
        });
        await session.insert({ table: 'writer.ivf_lists', values: Buffer.from(listRows.join('\n')), format: 'JSONEachRow' });
        note(`${size}|writer (assignment in TypeScript, second insert)`, ms(started));
      }
    }
    const agree = session.query(`SELECT countIf(a.list = b.list), count() FROM mv.ivf_lists AS a INNER JOIN writer.ivf_lists AS b USING (thread_id, msg_id)`, 'TSV').trim();
    const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
    console.log(`\nInsert into Loom's table, ${k} lists (load ${load}); MV and writer chose the same list for ${agree.replace('\t', ' of ')} rows (Int8 against Float32 assignment)`);
    console.log('| rows an insert | list assignment | p50 ms | p95 ms |\n|---|---|---|---|');
    for (const [key, values] of timings) {
      const [size, name] = key.split('|');
      const s = summarize(values);
      console.log(`| ${size} | ${name} | ${s.p50} | ${s.p95} |`);
    }
  } finally {
    session.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const mode = process.argv[2];
if (mode === 'locomo') void locomo();
else if (mode === 'insert-cost') void insertCost();
else void search();
