import type { ClickHouseClient } from '@clickhouse/client';
import { HashedEmbeddingProvider } from '@loom/providers';
import { candidatesFor, lexicalColumns, quantize, vectorCandidatesStatement } from '@loom/conversations';
import { drive, type DriveResult } from '../workload/driver';
import { transcriptRow, TurnGenerator } from '../workload/text';
import { elapsedMs, summarize, type LatencySummary } from '../util/stats';
import { loomTableDdl, rows } from './engine';

export type RawTask =
  | { kind: 'sql'; statements: Array<{ name: string; sql: string; params?: Record<string, unknown> }> }
  | { kind: 'insert-baseline'; database: string; phases: Array<{ concurrency: number; durationMs: number }>; seed: number; threads: number }
  | { kind: 'engine-costs'; database: string; reps: number; batchRows: number; dims: number; seed: number }
  | { kind: 'seed-saved'; loomDatabase: string; namespace: string; owners: Array<{ user: string; count: number }>; threads: number; seed: number }
  | {
      kind: 'search-baseline';
      loomDatabase: string;
      namespace: string;
      sizes: number[];
      queries: string[];
      warmup: number;
      floor: number;
      limit: number;
      excerptChars: number;
    };

type Log = (line: string) => void;

export async function runTask(client: ClickHouseClient, task: RawTask, log: Log): Promise<unknown> {
  switch (task.kind) {
    case 'sql':
      return runSql(client, task);
    case 'insert-baseline':
      return insertBaseline(client, task, log);
    case 'engine-costs':
      return engineCosts(client, task, log);
    case 'search-baseline':
      return searchBaseline(client, task, log);
    case 'seed-saved':
      return seedSaved(client, task, log);
  }
}

export interface SeedSavedResult {
  model: string;
  dims: number;
  inserted: number;
  ms: number;
}

/**
 * Saved messages written straight into Loom's stopped data directory, in exactly the rows its
 * save path writes: a transcript row flagged `is_saved` and owned by the user, and its embedding
 * row with the same flags, the vector of the provider Loom runs (its model read from a message
 * Loom saved itself) and the lexical columns of the whole text. The engine's materialized views
 * turn the embedding rows into postings, as they do for Loom's own inserts. Through the API a
 * save reads and writes several times (about 6 a second on a loaded 2-core machine).
 */
async function seedSaved(client: ClickHouseClient, task: Extract<RawTask, { kind: 'seed-saved' }>, log: Log): Promise<SeedSavedResult> {
  const started = process.hrtime.bigint();
  const db = task.loomDatabase;
  const [sample] = await rows<{ model: string; dims: number }>(
    client,
    `SELECT model, length(embedding) AS dims FROM ${db}.conversation_embeddings WHERE namespace = {ns:String} AND is_saved AND model != '' LIMIT 1`,
    { ns: task.namespace },
  );
  if (!sample) throw new Error('seed-saved: Loom saved no message with a vector to copy the model from');
  const provider = new HashedEmbeddingProvider(Number(sample.dims));
  if (provider.model !== sample.model) throw new Error(`seed-saved: Loom embeds with ${sample.model}, the bench's hashed provider is ${provider.model}`);
  const gen = new TurnGenerator(task.seed);
  const BATCH = 2_000;
  let inserted = 0;
  let version = Date.now() * 1000;
  for (const owner of task.owners) {
    for (let from = 0; from < owner.count; from += BATCH) {
      const n = Math.min(BATCH, owner.count - from);
      const turns = Array.from({ length: n }, (_, i) => {
        const t = gen.int(task.threads);
        return { thread: `c${t}`, msg: `seed-${owner.user}-${from + i}`, role: gen.next() < 0.5 ? 'user' : 'assistant', content: gen.turn(t % TurnGenerator.topicCount).content };
      });
      const vectors = await provider.embed(turns.map((t) => t.content.slice(0, 2048)));
      const transcripts = turns.map((t) => {
        const row = transcriptRow(task.namespace, t.thread, t.msg, t.role, t.content, ++version) as Record<string, unknown> & { ts: string; created_at: string };
        return { ...row, user_id: owner.user, run_id: '', metadata: '{}', is_saved: true, saved_at: row.created_at };
      });
      const embeddings = turns.map((t, i) => {
        const row = transcripts[i]!;
        return {
          namespace: task.namespace,
          thread_id: t.thread,
          msg_id: t.msg,
          agent: 'default',
          role: t.role,
          run_id: '',
          user_id: owner.user,
          ts: row.ts,
          text: t.content.slice(0, 2048),
          model: provider.model,
          embedding: vectors[i]!,
          embed_error: '',
          is_summary: false,
          is_saved: true,
          saved_at: row.saved_at,
          deleted: false,
          deleted_at: null,
          created_at: row.created_at,
          version: ++version,
          filters_changed: false,
          ...lexicalColumns(t.content),
        };
      });
      await client.insert({ table: `${db}.conversations`, values: transcripts, format: 'JSONEachRow' });
      await client.insert({ table: `${db}.conversation_embeddings`, values: embeddings, format: 'JSONEachRow' });
      inserted += n;
      log(`seeded ${inserted} saved messages`);
    }
  }
  return { model: provider.model, dims: Number(sample.dims), inserted, ms: Math.round(elapsedMs(started)) };
}

