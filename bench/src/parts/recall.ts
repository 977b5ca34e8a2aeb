import { join, relative } from 'node:path';
import { Bm25Index } from '../locomo/bm25';
import { loadLocomo, threadIdOf, type LocomoData, type LocomoQuestion } from '../locomo/data';
import { recallTable, type RankedAnswer, type RecallTable } from '../locomo/metrics';
import { runRawJob } from '../raw/runner';
import { startEmbeddedLoom } from '../topology/loom';
import { progress } from '../util/log';
import { ROOT } from '../util/paths';
import { round, summarize, type LatencySummary } from '../util/stats';
import { drive } from '../workload/driver';
import type { BenchContext } from './context';

const NAMESPACE = 'locomo';
const DEFAULT_FLOOR = 0.3;

export interface ProviderRecall {
  provider: string;
  model: string | null;
  ingest: { turns: number; stored: number; notStored: Record<string, number>; seconds: number; turnsPerSec: number; appendLatencyMs: LatencySummary };
  /** Turns Loom stored but did not embed (sensitivity gate) or whose embedding failed: vector search cannot find them. */
  notSearchable: { highTurns: number; embeddingRows: number; embedFailures: number; highEvidenceTurns: number; highSample: string[] };
  withFloor: RecallTable;
  noFloor: RecallTable;
  /**
   * Recall@10 at other floors, derived from the no-floor answers: Loom filters by score and then
   * ranks by score, so the answer at floor f is the no-floor top 10 cut at score >= f. The 0.30 row
   * should match `withFloor` (a self-check).
   */
  floorSweep: Array<{ floor: number; recallAt5: number; recallAt10: number; anyAt10: number; meanHits: number }>;
  searchLatencyMs: LatencySummary;
  /** Questions whose search answered in substring mode (embedder unavailable). */
  substringAnswers: number;
  /** Questions for which the floor left fewer than 10 hits. */
  truncatedByFloor: number;
}

export interface RecallPartResult {
  data: { path: string; conversations: number; turns: number; questions: number; questionsWithEvidence: number; normalisation: LocomoData['normalisation'] };
  contentFormat: string;
  bm25: { table: RecallTable; variant: string };
  bm25TextOnly: { table: RecallTable; variant: string };
  providers: ProviderRecall[];
}

export async function runRecallPart(ctx: BenchContext): Promise<RecallPartResult> {
  const data = loadLocomo();
  const turns = data.conversations.reduce((s, c) => s + c.turns.length, 0);
  const questions = data.conversations.flatMap((c) => c.questions);
  progress(`recall: LoCoMo from ${data.path}: ${data.conversations.length} conversations, ${turns} turns, ${questions.length} questions`);
  const n = data.normalisation;
  progress(`  evidence: ${n.split} packed entries split, ${n.fixed.length} ids fixed (${n.fixed.join(', ')}), dropped ${JSON.stringify(n.dropped)}, ids naming no turn: ${JSON.stringify(n.dangling)}`);

  // A quick run asks about two conversations only; BM25 covers the same ones so the rows compare.
  const subset: LocomoData = ctx.options.quick ? { ...data, conversations: data.conversations.slice(0, 2) } : data;
  const bm25 = bm25Table(subset, true, true);
  const bm25TextOnly = bm25Table(subset, false, true);
  progress(`recall: BM25 (speaker: text) recall@10 ${bm25.overall.recallAt10}, recall@5 ${bm25.overall.recallAt5}; BM25 (text only) recall@10 ${bm25TextOnly.overall.recallAt10}`);

  const providers: ProviderRecall[] = [];
  for (const provider of ctx.options.providers) providers.push(await runProvider(ctx, subset, provider));
  return {
    data: {
      // Relative to the repository: a result file names no machine's paths.
      path: relative(ROOT, data.path),
      conversations: data.conversations.length,
      turns,
      questions: questions.length,
      questionsWithEvidence: questions.filter((q) => q.evidence.length > 0).length,
      normalisation: data.normalisation,
    },
    contentFormat: 'one thread per conversation (thread_id locomo-<sample_id>), msg_id = dia_id, role user for speaker_a and assistant for speaker_b, content "<speaker>: <text>" (image captions not added)',
    bm25: { table: bm25, variant: 'BM25 k1=1.2 b=0.75 over "<speaker>: <text>", lower-case [a-z0-9]+ tokens, small stop-word list, no stemming' },
    bm25TextOnly: { table: bm25TextOnly, variant: 'same, over the turn text without the speaker prefix' },
    providers,
  };
}

