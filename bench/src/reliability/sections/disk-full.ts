import { AppendLedger, appendUnderLoad, countPresence, FailingWriter, fillFilesystem, mountSmallFilesystem, type EmbeddedLoomChild, type PresenceCount } from '@loom/testing/reliability';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { summarize } from '../../util/stats';
import { recordFigures } from '../figures';
import { clientFor, embeddedLoom, failIfBroken, memorySample, n0, n1, NO_QUARANTINE_NOTE, opCall, outcomesLine, PRESENCE_HEADER, presenceRow, quarantinedRows, sectionDir, sleep, table } from '../harness';
import type { ReliabilitySection } from '../section';
import type { LoomClient } from '../../util/http';

const NAMESPACE = 'reliability-disk';
const WRITERS = 8;
const THREADS = 8;
const FS_MB = 256;

interface ReadinessSample {
  at: number;
  status: number;
  body: string;
}

export const section: ReliabilitySection = {
  id: 'disk-full',
  title: 'Disk full',
  proves:
    'When the data directory runs out of space under append load, appends are refused with a clear status instead of being acknowledged and lost; once space is freed, writes resume without a restart and every turn acknowledged before, during and after is present exactly once, also after a kill -9.',
  order: 11,
  async run({ long, log }) {
    const phaseMs = long ? 20_000 : 6_000;
    const { dir, done } = sectionDir('disk');
    const dataDir = join(dir, 'fs');
    const mounted = mountSmallFilesystem(dataDir, FS_MB);
    const fault =
      'unmount' in mounted
        ? ({ kind: 'small-filesystem' } as const)
        : ({ kind: 'failing-writer', writer: new FailingWriter(join(dir, 'fault'), `${join(dataDir, 'data', 'wal')}`), refused: mounted.refused } as const);
    // Ctrl-C skips `finally`: the mount must not outlive the run.
    const onSignal = (): void => {
      if ('unmount' in mounted) mounted.unmount();
      process.exit(130);
    };
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    log(fault.kind === 'small-filesystem' ? `data directory on a ${FS_MB} MiB tmpfs` : `mount refused (${fault.refused}); failing the write-ahead log's writes with ENOSPC instead`);
    let loom: EmbeddedLoomChild | undefined;
    let client: LoomClient | undefined;
    let filler: { path: string; bytes: number } | undefined;
    try {
      mkdirSync(join(dataDir, 'data'), { recursive: true });
      loom = embeddedLoom(join(dataDir, 'data'), fault.kind === 'failing-writer' ? { nodeArgs: fault.writer.nodeArgs() } : {});
      await loom.start();
      client = clientFor(loom);
      await client.ok('conversation.set_logging', { namespace: NAMESPACE, enabled: true });

      const phases: Array<{ name: string; ledger: AppendLedger; seconds: number; memory?: { rssMb: number; heapMb: number } }> = [];
      const runPhase = async (name: string, prefix: string, during: (stopAt: number) => Promise<void> = () => sleep(phaseMs)): Promise<AppendLedger> => {
        const ledger = new AppendLedger();
        const phase: (typeof phases)[number] = { name, ledger, seconds: 0 };
        phases.push(phase);
        const started = Date.now();
        let stopped = false;
        const load = appendUnderLoad({ call: opCall(client!), namespace: NAMESPACE, ledger, writers: WRITERS, threads: THREADS, prefix, stop: () => stopped, timeoutMs: 60_000 });
        await during(Date.now() + phaseMs);
        stopped = true;
        await load;
        phase.seconds = (Date.now() - started) / 1000;
        // Refused writes must not pile up in memory while the disk is full.
        phase.memory = await memorySample(() => loom!.metricsText());
        log(`${name}: ${outcomesLine(ledger)}`);
        return ledger;
      };

      await runPhase('before', 'before');

      // The disk fills up under load.
      const readiness: ReadinessSample[] = [];
      const fullStarted = Date.now();
      await runPhase('disk full', 'full', async (stopAt) => {
        if (fault.kind === 'small-filesystem') {
          filler = fillFilesystem(dataDir);
          log(`filled the file system: ${n1(filler.bytes / 2 ** 20)} MiB of filler`);
        } else {
          fault.writer.fail();
        }
        while (Date.now() < stopAt) {
          const r = await loom!.readyz();
          readiness.push({ at: Date.now() - fullStarted, status: r.status, body: r.body.slice(0, 400) });
          await sleep(500);
        }
      });
      const fullLedger = phases[1]!.ledger;

      // Space comes back: the filler goes, no restart.
      const freedAt = Date.now();
      if (filler) rmSync(filler.path, { force: true });
      if (fault.kind === 'failing-writer') fault.writer.heal();
      let recoveredMs: number | undefined;
      await runPhase('space freed', 'after', async (stopAt) => {
        while (Date.now() < stopAt) {
          if (recoveredMs === undefined && (phases[2]?.ledger.acknowledged.size ?? 0) > 0) recoveredMs = Date.now() - freedAt;
          await sleep(100);
        }
      });
      const readyAfter = await loom.readyz();

      // Reads wait for every acknowledged write to reach the engine; give the retries time to get through.
      const all = mergeLedgers(phases.map((p) => p.ledger));
      const counted = await countWhenReadable(client, all, log);
      log(`after the space came back: acknowledged ${counted.acknowledged}, present ${counted.present}, lost ${counted.lost}, duplicated ${counted.duplicated}`);

      const quarantinedBefore = await quarantinedRows(loom.url);
      // And the write-ahead log written around the failure still replays cleanly.
      await loom.kill9();
      client.close();
      await loom.start();
      client = clientFor(loom);
      const replay = loom.replayLine();
      const afterKill = await countPresence(opCall(client), NAMESPACE, all);
      const quarantinedAfter = await quarantinedRows(loom.url);
      log(`after kill -9 and restart: acknowledged ${afterKill.acknowledged}, present ${afterKill.present}, lost ${afterKill.lost}, duplicated ${afterKill.duplicated}`);

      const notReady = readiness.filter((r) => r.status !== 200);
      const reasons = [...new Set(notReady.map((r) => r.body))].slice(0, 3);
      const fullStatuses = Object.entries(fullLedger.outcomes).filter(([k]) => !k.startsWith('200 stored'));
      const refusedClearly = fullStatuses.filter(([k]) => k.startsWith('503')).reduce((n, [, v]) => n + v, 0);
      const otherFailures = fullStatuses.filter(([k]) => !k.startsWith('503'));
      recordFigures('disk-full', {
        fault: fault.kind,
        fillerBytes: filler?.bytes ?? null,
        phases: phases.map((p) => ({ name: p.name, seconds: p.seconds, outcomes: p.ledger.outcomes, acknowledged: p.ledger.acknowledged.size, ackMs: summarize(p.ledger.ackMs), memory: p.memory ?? null })),
        readiness: { samples: readiness.length, notReady: notReady.length, reasons },
        recoveredMs: recoveredMs ?? null,
        readyAfter,
        counted,
        afterKill,
        replay,
        quarantined: { sameProcess: quarantinedBefore ?? null, afterRestart: quarantinedAfter ?? null },
      });
      const how =
        fault.kind === 'small-filesystem'
          ? `The data directory (engine files and write-ahead log) is on a ${FS_MB} MiB tmpfs mounted for the run. After ${n0(phaseMs / 1000)} s of load, a filler file takes every free byte (${n1((filler?.bytes ?? 0) / 2 ** 20)} MiB) so the kernel answers ENOSPC to Loom's writes; ${n0(phaseMs / 1000)} s later the filler is deleted, with Loom still running.`
          : `This machine refused to mount a small file system (${fault.refused}), so a failing writer stands in: a preload makes every write to the write-ahead log fail with ENOSPC for ${n0(phaseMs / 1000)} s (the engine's own files are not affected).`;
      const body = [
        `${how} ${WRITERS} writers append to ${THREADS} threads throughout (closed loop; a refused append is not retried, its msg_id is not used again). Readiness is polled every 500 ms while the disk is full.`,
        '',
        table(
          ['Phase', 'Answers to appends', 'Acknowledged', 'Acknowledged per second', 'Acked p50 / p99 (ms)', 'Loom RSS / heap at the end (MiB)'],
          phases.map((p) => {
            const latency = summarize(p.ledger.ackMs);
            return [
              p.name,
              outcomesLine(p.ledger),
              n0(p.ledger.acknowledged.size),
              n1(p.ledger.acknowledged.size / p.seconds),
              p.ledger.ackMs.length > 0 ? `${latency.p50} / ${latency.p99}` : 'n/a',
              p.memory ? `${n0(p.memory.rssMb)} / ${n0(p.memory.heapMb)}` : 'n/a',
            ];
          }),
        ),
        '',
        `- While full: ${n0(refusedClearly)} append(s) refused with 503${otherFailures.length > 0 ? `, and **${otherFailures.map(([k, v]) => `${n0(v)} × ${k}`).join(', ')}** (not a clear refusal)` : ''}; ${n0(fullLedger.acknowledged.size)} acknowledged (these must all be present below).`,
        `- Readiness while full: ${notReady.length} of ${readiness.length} polls answered not ready${reasons.length > 0 ? ` (${reasons.map((r) => `\`${r.replace(/`/g, "'")}\``).join('; ')})` : ''}.${notReady.length === 0 ? ' **`/readyz` stayed ready while writes were failing** (reported, not asserted here).' : ''}`,
        `- Recovery: the first append acknowledged ${recoveredMs === undefined ? '**never** (within the phase)' : `${n1(recoveredMs / 1000)} s`} after the space came back; \`/readyz\` then answered ${readyAfter.status}.`,
        `- After the kill -9 at the end, the restart found ${n0(replay?.rows ?? 0)} row(s) in the write-ahead log (${n0(replay?.alreadyStored ?? 0)} already stored).`,
        '',
        table(PRESENCE_HEADER, [presenceRow('space freed, same process', counted, quarantinedBefore), presenceRow('after kill -9 and restart', afterKill, quarantinedAfter)]),
        ...(quarantinedBefore === undefined ? ['', NO_QUARANTINE_NOTE] : []),
      ].join('\n');
      return failIfBroken(body, [counted, afterKill]);
    } finally {
      client?.close();
      await loom?.stop();
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      if ('unmount' in mounted) mounted.unmount();
      done();
    }
  },
};

function mergeLedgers(ledgers: AppendLedger[]): AppendLedger {
  const all = new AppendLedger();
  for (const l of ledgers) {
    for (const [id, thread] of l.sent) all.sent.set(id, thread);
    for (const id of l.acknowledged) all.acknowledged.add(id);
  }
  return all;
}

/** Counts once reads answer again (a read waits for the failed flushes; it answers 503 until one gets through). */
async function countWhenReadable(client: LoomClient, ledger: AppendLedger, log: (line: string) => void): Promise<PresenceCount> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    try {
      return await countPresence(opCall(client), NAMESPACE, ledger);
    } catch (error) {
      if (Date.now() > deadline) throw error;
      log(`reads not answering yet (${error instanceof Error ? error.message.slice(0, 120) : String(error)}); trying again in 2 s`);
      await sleep(2_000);
    }
  }
}
