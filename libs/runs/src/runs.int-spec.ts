import { startTestLoom, uniqueNamespace, type TestLoom } from '../../testing/src';

describe('Runs (run.begin, run.complete)', () => {
  let loom: TestLoom;
  let ns: string;
  beforeAll(async () => {
    loom = await startTestLoom({ env: { LOOM_CONVERSATION_TITLER_ENABLED: 'false' } });
  });
  beforeEach(async () => {
    ns = uniqueNamespace();
    await loom.record(ns);
  });
  afterAll(async () => loom.close());
  const ok = (op: string, body: Record<string, unknown>) => loom.admin.ok(op, { namespace: ns, ...body });

  it('RUNS-01: run.begin records the goal; run.complete its status, outcome, the memories relied on and what was written', async () => {
    const { run } = await ok('run.begin', { goal: 'Move invoices to the new ledger', agent: 'claude' });
    expect(run).toMatchObject({ goal: 'Move invoices to the new ledger', status: 'running', agent: 'claude', source: 'api', ended_at: null });
    const memory = await ok('memory.set', { text: 'Invoices live in ledger_v2.' });
    const done = await ok('run.complete', { run_id: run.run_id, status: 'succeeded', outcome: 'Export job moved', memories_used: [memory.memory_id], wrote: ['apps/billing/export.ts'] });
    expect(done.run).toMatchObject({ status: 'succeeded', outcome: 'Export job moved', memories_used: [memory.memory_id], wrote: ['apps/billing/export.ts'] });
    expect((await ok('run.get', { run_id: run.run_id })).run.ended_at).not.toBeNull();
    expect((await loom.admin.call('run.complete', { namespace: ns, run_id: run.run_id, status: 'failed' })).status).toBe(409);
    expect((await loom.admin.call('run.complete', { namespace: ns, run_id: run.run_id, status: 'idle_closed' })).status).toBe(400);
    expect((await loom.admin.call('run.get', { namespace: ns, run_id: 'nope' })).status).toBe(404);
  });

  it('RUNS-03: turns link to a run through run_id, which append, create and update set and list and search filter on', async () => {
    const { run } = await ok('run.begin', { goal: 'g' });
    await ok('conversation.append', { thread_id: 't', role: 'user', content: 'turn inside the run about the ledger', run_id: run.run_id });
    await ok('conversation.append', { thread_id: 't', role: 'user', content: 'turn outside any run about the ledger' });
    await ok('conversation.create', { thread_id: 't2', run_id: run.run_id });
    await ok('conversation.update', { thread_id: 't', run_id: run.run_id });
    expect((await ok('conversation.list', { thread_id: 't', run_id: run.run_id })).messages.map((m: { content: string }) => m.content)).toEqual(['turn inside the run about the ledger']);
    const hits = (await ok('conversation.search', { query: 'turn about the ledger', run_id: run.run_id, namespace_scope: 'namespace' })).hits;
    expect(hits.map((h: { run_id: string }) => h.run_id)).toEqual([run.run_id]);
    expect((await ok('conversation.get', { thread_id: 't2' })).thread.run_id).toBe(run.run_id);
    expect((await ok('conversation.get', { thread_id: 't' })).thread.run_id).toBe(run.run_id);
  });
});
