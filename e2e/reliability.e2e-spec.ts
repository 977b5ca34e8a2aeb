import { mkdtempSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import {
  AppendLedger,
  appendUnderLoad,
  countPresence,
  EmbeddedLoomChild,
  FailingWriter,
  fetchOpCall,
  fillFilesystem,
  mountSmallFilesystem,
  sleep,
  startLatencyProxy,
  startSplitTopology,
  type LatencyProxy,
  type OpCall,
  type SplitTopology,
} from '../libs/testing/src';

/**
 * The time-boxed part of `npm run reliability` (docs/reliability.md): faults under load, judged by
 * what the client was told. kill -9 under load is e2e/crash.e2e-spec.ts.
 */
const CLI = resolve(__dirname, '..', 'dist', 'apps', 'cli', 'src', 'main.js');

/** Runs `writers` appenders for `ms` while `during` runs; returns what they were told. */
async function loadFor(call: OpCall, namespace: string, prefix: string, ms: number, during: () => Promise<void> = () => sleep(ms)): Promise<AppendLedger> {
  const ledger = new AppendLedger();
  let stopped = false;
  const load = appendUnderLoad({ call, namespace, ledger, writers: 4, threads: 4, prefix, stop: () => stopped, timeoutMs: 45_000 });
  await during();
  stopped = true;
  await load;
  return ledger;
}

function merged(ledgers: AppendLedger[]): AppendLedger {
  const all = new AppendLedger();
  for (const l of ledgers) {
    for (const [id, thread] of l.sent) all.sent.set(id, thread);
    for (const id of l.acknowledged) all.acknowledged.add(id);
  }
  return all;
}

describe('disk full under append load (embedded) [issue 9: faults and load]', () => {
  let dir: string;
  let dataRoot: string;
  let mounted: ReturnType<typeof mountSmallFilesystem> | undefined;
  let writer: FailingWriter | undefined;
  let loom: EmbeddedLoomChild | undefined;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'loom-disk-full-'));
    dataRoot = join(dir, 'fs');
    // A small file system where this machine allows mounting one (root); otherwise, or with
    // LOOM_TEST_NO_MOUNT set (to try that path on a machine that can mount), a failing writer on the write-ahead log.
    mounted = process.env['LOOM_TEST_NO_MOUNT'] ? { refused: 'LOOM_TEST_NO_MOUNT' } : mountSmallFilesystem(dataRoot, 128);
    if (!('unmount' in mounted)) writer = new FailingWriter(join(dir, 'fault'), join(dataRoot, 'data', 'wal'));
  });
  afterAll(async () => {
    await loom?.stop();
    if (mounted && 'unmount' in mounted) mounted.unmount();
    rmSync(dir, { recursive: true, force: true });
  });

  it('appends are refused with 503 while the disk is full, resume once space is freed, and every acknowledged turn is present exactly once, also after a kill -9', async () => {
    mkdirSync(join(dataRoot, 'data'), { recursive: true });
    loom = new EmbeddedLoomChild({
      cli: CLI,
      dataDir: join(dataRoot, 'data'),
      token: 'loom_disk_full_test_admin_token_0123456789abcdef',
      nodeArgs: writer?.nodeArgs() ?? [],
      env: { LOOM_CONVERSATION_TITLER_ENABLED: 'false' },
    });
    await loom.start();
    let call = fetchOpCall(loom.url, loom.token);
    expect((await call('conversation.set_logging', { namespace: 'disk', enabled: true })).status).toBe(200);

    const before = await loadFor(call, 'disk', 'before', 2_000);
    let filler: { path: string } | undefined;
    let readyWhileFull: { status: number; body: string } | undefined;
    const running = loom;
    const full = await loadFor(call, 'disk', 'full', 3_000, async () => {
      if (writer) writer.fail();
      else filler = fillFilesystem(dataRoot);
      await sleep(1_500);
      readyWhileFull = await running.readyz();
      await sleep(1_500);
    });
    if (filler) rmSync(filler.path);
    writer?.heal();
    const after = await loadFor(call, 'disk', 'after', 3_000);

    expect(before.acknowledged.size).toBeGreaterThan(0);
    // While full: a clear refusal, never an internal error, never a connection cut.
    expect(full.outcomes['503 unavailable']).toBeGreaterThan(0);
    expect(Object.keys(full.outcomes).filter((k) => k !== '503 unavailable' && k !== '200 stored')).toEqual([]);
    // Space back, same process: writes resume.
    expect(after.acknowledged.size).toBeGreaterThan(0);
    // Not ready while the disk refuses writes (the write-ahead log's, or the engine's own when its
    // flush comes first), with why; ready again once a write lands.
    expect(readyWhileFull?.status).toBe(503);
    expect(JSON.parse(readyWhileFull?.body ?? '{}')).toMatchObject({ checks: { writes: false }, reasons: { writes: expect.stringMatching(/write-ahead log|not enough space|ENOSPC/i) } });
    expect((await loom.readyz()).status).toBe(200);

    const all = merged([before, full, after]);
    const counted = await countPresence(call, 'disk', all);
    expect(counted).toMatchObject({ lost: 0, duplicated: 0, strangers: 0, present: all.acknowledged.size });

    // The write-ahead log written around the failure replays cleanly after a crash.
    await loom.kill9();
    await loom.start();
    call = fetchOpCall(loom.url, loom.token);
    const afterKill = await countPresence(call, 'disk', all);
    expect(afterKill).toMatchObject({ lost: 0, duplicated: 0, strangers: 0, present: all.acknowledged.size });
  });
});

