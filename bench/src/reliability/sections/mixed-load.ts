import { AppendLedger, countPresence, metricValue, type OpCall } from '@loom/testing/reliability';
import { join } from 'node:path';
import { Rng } from '../../util/rng';
import { mean, round } from '../../util/stats';
import { recordFigures } from '../figures';
import { clientFor, embeddedLoom, failIfBroken, memorySample, n0, n1, NO_QUARANTINE_NOTE, opCall, outcomesLine, PRESENCE_HEADER, presenceRow, sectionDir, sleep, table } from '../harness';
import { OpRecorder } from '../op-recorder';
import type { ReliabilitySection } from '../section';

const NAMESPACE = 'reliability-mixed';
const WORKERS = 8;
const THREADS = 40;
const USER = 'reliability-user';
const SAMPLE_MS = 5_000;
const QUERIES = ['deploy failed on the ledger migration', 'flaky test in the billing service', 'kubernetes rollout stuck', 'postgres deadlock on invoices', 'cache eviction'];
const TOPICS = ['the deploy failed on the ledger migration', 'a flaky test in the billing service', 'the kubernetes rollout is stuck', 'a postgres deadlock on invoices', 'cache eviction under load'];

type Op = 'append' | 'search' | 'save/unsave' | 'brief save';
const MIX: Array<[Op, number]> = [
  ['append', 0.7],
  ['search', 0.15],
  ['save/unsave', 0.1],
  ['brief save', 0.05],
];

interface Sample {
  atS: number;
  rssMb: number;
  heapMb: number;
  /** Calls answered in the window before the sample. */
  calls: number;
}

export const section: ReliabilitySection = {
  id: 'mixed-load',
  title: 'Mixed load',
  proves:
    'Under a sustained mix of appends (70%), searches (15%), save/unsave (10%) and brief saves (5%), every acknowledged append is present exactly once, each op keeps answering with the latency shown, and the process memory levels off after warm-up instead of growing with the load.',
  order: 13,
  async run({ long, log }) {
    const durationMs = long ? 600_000 : 60_000;
    const { dir, done } = sectionDir('mixed');
    const loom = embeddedLoom(join(dir, 'data'));
    try {
      await loom.start();
      const client = clientFor(loom);
      const call = opCall(client);
      await client.ok('conversation.set_logging', { namespace: NAMESPACE, enabled: true });
      const ledger = new AppendLedger();
      const recorders: Record<Op, OpRecorder> = { append: new OpRecorder(), search: new OpRecorder(), 'save/unsave': new OpRecorder(), 'brief save': new OpRecorder() };
      const started = Date.now();
      const stopAt = started + durationMs;
      log(`${WORKERS} workers for ${durationMs / 1000} s`);
      const workers = Array.from({ length: WORKERS }, (_, w) => worker(w, call, ledger, recorders, () => Date.now() >= stopAt));

      const samples: Sample[] = [];
      let lastCalls = 0;
      const totalCalls = (): number => Object.values(recorders).reduce((n, r) => n + r.count, 0);
      while (Date.now() < stopAt) {
        await sleep(Math.min(SAMPLE_MS, Math.max(0, stopAt - Date.now())));
        const memory = await memorySample(() => loom.metricsText());
        const calls = totalCalls();
        if (memory) samples.push({ atS: round((Date.now() - started) / 1000, 0), rssMb: round(memory.rssMb, 1), heapMb: round(memory.heapMb, 1), calls: calls - lastCalls });
        lastCalls = calls;
        if (samples.length % 6 === 0 && memory) log(`${n0((Date.now() - started) / 1000)} s: ${n0(calls)} calls, RSS ${n0(memory.rssMb)} MiB, heap ${n0(memory.heapMb)} MiB`);
      }
      await Promise.all(workers);
      const seconds = (Date.now() - started) / 1000;
      const metricsText = await loom.metricsText();
      const quarantined = metricValue(metricsText, 'loom_write_quarantined_total');
      log('reading every thread back');
      const count = await countPresence(call, NAMESPACE, ledger);
      log(`acknowledged ${count.acknowledged}, present ${count.present}, lost ${count.lost}, duplicated ${count.duplicated}`);
      client.close();

      const third = Math.floor(samples.length / 3);
      const middle = samples.slice(third, 2 * third);
      const last = samples.slice(2 * third);
      const growth = (pick: (s: Sample) => number): number => (mean(last.map(pick)) / mean(middle.map(pick)) - 1) * 100;
      const rssGrowth = growth((s) => s.rssMb);
      const heapGrowth = growth((s) => s.heapMb);
      const flat = (g: number): string => (!Number.isFinite(g) ? 'n/a (too few samples)' : g <= 10 ? `flat (${g >= 0 ? '+' : ''}${n1(g)}%)` : `**growing (+${n1(g)}%)**`);
      const opRows = (Object.keys(recorders) as Op[]).map((op) => {
        const r = recorders[op];
        return [op, n0(r.count), n1(r.count / seconds), r.outcomesLine(), n1(r.ok().p50), n1(r.ok().p99), n1(r.ok().max)];
      });
      const shown = thin(samples, 12);
      recordFigures('mixed-load', {
        durationS: round(seconds, 1),
        workers: WORKERS,
        ops: Object.fromEntries((Object.keys(recorders) as Op[]).map((op) => [op, { calls: recorders[op].count, perSecond: recorders[op].count / seconds, outcomes: recorders[op].outcomes, okMs: recorders[op].ok() }])),
        appendOutcomes: ledger.outcomes,
        count,
        quarantined: quarantined ?? null,
        memory: { samples, rssGrowthPct: rssGrowth, heapGrowthPct: heapGrowth },
      });
      const body = [
        `${WORKERS} workers in a closed loop for ${n0(seconds)} s against embedded Loom (one process, hashed embedder). Each call picks an op at random: append 70% (a unique msg_id into one of ${THREADS} threads), search 15%, save/unsave 10% (a turn the worker appended, saved if not saved yet, else unsaved), brief save 5% (a deterministic brief for the worker's session, events only, no model). Latency is measured at the client, over real HTTP on loopback.`,
        '',
        table(['Op', 'Calls', 'Per second', 'Answers', 'p50 (ms)', 'p99 (ms)', 'Max (ms)'], opRows),
        '',
        `Throughput: ${n0(totalCalls())} calls in ${n0(seconds)} s, ${n1(totalCalls() / seconds)} per second (${n1(ledger.acknowledged.size / seconds)} acknowledged appends per second).`,
        '',
        table(PRESENCE_HEADER, [presenceRow(`after ${n0(seconds)} s`, count, quarantined)]),
        '',
        ...(quarantined === undefined ? [`- ${NO_QUARANTINE_NOTE}`] : []),
        `- Append answers: ${outcomesLine(ledger)}.`,
        '',
        `Memory of the Loom process (its own /metrics every ${SAMPLE_MS / 1000} s; ${samples.length} samples, ${shown.length} shown):`,
        '',
        table(['At', 'RSS (MiB)', 'Heap used (MiB)', 'Calls in the window'], shown.map((s) => [`${s.atS} s`, n1(s.rssMb), n1(s.heapMb), n0(s.calls)])),
        '',
        `After warm-up (mean of the last third of the samples against the middle third): RSS ${flat(rssGrowth)}, heap ${flat(heapGrowth)}. "Flat" means at most 10% growth.${long ? '' : ' A quick run is too short to tell a slow leak from warm-up; the full run loads for 10 minutes.'}`,
      ].join('\n');
      return failIfBroken(body, [count]);
    } finally {
      await loom.stop();
      done();
    }
  },
};

