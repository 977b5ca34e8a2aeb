import { ConfigVariables } from '@loom/platform';
import { join } from 'node:path';
import type { EngineCosts, InsertBaselineResult } from '../raw/tasks';
import { runRawJob } from '../raw/runner';
import { startEmbeddedLoom, startSplitLoom, type LoomInstance } from '../topology/loom';
import { histogramTotals, type LoomClient } from '../util/http';
import { progress } from '../util/log';
import { round } from '../util/stats';
import { cpuPer, readThreadCpu, type ThreadCpu } from '../util/thread-cpu';
import { drive, type DriveResult } from '../workload/driver';
import { TurnGenerator } from '../workload/text';
import type { BenchContext } from './context';

const NAMESPACE = 'bench-append';
const THREADS_PER_PHASE = 2_000;
const LIST_SAMPLE_THREADS = 40;

export interface AppendPhase extends DriveResult {
  /** Mean rows per transcript insert Loom made during the phase (from /metrics). */
  meanRowsPerInsert: number | null;
  /**
   * Embedded, on Linux: CPU ms per acknowledged turn over the phase, by Loom's thread groups,
   * and the bench's own process (the load generator). Their sum bounds what the machine's cores
   * can serve, whatever the gateway thread does.
   */
  cpuMsPerTurn?: ThreadCpu & { loader: number };
}

export interface Verification {
  /** Appends that answered stored:true. */
  acknowledged: number;
  /** Rows in the transcript table (no FINAL): every version of every row. */
  rowsInTable: number;
  rowsFinal: number;
  /** Acknowledged turns with no row. */
  missing: number;
  /** Keys with more than one row (written twice). */
  duplicated: number;
  /** Rows whose append did not answer stored:true (e.g. the client gave up). */
  unacknowledged: number;
  embeddingRows: number;
  embeddingFailures: number;
  highTurns: number;
  activeParts: Record<string, number>;
  /** conversation.list paging over a sample of threads, compared with what was acknowledged. */
  listSample: { threads: number; expected: number; listed: number; missing: number; unexpected: number };
  /** Lines Loom printed mentioning errors or "too many parts". */
  tooManyPartsLines: number;
  errorLines: string[];
  missingSample: string[];
}

export interface LingerProbe {
  lingerMs: number;
  isDefault?: boolean;
  result: AppendPhase;
}

export interface AppendTopologyResult {
  topology: 'embedded' | 'split';
  phases: AppendPhase[];
  /** Embedded only: concurrency 64 again on a fresh Loom with a longer LOOM_APPEND_BATCH_LINGER_MS (a config knob, no code change). */
  lingerProbes?: LingerProbe[];
  verification: Verification;
  baseline: InsertBaselineResult;
  engineCosts: EngineCosts;
}

export interface AppendPartResult {
  embedded?: AppendTopologyResult;
  split?: AppendTopologyResult;
}

interface Durations {
  loom: Record<number, number>;
  raw: Record<number, number>;
}

function durations(quick: boolean, topology: 'embedded' | 'split'): Durations {
  if (quick) return { loom: { 1: 3_000, 16: 3_000, 64: 6_000 }, raw: { 1: 2_000, 16: 2_000, 64: 3_000 } };
  if (topology === 'embedded') return { loom: { 1: 15_000, 16: 15_000, 64: 60_000 }, raw: { 1: 10_000, 16: 10_000, 64: 20_000 } };
  return { loom: { 1: 10_000, 16: 10_000, 64: 30_000 }, raw: { 1: 8_000, 16: 8_000, 64: 15_000 } };
}

export async function runAppendPart(ctx: BenchContext): Promise<AppendPartResult> {
  const out: AppendPartResult = {};
  out.embedded = await runTopology(ctx, 'embedded');
  out.split = await runTopology(ctx, 'split');
  return out;
}

