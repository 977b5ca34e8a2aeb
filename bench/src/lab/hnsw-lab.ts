/**
 * HNSW lab (issue 10, ADR 0028): Loom's own `conversation_embeddings` table, built by its
 * migrations, plus the HNSW index this lab adds (`ANN_DDL`: not a migration, see the ADR), loaded with the search bench's turns (hashed
 * provider) in one big namespace plus many small ones, then tombstones and superseded versions
 * written in small batches as the write path writes them. It measures, each query running every
 * variant in turn (the machine is shared: compare the rows of one run):
 * - p50/p95 of main's stage 1 + stage 2 (Int8 ranking, exact re-score) against the ANN path;
 * - recall of the exact top 10 (floor 0.3) and top 100 (the hybrid leg's depth, floor 0.1),
 *   against a brute-force cosine over `FINAL`;
 * - the cost at insert (small batches into the indexed table and an index-less copy, alternated)
 *   and at a merge (OPTIMIZE FINAL of each), and memory (the index's bytes, the process RSS).
 *
 *   npm run --silent build
 *   node dist/bench/src/lab/hnsw-lab.js load <dir> <big-namespace turns>
 *   node dist/bench/src/lab/hnsw-lab.js insert-cost <dir>
 *   node dist/bench/src/lab/hnsw-lab.js measure <dir> [queries]
 *   node dist/bench/src/lab/hnsw-lab.js probe <dir>   (does the engine search the index under each filter?)
 */
import { execSync } from 'node:child_process';
import { formatMicros, runMigrations, Storage } from '@loom/clickhouse';
import { candidatesFor, latestLive, needsMoreCandidates, quantize, rankExact, vectorCandidatesStatement, type CandidateRow } from '@loom/conversations';
import { HashedEmbeddingProvider } from '@loom/providers';
import { summarize } from '../util/stats';
import { TurnGenerator } from '../workload/text';

const DATABASE = 'hnsw_lab';
const BIG = 'big';
const SMALL_NAMESPACES = 200;
const SMALL_TURNS = 50;
const THREADS = 5_000;
const provider = new HashedEmbeddingProvider();

/**
 * The index as the rejected design would have added it (ADR 0028). `embedding` cannot carry it:
 * the engine refuses a row whose array has another length than the index's (an empty vector where
 * the embed failed, another model's dimension), so the index is on a copy that always has 384.
 */
const ANN_DDL = [
  `ALTER TABLE ${DATABASE}.conversation_embeddings ADD COLUMN IF NOT EXISTS embedding_ann Array(Float32)
     MATERIALIZED if(length(embedding) = 384, embedding, arrayMap(i -> toFloat32(i = 1), range(1, 385))) CODEC(NONE)`,
  `ALTER TABLE ${DATABASE}.conversation_embeddings ADD INDEX IF NOT EXISTS embedding_hnsw embedding_ann
     TYPE vector_similarity('hnsw', 'cosineDistance', 384, 'bf16', 32, 128) GRANULARITY 100000000`,
];

/** The largest pool the ANN statement asks for: beyond `max_limit_for_vector_search_queries` (1,000) the engine would not use the index. */
const ANN_MAX_POOL = 1_000;

interface AnnTuning {
  /** `hnsw_candidate_list_size_for_search` (ef). */
  ef: number;
  /** `vector_search_index_fetch_multiplier`. */
  fetchMultiplier: number;
}

/**
 * Stage 1 through the index: the inner query asks the index for the nearest rows, post-filtered;
 * the outer one reads every version of those turns that the filters let through, by primary key,
 * with the exact score, so stage 2 (latest version, tombstones) stays exact for the turns found.
 * A pool with fewer turns than asked means the filters starved it: the Int8 ranking answers then.
 */
