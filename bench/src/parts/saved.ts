import { startEmbeddedLoom } from '../topology/loom';
import { progress } from '../util/log';
import { round, summarize, type LatencySummary } from '../util/stats';
import { drive, type DriveResult } from '../workload/driver';
import { TurnGenerator } from '../workload/text';
import type { BenchContext } from './context';

const NAMESPACE = 'bench-saved';
const USER = 'bench-user';
/** Other users' saved messages in the same namespace: the index must not read them. */
const OTHER_USERS = ['other-a', 'other-b'];
const THREADS = 2_000;
const MODES = ['hybrid', 'lexical', 'semantic'] as const;

export interface SavedModeResult {
  latencyMs: LatencySummary;
  meanHits: number;
  /** The `mode` each answer named (a hybrid call answers `lexical` when the embedder is down). */
  modes: Record<string, number>;
}

export interface SavedPartResult {
  /** The measured user's saved messages, and every user's in the namespace. */
  savedByUser: number;
  savedInNamespace: number;
  load: DriveResult;
  queries: number;
  /** `conversation.search_saved_messages`, one query at a time after 20 warm-up queries, limit 10. */
  modes: Record<(typeof MODES)[number], SavedModeResult>;
  /** Hybrid, narrowed to one conversation (`conversation_id`). */
  conversationScoped: LatencySummary;
  /** Hybrid at concurrency 8. */
  concurrent: { concurrency: number; throughput: number; latencyMs: LatencySummary };
}

/**
 * Saved-message search at 10k saved messages per user (issue 10 item 6: p95 <= 30 ms). The
 * messages are saved through `conversation.save_message` (the namespace does not record, so each
 * save stores its message), spread over 2,000 conversations, beside other users' saves.
 */
export async function runSavedPart(ctx: BenchContext): Promise<SavedPartResult> {
  const quick = ctx.options.quick;
  const perUser = quick ? 2_000 : 10_000;
  const perOther = quick ? 500 : 2_500;
  const queryCount = quick ? 60 : 200;
  const gen = new TurnGenerator(7373);
  const queries = Array.from({ length: queryCount }, (_, i) => gen.query(i % TurnGenerator.topicCount));
  progress(`saved: starting Loom (embedded, hashed); ${perUser} saved messages for one user, ${perOther} for each of ${OTHER_USERS.length} others`);
  const loom = await startEmbeddedLoom({ dataDir: ctx.dir('saved'), database: 'bench_saved', provider: 'hashed' });
  try {
    const client = loom.client(64);
    const owners = [...Array.from({ length: perUser }, () => USER), ...OTHER_USERS.flatMap((u) => Array.from({ length: perOther }, () => u))];
    const loadGen = new TurnGenerator(31);
    const load = await drive({
      concurrency: 16,
      totalOps: owners.length,
      progressEveryMs: 10_000,
      onProgress: (done, ms, rate) => progress(`  ${done}/${owners.length} saved in ${Math.round(ms / 1000)} s (${rate.toFixed(0)}/s)`),
      op: async (seq) => {
        const t = loadGen.int(THREADS);
        const r = await client.call<{ saved?: boolean }>('conversation.save_message', {
          namespace: NAMESPACE,
          user_id: owners[seq]!,
          conversation_id: `c${t}`,
          message_id: `m${seq}`,
          role: loadGen.next() < 0.5 ? 'user' : 'assistant',
          content: loadGen.turn(t % TurnGenerator.topicCount).content,
        });
        return r.status === 200 && r.body.saved ? { ok: true } : { ok: false, error: `${r.status}` };
      },
    });
    progress(`  saved ${load.ok} messages (${load.throughput}/s, ${load.failed} failed)`);
    const search = (body: Record<string, unknown>) =>
      client.call<{ hits: unknown[]; mode: string }>('conversation.search_saved_messages', { namespace: NAMESPACE, user_id: USER, limit: 10, ...body }).then((r) => {
        if (r.status !== 200) throw new Error(`search_saved_messages answered ${r.status}: ${JSON.stringify(r.body).slice(0, 200)}`);
        return { ms: r.ms, hits: r.body.hits.length, mode: r.body.mode };
      });
    const modes = {} as SavedPartResult['modes'];
    for (const mode of MODES) {
      modes[mode] = await measureMode(search, queries, mode);
      progress(`saved search (${mode}) at ${perUser} messages: p50 ${modes[mode].latencyMs.p50} ms, p95 ${modes[mode].latencyMs.p95} ms, ${modes[mode].meanHits} hits`);
    }
    const scoped: number[] = [];
    for (let i = 0; i < Math.min(100, queries.length); i += 1) scoped.push((await search({ query: queries[i]!, conversation_id: `c${(i * 37) % THREADS}` })).ms);
    const concurrent = await drive({
      concurrency: 8,
      totalOps: queries.length,
      op: async (seq) => {
        await search({ query: queries[seq % queries.length]! });
        return { ok: true };
      },
    });
    client.close();
    return {
      savedByUser: perUser,
      savedInNamespace: owners.length,
      load,
      queries: queries.length,
      modes,
      conversationScoped: summarize(scoped),
      concurrent: { concurrency: 8, throughput: concurrent.throughput, latencyMs: concurrent.latencyMs },
    };
  } finally {
    await loom.close();
  }
}

async function measureMode(
  search: (body: Record<string, unknown>) => Promise<{ ms: number; hits: number; mode: string }>,
  queries: string[],
  mode: (typeof MODES)[number],
): Promise<SavedModeResult> {
  for (let i = 0; i < 20; i += 1) await search({ query: queries[i % queries.length]!, search_mode: mode });
  const latencies: number[] = [];
  const modes: Record<string, number> = {};
  let hits = 0;
  for (const q of queries) {
    const r = await search({ query: q, search_mode: mode });
    latencies.push(r.ms);
    hits += r.hits;
    modes[r.mode] = (modes[r.mode] ?? 0) + 1;
  }
  return { latencyMs: summarize(latencies), meanHits: round(hits / queries.length, 2), modes };
}
