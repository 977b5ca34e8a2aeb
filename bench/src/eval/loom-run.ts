import { LoomClient } from '../util/http';
import { round, summarize, type LatencySummary } from '../util/stats';
import { drive } from '../workload/driver';
import { scoreTable, type ScoreTable } from './metrics';
import type { EvalSet, Rankings } from './types';

/** The modes `conversation.search` is asked in; `default` sends no `search_mode` at all. */
export const SEARCH_MODES = ['default', 'hybrid', 'vector', 'lexical'] as const;
export type SearchModeRow = (typeof SEARCH_MODES)[number];

export interface ModeResult {
  mode: SearchModeRow;
  status: 'ok' | 'not available on this build' | 'failed';
  /** Why a mode was not run: the server's own words. */
  reason?: string;
  /** What the answers' `mode` said ran, counted (e.g. `{ vector: 80 }`, or `substring` when the embedder was down). */
  answeredAs?: Record<string, number>;
  table?: ScoreTable;
  latencyMs?: LatencySummary;
  /** Questions whose search did not answer 200 (they count as answered with nothing). */
  errors?: number;
}

export interface IngestSummary {
  turns: number;
  stored: number;
  notStored: Record<string, number>;
  seconds: number;
  turnsPerSec: number;
  appendLatencyMs: LatencySummary;
}

export interface SetRun {
  set: EvalSet['name'];
  ingest: IngestSummary;
  modes: ModeResult[];
}

/** A running Loom to evaluate: its gateway and an admin token. */
export interface LoomHandle {
  url: string;
  token: string;
  stop(): Promise<void>;
}

export interface EvalProgress {
  (line: string): void;
}

/**
 * Ingests every set through `conversation.append` and asks every question through
 * `conversation.search` in each mode. A mode the server refuses as an unknown `search_mode`
 * (a build from before search modes) is recorded as not available, and the run goes on.
 */
export async function evaluateLoom(
  loom: LoomHandle,
  sets: readonly EvalSet[],
  log: EvalProgress,
  options: { concurrency?: number; floor?: number } = {},
): Promise<{ sets: SetRun[]; floor: number | null }> {
  const client = new LoomClient(loom.url, loom.token, 32);
  try {
    // The live floor (a setting any admin can change) decides how many vector hits survive.
    if (options.floor !== undefined) await client.ok('settings.set', { key: 'conversation_search_min_similarity', value: options.floor });
    const settings = await client.ok<Record<string, unknown>>('settings.get', {}).catch(() => ({}) as Record<string, unknown>);
    const floorSetting = settings['conversation_search_min_similarity'];
    const floor = typeof floorSetting === 'number' ? floorSetting : null;
    const runs: SetRun[] = [];
    for (const set of sets) {
      const ingested = await ingestSet(client, set, log, options.concurrency ?? 8);
      const modes: ModeResult[] = [];
      for (const mode of SEARCH_MODES) modes.push(await askSet(client, set, ingested.keyOf, mode, log, options.concurrency ?? 8));
      runs.push({ set: set.name, ingest: ingested.summary, modes });
    }
    return { sets: runs, floor };
  } finally {
    client.close();
  }
}

async function ingestSet(client: LoomClient, set: EvalSet, log: EvalProgress, concurrency: number): Promise<{ summary: IngestSummary; keyOf: Map<string, string> }> {
  await client.ok('conversation.set_logging', { namespace: set.namespace, enabled: true });
  const keyOf = new Map<string, string>();
  const notStored: Record<string, number> = {};
  log(`${set.name}: ingesting ${set.docs.length} turns through conversation.append`);
  const started = Date.now();
  const result = await drive({
    concurrency,
    totalOps: set.docs.length,
    progressEveryMs: 15_000,
    onProgress: (done, ms, rate) => log(`  ${done}/${set.docs.length} turns in ${Math.round(ms / 1000)} s (${rate.toFixed(1)}/s)`),
    op: async (seq) => {
      const doc = set.docs[seq]!;
      const r = await client.call<{ stored?: boolean; reason?: string; msg_id?: string; error?: { code?: string } }>(
        'conversation.append',
        {
          namespace: set.namespace,
          thread_id: doc.thread,
          role: doc.role,
          content: doc.content,
          ...(doc.msgId ? { msg_id: doc.msgId } : {}),
          ...(doc.reasoning ? { reasoning: doc.reasoning } : {}),
        },
        600_000,
      );
      // A duplicate (the same text twice in a thread whose ids Loom derives) is the same stored turn.
      if (r.status === 200 && r.body.msg_id && !keyOf.has(`${doc.thread}\t${r.body.msg_id}`)) keyOf.set(`${doc.thread}\t${r.body.msg_id}`, doc.key);
      if (r.status === 200 && r.body.stored) return { ok: true };
      const label = r.status === 200 ? `stored:false (${r.body.reason})` : `${r.status} ${r.body.error?.code ?? ''}`.trim();
      notStored[label] = (notStored[label] ?? 0) + 1;
      return { ok: false, error: label };
    },
  });
  const seconds = (Date.now() - started) / 1000;
  log(`${set.name}: stored ${result.ok}/${set.docs.length} turns in ${seconds.toFixed(0)} s${Object.keys(notStored).length ? `; not stored: ${JSON.stringify(notStored)}` : ''}`);
  return {
    keyOf,
    summary: { turns: set.docs.length, stored: result.ok, notStored, seconds: round(seconds, 1), turnsPerSec: result.throughput, appendLatencyMs: result.latencyMs },
  };
}