function bm25Table(data: LocomoData, withSpeaker: boolean, stopWords: boolean): RecallTable {
  const answers: RankedAnswer[] = [];
  for (const c of data.conversations) {
    const index = new Bm25Index(
      c.turns.map((t) => t.diaId),
      c.turns.map((t) => (withSpeaker ? t.content : t.text)),
      { stopWords },
    );
    for (const q of c.questions) answers.push({ question: q, ranked: index.search(q.question, 10) });
  }
  return recallTable(answers);
}

async function runProvider(ctx: BenchContext, data: LocomoData, provider: string): Promise<ProviderRecall> {
  const conversations = data.conversations;
  const database = `bench_locomo_${provider}`;
  progress(`recall (${provider}): starting Loom`);
  const loom = await startEmbeddedLoom({
    dataDir: ctx.dir(`recall-${provider}`),
    database,
    provider,
    // USE embeds ~35 texts/s on this machine: let appends wait for it rather than fail open.
    env: { LOOM_EMBED_REQUEST_TIMEOUT_MS: '300000' },
  });
  let stopped = false;
  try {
    const client = loom.client(64);
    await client.ok('conversation.set_logging', { namespace: NAMESPACE, enabled: true });
    // The embedder loads its model on first use; one search warms it before anything is timed.
    const warm = await client.call('conversation.search', { namespace: NAMESPACE, query: 'warm up', limit: 1 }, 600_000);
    if (warm.status !== 200) throw new Error(`warm-up search answered ${warm.status}: ${JSON.stringify(warm.body)}`);

    const all = conversations.flatMap((c) => c.turns.map((t) => ({ thread: threadIdOf(c), turn: t })));
    progress(`recall (${provider}): ingesting ${all.length} turns (concurrency 16, in conversation order)`);
    const notStored: Record<string, number> = {};
    const ingestStart = Date.now();
    const ingest = await drive({
      concurrency: 16,
      totalOps: all.length,
      onProgress: (done, ms, rate) => progress(`  ${done}/${all.length} turns in ${Math.round(ms / 1000)} s (${rate.toFixed(1)}/s)`),
      op: async (seq) => {
        const item = all[seq]!;
        const r = await client.call<{ stored?: boolean; reason?: string; error?: { code: string } }>(
          'conversation.append',
          { namespace: NAMESPACE, thread_id: item.thread, msg_id: item.turn.diaId, role: item.turn.role, content: item.turn.content },
          600_000,
        );
        if (r.status === 200 && r.body.stored) return { ok: true };
        const label = r.status === 200 ? `stored:false (${r.body.reason})` : `${r.status} ${r.body.error?.code ?? ''}`;
        notStored[label] = (notStored[label] ?? 0) + 1;
        return { ok: false, error: label };
      },
    });
    const ingestSeconds = (Date.now() - ingestStart) / 1000;
    progress(`recall (${provider}): ingested ${ingest.ok}/${all.length} in ${ingestSeconds.toFixed(0)} s (${ingest.throughput}/s)`);

    const questions = conversations.flatMap((c) => c.questions.map((q) => ({ thread: threadIdOf(c), q })));
    const ask = async (label: string): Promise<{ answers: RankedAnswer[]; scores: number[][]; latencies: number[]; substring: number; truncated: number }> => {
      progress(`recall (${provider}): asking ${questions.length} questions (${label})`);
      const answers: RankedAnswer[] = new Array(questions.length);
      const scores: number[][] = new Array(questions.length);
      const latencies: number[] = [];
      let substring = 0;
      let truncated = 0;
      await drive({
        concurrency: 8,
        totalOps: questions.length,
        onProgress: (done, ms) => progress(`  ${done}/${questions.length} questions in ${Math.round(ms / 1000)} s`),
        op: async (seq) => {
          const { thread, q } = questions[seq]!;
          const r = await client.call<{ hits: Array<{ msg_id: string; score: number | null }>; mode: string }>(
            'conversation.search',
            { namespace: NAMESPACE, namespace_scope: 'namespace', thread_id: thread, query: q.question, limit: 10 },
            600_000,
          );
          if (r.status !== 200) throw new Error(`search answered ${r.status}: ${JSON.stringify(r.body).slice(0, 200)}`);
          latencies.push(r.ms);
          if (r.body.mode !== 'vector') substring += 1;
          if (r.body.hits.length < 10) truncated += 1;
          answers[seq] = { question: q, ranked: r.body.hits.map((h) => h.msg_id) };
          scores[seq] = r.body.hits.map((h) => h.score ?? -Infinity);
          return { ok: true };
        },
      });
      return { answers, scores, latencies, substring, truncated };
    };
    const settings = await client.ok<Record<string, number>>('settings.get', {}).catch(() => undefined);
    const floorNow = settings?.['conversation_search_min_similarity'];
    if (floorNow !== undefined && floorNow !== DEFAULT_FLOOR) progress(`  note: the live floor is ${floorNow}, not ${DEFAULT_FLOOR}`);
    const withFloor = await ask(`default floor ${floorNow ?? DEFAULT_FLOOR}`);
    // The lowest floor settings.set takes: every hit that points anywhere near the query.
    await client.ok('settings.set', { key: 'conversation_search_min_similarity', value: 0 });
    const noFloor = await ask('no floor');
    client.close();
    await loom.stopLoom();
    stopped = true;

    const evidenceIds = conversations.flatMap((c) => c.questions.flatMap((q) => q.evidence.map((e) => `${threadIdOf(c)}\t${e}`)));
    const [sql] = await runRawJob<[Record<string, Array<Record<string, string | number>>>]>(`inspect-${provider}`, {
      target: { chdbPath: join(loom.dataDir!, 'chdb') },
      tasks: [
        {
          kind: 'sql',
          statements: [
            { name: 'high', sql: `SELECT thread_id, msg_id FROM ${database}.conversations FINAL WHERE namespace = {ns:String} AND is_high`, params: { ns: NAMESPACE } },
            {
              name: 'emb',
              sql: `SELECT count() AS n, countIf(embed_error != '') AS failed, any(model) AS model FROM ${database}.conversation_embeddings FINAL WHERE namespace = {ns:String}`,
              params: { ns: NAMESPACE },
            },
          ],
        },
      ],
    });
    const high = (sql!['high'] ?? []).map((r) => `${r['thread_id']}\t${r['msg_id']}`);
    const highSet = new Set(high);
    const highEvidence = new Set(evidenceIds.filter((e) => highSet.has(e))).size;
    const emb = sql!['emb']?.[0] ?? {};
    const result: ProviderRecall = {
      provider,
      model: emb['model'] ? String(emb['model']) : null,
      ingest: {
        turns: all.length,
        stored: ingest.ok,
        notStored,
        seconds: round(ingestSeconds, 1),
        turnsPerSec: ingest.throughput,
        appendLatencyMs: ingest.latencyMs,
      },
      notSearchable: {
        highTurns: high.length,
        embeddingRows: Number(emb['n'] ?? 0),
        embedFailures: Number(emb['failed'] ?? 0),
        highEvidenceTurns: highEvidence,
        highSample: highSampleTexts(conversations, highSet),
      },
      withFloor: recallTable(withFloor.answers),
      noFloor: recallTable(noFloor.answers),
      floorSweep: [-1, 0, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.5].map((floor) => {
        let hits = 0;
        const cut = noFloor.answers.map((a, i) => {
          const keep = (noFloor.scores[i] ?? []).filter((s) => s >= floor).length;
          hits += keep;
          return { question: a.question, ranked: a.ranked.slice(0, keep) };
        });
        const t = recallTable(cut).overall;
        return { floor, recallAt5: t.recallAt5, recallAt10: t.recallAt10, anyAt10: t.anyAt10, meanHits: round(hits / Math.max(1, cut.length), 2) };
      }),
      searchLatencyMs: summarize([...withFloor.latencies, ...noFloor.latencies]),
      substringAnswers: withFloor.substring + noFloor.substring,
      truncatedByFloor: withFloor.truncated,
    };
    progress(
      `recall (${provider}): recall@10 ${result.withFloor.overall.recallAt10} (floor) / ${result.noFloor.overall.recallAt10} (no floor); ` +
        `${result.notSearchable.highTurns} turns held back as sensitive (${highEvidence} of them evidence), ${result.notSearchable.embedFailures} embed failures`,
    );
    return result;
  } finally {
    if (!stopped) await loom.close();
  }
}

function highSampleTexts(conversations: LocomoData['conversations'], high: Set<string>): string[] {
  const out: string[] = [];
  for (const c of conversations) {
    for (const t of c.turns) {
      if (high.has(`${threadIdOf(c)}\t${t.diaId}`) && out.length < 5) out.push(`${c.sampleId} ${t.diaId}: ${t.text.slice(0, 140)}`);
    }
  }
  return out;
}

export type { LocomoQuestion };
