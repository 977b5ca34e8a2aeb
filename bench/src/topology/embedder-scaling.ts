import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { execSync } from 'node:child_process';
import { Subjects, type EmbedBatchFailure, type EmbedBatchResponse } from '@loom/contracts';
import { NatsRequestClient } from '@loom/transport';
import { startSlowEmbeddingsServer } from './slow-embeddings-server';
import { progress } from '../util/log';
import { RESULTS_DIR, requireBuilt, snapshotDist } from '../util/paths';
import { round } from '../util/stats';
import { drive, type DriveResult } from '../workload/driver';
import { TurnGenerator } from '../workload/text';
import { startSplitLoom } from './loom';

/**
 * [issue 11] Does adding embedder replicas raise throughput when the embedding provider is the
 * bottleneck? The split topology with 1, 2 and 4 embedders in front of a loopback
 * OpenAI-compatible server that takes PROVIDER_MS per call, whatever its size (a remote
 * provider's round trip). Each replica makes at most CONCURRENCY calls of at most MAX_BATCH
 * texts at once, so one replica's ceiling is CONCURRENCY * MAX_BATCH / PROVIDER_MS texts a
 * second: the provider, not this 2-core machine's CPU, bounds a replica. Two phases per count:
 * - embed: `loom.embed.batch.v1` requests of one text straight over NATS (what the gateway sends);
 * - append: `conversation.append` through the gateway, which waits for the turn's vector.
 * While a phase runs, the replicas' /metrics are read twice a second: the queue depth and calls
 * in flight are what deploy/keda/ scales on.
 */
const PROVIDER_MS = Number(process.env['BENCH_PROVIDER_MS'] ?? 50);
// One call of one text at a time: a replica's ceiling (20 texts/s at 50 ms) stays far below what
// this shared 2-core machine's CPU can move, so the figures show the provider bound, not the CPU.
const MAX_BATCH = Number(process.env['BENCH_EMBEDDER_MAX_BATCH'] ?? 1);
const CONCURRENCY = Number(process.env['BENCH_EMBEDDER_CONCURRENCY'] ?? 1);
const REPLICAS = [1, 2, 4];
const CALLERS = 32;

interface LoadSample {
  queueDepth: number;
  inFlight: number;
}

interface Phase extends DriveResult {
  /** Sum over the replicas of loom_embedder_queue_depth and loom_embedder_in_flight, sampled twice a second. */
  load: { samples: number; meanQueueDepth: number; maxQueueDepth: number; meanInFlight: number };
  /** Mean provider call and batch latency over the phase, from the replicas' histograms. */
  providerMeanMs: number | null;
  batchMeanMs: number | null;
}

interface ReplicaResult {
  replicas: number;
  ceilingTextsPerSec: number;
  embed: Phase;
  append: Phase;
}

const gauge = (text: string, name: string): number => Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(text)?.[1] ?? 0);

function histogram(text: string, name: string): { sum: number; count: number } {
  let sum = 0;
  let count = 0;
  for (const m of text.matchAll(new RegExp(`^${name}_(sum|count)(?:\\{[^}]*\\})? (\\S+)$`, 'gm'))) {
    if (m[1] === 'sum') sum += Number(m[2]);
    else count += Number(m[2]);
  }
  return { sum, count };
}

async function scrape(urls: string[]): Promise<string[]> {
  return Promise.all(urls.map(async (u) => (await fetch(u, { signal: AbortSignal.timeout(2_000) })).text().catch(() => '')));
}