function annCandidatesStatement(table: string, conditions: readonly string[], handOverConditions: readonly string[], tuning: AnnTuning): string {
  const where = (handOverConditions.length > 0 ? [...conditions, `((${handOverConditions.join(' AND ')}) OR filters_changed)`] : conditions).join(' AND ');
  return `SELECT namespace, thread_id, msg_id, agent, role, run_id, user_id, ts, substringUTF8(text, 1, {chars:UInt32}) AS excerpt,
       1 - cosineDistance(embedding, {q:Array(Float32)}) AS score, deleted, version
     FROM ${table}
     WHERE ${where} AND (namespace, thread_id, msg_id) IN (
       SELECT namespace, thread_id, msg_id FROM ${table} WHERE ${where}
       ORDER BY cosineDistance(embedding_ann, {q:Array(Float32)}) LIMIT {candidates:UInt32}
     )
     SETTINGS vector_search_filter_strategy = 'postfilter', vector_search_index_fetch_multiplier = ${tuning.fetchMultiplier},
       hnsw_candidate_list_size_for_search = ${tuning.ef}`;
}

const distinctTurns = (rows: readonly CandidateRow[]): number => new Set(rows.map((r) => JSON.stringify([r.namespace, r.thread_id, r.msg_id]))).size;

function open(dir: string): Storage {
  return Storage.open({ database: DATABASE, dataDir: dir, writeBehind: { enabled: false } });
}

const rss = (): number => Math.round(process.memoryUsage().rss / 2 ** 20);

async function rowsFor(gen: TurnGenerator, namespace: string, from: number, n: number, threads: number, base: number): Promise<Record<string, unknown>[]> {
  const drawn = Array.from({ length: n }, () => {
    const t = gen.int(threads);
    return { t, turn: gen.turn(t % TurnGenerator.topicCount), role: gen.next() < 0.5 ? 'user' : 'assistant' };
  });
  const vectors = await provider.embed(drawn.map((d) => d.turn.content));
  return drawn.map((d, i) => {
    const seq = from + i;
    const ts = formatMicros(base + seq * 1000);
    return {
      namespace,
      thread_id: `t${d.t}`,
      msg_id: `m${seq}`,
      agent: 'default',
      role: d.role,
      run_id: '',
      user_id: '',
      ts,
      created_at: ts.slice(0, 23),
      version: seq + 1,
      text: d.turn.content.slice(0, 2048),
      model: provider.model,
      embedding: vectors[i],
      embed_error: '',
    };
  });
}

async function load(dir: string, turns: number): Promise<void> {
  const storage = open(dir);
  await runMigrations(storage);
  for (const ddl of ANN_DDL) await storage.command(ddl);
  const table = storage.tables.conversationEmbeddings;
  const gen = new TurnGenerator(99);
  const base = Date.UTC(2026, 10, 1) * 1000;
  const batch = 5_000;
  const smallPerBatch = Math.ceil((SMALL_NAMESPACES * SMALL_TURNS) / Math.ceil(turns / batch));
  let small = 0;
  let insertMs = 0;
  for (let start = 0; start < turns; start += batch) {
    const rows = await rowsFor(gen, BIG, start, Math.min(batch, turns - start), THREADS, base);
    // The small namespaces' turns ride in the same parts, as they would in a shared deployment.
    for (let i = 0; i < smallPerBatch && small < SMALL_NAMESPACES * SMALL_TURNS; i += 1, small += 1) {
      const [row] = await rowsFor(gen, `small-${small % SMALL_NAMESPACES}`, 10_000_000 + small, 1, 10, base);
      rows.push(row!);
    }
    const t = performance.now();
    await storage.insert(table, rows);
    insertMs += performance.now() - t;
    if ((start / batch) % 10 === 0) console.log(`${start + batch}/${turns} (${Math.round(insertMs / 1000)} s in inserts)`);
  }
  console.log(`bulk: ${turns} + ${small} turns in batches of ${batch}: ${Math.round(insertMs)} ms of inserts`);
  // Tombstones (1%) and superseded versions (1%, a hand-over keeping the vector): the write path's small batches.
  const picked = await storage.query<Record<string, unknown>>(
    `SELECT namespace, thread_id, msg_id, agent, role, run_id, user_id, ts, created_at, toString(version) AS version, text, model, embedding, embed_error
     FROM ${table} WHERE namespace = {ns:String} AND cityHash64(msg_id) % 50 = 0`,
    { ns: BIG },
  );
  let written = 0;
  for (let i = 0; i < picked.length; i += 50) {
    const rows = picked.slice(i, i + 50).map((r, j) => {
      const tombstone = (i + j) % 2 === 0;
      return { ...r, version: Number(r['version']) + 1_000_000_000, deleted: tombstone, ...(tombstone ? { deleted_at: String(r['created_at']) } : { agent: 'default', filters_changed: true }) };
    });
    await storage.insert(table, rows);
    written += rows.length;
  }
  console.log(`later versions: ${written} (half tombstones, half hand-overs) in batches of 50`);
  const parts = await storage.query<{ parts: string; rows: string; idx: string; data: string }>(
    `SELECT toString(count()) AS parts, toString(sum(rows)) AS rows, toString(sum(secondary_indices_uncompressed_bytes)) AS idx, toString(sum(data_uncompressed_bytes)) AS data
     FROM system.parts WHERE database = {db:String} AND table = 'conversation_embeddings' AND active`,
    { db: DATABASE },
  );
  console.log(`parts: ${JSON.stringify(parts[0])}`);
  await storage.close();
  execSync('sync');
}