async function runSql(client: ClickHouseClient, task: Extract<RawTask, { kind: 'sql' }>): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const s of task.statements) out[s.name] = await rows(client, s.sql, s.params ?? {});
  return out;
}

export interface InsertBaselineResult {
  phases: DriveResult[];
  rowsInTable: number;
  uniqueKeys: number;
  stored: number;
  activeParts: number;
}

/** The raw engine alone: one INSERT per turn, same table shape as Loom's transcripts, same concurrency. */
async function insertBaseline(client: ClickHouseClient, task: Extract<RawTask, { kind: 'insert-baseline' }>, log: Log): Promise<InsertBaselineResult> {
  const db = task.database;
  await client.command({ query: `DROP DATABASE IF EXISTS ${db}` });
  await client.command({ query: `CREATE DATABASE ${db}` });
  await client.command({ query: loomTableDdl('0002_create_conversations.sql', db) });
  const gen = new TurnGenerator(task.seed);
  const phases: DriveResult[] = [];
  let stored = 0;
  let version = 1;
  for (const phase of task.phases) {
    log(`raw INSERT baseline: concurrency ${phase.concurrency} for ${Math.round(phase.durationMs / 1000)} s`);
    const result = await drive({
      concurrency: phase.concurrency,
      durationMs: phase.durationMs,
      warmupOps: Math.min(50, phase.concurrency * 2),
      op: async (seq) => {
        const thread = gen.int(task.threads);
        const turn = gen.turn(thread % TurnGenerator.topicCount);
        const row = transcriptRow('bench', `c${phase.concurrency}-t${thread}`, `m${phase.concurrency}-${seq}`, seq % 2 ? 'assistant' : 'user', turn.content, version++);
        await client.insert({ table: `${db}.conversations`, values: [row], format: 'JSONEachRow' });
        return { ok: true };
      },
      onProgress: (done, ms, rate) => log(`  ${done} inserts in ${Math.round(ms / 1000)} s (${rate.toFixed(0)}/s)`),
    });
    stored += result.ok;
    log(`  -> ${result.throughput}/s, p50 ${result.latencyMs.p50} ms, p99 ${result.latencyMs.p99} ms, ${result.failed} failed`);
    phases.push(result);
  }
  const [count] = await rows<{ n: string; u: string }>(client, `SELECT count() AS n, uniqExact(thread_id, msg_id) AS u FROM ${db}.conversations`);
  const [parts] = await rows<{ n: string }>(client, `SELECT count() AS n FROM system.parts WHERE database = {db:String} AND active`, { db });
  return { phases, rowsInTable: Number(count?.n ?? 0), uniqueKeys: Number(count?.u ?? 0), stored, activeParts: Number(parts?.n ?? 0) };
}

export type EngineCosts = Record<string, LatencySummary>;

/**
 * What Loom's append path asks of the engine, one statement at a time (sequential, no
 * contention): the round trip of a trivial query, inserts of one row and of a batch into both
 * tables, the key lookup the transcript writer runs per batch, and the FINAL re-read the embedding
 * writer runs when a thread may have changed. The SQL mirrors libs/conversations/src/append/ as of
 * this writing; if those queries change, update these to match.
 */
