import type { ClickHouseClient } from '@clickhouse/client';
import { HashedEmbeddingProvider } from '@loom/providers';
import { drive, type DriveResult } from '../workload/driver';
import { transcriptRow, TurnGenerator } from '../workload/text';
import { elapsedMs, summarize, type LatencySummary } from '../util/stats';
import { loomTableDdl, rows } from './engine';

export type RawTask =
  | { kind: 'sql'; statements: Array<{ name: string; sql: string; params?: Record<string, unknown> }> }
  | { kind: 'insert-baseline'; database: string; phases: Array<{ concurrency: number; durationMs: number }>; seed: number; threads: number }
  | { kind: 'engine-costs'; database: string; reps: number; batchRows: number; dims: number; seed: number }
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
  }
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
  const texts = makeBatch(B).map((r) => String(r['content']));
  entries.push(await time(`hashed embed of 1 turn (in JS, no engine)`, task.reps, async () => embedder.embed([texts[0]!])));
  entries.push(await time(`hashed embed of ${B} turns (in JS, no engine)`, task.reps, async () => embedder.embed(texts)));
  for (const [k, v] of entries) out[k] = v;
  return out;
}

export interface SearchBaselineResult {
  sizes: Array<{ rows: number; bruteForce: LatencySummary; build: { ms: number; parts: number } }>;
  /** Loom's exact vector-search SQL on Loom's own table (FINAL, filters, floor), at the loaded size. */
  loomSql: LatencySummary;
  loomSqlNoFinal: LatencySummary;
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
  const loomQuery = (final: boolean): string =>
    `SELECT namespace, thread_id, msg_id, agent, role, run_id, user_id, ts,
            substringUTF8(text, 1, {chars:UInt32}) AS excerpt,
            1 - cosineDistance(embedding, {q:Array(Float32)}) AS score
     FROM ${src} ${final ? 'FINAL' : ''}
     WHERE deleted = 0 AND namespace IN {namespaces:Array(String)} AND agent = {agent:String} AND embed_error = '' AND model = {model:String}
     HAVING score >= {floor:Float64}
     ORDER BY score DESC, ts DESC
     LIMIT {limit:UInt32}`;
  const loomParams = (i: number): Record<string, unknown> => ({
    q: vectors[i % vectors.length],
    namespaces: [task.namespace],
    agent: 'default',
    model: embedder.model,
    floor: task.floor,
    limit: task.limit,
    chars: task.excerptChars,
  });
  const loomSql = await measure(loomQuery(true), loomParams);
  log(`  Loom's search SQL (FINAL) on its own table: p50 ${loomSql.p50} ms, p95 ${loomSql.p95} ms`);
  const loomSqlNoFinal = await measure(loomQuery(false), loomParams);
  log(`  Loom's search SQL without FINAL: p50 ${loomSqlNoFinal.p50} ms, p95 ${loomSqlNoFinal.p95} ms`);
  const [lt] = await rows<{ n: string }>(client, `SELECT count() AS n FROM ${src} WHERE namespace = {ns:String}`, { ns: task.namespace });
  const [lp] = await rows<{ n: string }>(client, `SELECT count() AS n FROM system.parts WHERE database = {db:String} AND table = 'conversation_embeddings' AND active`, {
    db: task.loomDatabase,
  });
  return {
    sizes,
    loomSql,
    loomSqlNoFinal,
    loomTable: { rows: Number(lt?.n ?? 0), activeParts: Number(lp?.n ?? 0) },
    queryEmbedMs: summarize(embedSamples),
  };
}
