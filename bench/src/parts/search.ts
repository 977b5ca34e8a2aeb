import { execSync } from 'node:child_process';
import { join } from 'node:path';
import type { SearchBaselineResult } from '../raw/tasks';
import { runRawJob } from '../raw/runner';
import { startEmbeddedLoom } from '../topology/loom';
import type { LoomClient } from '../util/http';
import { progress } from '../util/log';
import { round, summarize, type LatencySummary } from '../util/stats';
import { drive, type DriveResult } from '../workload/driver';
import { TurnGenerator } from '../workload/text';
import type { BenchContext } from './context';

const NAMESPACE = 'bench-search';
const THREADS = 5_000;

export interface SearchAtSize {
  /** Turns appended (acknowledged) in the namespace when measured. */
  turns: number;
  /** Namespace-wide vector search (`search_mode: "vector"`), default floor, one query at a time. */
  namespaceWide: LatencySummary;
  /**
   * The same queries in hybrid mode (vector + BM25 fused, the default since issue 10) and in
   * lexical mode, namespace-wide and thread-scoped. Absent in runs before issue 10.
   */
  hybrid?: { namespaceWide: LatencySummary; threadScoped: LatencySummary; meanHits: number; modes: Record<string, number> };
  lexical?: { namespaceWide: LatencySummary };
  /**
   * Hybrid again on the same queries once the kept postings (ADR 0039) have read the terms the
   * first passes asked (a vocabulary the namespace has seen before): `hybrid` above is the first
   * ask of each word. Absent in runs before ADR 0040.
   */
  hybridHeld?: { namespaceWide: LatencySummary; threadScoped: LatencySummary; meanHits: number; modes: Record<string, number>; postings: number; settleMs: number };
  /** Search limited to one thread. */
  threadScoped: LatencySummary;
  /** Namespace-wide at concurrency 8: throughput and latency. */
  concurrent: { concurrency: number; throughput: number; latencyMs: LatencySummary };
  meanHits: number;
  vectorMode: number;
  queries: number;
  /** How long the load's background merges took to finish before measuring, and the parts left. */
  settle?: { ms: number; activeParts: number; merged: boolean };
  /**
   * The namespace's vectors read into Loom's memory before measuring (ADR 0038), when it keeps
   * them; `firstMs` is the search that started the reads (a cold namespace's first search).
   */
  kept?: { ms: number; rows: number; firstMs?: number; firstStatus?: number };
  /** Reading threads back at the same size (no target): the newest 20 threads, and one thread's turns. Absent in runs before they were measured. */
  reads?: { threads: LatencySummary; list: LatencySummary };
}

export interface SearchPartResult {
  load: Array<{ toTurns: number; result: DriveResult }>;
  sizes: SearchAtSize[];
  baseline: SearchBaselineResult;
  queriesSample: string[];
  /** The size whose load or measurement failed: the sizes before it are still reported. */
  failedAt?: { turns: number; error: string };
}

