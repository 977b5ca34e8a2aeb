import { InMemoryLeaseManager } from '@loom/leases';
import { openTestStorage } from '../../testing/src';
import { DefaultExtractionQueueOptions, ExtractionQueue, type ExtractionRow } from './extraction-queue';

describe('deferred extraction queue (memory_extractions)', () => {
  let storage: Awaited<ReturnType<typeof openTestStorage>>;
  beforeAll(async () => {
    storage = await openTestStorage();
  });
  afterAll(async () => storage.drop());

  const options = { ...DefaultExtractionQueueOptions, pollMs: 60_000, retryBaseMs: 20, maxAttempts: 3 };
  const statuses = async (namespace: string) =>
    (await storage.query<{ extraction_id: string; status: string; facts: number; attempts: number }>(
      `SELECT extraction_id, status, facts, attempts FROM ${storage.tables.memoryExtractions} FINAL WHERE namespace = {ns:String} ORDER BY extraction_id`,
      { ns: namespace },
    )).map((r) => ({ ...r, facts: Number(r.facts), attempts: Number(r.attempts) }));

  it('two replicas sharing leases run each pending extraction exactly once', async () => {
    const leases = new InMemoryLeaseManager();
    const runs = new Map<string, number>();
    // Slow enough that both replicas look at the same pending rows while the other works.
    const run = async (row: ExtractionRow) => {
      runs.set(row.extraction_id, (runs.get(row.extraction_id) ?? 0) + 1);
      await new Promise((r) => setTimeout(r, 5));
      return 1;
    };
    const a = new ExtractionQueue(storage, leases, run, options);
    const b = new ExtractionQueue(storage, leases, run, options);
    for (let i = 0; i < 30; i++) await a.record({ namespace: 'twice', extraction_id: `ext_${String(i).padStart(2, '0')}`, user_id: '', status: 'pending', facts: 0 });
    b.kick();
    a.kick();
    await Promise.all([a.idle(), b.idle()]);
    // A look may have started before the last rows landed: one more each finds nothing left.
    a.kick();
    b.kick();
    await Promise.all([a.idle(), b.idle()]);
    expect(runs.size).toBe(30);
    expect([...runs.values()].every((n) => n === 1)).toBe(true);
    expect((await statuses('twice')).every((s) => s.status === 'done' && s.facts === 1 && s.attempts === 1)).toBe(true);
    await Promise.all([a.close(), b.close()]);
  });

  it('a failed attempt is retried after a doubling wait; after the last attempt the extraction is failed', async () => {
    let failures = 0;
    const queue = new ExtractionQueue(
      storage,
      new InMemoryLeaseManager(),
      async (row) => {
        if (row.extraction_id === 'ext_never' || failures < 1) {
          failures += row.extraction_id === 'ext_never' ? 0 : 1;
          throw new Error('the LLM answered 500');
        }
        return 2;
      },
      { ...options, pollMs: 10 },
    );
    await queue.record({ namespace: 'retry', extraction_id: 'ext_flaky', user_id: '', status: 'pending', facts: 0 });
    await queue.record({ namespace: 'retry', extraction_id: 'ext_never', user_id: '', status: 'pending', facts: 0 });
    queue.start();
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline) {
      const rows = await statuses('retry');
      if (rows.length === 2 && rows.every((r) => r.status !== 'pending')) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    await queue.close();
    expect(await statuses('retry')).toEqual([
      { extraction_id: 'ext_flaky', status: 'done', facts: 2, attempts: 2 },
      { extraction_id: 'ext_never', status: 'failed', facts: 0, attempts: 3 },
    ]);
    const failed = await queue.find('retry', 'ext_never');
    expect(failed?.last_error).toBe('the LLM answered 500');
  });
});