async function engineCosts(client: ClickHouseClient, task: Extract<RawTask, { kind: 'engine-costs' }>, log: Log): Promise<EngineCosts> {
  const db = task.database;
  await client.command({ query: `CREATE DATABASE IF NOT EXISTS ${db}` });
  await client.command({ query: loomTableDdl('0002_create_conversations.sql', db) });
  await client.command({ query: loomTableDdl('0003_create_conversation_embeddings.sql', db) });
  const gen = new TurnGenerator(task.seed);
  const embedder = new HashedEmbeddingProvider(task.dims);
  let version = 10_000_000;
  let seq = 0;
  const makeBatch = (n: number): Array<Record<string, unknown>> =>
    Array.from({ length: n }, () => {
      seq += 1;
      return transcriptRow('costs', `ct${gen.int(500)}`, `cm${seq}`, seq % 2 ? 'assistant' : 'user', gen.turn(gen.int(30)).content, version++);
    });
  const embeddingRows = async (batch: Array<Record<string, unknown>>): Promise<Array<Record<string, unknown>>> => {
    const vectors = await embedder.embed(batch.map((r) => String(r['content']).slice(0, 2048)));
    return batch.map((r, i) => ({
      namespace: r['namespace'],
      thread_id: r['thread_id'],
      msg_id: r['msg_id'],
      agent: 'default',
      role: r['role'],
      run_id: r['run_id'],
      user_id: r['user_id'],
      ts: r['ts'],
      text: String(r['content']).slice(0, 2048),
      model: embedder.model,
      embedding: vectors[i],
      embed_error: '',
      is_summary: false,
      is_saved: false,
      saved_at: null,
      deleted: false,
      deleted_at: null,
      created_at: r['created_at'],
      version: r['version'],
    }));
  };
  const keyParams = (batch: Array<Record<string, unknown>>): Record<string, unknown> => ({
    namespaces: [...new Set(batch.map((r) => String(r['namespace'])))],
    threads: [...new Set(batch.map((r) => String(r['thread_id'])))],
    ids: [...new Set(batch.map((r) => String(r['msg_id'])))],
  });
  // Some history first, so lookups do not run against empty tables.
  for (let i = 0; i < 40; i += 1) {
    const batch = makeBatch(250);
    await client.insert({ table: `${db}.conversations`, values: batch, format: 'JSONEachRow' });
    await client.insert({ table: `${db}.conversation_embeddings`, values: await embeddingRows(batch), format: 'JSONEachRow' });
  }
  const time = async (name: string, reps: number, fn: () => Promise<unknown>): Promise<[string, LatencySummary]> => {
    for (let i = 0; i < 3; i += 1) await fn();
    const samples: number[] = [];
    for (let i = 0; i < reps; i += 1) {
      const t = process.hrtime.bigint();
      await fn();
      samples.push(elapsedMs(t));
    }
    const s = summarize(samples);
    log(`  ${name}: p50 ${s.p50} ms, p95 ${s.p95} ms`);
    return [name, s];
  };
  const B = task.batchRows;
  const out: EngineCosts = {};
  log(`engine costs (sequential, ${task.reps} reps each, batch of ${B} rows)`);
  const entries: Array<[string, LatencySummary]> = [];
  entries.push(await time('SELECT 1 (round trip)', task.reps, async () => rows(client, 'SELECT 1 AS x')));
  entries.push(await time('INSERT 1 transcript row', task.reps, async () => client.insert({ table: `${db}.conversations`, values: makeBatch(1), format: 'JSONEachRow' })));
  entries.push(await time(`INSERT ${B} transcript rows`, task.reps, async () => client.insert({ table: `${db}.conversations`, values: makeBatch(B), format: 'JSONEachRow' })));
  const lookupBatch = makeBatch(B);
  await client.insert({ table: `${db}.conversations`, values: lookupBatch, format: 'JSONEachRow' });
  entries.push(
    await time(`key lookup before insert (${B} keys)`, task.reps, async () =>
      rows(
        client,
        // The shape of TranscriptWriter.existingKeys (libs/conversations/src/append/transcript.writer.ts) when this was
        // written: one statement for brand-new turns; a second, on the embedding table, only for keys already stored.
        `SELECT namespace, thread_id, agent, msg_id,
                argMax(deleted, version) = 0 AND argMax(is_high, version) = 0 AND argMax(role, version) IN ('user', 'assistant') AS indexable
         FROM ${db}.conversations
         WHERE namespace IN {namespaces:Array(String)} AND thread_id IN {threads:Array(String)} AND msg_id IN {ids:Array(String)}
         GROUP BY namespace, thread_id, agent, msg_id`,
        keyParams(lookupBatch),
      ),
    ),
  );
  entries.push(
    await time(`liveness re-read (${B} keys, FINAL on both tables)`, task.reps, async () =>
      rows(
        client,
        `SELECT 'turn' AS kind, namespace, thread_id, agent, msg_id FROM ${db}.conversations FINAL
           WHERE namespace IN {namespaces:Array(String)} AND thread_id IN {threads:Array(String)} AND msg_id IN {ids:Array(String)} AND deleted = 0
         UNION ALL
         SELECT 'shared' AS kind, namespace, thread_id, agent, msg_id FROM ${db}.conversation_embeddings FINAL
           WHERE namespace IN {namespaces:Array(String)} AND thread_id IN {threads:Array(String)} AND msg_id IN {ids:Array(String)} AND deleted = 0`,
        keyParams(lookupBatch),
      ),
    ),
  );
  const single = await embeddingRows(makeBatch(1));
  entries.push(await time('INSERT 1 embedding row', task.reps, async () => client.insert({ table: `${db}.conversation_embeddings`, values: single.map((r) => ({ ...r, msg_id: `e${seq++}` })), format: 'JSONEachRow' })));
  const many = await embeddingRows(makeBatch(B));
  entries.push(await time(`INSERT ${B} embedding rows`, task.reps, async () => client.insert({ table: `${db}.conversation_embeddings`, values: many.map((r) => ({ ...r, msg_id: `e${seq++}` })), format: 'JSONEachRow' })));
  // What an acknowledgement that does not wait for a part would cost: a one-row INSERT into an
  // in-memory Buffer table in front of the transcript table (flushed in the background; rows in it
  // are lost on a crash unless something else, e.g. a local log, keeps them).
  await client.command({ query: `CREATE TABLE IF NOT EXISTS ${db}.conversations_buffer AS ${db}.conversations ENGINE = Buffer(${db}, conversations, 1, 1, 5, 1000, 100000, 1000000, 100000000)` });
  entries.push(await time('INSERT 1 transcript row into a Buffer table', task.reps, async () => client.insert({ table: `${db}.conversations_buffer`, values: makeBatch(1), format: 'JSONEachRow' })));
  const texts = makeBatch(B).map((r) => String(r['content']));
  entries.push(await time(`hashed embed of 1 turn (in JS, no engine)`, task.reps, async () => embedder.embed([texts[0]!])));
  entries.push(await time(`hashed embed of ${B} turns (in JS, no engine)`, task.reps, async () => embedder.embed(texts)));
  for (const [k, v] of entries) out[k] = v;
  return out;
}