async function runTopology(ctx: BenchContext, topology: 'embedded' | 'split'): Promise<AppendTopologyResult> {
  const d = durations(ctx.options.quick, topology);
  const database = `bench_append_${topology}`;
  progress(`append (${topology}): starting Loom with the hashed embedder`);
  const loom =
    topology === 'embedded'
      ? await startEmbeddedLoom({ dataDir: ctx.dir(`append-${topology}`), database, provider: 'hashed' })
      : await startSplitLoom({ workDir: ctx.dir(`append-${topology}`), database, provider: 'hashed', embedders: 2 });
  let closed = false;
  try {
    const client = loom.client(256);
    await client.ok('conversation.set_logging', { namespace: NAMESPACE, enabled: true });
    const acknowledged = new Map<string, Set<string>>();
    const phases: AppendPhase[] = [];
    for (const concurrency of [1, 16, 64]) {
      const durationMs = d.loom[concurrency]!;
      progress(`append (${topology}): concurrency ${concurrency} for ${durationMs / 1000} s`);
      phases.push(await appendPhase(client, concurrency, durationMs, acknowledged, topology, loom.pid));
      const p = phases[phases.length - 1]!;
      progress(
        `  -> ${p.throughput} turns/s (lowest 5 s window ${p.windowRates.length ? `${Math.min(...p.windowRates)}/s` : 'n/a: phase under 5 s'}), p50 ${p.latencyMs.p50} ms, p99 ${p.latencyMs.p99} ms, ` +
          `${p.failed} failed, ~${p.meanRowsPerInsert ?? '?'} rows per insert`,
      );
    }
    progress(`append (${topology}): paging conversation.list over ${LIST_SAMPLE_THREADS} threads`);
    const listSample = await checkListSample(client, acknowledged);
    client.close();
    await loom.stopLoom();
    const verification = await verifyRows(loom, acknowledged, listSample);
    progress(
      `append (${topology}): ${verification.acknowledged} acknowledged, ${verification.rowsInTable} rows, ${verification.missing} missing, ` +
        `${verification.duplicated} duplicated, ${verification.unacknowledged} unacknowledged; parts ${JSON.stringify(verification.activeParts)}`,
    );
    if (topology === 'embedded') {
      await loom.close();
      closed = true;
    }
    progress(`append (${topology}): raw-engine baseline (one INSERT per turn through @clickhouse/client${topology === 'embedded' ? ' on chDB' : ' over HTTP'})`);
    // Statement costs first, on a quiet engine of their own (embedded: a fresh directory), then the
    // INSERT baseline: measured after the baseline, the costs carry its merges and page-cache churn.
    const costsTarget = topology === 'embedded' ? { chdbPath: join(ctx.dir('append-costs-embedded'), 'chdb') } : { url: loom.clickhouseUrl! };
    const [engineCosts] = await runRawJob<[EngineCosts]>(`costs-${topology}`, {
      target: costsTarget,
      tasks: [{ kind: 'engine-costs', database: `bench_costs_${topology}`, reps: ctx.options.quick ? 15 : 60, batchRows: 32, dims: 384, seed: 11 }],
    });
    const target = topology === 'embedded' ? { chdbPath: join(ctx.dir('append-raw-embedded'), 'chdb') } : { url: loom.clickhouseUrl! };
    const [baseline] = await runRawJob<[InsertBaselineResult]>(`raw-${topology}`, {
      target,
      tasks: [
        { kind: 'insert-baseline', database: `bench_raw_${topology}`, phases: [1, 16, 64].map((c) => ({ concurrency: c, durationMs: d.raw[c]! })), seed: 7, threads: THREADS_PER_PHASE },
      ],
    });
    const lingerProbes = topology === 'embedded' && !ctx.options.quick ? await runLingerProbes(ctx) : undefined;
    return { topology, phases, verification, baseline, engineCosts, ...(lingerProbes ? { lingerProbes } : {}) };
  } finally {
    if (!closed) await loom.close();
  }
}

/** How much of the gap a config knob closes: longer micro-batch linger, so each insert carries more rows. */
async function runLingerProbes(ctx: BenchContext): Promise<LingerProbe[]> {
  const probes: LingerProbe[] = [];
  // The default is probed too: a fresh Loom for 20 s is not the same as the 60 s phase above.
  const fallback = Number(ConfigVariables.find((v) => v.name === 'LOOM_APPEND_BATCH_LINGER_MS')?.default ?? '1');
  const defaultLinger = Number.isFinite(fallback) ? fallback : 1;
  for (const lingerMs of [...new Set([defaultLinger, 10, 30])]) {
    progress(`append (embedded): probe with LOOM_APPEND_BATCH_LINGER_MS=${lingerMs}${lingerMs === defaultLinger ? ' (the default)' : ''}, fresh Loom, concurrency 64 for 20 s`);
    const loom = await startEmbeddedLoom({
      dataDir: ctx.dir(`append-linger-${lingerMs}`),
      database: `bench_append_linger_${lingerMs}`,
      provider: 'hashed',
      env: { LOOM_APPEND_BATCH_LINGER_MS: String(lingerMs) },
    });
    try {
      const client = loom.client(256);
      await client.ok('conversation.set_logging', { namespace: NAMESPACE, enabled: true });
      const result = await appendPhase(client, 64, 20_000, new Map(), 'embedded', loom.pid);
      client.close();
      progress(`  -> ${result.throughput} turns/s, p50 ${result.latencyMs.p50} ms, p99 ${result.latencyMs.p99} ms, ~${result.meanRowsPerInsert ?? '?'} rows per insert`);
      probes.push({ lingerMs, isDefault: lingerMs === defaultLinger, result });
    } finally {
      await loom.close();
    }
  }
  return probes;
}

