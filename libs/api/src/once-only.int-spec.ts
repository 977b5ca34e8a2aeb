import { startTestLoom, uniqueNamespace, type TestLoom } from '../../testing/src';

/**
 * Writes that must happen once however many callers race: each is a read-then-write of one row,
 * held under that row's lease. Driven through the HTTP API with real concurrency.
 */
describe('Once-only writes under concurrency [issue 9: races]', () => {
  let loom: TestLoom;
  beforeAll(async () => {
    loom = await startTestLoom({ env: { LOOM_CONVERSATION_TITLER_ENABLED: 'false' } });
  });
  afterAll(async () => loom.close());

  it('CONV-APPEND-05 [issue 9: create race]: 20 parallel conversation.create of one id give one created:true, 19 conflicts, and the winner\'s title stays', async () => {
    const ns = uniqueNamespace();
    await loom.record(ns);
    const writer = await loom.as(ns, 'writer');
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => writer.call('conversation.create', { thread_id: 'race', title: `title ${i}` })));
    const created = answers.map((a, i) => ({ i, a })).filter(({ a }) => a.status === 200 && a.body.created === true);
    expect(created).toHaveLength(1);
    expect(answers.filter((a) => a.status === 409)).toHaveLength(19);
    const thread = await writer.ok('conversation.get', { thread_id: 'race' });
    expect(thread.thread.title).toBe(`title ${created[0]!.i}`);
  });

  it('[issue 9: report_usage race] concurrent first run.report_usage calls on a new run answer began:true to exactly one caller, and every report is kept', async () => {
    const ns = uniqueNamespace();
    const writer = await loom.as(ns, 'writer');
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        writer.call('run.report_usage', { run_id: 'new-run', goal: `session ${i}`, reports: [{ usage_id: `u${i}`, model: 'claude-sonnet-4-5', input_tokens: 10, output_tokens: 1 }] }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200));
    expect(answers.filter((a) => a.body.began === true)).toHaveLength(1);
    const run = (await writer.ok('run.get', { run_id: 'new-run' })).run;
    expect(run.source).toBe('capture');
    expect(run.model_cost.input_tokens).toBe(200);
  });

  it('RUNS-01: 20 parallel run.begin of one client run id begin it once; the rest are 409', async () => {
    const writer = await loom.as(uniqueNamespace(), 'writer');
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => writer.call('run.begin', { run_id: 'mine', goal: `goal ${i}` })));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
    expect(answers.filter((a) => a.status === 409)).toHaveLength(19);
  });

  it('a run completed while calls race on it stays completed (no later write puts it back to running)', async () => {
    const namespace = uniqueNamespace();
    const writer = await loom.as(namespace, 'writer');
    const { run } = await writer.ok('run.begin', { goal: 'g' });
    const runs = loom.gateway.runtime.runs;
    const completes = Promise.all(Array.from({ length: 5 }, () => writer.call('run.complete', { run_id: run.run_id, status: 'succeeded' })));
    await Promise.all(Array.from({ length: 20 }, () => runs.touch(namespace, run.run_id)));
    const answered = await completes;
    expect(answered.filter((a) => a.status === 200)).toHaveLength(1);
    expect((await writer.ok('run.get', { run_id: run.run_id })).run.status).toBe('succeeded');
  });
});