/** Small batches into the indexed table and an index-less copy, alternated; then a merge of each. */
async function insertCost(dir: string): Promise<void> {
  const storage = open(dir);
  const table = storage.tables.conversationEmbeddings;
  const plain = `${DATABASE}.embeddings_plain`;
  await storage.command(`DROP TABLE IF EXISTS ${plain}`);
  await storage.command(`CREATE TABLE ${plain} AS ${table}`);
  await storage.command(`ALTER TABLE ${plain} DROP INDEX embedding_hnsw`);
  const gen = new TurnGenerator(7);
  const base = Date.UTC(2026, 10, 2) * 1000;
  for (const size of [1, 50]) {
    const times = new Map<string, number[]>([
      ['index', []],
      ['plain', []],
    ]);
    for (let i = 0; i < 20; i += 1) {
      const rows = await rowsFor(gen, 'append', 20_000_000 + i * size, size, 100, base);
      const order: Array<[string, string]> = i % 2 === 0 ? [['index', table], ['plain', plain]] : [['plain', plain], ['index', table]];
      for (const [name, t] of order) {
        const started = performance.now();
        await storage.insert(t, rows);
        times.get(name)!.push(performance.now() - started);
      }
    }
    for (const [name, ms] of times) {
      const s = summarize(ms);
      console.log(`insert of ${size} rows, ${name}: p50 ${s.p50} p95 ${s.p95} ms (${Math.round((size * 1000) / s.p50)} rows/s at p50)`);
    }
  }
  // The merge: the same 20,000 rows in both tables as four parts, then OPTIMIZE FINAL of each (for
  // the indexed table, a rebuild of the graph of the merged part).
  const indexed = `${DATABASE}.embeddings_indexed`;
  await storage.command(`DROP TABLE IF EXISTS ${indexed}`);
  await storage.command(`CREATE TABLE ${indexed} AS ${table}`);
  await storage.command(`TRUNCATE TABLE ${plain}`);
  for (const t of [plain, indexed]) {
    await storage.command(`SYSTEM STOP MERGES ${t}`);
    for (let part = 0; part < 4; part += 1) {
      const started = performance.now();
      await storage.command(`INSERT INTO ${t} SELECT * FROM ${table} WHERE namespace = 'big' ORDER BY msg_id LIMIT 5000 OFFSET ${part * 5000}`);
      console.log(`insert of 5,000 rows into ${t}: ${Math.round(performance.now() - started)} ms`);
    }
    await storage.command(`SYSTEM START MERGES ${t}`);
  }
  for (const t of [plain, indexed]) {
    const started = performance.now();
    await storage.command(`OPTIMIZE TABLE ${t} FINAL`);
    console.log(`merge of 4 x 5,000 rows (OPTIMIZE FINAL) ${t}: ${Math.round(performance.now() - started)} ms (load ${execSync('cat /proc/loadavg').toString().trim()})`);
  }
  await storage.command(`DROP TABLE ${indexed}`);
  await storage.command(`DROP TABLE ${plain}`);
  await storage.close();
}

interface Variant {
  name: string;
  limit: number;
  floor: number;
  ann?: AnnTuning;
}

