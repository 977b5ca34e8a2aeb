import { AppendLedger, appendUnderLoad, countPresence, startLatencyProxy, type LatencyProxy } from '@loom/testing/reliability';
import { join } from 'node:path';
import { startSplitLoom, type LoomInstance } from '../../topology/loom';
import { summarize } from '../../util/stats';
import { recordFigures } from '../figures';
import { failIfBroken, memorySample, n0, n1, NO_QUARANTINE_NOTE, opCall, outcomesLine, PRESENCE_HEADER, presenceRow, quarantinedRows, sectionDir, sleep, table } from '../harness';
import { OpRecorder } from '../op-recorder';
import type { ReliabilitySection } from '../section';

const NAMESPACE = 'reliability-slow';
const WRITERS = 6;
const SEARCHERS = 2;
const THREADS = 6;
/** The clients' own deadline: an answer later than this counts as a hang. */
const CLIENT_TIMEOUT_MS = 90_000;
const DELAY_MS = 200;
const QUERIES = ['deploy failed on the ledger migration', 'billing service', 'ledger migration', 'why did the deploy fail'];

interface Phase {
  name: string;
  what: string;
  ms: number;
  apply: (proxy: LatencyProxy) => void;
}

export const section: ReliabilitySection = {
  id: 'slow-engine',
  title: 'Slow and stalled storage engine',
  proves:
    'With the storage engine slow (every network chunk to and from ClickHouse delayed) or not answering at all, appends and searches still answer: slowly, or with a clear error once the engine call times out; none hangs, and every acknowledged append is present exactly once afterwards.',
  order: 12,
  async run({ long, log }) {
    const phases: Phase[] = [
      { name: 'normal', what: 'no delay', ms: long ? 15_000 : 5_000, apply: (p) => p.setDelay(0) },
      { name: 'slow', what: `${DELAY_MS} ms added to every chunk, both ways`, ms: long ? 30_000 : 10_000, apply: (p) => p.setDelay(DELAY_MS) },
      { name: 'stalled', what: 'the engine answers nothing; chunks are held, not dropped', ms: long ? 60_000 : 40_000, apply: (p) => p.stall(true) },
      { name: 'recovered', what: 'no delay again', ms: long ? 15_000 : 5_000, apply: (p) => (p.stall(false), p.setDelay(0)) },
    ];
    const { dir, done } = sectionDir('slow');
    let proxy: LatencyProxy | undefined;
    let loom: LoomInstance | undefined;
    try {
      loom = await startSplitLoom({
        workDir: join(dir, 'split'),
        database: 'loom',
        provider: 'hashed',
        embedders: 1,
        storageInFront: async (url) => {
          const target = new URL(url);
          proxy = await startLatencyProxy({ host: target.hostname, port: Number(target.port) }, 0);
          return proxy.url;
        },
      });
      log(`split topology up; the gateway and the embedder reach ClickHouse through a latency proxy at ${proxy!.url}`);
      const client = loom.client(64);
      const call = opCall(client);
      await client.ok('conversation.set_logging', { namespace: NAMESPACE, enabled: true });

      const rows: Array<Array<string | number>> = [];
      const ledgers: AppendLedger[] = [];
      const figures: unknown[] = [];
      let slowest = 0;
      for (const phase of phases) {
        phase.apply(proxy!);
        const ledger = new AppendLedger();
        ledgers.push(ledger);
        const searches = new OpRecorder();
        const ready: number[] = [];
        let stopped = false;
        const appends = appendUnderLoad({ call, namespace: NAMESPACE, ledger, writers: WRITERS, threads: THREADS, prefix: phase.name, stop: () => stopped, timeoutMs: CLIENT_TIMEOUT_MS });
        const searchers = Promise.all(
          Array.from({ length: SEARCHERS }, async (_, s) => {
            for (let i = 0; !stopped; i += 1) {
              await searches.call(call, 'conversation.search', { namespace: NAMESPACE, query: QUERIES[(s + i) % QUERIES.length], limit: 10 }, CLIENT_TIMEOUT_MS);
            }
          }),
        );
        const stopAt = Date.now() + phase.ms;
        while (Date.now() < stopAt) {
          ready.push(await readyStatus(loom.url));
          await sleep(1_000);
        }
        const phaseSeconds = (Date.now() - (stopAt - phase.ms)) / 1000;
        stopped = true;
        // Calls in flight finish (or time out on the client) before the next phase changes the engine.
        if (phase.name === 'stalled') proxy!.stall(false);
        await Promise.all([appends, searchers]);
        const appendAll = summarize(ledger.ackMs);
        const appendAnswered = Object.values(ledger.outcomes).reduce((a, b) => a + b, 0);
        const hung = (ledger.outcomes['timeout'] ?? 0) + (searches.outcomes['timeout'] ?? 0);
        slowest = Math.max(slowest, searches.slowestMs(), ledger.slowestMs);
        const notReady = ready.filter((s) => s !== 200).length;
        const memory = await memorySample(async () => (await fetch(`${loom!.url}/metrics`, { signal: AbortSignal.timeout(5_000) })).text());
        log(`${phase.name}: appends ${outcomesLine(ledger)}; searches ${searches.outcomesLine()}; /readyz not ready ${notReady}/${ready.length}`);
        rows.push([
          `${phase.name} (${phase.what})`,
          `${n0(phase.ms / 1000)} s`,
          outcomesLine(ledger),
          n1(ledger.acknowledged.size / phaseSeconds),
          `${appendAll.p50} / ${appendAll.p99}`,
          searches.outcomesLine(),
          `${searches.ok().p50} / ${searches.ok().p99}`,
          `${n1(Math.max(searches.slowestMs(), ledger.slowestMs) / 1000)} s`,
          `${notReady} of ${ready.length}`,
          hung === 0 ? 'none' : `**${hung}**`,
          memory ? `${n0(memory.rssMb)} / ${n0(memory.heapMb)}` : 'n/a',
        ]);
        figures.push({ phase: phase.name, appends: { outcomes: ledger.outcomes, answered: appendAnswered, ackMs: appendAll }, searches: { outcomes: searches.outcomes, okMs: searches.ok(), allMs: searches.all() }, readyz: ready, gatewayMemory: memory ?? null });
      }
      const all = new AppendLedger();
      for (const l of ledgers) {
        for (const [id, thread] of l.sent) all.sent.set(id, thread);
        for (const id of l.acknowledged) all.acknowledged.add(id);
      }
      const count = await countPresence(call, NAMESPACE, all);
      const quarantined = await quarantinedRows(loom.url);
      log(`acknowledged ${count.acknowledged}, present ${count.present}, lost ${count.lost}, duplicated ${count.duplicated}`);
      client.close();
      const hangs = figures.reduce<number>((n, f) => {
        const { appends, searches } = f as { appends: { outcomes: Record<string, number> }; searches: { outcomes: Record<string, number> } };
        return n + (appends.outcomes['timeout'] ?? 0) + (searches.outcomes['timeout'] ?? 0);
      }, 0);
      recordFigures('slow-engine', { quarantined: quarantined ?? null, delayMs: DELAY_MS, clientTimeoutMs: CLIENT_TIMEOUT_MS, phases: figures, count });
      const body = [
        `The split topology (gateway, one embedder, NATS, the development ClickHouse endpoint over chDB), with a loopback TCP proxy between Loom's services and ClickHouse. ${WRITERS} writers append and ${SEARCHERS} clients search throughout (closed loops); a client gives up on a call after ${CLIENT_TIMEOUT_MS / 1000} s, which would count as a hang. The phases run one after the other on the same Loom:`,
        '',
        table(['Phase', 'Length', 'Appends: answers', 'Acked appends per second', 'Acked append p50 / p99 (ms)', 'Searches: answers', 'Search p50 / p99 (ms, 200s)', 'Slowest answer (any status)', '`/readyz` not ready (1 s polls)', 'Calls with no answer', 'Gateway RSS / heap at the end (MiB)'], rows),
        '',
        `- Slowest answer of any call, whatever its status: ${n1(slowest / 1000)} s. Loom's ClickHouse client gives up on a request after 30 s, so a stalled engine costs a caller about that long, then a 503.`,
        `- Calls with no answer within ${CLIENT_TIMEOUT_MS / 1000} s: ${hangs === 0 ? 'none' : `**${hangs}**`}.`,
        '',
        table(PRESENCE_HEADER, [presenceRow('after the engine recovered', count, quarantined)]),
        ...(quarantined === undefined ? ['', NO_QUARANTINE_NOTE] : []),
      ].join('\n');
      return failIfBroken(body, [count]);
    } finally {
      await loom?.close();
      await proxy?.close();
      done();
    }
  },
};

async function readyStatus(url: string): Promise<number> {
  try {
    const response = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(5_000) });
    await response.text();
    return response.status;
  } catch {
    return 0;
  }
}