async function worker(w: number, call: OpCall, ledger: AppendLedger, recorders: Record<Op, OpRecorder>, stop: () => boolean): Promise<void> {
  const rng = new Rng(7_000 + w);
  const mine: Array<{ thread: string; msg: string }> = [];
  const saved = new Set<string>();
  for (let i = 0; !stop(); i += 1) {
    const roll = rng.next();
    let acc = 0;
    const op = MIX.find(([, share]) => (acc += share) > roll)?.[0] ?? 'append';
    if (op === 'append' || (op === 'save/unsave' && mine.length === 0)) {
      const msgId = `m-w${w}-${i}`;
      const threadId = `m-t${rng.int(THREADS)}`;
      const result = await recorders.append.call(
        call,
        'conversation.append',
        { namespace: NAMESPACE, thread_id: threadId, msg_id: msgId, role: i % 2 ? 'assistant' : 'user', user_id: USER, content: `turn ${msgId}: ${rng.pick(TOPICS)}, step ${i} of the investigation` },
        60_000,
      );
      const outcome = result === undefined ? 'error' : result.status === 200 ? (result.body?.stored === true ? '200 stored' : `200 not stored (${String(result.body?.reason)})`) : `${result.status} ${String(result.body?.error?.code ?? '')}`;
      ledger.record(msgId, threadId, outcome);
      if (outcome === '200 stored') mine.push({ thread: threadId, msg: msgId });
    } else if (op === 'search') {
      await recorders.search.call(call, 'conversation.search', { namespace: NAMESPACE, query: rng.pick(QUERIES), limit: 10 }, 60_000);
    } else if (op === 'save/unsave') {
      const target = mine[rng.int(mine.length)]!;
      const key = `${target.thread}/${target.msg}`;
      const body = { namespace: NAMESPACE, user_id: USER, conversation_id: target.thread, message_id: target.msg };
      if (saved.has(key)) {
        const r = await recorders['save/unsave'].call(call, 'conversation.unsave_message', body, 60_000);
        if (r?.status === 200) saved.delete(key);
      } else {
        const r = await recorders['save/unsave'].call(call, 'conversation.save_message', body, 60_000);
        if (r?.status === 200) saved.add(key);
      }
    } else {
      await recorders['brief save'].call(
        call,
        'session.brief_save',
        { namespace: NAMESPACE, session_id: `mixed-s${w}`, project: 'reliability', branch: `b${w}`, use_llm: false, events: [{ kind: 'user', text: `step ${i}: ${rng.pick(TOPICS)}` }] },
        60_000,
      );
    }
  }
}

/** At most `n` samples, evenly spread, always the first and the last. */
function thin<T>(items: T[], n: number): T[] {
  if (items.length <= n) return items;
  const out: T[] = [];
  for (let i = 0; i < n; i += 1) out.push(items[Math.round((i * (items.length - 1)) / (n - 1))]!);
  return out;
}