export interface SearchOption {
  name: string;
  latency: LatencySummary;
  /** Mean share of the exact brute-force top 10 that this option also returns. */
  overlapWithExact: number;
  buildMs?: number;
}

export interface SearchBaselineResult {
  sizes: Array<{ rows: number; bruteForce: LatencySummary; build: { ms: number; parts: number } }>;
  /** At the largest size: cheaper ways to rank the same rows, with their agreement with the exact top 10. */
  options: SearchOption[];
  /** Loom's exact vector-search SQL on Loom's own table (FINAL, filters, floor), at the loaded size. */
  loomSql: LatencySummary;
  loomTable: { rows: number; activeParts: number };
  queryEmbedMs: LatencySummary;
}

/** One brute-force cosineDistance scan over a plain MergeTree holding the same rows as Loom. */
async function searchBaseline(client: ClickHouseClient, task: Extract<RawTask, { kind: 'search-baseline' }>, log: Log): Promise<SearchBaselineResult> {
  const embedder = new HashedEmbeddingProvider();
  const embedSamples: number[] = [];
  const vectors: number[][] = [];
  for (const q of task.queries) {
    const t = process.hrtime.bigint();
    vectors.push((await embedder.embed([q]))[0]!);
    embedSamples.push(elapsedMs(t));
  }
  const src = `${task.loomDatabase}.conversation_embeddings`;
  await client.command({ query: 'DROP DATABASE IF EXISTS bench_raw_search' });
  await client.command({ query: 'CREATE DATABASE bench_raw_search' });
  const measure = async (sql: string, extra: (i: number) => Record<string, unknown>): Promise<LatencySummary> => {
    for (let i = 0; i < task.warmup; i += 1) await rows(client, sql, extra(i));
    const samples: number[] = [];
    for (let i = 0; i < vectors.length; i += 1) {
      const t = process.hrtime.bigint();
      await rows(client, sql, extra(i));
      samples.push(elapsedMs(t));
    }
    return summarize(samples);
  };
  const sizes: SearchBaselineResult['sizes'] = [];
  for (const size of task.sizes) {
    const table = `bench_raw_search.vectors_${size}`;
    const t = process.hrtime.bigint();
    await client.command({
      query: `CREATE TABLE ${table} (thread_id String, msg_id String, ts DateTime64(6, 'UTC'), text String, embedding Array(Float32)) ENGINE = MergeTree ORDER BY tuple()`,
    });
    await client.command({
      query: `INSERT INTO ${table} SELECT thread_id, msg_id, ts, text, embedding FROM ${src} FINAL
              WHERE namespace = {ns:String} AND deleted = 0 AND embed_error = '' ORDER BY ts LIMIT {n:UInt64}`,
      query_params: { ns: task.namespace, n: size },
    });
    await client.command({ query: `OPTIMIZE TABLE ${table} FINAL` });
    const buildMs = elapsedMs(t);
    const [info] = await rows<{ n: string }>(client, `SELECT count() AS n FROM ${table}`);
    const [parts] = await rows<{ n: string }>(client, `SELECT count() AS n FROM system.parts WHERE database = 'bench_raw_search' AND table = {t:String} AND active`, {
      t: `vectors_${size}`,
    });
    log(`raw search baseline: ${info?.n} rows in a plain MergeTree (${parts?.n} part)`);
    const bruteForce = await measure(
      `SELECT thread_id, msg_id, substringUTF8(text, 1, {chars:UInt32}) AS excerpt, cosineDistance(embedding, {q:Array(Float32)}) AS d
       FROM ${table} ORDER BY d ASC LIMIT {limit:UInt32}`,
      (i) => ({ q: vectors[i % vectors.length], chars: task.excerptChars, limit: task.limit }),
    );
    log(`  brute-force cosineDistance over ${info?.n} rows: p50 ${bruteForce.p50} ms, p95 ${bruteForce.p95} ms`);
    sizes.push({ rows: Number(info?.n ?? 0), bruteForce, build: { ms: Math.round(buildMs), parts: Number(parts?.n ?? 0) } });
  }
  const options = await searchOptions(client, sizes.length ? `bench_raw_search.vectors_${task.sizes[task.sizes.length - 1]}` : '', vectors, task, log);
  // Loom's own first stage (the statement conversation.search runs; the latest-version pick
  // that follows it runs in the gateway), on its own table.
  const loomQuery = (): string =>
    vectorCandidatesStatement(src, ['namespace IN {namespaces:Array(String)}', "embed_error = ''", 'model = {model:String}'], ['agent = {agent:String}']);
  const loomParams = (i: number): Record<string, unknown> => ({
    q: vectors[i % vectors.length],
    q16: quantize(vectors[i % vectors.length]!),
    candidates: candidatesFor(task.limit),
    namespaces: [task.namespace],
    agent: 'default',
    model: embedder.model,
    floor: task.floor,
    limit: task.limit,
    chars: task.excerptChars,
  });
  const loomSql = await measure(loomQuery(), loomParams);
  log(`  Loom's search statement on its own table: p50 ${loomSql.p50} ms, p95 ${loomSql.p95} ms`);
  const [lt] = await rows<{ n: string }>(client, `SELECT count() AS n FROM ${src} WHERE namespace = {ns:String}`, { ns: task.namespace });
  const [lp] = await rows<{ n: string }>(client, `SELECT count() AS n FROM system.parts WHERE database = {db:String} AND table = 'conversation_embeddings' AND active`, {
    db: task.loomDatabase,
  });
  return {
    sizes,
    options,
    loomSql,
    loomTable: { rows: Number(lt?.n ?? 0), activeParts: Number(lp?.n ?? 0) },
    queryEmbedMs: summarize(embedSamples),
  };
}

