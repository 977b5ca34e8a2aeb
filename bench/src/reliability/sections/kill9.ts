import { AppendLedger, appendUnderLoad, countPresence, type PresenceCount } from '@loom/testing/reliability';
import { join } from 'node:path';
import { runRawJob } from '../../raw/runner';
import { Rng } from '../../util/rng';
import { summarize } from '../../util/stats';
import { recordFigures } from '../figures';
import { clientFor, embeddedLoom, failIfBroken, n0, n1, NO_QUARANTINE_NOTE, opCall, outcomesLine, PRESENCE_HEADER, presenceRow, quarantinedRows, sectionDir, sleep, table } from '../harness';
import type { ReliabilitySection } from '../section';

const NAMESPACE = 'reliability-kill9';
const WRITERS = 16;
const THREADS = 12;

export const section: ReliabilitySection = {
  id: 'kill9',
  title: 'kill -9 under append load',
  proves:
    'An append answered `stored: true` survives the embedded process being killed (SIGKILL, no shutdown) at any moment under concurrent load: after each restart on the same data directory every acknowledged turn is present exactly once.',
  order: 10,
  async run({ long, log }) {
    const cycles = long ? 5 : 2;
    const rng = new Rng(9009);
    const { dir, done } = sectionDir('kill9');
    const loom = embeddedLoom(join(dir, 'data'));
    const ledger = new AppendLedger();
    const rows: Array<Array<string | number>> = [];
    const counts: PresenceCount[] = [];
    const figures: unknown[] = [];
    /** Rows each restart's replay quarantined (summed; undefined while the build has no such metric). */
    let quarantined: number | undefined;
    try {
      await loom.start();
      let client = clientFor({ url: loom.url, token: loom.token });
      await client.ok('conversation.set_logging', { namespace: NAMESPACE, enabled: true });
      for (let cycle = 1; cycle <= cycles; cycle += 1) {
        // The kill lands at a different point of the stream each cycle: 1.5-5 s into the load.
        const killAfterMs = 1_500 + rng.int(3_500);
        const before = ledger.acknowledged.size;
        let stopped = false;
        const load = appendUnderLoad({
          call: opCall(client),
          namespace: NAMESPACE,
          ledger,
          writers: WRITERS,
          threads: THREADS,
          prefix: `c${cycle}`,
          stop: () => stopped,
          endOnConnectionError: true,
          timeoutMs: 30_000,
        });
        await sleep(killAfterMs);
        const pid = loom.pid;
        await loom.kill9();
        stopped = true;
        await load;
        client.close();
        const acked = ledger.acknowledged.size - before;
        log(`cycle ${cycle}/${cycles}: killed pid ${pid} after ${killAfterMs} ms; ${acked} appends acknowledged this cycle`);
        const restartStarted = Date.now();
        await loom.start();
        const restartMs = Date.now() - restartStarted;
        const replay = loom.replayLine();
        client = clientFor({ url: loom.url, token: loom.token });
        const count = await countPresence(opCall(client), NAMESPACE, ledger);
        counts.push(count);
        const q = await quarantinedRows(loom.url);
        if (q !== undefined) quarantined = (quarantined ?? 0) + q;
        log(`cycle ${cycle}: restart ${restartMs} ms, replayed ${replay?.rows ?? 0} row(s); acknowledged ${count.acknowledged}, present ${count.present}, lost ${count.lost}, duplicated ${count.duplicated}`);
        rows.push([
          `${cycle}`,
          `${n1(killAfterMs / 1000)} s`,
          n0(acked),
          n1(acked / (killAfterMs / 1000)),
          n0(replay?.rows ?? 0),
          n0(replay?.alreadyStored ?? 0),
          `${n1(restartMs / 1000)} s`,
          n0(count.acknowledged),
          n0(count.present),
          n0(count.lost),
          n0(count.duplicated),
          n0(count.storedWithoutAck),
        ]);
        figures.push({ cycle, killAfterMs, acknowledgedThisCycle: acked, replay, restartMs, count });
      }
      client.close();
      await loom.stop();
      // The engine's own view, read from the data directory with Loom stopped: rows per key, no FINAL.
      log('reading the data directory directly (Loom stopped)');
      const [raw] = await runRawJob<[{ stored: Array<{ rows: string; keys: string; max_copies: string }> }]>('kill9-count', {
        target: { chdbPath: join(dir, 'data', 'chdb') },
        tasks: [
          {
            kind: 'sql',
            statements: [
              {
                name: 'stored',
                sql: `SELECT sum(n) AS rows, count() AS keys, max(n) AS max_copies FROM (SELECT thread_id, msg_id, count() AS n FROM loom.conversations WHERE namespace = {ns:String} GROUP BY thread_id, msg_id)`,
                params: { ns: NAMESPACE },
              },
            ],
          },
        ],
      });
      const stored = raw.stored[0]!;
      const last = counts[counts.length - 1]!;
      const latency = summarize(ledger.ackMs);
      recordFigures('kill9', { quarantined: quarantined ?? null, cycles: figures, outcomes: ledger.outcomes, ackLatencyMs: latency, engine: stored });
      const body = [
        `${cycles} cycles. Each cycle: ${WRITERS} concurrent writers append turns with unique msg_ids to ${THREADS} threads of one namespace (closed loop, real HTTP), and the embedded process is killed with SIGKILL 1.5-5 s into the load (a seeded random moment). Loom is then started again on the same data directory, and every thread is read back with \`conversation.list\` (all pages). The counts are cumulative: each restart checks every turn acknowledged in every earlier cycle too.`,
        '',
        table(['Cycle', 'Killed after', 'Acked this cycle', 'Acked per second', 'Rows in the log at restart', 'Of those already stored', 'Restart', 'Acked in total', 'Present', 'Lost', 'Duplicated', 'Stored, answer cut off'], rows),
        '',
        table(PRESENCE_HEADER, [presenceRow(`after ${cycles} kills`, last, quarantined)]),
        '',
        ...(quarantined === undefined ? [`- ${NO_QUARANTINE_NOTE}`] : []),
        `- Answers to the appends: ${outcomesLine(ledger)}. A connection error is an append in flight when the process died; its turn may be stored or not (the client never heard "stored"), but never twice.`,
        `- Acknowledged append latency (client side): p50 ${latency.p50} ms, p99 ${latency.p99} ms.`,
        `- The engine itself, read from the data directory after the last stop (no \`FINAL\`, so copies not yet merged would show): ${n0(Number(stored.rows))} row(s) for ${n0(Number(stored.keys))} key(s), at most ${stored.max_copies} row(s) per key.`,
        `- "Rows in the log at restart" are the rows of acknowledged writes the kill left in the write-ahead log, of every table (a turn has a transcript row and an embedding row); the restart inserts those the engine lacks and skips those it already has ("already stored": the kill came between the insert and the log's removal).`,
      ].join('\n');
      if (Number(stored.max_copies) > 1) throw new Error(`the engine holds more than one row for a key after kill -9:\n\n${body}`);
      return failIfBroken(body, counts);
    } finally {
      await loom.stop();
      done();
    }
  },
};