/** Runs `phase` while sampling the replicas' load; adds the latency means the histograms moved by. */
async function measured(urls: string[], phase: () => Promise<DriveResult>): Promise<Phase> {
  const before = await scrape(urls);
  const samples: LoadSample[] = [];
  let running = true;
  const sampler = (async () => {
    while (running) {
      const texts = await scrape(urls);
      samples.push({ queueDepth: texts.reduce((s, t) => s + gauge(t, 'loom_embedder_queue_depth'), 0), inFlight: texts.reduce((s, t) => s + gauge(t, 'loom_embedder_in_flight'), 0) });
      await new Promise((r) => setTimeout(r, 500));
    }
  })();
  const result = await phase();
  running = false;
  await sampler;
  const after = await scrape(urls);
  const delta = (name: string): number | null => {
    const a = after.map((t) => histogram(t, name)).reduce((x, y) => ({ sum: x.sum + y.sum, count: x.count + y.count }), { sum: 0, count: 0 });
    const b = before.map((t) => histogram(t, name)).reduce((x, y) => ({ sum: x.sum + y.sum, count: x.count + y.count }), { sum: 0, count: 0 });
    return a.count > b.count ? round(((a.sum - b.sum) / (a.count - b.count)) * 1000, 1) : null;
  };
  const mean = (xs: number[]): number => (xs.length ? round(xs.reduce((a, b) => a + b, 0) / xs.length, 1) : 0);
  return {
    ...result,
    load: {
      samples: samples.length,
      meanQueueDepth: mean(samples.map((s) => s.queueDepth)),
      maxQueueDepth: Math.max(0, ...samples.map((s) => s.queueDepth)),
      meanInFlight: mean(samples.map((s) => s.inFlight)),
    },
    providerMeanMs: delta('loom_embed_provider_duration_seconds'),
    batchMeanMs: delta('loom_embed_batch_duration_seconds'),
  };
}

async function main(): Promise<void> {
  const quick = process.argv.includes('--quick') || process.env['BENCH_QUICK'] === '1';
  const phaseMs = quick ? 5_000 : 15_000;
  requireBuilt();
  const started = new Date();
  const stamp = started.toISOString().replace(/\..*$/, '').replace(/:/g, '-') + 'Z';
  const workDir = mkdtempSync(join(process.env['BENCH_DATA_DIR'] ?? tmpdir(), 'loom-scaling-'));
  await snapshotDist(workDir);
  const provider = await startSlowEmbeddingsServer(PROVIDER_MS);
  const generator = new TurnGenerator(11);
  const turns = Array.from({ length: 500 }, (_, i) => generator.turn(i).content);
  const results: ReplicaResult[] = [];
  try {
    for (const replicas of REPLICAS) {
      progress(`=== ${replicas} embedder replica(s), provider ${PROVIDER_MS} ms a call, ${CONCURRENCY} calls of <= ${MAX_BATCH} texts each at once ===`);
      const loom = await startSplitLoom({
        workDir: join(workDir, `r${replicas}`),
        database: `scaling_${replicas}`,
        provider: 'openai',
        embedders: replicas,
        env: {
          LOOM_EMBEDDINGS_BASE_URL: provider.baseUrl,
          LOOM_EMBEDDINGS_MODEL: 'bench-embed',
          LOOM_EMBEDDER_MAX_BATCH: String(MAX_BATCH),
          LOOM_EMBEDDER_CONCURRENCY: String(CONCURRENCY),
          LOOM_CONVERSATION_TITLER_ENABLED: 'false',
        },
      });
      const nats = await NatsRequestClient.connect(loom.natsUrl!, 'bench-scaling');
      const client = loom.client(128);
      try {
        const urls = loom.embedderMetricsUrls!;
        const embed = await measured(urls, () =>
          drive({
            concurrency: CALLERS,
            durationMs: phaseMs,
            warmupOps: 50,
            op: async (seq) => {
              const answer = await nats.request<EmbedBatchResponse | EmbedBatchFailure>(Subjects.embedBatch, { texts: [turns[seq % turns.length]!] }, { timeoutMs: 30_000 });
              return 'error' in answer ? { ok: false, error: answer.error.code } : { ok: answer.vectors.length === 1 };
            },
          }),
        );
        progress(`embed: ${embed.throughput} texts/s (p50 ${embed.latencyMs.p50} ms), queue depth mean ${embed.load.meanQueueDepth}, calls in flight mean ${embed.load.meanInFlight}`);
        await client.ok('conversation.set_logging', { namespace: 'scaling', enabled: true });
        const append = await measured(urls, () =>
          drive({
            concurrency: CALLERS,
            durationMs: phaseMs,
            warmupOps: 50,
            op: async (seq) => {
              const r = await client.call('conversation.append', { namespace: 'scaling', thread_id: `t-${seq % 500}`, msg_id: `m-${seq}`, role: seq % 2 ? 'assistant' : 'user', content: turns[seq % turns.length]! });
              return r.status === 200 && (r.body as { stored?: boolean }).stored === true ? { ok: true } : { ok: false, error: String(r.status) };
            },
          }),
        );
        progress(`append: ${append.throughput} turns/s (p50 ${append.latencyMs.p50} ms), queue depth mean ${append.load.meanQueueDepth}`);
        results.push({ replicas, ceilingTextsPerSec: round((replicas * CONCURRENCY * MAX_BATCH * 1000) / PROVIDER_MS, 0), embed, append });
      } finally {
        await nats.close();
        client.close();
        await loom.close();
      }
    }
  } finally {
    await provider.close();
    rmSync(workDir, { recursive: true, force: true });
  }
  const git = (() => {
    try {
      return execSync('git rev-parse --short HEAD', { encoding: 'utf8' }).trim();
    } catch {
      return 'unknown';
    }
  })();
  const meta = { stamp, git, quick, cpus: `${cpus().length} x ${cpus()[0]?.model ?? 'unknown'}`, node: process.version, providerMs: PROVIDER_MS, maxBatch: MAX_BATCH, concurrency: CONCURRENCY, phaseMs, seconds: Math.round((Date.now() - started.getTime()) / 1000), load: loadavg() };
  mkdirSync(RESULTS_DIR, { recursive: true });
  const base = join(RESULTS_DIR, `embedder-scaling-${stamp}${quick ? '-quick' : ''}`);
  writeFileSync(`${base}.json`, JSON.stringify({ meta, results }, null, 2) + '\n');
  writeFileSync(`${base}.md`, render(meta, results));
  process.stdout.write('\n' + render(meta, results) + '\n');
  progress(`results: ${base}.json, ${base}.md`);
}

