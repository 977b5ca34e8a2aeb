import { InMemoryLeaseManager } from '@loom/leases';
import { openTestStorage } from '../../testing/src';
import { ExtractionQueue, type ExtractionRow } from '../../memory/src/extraction-queue';

// The generic queue through its simplest user, the memory_extractions table.
describe('stored job queue (runNow)', () => {
  let storage: Awaited<ReturnType<typeof openTestStorage>>;
  beforeAll(async () => {
    storage = await openTestStorage();
  });
  afterAll(async () => storage.drop());
  const options = { pollMs: 60_000, retryBaseMs: 20, maxAttempts: 3, batch: 20 };
  const job = (id: string) => ({ namespace: 'now', extraction_id: id, user_id: '', status: 'pending' as const, facts: 0 });

  it('runs a pending job at once, whether or not its retry is due, and answers the row it left', async () => {
    const queue = new ExtractionQueue(storage, new InMemoryLeaseManager(), async () => 3, options);
    await queue.record(job('ext_now'), { background: false });
    expect(await queue.runNow('now', 'ext_now')).toMatchObject({ ran: true, row: { status: 'done', facts: 3, attempts: 1 } });
    // Done already: a second call runs nothing and answers the row as it is.
    expect(await queue.runNow('now', 'ext_now')).toMatchObject({ ran: false, row: { status: 'done', facts: 3 } });
    await queue.close();
  });

  it('a failing run answers its error and leaves the job pending for a retry, with the error recorded', async () => {
    const queue = new ExtractionQueue(storage, new InMemoryLeaseManager(), async () => {
      throw new Error('storage is unavailable');
    }, options);
    await queue.record(job('ext_fails'), { background: false });
    const outcome = await queue.runNow('now', 'ext_fails');
    expect(outcome.error).toBeInstanceOf(Error);
    expect(outcome.row).toMatchObject({ status: 'pending', attempts: 1, last_error: 'storage is unavailable' });
    expect(await queue.find('now', 'ext_fails')).toMatchObject({ status: 'pending', attempts: 1 });
    await queue.close();
  });

  it('when another replica holds the job, runNow waits for it and answers the row that replica left', async () => {
    const leases = new InMemoryLeaseManager();
    let runs = 0;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    // Counts this job's runs only: a poll also picks up other tests' jobs whose retry fell due.
    const run = async (row: ExtractionRow) => {
      if (row.extraction_id !== 'ext_taken') return 0;
      runs += 1;
      await gate;
      return 5;
    };
    const poller = new ExtractionQueue(storage, leases, run, options);
    const caller = new ExtractionQueue(storage, leases, run, options);
    await caller.record(job('ext_taken'), { background: false });
    poller.kick();
    while (runs === 0) await new Promise((r) => setTimeout(r, 5));
    const waiting = caller.runNow('now', 'ext_taken', 10_000);
    release();
    expect(await waiting).toMatchObject({ ran: false, row: { status: 'done', facts: 5, attempts: 1 } });
    expect(runs).toBe(1);
    await Promise.all([poller.close(), caller.close()]);
  });
});