describe('slow and stalled storage engine under load (split topology) [issue 9: faults and load]', () => {
  let topology: SplitTopology | undefined;
  let proxy: LatencyProxy | undefined;
  beforeAll(async () => {
    topology = await startSplitTopology({
      embedders: 1,
      storageInFront: async (url) => {
        const target = new URL(url);
        proxy = await startLatencyProxy({ host: target.hostname, port: Number(target.port) }, 0);
        return proxy.url;
      },
    });
  }, 120_000);
  afterAll(async () => {
    await topology?.close();
    await proxy?.close();
  });

  it('appends and searches answer while every engine chunk is delayed and while the engine stalls, and nothing acknowledged is lost or doubled', async () => {
    const call = fetchOpCall(topology!.url, topology!.admin.token, 45_000);
    expect((await call('conversation.set_logging', { namespace: 'slow', enabled: true })).status).toBe(200);
    const searches: Array<number | string> = [];
    const searchWhile = async (stop: () => boolean): Promise<void> => {
      while (!stop()) {
        const answer = await call('conversation.search', { namespace: 'slow', query: 'deploy failed on the ledger migration' }).then(
          (r) => r.status,
          (e: unknown) => String(e),
        );
        searches.push(answer);
      }
    };

    // Slow: 100 ms added to every chunk, both ways.
    proxy!.setDelay(100);
    let stopSearch = false;
    const searching = searchWhile(() => stopSearch);
    const slow = await loadFor(call, 'slow', 'slow', 4_000);
    stopSearch = true;
    await searching;
    expect(slow.acknowledged.size).toBeGreaterThan(0);
    expect(Object.keys(slow.outcomes)).toEqual(['200 stored']);
    expect(searches.length).toBeGreaterThan(0);
    expect(new Set(searches)).toEqual(new Set([200]));

    // Stalled: the engine answers nothing for 4 s, then catches up; calls wait and answer, none hangs.
    proxy!.setDelay(0);
    const stalled = await loadFor(call, 'slow', 'stall', 7_000, async () => {
      await sleep(500);
      proxy!.stall(true);
      await sleep(4_000);
      proxy!.stall(false);
      await sleep(2_500);
    });
    expect(stalled.acknowledged.size).toBeGreaterThan(0);
    expect(Object.keys(stalled.outcomes).filter((k) => k !== '200 stored' && k !== '503 unavailable')).toEqual([]);

    const all = merged([slow, stalled]);
    const counted = await countPresence(call, 'slow', all);
    expect(counted).toMatchObject({ lost: 0, duplicated: 0, strangers: 0, present: all.acknowledged.size });
  });
});