function render(meta: { stamp: string; git: string; quick: boolean; cpus: string; node: string; phaseMs: number; seconds: number; load: number[] }, results: ReplicaResult[]): string {
  const first = results[0];
  const x = (v: number, b: number | undefined): string => (b ? `${round(v / b, 2)}x` : '-');
  const lines = [
    `# Embedder scaling (split topology) — ${meta.stamp}${meta.quick ? ' (quick)' : ''}`,
    '',
    `Commit ${meta.git}, ${meta.cpus}, Node ${meta.node}; ${meta.phaseMs / 1000} s per phase; the run took ${meta.seconds} s; load average ${meta.load.map((l) => l.toFixed(1)).join(' / ')} (1/5/15 min) at the end: the machine is shared.`,
    '',
    `Provider: a loopback OpenAI-compatible server answering each embeddings call after ${PROVIDER_MS} ms. Each replica: LOOM_EMBEDDER_CONCURRENCY=${CONCURRENCY},`,
    `LOOM_EMBEDDER_MAX_BATCH=${MAX_BATCH}, so its ceiling is ${CONCURRENCY} x ${MAX_BATCH} / ${PROVIDER_MS} ms = ${(CONCURRENCY * MAX_BATCH * 1000) / PROVIDER_MS} texts/s and the provider, not the CPU, bounds it.`,
    `Embed: ${CALLERS} closed-loop callers, one text per \`loom.embed.batch.v1\` request over NATS. Append: ${CALLERS} closed-loop \`conversation.append\` callers through the gateway (each waits for its vector).`,
    'Queue depth and calls in flight: the sum over replicas of `loom_embedder_queue_depth` / `loom_embedder_in_flight`, read twice a second.',
    '',
    '| replicas | ceiling texts/s | embed texts/s | vs 1 | embed p50 ms | queue depth (mean / max) | calls in flight (mean) | provider call ms | append turns/s | vs 1 | append p50 ms | append queue depth (mean) |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...results.map(
      (r) =>
        `| ${r.replicas} | ${r.ceilingTextsPerSec} | ${r.embed.throughput} | ${x(r.embed.throughput, first?.embed.throughput)} | ${r.embed.latencyMs.p50} | ${r.embed.load.meanQueueDepth} / ${r.embed.load.maxQueueDepth} | ${r.embed.load.meanInFlight} | ${r.embed.providerMeanMs ?? '-'} | ${r.append.throughput} | ${x(r.append.throughput, first?.append.throughput)} | ${r.append.latencyMs.p50} | ${r.append.load.meanQueueDepth} |`,
    ),
    '',
    `Failures: ${results.map((r) => `${r.replicas}: embed ${r.embed.failed}, append ${r.append.failed}`).join('; ')}.`,
    '',
  ];
  return lines.join('\n');
}

main().catch((error: unknown) => {
  process.stderr.write(`embedder scaling bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