/** Main's vectorSearch loop (stage 1, stage 2, larger pools), or the ANN statement falling back to it when starved. */
async function search(storage: Storage, q: number[], ns: string, v: Variant, agent?: string): Promise<{ rows: CandidateRow[]; fellBack: boolean }> {
  const table = storage.tables.conversationEmbeddings;
  const conditions = ['namespace IN {namespaces:Array(String)}', "embed_error = ''", 'model = {model:String}'];
  const handOver = agent ? ['agent = {agent:String}'] : [];
  const params = { q, q16: quantize(q), namespaces: [ns], model: provider.model, chars: 240, agent };
  const int8 = vectorCandidatesStatement(table, conditions, handOver);
  let fellBack = false;
  if (v.ann) {
    const ann = annCandidatesStatement(table, conditions, handOver, v.ann);
    for (let pool = candidatesFor(v.limit); pool <= ANN_MAX_POOL; pool *= 4) {
      const rows = await storage.query<CandidateRow>(ann, { ...params, candidates: pool });
      if (distinctTurns(rows) < pool) break;
      const live = latestLive(rows, { agent });
      if (live.length >= candidatesFor(v.limit)) return { rows: rankExact(live, v.floor, v.limit), fellBack };
    }
    fellBack = true;
  }
  for (let pool = candidatesFor(v.limit); ; pool *= 4) {
    const rows = await storage.query<CandidateRow>(int8, { ...params, candidates: pool });
    const live = latestLive(rows, { agent });
    if (!needsMoreCandidates(pool, rows.length, live.length, v.limit)) return { rows: rankExact(live, v.floor, v.limit), fellBack };
  }
}

async function exact(storage: Storage, q: number[], ns: string, floor: number, limit: number): Promise<string[]> {
  const rows = await storage.query<{ msg_id: string }>(
    `SELECT msg_id, 1 - cosineDistance(embedding, {q:Array(Float32)}) AS score, ts FROM ${storage.tables.conversationEmbeddings} FINAL
     WHERE namespace = {ns:String} AND deleted = 0 AND embed_error = '' AND model = {model:String} AND score >= {floor:Float64}
     ORDER BY score DESC, ts DESC LIMIT {limit:UInt32}`,
    { q, ns, model: provider.model, floor, limit },
  );
  return rows.map((r) => r.msg_id);
}