async function appendPhase(
  client: LoomClient,
  concurrency: number,
  durationMs: number,
  acknowledged: Map<string, Set<string>>,
  topology: 'embedded' | 'split',
  pid?: number,
): Promise<AppendPhase> {
  const gen = new TurnGenerator(1000 + concurrency);
  const before = engineWrites(await client.metrics(), topology);
  let cpuBefore: { loom: ThreadCpu; loader: NodeJS.CpuUsage } | undefined;
  const result = await drive({
    // The readings bracket the measured window only (drive calls this after the warm-up).
    onStart: () => {
      const loom = readThreadCpu(pid);
      if (loom) cpuBefore = { loom, loader: process.cpuUsage() };
    },
    concurrency,
    durationMs,
    warmupOps: concurrency * 2,
    onProgress: (done, ms, rate) => progress(`  ${done} appends in ${Math.round(ms / 1000)} s (${rate.toFixed(0)}/s)`),
    op: async (seq) => {
      const t = gen.int(THREADS_PER_PHASE);
      const threadId = `c${concurrency}-t${t}`;
      const msgId = `m${concurrency}-${seq}`;
      const turn = gen.turn(t % TurnGenerator.topicCount);
      const r = await client.call<{ stored?: boolean; reason?: string; error?: { code: string } }>('conversation.append', {
        namespace: NAMESPACE,
        thread_id: threadId,
        msg_id: msgId,
        role: gen.next() < 0.5 ? 'user' : 'assistant',
        content: turn.content,
        user_id: `u${t % 20}`,
        run_id: `run-${t}`,
        metadata: { client: 'bench', concurrency },
      });
      if (r.status === 200 && r.body.stored === true) {
        let set = acknowledged.get(threadId);
        if (!set) acknowledged.set(threadId, (set = new Set()));
        set.add(msgId);
        return { ok: true };
      }
      return { ok: false, error: r.status === 200 ? `stored:false (${r.body.reason})` : `${r.status} ${r.body.error?.code ?? ''}`.trim() };
    },
  });
  const cpuMsPerTurn = cpuBefore ? cpuSince(cpuBefore, pid, result.ok) : undefined;
  const after = engineWrites(await client.metrics(), topology);
  const inserts = after.count - before.count;
  return { ...result, meanRowsPerInsert: inserts > 0 ? round((after.sum - before.sum) / inserts, 1) : null, ...(cpuMsPerTurn ? { cpuMsPerTurn } : {}) };
}

/** CPU per turn since `before`, Loom's threads by group and the bench's own process; undefined if Loom's threads cannot be read. */
function cpuSince(before: { loom: ThreadCpu; loader: NodeJS.CpuUsage }, pid: number | undefined, turns: number): AppendPhase['cpuMsPerTurn'] {
  const loom = readThreadCpu(pid);
  if (!loom) return undefined;
  const loader = process.cpuUsage(before.loader);
  return { ...cpuPer(before.loom, loom, turns), loader: (loader.user + loader.system) / 1000 / turns };
}

/**
 * Turns per engine INSERT into the transcript table. Embedded, appends reach the engine in
 * write-behind flushes (one INSERT per table, transcript and embedding rows counted together,
 * hence the halving); split, each transcript batch is one INSERT.
 */
function engineWrites(metrics: string, topology: 'embedded' | 'split'): { sum: number; count: number } {
  if (topology === 'split') return histogramTotals(metrics, 'loom_append_batch_rows');
  const flushes = histogramTotals(metrics, 'loom_write_behind_flush_rows');
  return { sum: flushes.sum / 2, count: flushes.count };
}