/**
 * Options for the search target, measured on the same rows and query vectors as the brute-force
 * baseline: not selecting the excerpt during the scan, BFloat16 vectors, and ClickHouse's HNSW
 * vector_similarity index (experimental; its build cost is paid on insert and merge).
 */
/** The largest table the HNSW option is built over (see searchOptions). */
const HNSW_MAX_ROWS = 200_000;

async function searchOptions(
  client: ClickHouseClient,
  table: string,
  vectors: number[][],
  task: Extract<RawTask, { kind: 'search-baseline' }>,
  log: Log,
): Promise<SearchOption[]> {
  if (!table) return [];
  const run = async (sql: string, settings: Record<string, number> = {}): Promise<{ latency: LatencySummary; ids: string[][] }> => {
    const ids: string[][] = [];
    const samples: number[] = [];
    for (let i = 0; i < task.warmup; i += 1) await client.query({ query: sql, query_params: { q: vectors[i % vectors.length], limit: task.limit }, format: 'JSONEachRow', clickhouse_settings: settings }).then((r) => r.json());
    for (const q of vectors) {
      const t = process.hrtime.bigint();
      const result = await client.query({ query: sql, query_params: { q, limit: task.limit }, format: 'JSONEachRow', clickhouse_settings: settings });
      const got = await result.json<{ msg_id: string }>();
      samples.push(elapsedMs(t));
      ids.push(got.map((g) => g.msg_id));
    }
    return { latency: summarize(samples), ids };
  };
  const exact = await run(`SELECT msg_id, cosineDistance(embedding, {q:Array(Float32)}) AS d FROM ${table} ORDER BY d ASC LIMIT {limit:UInt32}`);
  const overlap = (ids: string[][]): number => {
    let sum = 0;
    ids.forEach((got, i) => {
      const want = new Set(exact.ids[i] ?? []);
      sum += want.size ? got.filter((g) => want.has(g)).length / want.size : 1;
    });
    return Math.round((sum / Math.max(1, ids.length)) * 1000) / 1000;
  };
  const out: SearchOption[] = [{ name: 'brute force, ids and score only (no excerpt during the scan)', latency: exact.latency, overlapWithExact: 1 }];
  log(`  option: ${out[0]!.name}: p50 ${exact.latency.p50} ms, p95 ${exact.latency.p95} ms`);
  try {
    // Loom's two stages (Int8 ranking of every row, exact Float32 re-score of the best), with
    // the columns and granularity of Loom's table, on the same rows: overlap shows what the
    // first stage costs in recall.
    await client.command({
      query: `CREATE TABLE ${table}_q8 (msg_id String, embedding Array(Float32),
                embedding_scale Float32 MATERIALIZED if(length(embedding) = 0, 0, arrayMax(arrayMap(x -> abs(x), embedding)) / 127),
                embedding_q8 Array(Int8) MATERIALIZED if(embedding_scale = 0, arrayMap(x -> toInt8(0), embedding), arrayMap(x -> toInt8(round(x / embedding_scale)), embedding)))
              ENGINE = MergeTree ORDER BY tuple() SETTINGS index_granularity = 64`,
    });
    const t = process.hrtime.bigint();
    await client.command({ query: `INSERT INTO ${table}_q8 (msg_id, embedding) SELECT msg_id, embedding FROM ${table}` });
    await client.command({ query: `OPTIMIZE TABLE ${table}_q8 FINAL` });
    const buildMs = Math.round(elapsedMs(t));
    const ids: string[][] = [];
    const samples: number[] = [];
    const sql = `SELECT msg_id, cosineDistance(embedding, {q:Array(Float32)}) AS d FROM (
                   SELECT msg_id, embedding FROM ${table}_q8 ORDER BY dotProduct(embedding_q8, {q16:Array(Int16)}) * embedding_scale DESC LIMIT {candidates:UInt32})
                 ORDER BY d ASC LIMIT {limit:UInt32}`;
    for (const [i, q] of [...vectors.slice(0, task.warmup), ...vectors].entries()) {
      const started = process.hrtime.bigint();
      const result = await client.query({ query: sql, query_params: { q, q16: quantize(q), candidates: candidatesFor(task.limit), limit: task.limit }, format: 'JSONEachRow' });
      const got = await result.json<{ msg_id: string }>();
      if (i < task.warmup) continue;
      samples.push(elapsedMs(started));
      ids.push(got.map((g) => g.msg_id));
    }
    const latency = summarize(samples);
    out.push({ name: `Loom's two stages: Int8 ranking, exact re-score of the best ${candidatesFor(task.limit)} (granularity 64)`, latency, overlapWithExact: overlap(ids), buildMs });
    log(`  option: Int8 + exact re-score: p50 ${latency.p50} ms, p95 ${latency.p95} ms, top-10 overlap ${overlap(ids)}`);
  } catch (error) {
    log(`  option Int8 + re-score failed: ${error instanceof Error ? error.message.slice(0, 160) : String(error)}`);
  }
  try {
    await client.command({ query: `CREATE TABLE ${table}_bf16 (msg_id String, embedding Array(BFloat16)) ENGINE = MergeTree ORDER BY tuple()` });
    const t = process.hrtime.bigint();
    await client.command({ query: `INSERT INTO ${table}_bf16 SELECT msg_id, embedding FROM ${table}` });
    await client.command({ query: `OPTIMIZE TABLE ${table}_bf16 FINAL` });
    const buildMs = Math.round(elapsedMs(t));
    const r = await run(`SELECT msg_id, cosineDistance(embedding, {q:Array(Float32)}) AS d FROM ${table}_bf16 ORDER BY d ASC LIMIT {limit:UInt32}`);
    out.push({ name: 'brute force over Array(BFloat16) vectors', latency: r.latency, overlapWithExact: overlap(r.ids), buildMs });
    log(`  option: BFloat16: p50 ${r.latency.p50} ms, p95 ${r.latency.p95} ms, top-10 overlap ${overlap(r.ids)}`);
  } catch (error) {
    log(`  option BFloat16 not available: ${error instanceof Error ? error.message.slice(0, 160) : String(error)}`);
  }
  // Building the index over 1M vectors took longer than the rest of the run together (ADR 0028
  // measured it at 100k); at larger sizes the option is left out and the log says so.
  if (vectors.length > 0 && task.sizes[task.sizes.length - 1]! > HNSW_MAX_ROWS) {
    log(`  option HNSW left out: ${task.sizes[task.sizes.length - 1]} rows is more than the ${HNSW_MAX_ROWS} it is built for here (ADR 0028)`);
    return out;
  }
  try {
    const settings = { allow_experimental_vector_similarity_index: 1 };
    const dims = vectors[0]?.length ?? 384;
    await client.command({
      query: `CREATE TABLE ${table}_hnsw (msg_id String, embedding Array(Float32), INDEX vi embedding TYPE vector_similarity('hnsw', 'cosineDistance', ${dims})) ENGINE = MergeTree ORDER BY tuple()`,
      clickhouse_settings: settings,
    });
    const t = process.hrtime.bigint();
    await client.command({ query: `INSERT INTO ${table}_hnsw SELECT msg_id, embedding FROM ${table}`, clickhouse_settings: settings });
    const buildMs = Math.round(elapsedMs(t));
    const r = await run(`SELECT msg_id, cosineDistance(embedding, {q:Array(Float32)}) AS d FROM ${table}_hnsw ORDER BY d ASC LIMIT {limit:UInt32}`, settings);
    out.push({ name: "HNSW vector_similarity index (experimental; no FINAL, filters applied after the index)", latency: r.latency, overlapWithExact: overlap(r.ids), buildMs });
    log(`  option: HNSW: p50 ${r.latency.p50} ms, p95 ${r.latency.p95} ms, top-10 overlap ${overlap(r.ids)}, index built in ${buildMs} ms`);
  } catch (error) {
    log(`  option HNSW not available: ${error instanceof Error ? error.message.slice(0, 160) : String(error)}`);
  }
  return out;
}