async function measure(dir: string, count: number): Promise<void> {
  const storage = open(dir);
  const gen = new TurnGenerator(4242);
  const queries = await provider.embed(Array.from({ length: count }, (_, i) => gen.query(i % TurnGenerator.topicCount)));
  const [parts] = await storage.query<{ parts: string; rows: string; idx: string }>(
    `SELECT toString(count()) AS parts, toString(sum(rows)) AS rows, toString(sum(secondary_indices_uncompressed_bytes)) AS idx
     FROM system.parts WHERE database = {db:String} AND table = 'conversation_embeddings' AND active`,
    { db: DATABASE },
  );
  console.log(`table: ${JSON.stringify(parts)}; load ${execSync('cat /proc/loadavg').toString().trim()}`);
  const variants: Variant[] = [
    { name: 'main Int8, limit 10', limit: 10, floor: 0.3 },
    { name: 'ANN ef 64 x1, limit 10', limit: 10, floor: 0.3, ann: { ef: 64, fetchMultiplier: 1 } },
    { name: 'ANN ef 256 x2, limit 10', limit: 10, floor: 0.3, ann: { ef: 256, fetchMultiplier: 2 } },
    { name: 'ANN ef 512 x4, limit 10', limit: 10, floor: 0.3, ann: { ef: 512, fetchMultiplier: 4 } },
    { name: 'main Int8, limit 100 (hybrid leg)', limit: 100, floor: 0.1 },
    { name: 'ANN ef 256 x2, limit 100 (hybrid leg)', limit: 100, floor: 0.1, ann: { ef: 256, fetchMultiplier: 2 } },
  ];
  const truth10: string[][] = [];
  const truth100: string[][] = [];
  for (const q of queries) {
    truth10.push(await exact(storage, q, BIG, 0.3, 10));
    truth100.push(await exact(storage, q, BIG, 0.1, 100));
  }
  const before = rss();
  for (const v of variants) for (const q of queries.slice(0, 3)) await search(storage, q, BIG, v);
  console.log(`rss: ${before} MiB before the first searches, ${rss()} MiB after`);
  const ms = new Map<string, number[]>();
  const recall = new Map<string, number[]>();
  const fallbacks = new Map<string, number>();
  for (let i = 0; i < queries.length; i += 1) {
    for (const v of i % 2 === 0 ? variants : [...variants].reverse()) {
      const started = performance.now();
      const { rows, fellBack } = await search(storage, queries[i]!, BIG, v);
      ms.set(v.name, [...(ms.get(v.name) ?? []), performance.now() - started]);
      const truth = v.limit === 10 ? truth10[i]! : truth100[i]!;
      const got = new Set(rows.map((r) => r.msg_id));
      if (truth.length > 0) recall.set(v.name, [...(recall.get(v.name) ?? []), truth.filter((m) => got.has(m)).length / truth.length]);
      if (fellBack) fallbacks.set(v.name, (fallbacks.get(v.name) ?? 0) + 1);
    }
  }
  console.log(`\nbig namespace, ${queries.length} queries, variants alternated; load ${execSync('cat /proc/loadavg').toString().trim()}`);
  console.log('| statement | p50 ms | p95 ms | recall of exact top-k | fallbacks |\n|---|---|---|---|---|');
  for (const v of variants) {
    const s = summarize(ms.get(v.name)!);
    const r = recall.get(v.name) ?? [];
    console.log(`| ${v.name} | ${s.p50} | ${s.p95} | ${(r.reduce((a, b) => a + b, 0) / r.length).toFixed(3)} | ${fallbacks.get(v.name) ?? 0} |`);
  }
  // A small namespace in the same parts, and an agent filter that lets nothing through: the ANN pool starves and falls back.
  for (const [label, ns, agent] of [
    ['small namespace (50 turns)', 'small-7', undefined],
    ['big namespace, agent filter matching nothing', BIG, 'nobody'],
  ] as const) {
    const small = new Map<string, number[]>();
    const fb = new Map<string, number>();
    for (const q of queries.slice(0, 30)) {
      for (const v of [variants[0]!, variants[2]!]) {
        const started = performance.now();
        const r = await search(storage, q, ns, v, agent);
        small.set(v.name, [...(small.get(v.name) ?? []), performance.now() - started]);
        if (r.fellBack) fb.set(v.name, (fb.get(v.name) ?? 0) + 1);
      }
    }
    for (const [name, t] of small) console.log(`${label}, ${name}: p50 ${summarize(t).p50} p95 ${summarize(t).p95} ms, fallbacks ${fb.get(name) ?? 0}/30`);
  }
  console.log(`rss at the end: ${rss()} MiB; load ${execSync('cat /proc/loadavg').toString().trim()}`);
  await storage.close();
}

/**
 * Whether the engine searched the index (ProfileEvents USearchSearchCount) for the ANN query
 * under a namespace filter on the key column, the same filter the key cannot use, and none.
 */
async function probe(dir: string): Promise<void> {
  const storage = open(dir);
  const table = storage.tables.conversationEmbeddings;
  const [q] = await provider.embed([new TurnGenerator(4242).query(0)]);
  const searches = async (): Promise<number> =>
    Number((await storage.query<{ n: string }>(`SELECT toString(sum(value)) AS n FROM system.events WHERE name = 'USearchSearchCount'`))[0]?.n ?? 0);
  for (const [label, where] of [
    ['no filter', '1'],
    ['namespace IN [big] (the key column)', "namespace IN ['big']"],
    ['identity(namespace) IN [big] (hidden from the key)', "identity(namespace) IN ['big']"],
  ] as const) {
    const before = await searches();
    const started = performance.now();
    const rows = await storage.query(
      `SELECT msg_id FROM ${table} WHERE ${where} ORDER BY cosineDistance(embedding_ann, {q:Array(Float32)}) LIMIT 40
       SETTINGS vector_search_filter_strategy = 'postfilter', vector_search_index_fetch_multiplier = 2`,
      { q },
    );
    console.log(`${label}: ${rows.length} rows of 40, ${Math.round(performance.now() - started)} ms, index searches ${(await searches()) - before}`);
  }
  console.log(`load ${execSync('cat /proc/loadavg').toString().trim()}`);
  await storage.close();
}

const [cmd, dir, arg] = process.argv.slice(2);
(cmd === 'load' ? load(dir!, Number(arg ?? 100_000)) : cmd === 'insert-cost' ? insertCost(dir!) : cmd === 'probe' ? probe(dir!) : measure(dir!, Number(arg ?? 60))).then(
  () => process.exit(0),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