function searchBody(set: EvalSet, query: string, thread: string | undefined, mode: SearchModeRow): Record<string, unknown> {
  return {
    namespace: set.namespace,
    namespace_scope: 'namespace',
    query,
    limit: 10,
    ...(thread ? { thread_id: thread } : {}),
    ...(mode === 'default' ? {} : { search_mode: mode }),
  };
}

/** A 400 that names `search_mode`: this build does not know the field (or the mode). */
export function refusedMode(status: number, body: unknown): string | undefined {
  if (status !== 400) return undefined;
  const text = JSON.stringify(body);
  if (!text.includes('search_mode')) return undefined;
  const error = (body as { error?: { message?: string; fields?: unknown } } | undefined)?.error;
  return `the server answered 400: ${error?.fields ? JSON.stringify(error.fields) : (error?.message ?? text.slice(0, 200))}`;
}

async function askSet(client: LoomClient, set: EvalSet, keyOf: Map<string, string>, mode: SearchModeRow, log: EvalProgress, concurrency: number): Promise<ModeResult> {
  const probe = await client.call('conversation.search', searchBody(set, 'probe', set.questions[0]?.thread, mode), 600_000);
  const refused = refusedMode(probe.status, probe.body);
  if (refused) {
    log(`${set.name} / ${mode}: not available on this build (${refused})`);
    return { mode, status: 'not available on this build', reason: refused };
  }
  if (probe.status !== 200) {
    const reason = `the probe search answered ${probe.status}: ${JSON.stringify(probe.body).slice(0, 300)}`;
    log(`${set.name} / ${mode}: failed (${reason})`);
    return { mode, status: 'failed', reason };
  }
  const rankings: Rankings = new Map();
  const answeredAs: Record<string, number> = {};
  const latencies: number[] = [];
  let errors = 0;
  log(`${set.name} / ${mode}: asking ${set.questions.length} questions`);
  await drive({
    concurrency,
    totalOps: set.questions.length,
    progressEveryMs: 15_000,
    onProgress: (done, ms) => log(`  ${done}/${set.questions.length} questions in ${Math.round(ms / 1000)} s`),
    op: async (seq) => {
      const q = set.questions[seq]!;
      const r = await client.call<{ hits?: Array<{ thread_id: string; msg_id: string }>; mode?: string }>('conversation.search', searchBody(set, q.query, q.thread, mode), 600_000);
      if (r.status !== 200) {
        errors += 1;
        rankings.set(q.id, []);
        return { ok: false, error: `${r.status}` };
      }
      latencies.push(r.ms);
      const ran = r.body.mode ?? 'unknown';
      answeredAs[ran] = (answeredAs[ran] ?? 0) + 1;
      rankings.set(
        q.id,
        (r.body.hits ?? []).map((h) => keyOf.get(`${h.thread_id}\t${h.msg_id}`) ?? `unknown:${h.thread_id}\t${h.msg_id}`),
      );
      return { ok: true };
    },
  });
  const table = scoreTable(set.questions, rankings);
  log(`${set.name} / ${mode}: recall@10 ${table['overall']?.recallAt10}, MRR ${table['overall']?.mrr} (answered as ${JSON.stringify(answeredAs)})`);
  return { mode, status: 'ok', answeredAs, table, latencyMs: summarize(latencies), errors };
}