export async function runSearchPart(ctx: BenchContext): Promise<SearchPartResult> {
  const quick = ctx.options.quick;
  const sizes = ctx.options.searchSizes?.length ? [...ctx.options.searchSizes].sort((a, b) => a - b) : quick ? [2_000, 5_000] : ctx.options.search1m ? [10_000, 100_000, 1_000_000] : [10_000, 100_000];
  const queryCount = quick ? 60 : 200;
  const gen = new TurnGenerator(4242);
  const queries = Array.from({ length: queryCount }, (_, i) => gen.query(i % TurnGenerator.topicCount));
  const database = 'bench_search';
  progress(`search: starting Loom (embedded, hashed); sizes ${sizes.join(', ')}`);
  const loom = await startEmbeddedLoom({ dataDir: ctx.dir('search'), database, provider: 'hashed' });
  let stopped = false;
  try {
    const client = loom.client(128);
    await client.ok('conversation.set_logging', { namespace: NAMESPACE, enabled: true });
    const load: SearchPartResult['load'] = [];
    const results: SearchAtSize[] = [];
    let loaded = 0;
    let seqBase = 0;
    const loadGen = new TurnGenerator(99);
    let failedAt: SearchPartResult['failedAt'];
    for (const size of sizes) {
      try {
      const want = size - loaded;
      progress(`search: loading ${want} turns through conversation.append (concurrency 64) to reach ${size}`);
      const result = await drive({
        concurrency: 64,
        totalOps: want,
        progressEveryMs: 10_000,
        onProgress: (done, ms, rate) => progress(`  ${done}/${want} in ${Math.round(ms / 1000)} s (${rate.toFixed(0)}/s)`),
        op: async (seq) => {
          const t = loadGen.int(THREADS);
          const turn = loadGen.turn(t % TurnGenerator.topicCount);
          const r = await client.call<{ stored?: boolean }>('conversation.append', {
            namespace: NAMESPACE,
            thread_id: `s-t${t}`,
            msg_id: `s-${seqBase + seq}`,
            role: loadGen.next() < 0.5 ? 'user' : 'assistant',
            content: turn.content,
          });
          return r.status === 200 && r.body.stored ? { ok: true } : { ok: false, error: `${r.status}` };
        },
      });
      seqBase += want;
      loaded += result.ok;
      load.push({ toTurns: size, result });
      progress(`  loaded: ${loaded} turns (${result.throughput}/s, ${result.failed} failed)`);
      const settle = await settleMerges(client);
      // The figure is search over turns at rest: the bulk load just written (about 1 GB at 100k
      // turns) is flushed to disk first, as it would long be in a deployment that grew to this size.
      execSync('sync');
      progress(`  background merges ${settle.merged ? 'settled' : 'still running'} after ${Math.round(settle.ms / 1000)} s; ${settle.activeParts} active parts in conversation_embeddings`);
      // Searches rank on kept vectors and postings once the namespace's copies are read (ADR 0038, 0041):
      // the first hybrid search starts both reads, which run in the background; measured at rest, after them.
      // A cold namespace's first search is a figure of its own: a user waits for it.
      const kept = await settleKeptVectors(client, () => client.call('conversation.search', { namespace: NAMESPACE, namespace_scope: 'namespace', query: queries[0], search_mode: 'hybrid' }, 600_000));
      progress(`  first search ${kept.firstMs} ms (HTTP ${kept.firstStatus}); kept vectors: ${kept.rows} rows read into memory in ${Math.round(kept.ms / 1000)} s`);
      results.push({ ...(await measure(client, loaded, queries)), settle, kept });
      const r = results[results.length - 1]!;
      progress(
        `search @ ${loaded} turns: p50 ${r.namespaceWide.p50} ms, p95 ${r.namespaceWide.p95} ms (namespace-wide); thread-scoped p95 ${r.threadScoped.p95} ms; ` +
          `${r.concurrent.throughput} searches/s at concurrency 8`,
      );
      // Logged as they are measured: a long run stopped before its results file still leaves them.
      if (r.hybrid) progress(`  hybrid @ ${loaded} turns: p50 ${r.hybrid.namespaceWide.p50} ms, p95 ${r.hybrid.namespaceWide.p95} ms; thread-scoped p95 ${r.hybrid.threadScoped.p95} ms`);
      if (r.lexical) progress(`  lexical @ ${loaded} turns: p50 ${r.lexical.namespaceWide.p50} ms, p95 ${r.lexical.namespaceWide.p95} ms`);
      } catch (err) {
        // A failure at 1M must not throw away the 10k and 100k figures measured before it.
        failedAt = { turns: size, error: String((err as Error)?.stack ?? err).slice(0, 2000) };
        progress(`search: FAILED at ${size} turns: ${String((err as Error)?.message ?? err)}; reporting the sizes measured before it`);
        break;
      }
    }
    if (results.length === 0) throw new Error(failedAt?.error ?? 'search: no size measured');
    client.close();
    await loom.stopLoom();
    stopped = true;
    progress('search: raw-engine baseline (brute-force cosineDistance over a plain MergeTree with the same rows, in a child process)');
    const [baseline] = await runRawJob<[SearchBaselineResult]>('raw-search', {
      target: { chdbPath: join(loom.dataDir!, 'chdb') },
      tasks: [
        {
          kind: 'search-baseline',
          loomDatabase: database,
          namespace: NAMESPACE,
          sizes: results.map((r) => r.turns),
          queries,
          warmup: 10,
          floor: 0.3,
          limit: 10,
          excerptChars: 240,
        },
      ],
    });
    return { load, sizes: results, baseline, queriesSample: queries.slice(0, 8), ...(failedAt ? { failedAt } : {}) };
  } finally {
    if (!stopped) await loom.close();
  }
}