async function checkListSample(client: LoomClient, acknowledged: Map<string, Set<string>>): Promise<Verification['listSample']> {
  const threads = [...acknowledged.keys()].sort().filter((_, i, all) => i % Math.max(1, Math.floor(all.length / LIST_SAMPLE_THREADS)) === 0).slice(0, LIST_SAMPLE_THREADS);
  let expected = 0;
  let listed = 0;
  let missing = 0;
  let unexpected = 0;
  for (const thread of threads) {
    const want = acknowledged.get(thread)!;
    const seen = new Set<string>();
    let cursor: string | null | undefined;
    do {
      const page = await client.ok<{ messages: Array<{ msg_id: string }>; next_cursor: string | null }>('conversation.list', {
        namespace: NAMESPACE,
        thread_id: thread,
        limit: 200,
        ...(cursor ? { cursor } : {}),
      });
      for (const m of page.messages) {
        if (seen.has(m.msg_id)) unexpected += 1; // listed twice
        seen.add(m.msg_id);
        listed += 1;
      }
      cursor = page.next_cursor;
    } while (cursor);
    expected += want.size;
    for (const id of want) if (!seen.has(id)) missing += 1;
    for (const id of seen) if (!want.has(id)) unexpected += 1;
  }
  return { threads: threads.length, expected, listed, missing, unexpected };
}

async function verifyRows(loom: LoomInstance, acknowledged: Map<string, Set<string>>, listSample: Verification['listSample']): Promise<Verification> {
  const db = loom.database;
  const target = loom.topology === 'embedded' ? { chdbPath: join(loom.dataDir!, 'chdb') } : { url: loom.clickhouseUrl! };
  progress(`append (${loom.topology}): counting rows in the engine (${loom.topology === 'embedded' ? 'Loom stopped, its chDB directory opened in a child process' : 'through the ClickHouse endpoint'})`);
  const [sql] = await runRawJob<[Record<string, Array<Record<string, string | number>>>]>(`verify-${loom.topology}`, {
    target,
    tasks: [
      {
        kind: 'sql',
        statements: [
          { name: 'keys', sql: `SELECT thread_id, msg_id, count() AS n FROM ${db}.conversations WHERE namespace = {ns:String} GROUP BY thread_id, msg_id`, params: { ns: NAMESPACE } },
          { name: 'final', sql: `SELECT count() AS n, countIf(is_high) AS high FROM ${db}.conversations FINAL WHERE namespace = {ns:String}`, params: { ns: NAMESPACE } },
          {
            name: 'embeddings',
            sql: `SELECT count() AS n, countIf(embed_error != '') AS failed FROM ${db}.conversation_embeddings FINAL WHERE namespace = {ns:String}`,
            params: { ns: NAMESPACE },
          },
          { name: 'parts', sql: `SELECT table, count() AS n FROM system.parts WHERE database = {db:String} AND active GROUP BY table`, params: { db } },
        ],
      },
    ],
  });
  const keys = sql!['keys'] ?? [];
  let rowsInTable = 0;
  let duplicated = 0;
  let unacknowledged = 0;
  const found = new Map<string, Set<string>>();
  for (const k of keys) {
    const n = Number(k['n']);
    rowsInTable += n;
    if (n > 1) duplicated += 1;
    const thread = String(k['thread_id']);
    const msg = String(k['msg_id']);
    if (!acknowledged.get(thread)?.has(msg)) unacknowledged += 1;
    let set = found.get(thread);
    if (!set) found.set(thread, (set = new Set()));
    set.add(msg);
  }
  let acked = 0;
  let missing = 0;
  const missingSample: string[] = [];
  for (const [thread, ids] of acknowledged) {
    for (const id of ids) {
      acked += 1;
      if (!found.get(thread)?.has(id)) {
        missing += 1;
        if (missingSample.length < 5) missingSample.push(`${thread}/${id}`);
      }
    }
  }
  const activeParts: Record<string, number> = {};
  for (const p of sql!['parts'] ?? []) activeParts[String(p['table'])] = Number(p['n']);
  const watched = loom.watchedLines();
  return {
    acknowledged: acked,
    rowsInTable,
    rowsFinal: Number(sql!['final']?.[0]?.['n'] ?? 0),
    missing,
    duplicated,
    unacknowledged,
    embeddingRows: Number(sql!['embeddings']?.[0]?.['n'] ?? 0),
    embeddingFailures: Number(sql!['embeddings']?.[0]?.['failed'] ?? 0),
    highTurns: Number(sql!['final']?.[0]?.['high'] ?? 0),
    activeParts,
    listSample,
    tooManyPartsLines: watched.filter((l) => /too many parts|TOO_MANY_PARTS/i.test(l)).length,
    errorLines: watched.slice(0, 10).map((l) => l.slice(0, 300)),
    missingSample,
  };
}