/**
 * Steady state before measuring: a bulk load at full speed leaves ClickHouse merging parts for a
 * while, and those merges take the CPU a search needs. Waits (at most 3 minutes) until Loom's
 * /metrics shows no merge running three polls in a row.
 */
export async function settleMerges(client: LoomClient): Promise<{ ms: number; activeParts: number; merged: boolean }> {
  const started = Date.now();
  let quiet = 0;
  let activeParts = 0;
  while (Date.now() - started < 180_000) {
    const text = await client.metrics();
    const merges = Number(/^loom_storage_merges_running(?:\{[^}]*\})? (\d+)/m.exec(text)?.[1] ?? 'NaN');
    activeParts = Number(/^loom_storage_active_parts\{[^}]*table="conversation_embeddings"[^}]*\} (\d+)/m.exec(text)?.[1] ?? 0);
    quiet = merges === 0 ? quiet + 1 : 0;
    if (quiet >= 3) return { ms: Date.now() - started, activeParts, merged: true };
    await new Promise((r) => setTimeout(r, 1_000));
  }
  return { ms: Date.now() - started, activeParts, merged: false };
}

/** Starts the read of the namespace's kept vectors (a search) and waits until no read is running. */
export async function settleKeptVectors(client: LoomClient, trigger: () => Promise<{ ms: number; status: number }>): Promise<{ ms: number; rows: number; firstMs: number; firstStatus: number }> {
  const started = Date.now();
  const gauge = (text: string, name: string) => Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\d+)`, 'm').exec(text)?.[1] ?? 0);
  const first = await trigger();
  const firstMs = round(first.ms, 1);
  const firstStatus = first.status;
  while (Date.now() - started < 600_000) {
    const text = await client.metrics();
    if (gauge(text, 'loom_search_kept_loading') === 0) return { ms: Date.now() - started, rows: gauge(text, 'loom_search_kept_vectors'), firstMs, firstStatus };
    await new Promise((r) => setTimeout(r, 500));
  }
  return { ms: Date.now() - started, rows: -1, firstMs, firstStatus };
}

/** Waits until the kept postings stop growing (their idle-time term reads are done): the gauge unchanged for 3 s, at most 2 minutes. */
async function settleKeptPostings(client: LoomClient): Promise<{ ms: number; postings: number }> {
  const started = Date.now();
  const postings = async () => Number(/^loom_search_kept_postings(?:\{[^}]*\})? (\d+)/m.exec(await client.metrics())?.[1] ?? 0);
  let last = await postings();
  let stableSince = Date.now();
  while (Date.now() - started < 120_000 && Date.now() - stableSince < 3_000) {
    await new Promise((r) => setTimeout(r, 500));
    const now = await postings();
    if (now !== last) {
      last = now;
      stableSince = Date.now();
    }
  }
  return { ms: Date.now() - started, postings: last };
}

async function measure(client: LoomClient, turns: number, queries: string[]): Promise<Omit<SearchAtSize, 'settle'>> {
  const search = (body: Record<string, unknown>): Promise<{ ms: number; hits: number; mode: string }> =>
    client.call<{ hits: unknown[]; mode: string }>('conversation.search', { namespace: NAMESPACE, namespace_scope: 'namespace', limit: 10, ...body }).then((r) => {
      if (r.status !== 200) throw new Error(`search answered ${r.status}: ${JSON.stringify(r.body).slice(0, 200)}`);
      return { ms: r.ms, hits: r.body.hits.length, mode: r.body.mode };
    });
  for (let i = 0; i < 20; i += 1) await search({ query: queries[i % queries.length]!, search_mode: 'vector' });
  const wide: number[] = [];
  let hits = 0;
  let vector = 0;
  for (const q of queries) {
    const r = await search({ query: q, search_mode: 'vector' });
    wide.push(r.ms);
    hits += r.hits;
    if (r.mode === 'vector') vector += 1;
  }
  const scoped: number[] = [];
  for (let i = 0; i < Math.min(100, queries.length); i += 1) {
    const r = await search({ query: queries[i]!, thread_id: `s-t${(i * 37) % THREADS}`, search_mode: 'vector' });
    scoped.push(r.ms);
  }
  const hybrid = await measureMode(search, queries, 'hybrid');
  const lexical = await measureMode(search, queries, 'lexical');
  const held = await settleKeptPostings(client);
  const hybridHeld = { ...(await measureMode(search, queries, 'hybrid')), postings: held.postings, settleMs: held.ms };
  const concurrent = await drive({
    concurrency: 8,
    totalOps: queries.length,
    op: async (seq) => {
      await search({ query: queries[seq % queries.length]!, search_mode: 'vector' });
      return { ok: true };
    },
  });
  // Reading back: conversation.threads (newest 20) and conversation.list of one thread (its ~20 turns).
  const read = async (op: string, body: Record<string, unknown>): Promise<number> => {
    const r = await client.call(op, { namespace: NAMESPACE, ...body });
    if (r.status !== 200) throw new Error(`${op} answered ${r.status}: ${JSON.stringify(r.body).slice(0, 200)}`);
    return r.ms;
  };
  const threads: number[] = [];
  const list: number[] = [];
  for (let i = 0; i < 5; i += 1) await read('conversation.threads', {});
  for (let i = 0; i < 50; i += 1) threads.push(await read('conversation.threads', {}));
  for (let i = 0; i < 100; i += 1) list.push(await read('conversation.list', { thread_id: `s-t${(i * 53) % THREADS}` }));
  return {
    turns,
    reads: { threads: summarize(threads), list: summarize(list) },
    namespaceWide: summarize(wide),
    threadScoped: summarize(scoped),
    concurrent: { concurrency: 8, throughput: concurrent.throughput, latencyMs: concurrent.latencyMs },
    meanHits: round(hits / queries.length, 2),
    vectorMode: vector,
    queries: queries.length,
    hybrid,
    hybridHeld,
    lexical: { namespaceWide: lexical.namespaceWide },
  };
}

/** The same queries in one `search_mode`, namespace-wide and thread-scoped, one at a time. */
async function measureMode(
  search: (body: Record<string, unknown>) => Promise<{ ms: number; hits: number; mode: string }>,
  queries: string[],
  mode: 'hybrid' | 'lexical',
): Promise<NonNullable<SearchAtSize['hybrid']>> {
  for (let i = 0; i < 20; i += 1) await search({ query: queries[i % queries.length]!, search_mode: mode });
  const wide: number[] = [];
  const modes: Record<string, number> = {};
  let hits = 0;
  for (const q of queries) {
    const r = await search({ query: q, search_mode: mode });
    wide.push(r.ms);
    hits += r.hits;
    modes[r.mode] = (modes[r.mode] ?? 0) + 1;
  }
  const scoped: number[] = [];
  for (let i = 0; i < Math.min(100, queries.length); i += 1) scoped.push((await search({ query: queries[i]!, thread_id: `s-t${(i * 37) % THREADS}`, search_mode: mode })).ms);
  return { namespaceWide: summarize(wide), threadScoped: summarize(scoped), meanHits: round(hits / queries.length, 2), modes };
}
