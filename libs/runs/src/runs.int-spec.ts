import { startTestLoom, uniqueNamespace, type TestLoom } from '../../testing/src';

describe('Runs (run.begin, run.complete)', () => {
  let loom: TestLoom;
  let ns: string;
  beforeAll(async () => {
    // An operator's price for a model Loom does not list, and one that replaces a listed price.
    loom = await startTestLoom({ env: { LOOM_CONVERSATION_TITLER_ENABLED: 'false', LOOM_MODEL_PRICES: JSON.stringify({ 'acme-*': { input: 10, output: 20 }, 'claude-haiku-4-5': { input: 2, output: 8 } }) } });
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

  const usage = (usageId: string, extra: Record<string, unknown> = {}) => ({
    usage_id: usageId,
    model: 'claude-sonnet-4-5',
    input_tokens: 1_000,
    output_tokens: 2_000,
    cache_write_tokens: 10_000,
    cache_read_tokens: 100_000,
    ...extra,
  });
  // claude-sonnet-4-5: input $3, output $15, 5-minute cache write $3.75, cache read $0.30 per million.
  const SONNET_CALL_USD = (1_000 * 3 + 2_000 * 15 + 10_000 * 3.75 + 100_000 * 0.3) / 1e6;

  it('RUNS-02, TRACE-04: a run with no usage reported has no model cost; reported usage gives it one, priced per model', async () => {
    const { run } = await ok('run.begin', { goal: 'Move invoices to the new ledger' });
    expect(run.model_cost).toBeNull();
    expect((await ok('run.get', { run_id: run.run_id })).run.model_cost).toBeNull();
    const answer = await ok('run.report_usage', { run_id: run.run_id, reports: [usage('msg_1'), usage('msg_2', { model: 'acme-large', input_tokens: 500_000, output_tokens: 0, cache_write_tokens: 0, cache_read_tokens: 0 })] });
    expect(answer).toMatchObject({ run_id: run.run_id, accepted: 2, began: false });
    const cost = (await ok('run.get', { run_id: run.run_id })).run.model_cost;
    expect(cost).toMatchObject({ reports: 2, input_tokens: 501_000, output_tokens: 2_000, cache_write_tokens: 10_000, cache_read_tokens: 100_000, unpriced_models: [] });
    expect(cost.cost_usd).toBeCloseTo(SONNET_CALL_USD + 5, 6);
    expect(cost.by_model.map((m: { model: string; cost_usd: number }) => [m.model, m.cost_usd])).toEqual([
      ['acme-large', 5],
      ['claude-sonnet-4-5', Math.round(SONNET_CALL_USD * 1e6) / 1e6],
    ]);
  });

  it('RUNS-02: a report sent again, or by 30 clients at once, is counted once', async () => {
    const { run } = await ok('run.begin', { goal: 'g' });
    await ok('run.report_usage', { run_id: run.run_id, reports: [usage('msg_a'), usage('msg_b')] });
    // The client sends the session's whole usage again, plus a newer call.
    await ok('run.report_usage', { run_id: run.run_id, reports: [usage('msg_a'), usage('msg_b'), usage('msg_c')] });
    await Promise.all(Array.from({ length: 30 }, () => ok('run.report_usage', { run_id: run.run_id, reports: [usage('msg_c'), usage('msg_d')] })));
    const cost = (await ok('run.get', { run_id: run.run_id })).run.model_cost;
    expect(cost.reports).toBe(4);
    expect(cost.output_tokens).toBe(8_000);
    expect(cost.cost_usd).toBeCloseTo(4 * SONNET_CALL_USD, 6);
  });

  it('RUNS-02: usage of an unknown run begins it (source capture) when a goal comes with it, and is a 404 without one; a completed run still takes usage', async () => {
    expect((await loom.admin.call('run.report_usage', { namespace: ns, run_id: 'claude-code-s1', reports: [usage('m1')] })).status).toBe(404);
    const first = await ok('run.report_usage', { run_id: 'claude-code-s1', goal: 'Claude Code session in loom (main)', agent: 'claude', reports: [usage('m1')] });
    expect(first.began).toBe(true);
    expect((await ok('run.get', { run_id: 'claude-code-s1' })).run).toMatchObject({ source: 'capture', status: 'running', agent: 'claude', goal: 'Claude Code session in loom (main)' });
    await ok('run.complete', { run_id: 'claude-code-s1', status: 'ended' });
    const late = await ok('run.report_usage', { run_id: 'claude-code-s1', goal: 'ignored', reports: [usage('m2')] });
    expect(late.began).toBe(false);
    const { run } = await ok('run.get', { run_id: 'claude-code-s1' });
    expect(run).toMatchObject({ status: 'ended', goal: 'Claude Code session in loom (main)' });
    expect(run.model_cost.reports).toBe(2);
  });

  it('a model with no price counts its tokens, is named, and adds nothing to the cost', async () => {
    const { run } = await ok('run.begin', { goal: 'g' });
    const answer = await ok('run.report_usage', { run_id: run.run_id, reports: [usage('m1', { model: 'mystery-model' })] });
    expect(answer.model_cost).toMatchObject({ reports: 1, input_tokens: 1_000, cost_usd: null, unpriced_models: ['mystery-model'] });
    await ok('run.report_usage', { run_id: run.run_id, reports: [usage('m2', { model: 'claude-haiku-4-5', input_tokens: 1_000_000, output_tokens: 0, cache_write_tokens: 0, cache_read_tokens: 0 })] });
    // The operator's price ($2 per million input) replaced the listed one.
    expect((await ok('run.get', { run_id: run.run_id })).run.model_cost).toMatchObject({ cost_usd: 2, unpriced_models: ['mystery-model'] });
  });

  it('run.report_usage refuses bad reports, naming each bad field, and writes nothing', async () => {
    const { run } = await ok('run.begin', { goal: 'g' });
    const bad = await loom.admin.call('run.report_usage', {
      namespace: ns,
      run_id: run.run_id,
      reports: [usage('ok'), { usage_id: '', model: 'm', input_tokens: -1, output_tokens: 1.5 }, usage('x', { ts: 'yesterday' })],
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.fields.map((f: { field: string }) => f.field).sort()).toEqual(['reports.1.input_tokens', 'reports.1.output_tokens', 'reports.1.usage_id', 'reports.2.ts']);
    expect((await loom.admin.call('run.report_usage', { namespace: ns, run_id: run.run_id, reports: [] })).body.error.fields[0].field).toBe('reports');
    expect((await ok('run.get', { run_id: run.run_id })).run.model_cost).toBeNull();
  });

  it('run.list: newest first, filtered by agent, status and start, with each run\'s cost and the page\'s', async () => {
    const a = (await ok('run.begin', { goal: 'first', agent: 'claude' })).run;
    const b = (await ok('run.begin', { goal: 'second', agent: 'codex' })).run;
    const c = (await ok('run.begin', { goal: 'third', agent: 'claude' })).run;
    await ok('run.complete', { run_id: a.run_id, status: 'succeeded' });
    await ok('run.report_usage', { run_id: a.run_id, reports: [usage('m1')] });
    await ok('run.report_usage', { run_id: c.run_id, reports: [usage('m2'), usage('m3')] });
    const all = await ok('run.list', { agent: '*' });
    expect(all.runs.map((r: { goal: string }) => r.goal)).toEqual(['third', 'second', 'first']);
    expect(all.runs.map((r: { model_cost: { reports: number } | null }) => r.model_cost?.reports ?? null)).toEqual([2, null, 1]);
    expect(all.model_cost.cost_usd).toBeCloseTo(3 * SONNET_CALL_USD, 6);
    expect((await ok('run.list', { agent: 'claude' })).runs.map((r: { goal: string }) => r.goal)).toEqual(['third', 'first']);
    expect((await ok('run.list', { agent: '*', status: 'succeeded' })).runs.map((r: { goal: string }) => r.goal)).toEqual(['first']);
    expect((await ok('run.list', { agent: '*', limit: 1, offset: 1 })).runs.map((r: { goal: string }) => r.goal)).toEqual(['second']);
    expect((await ok('run.list', { agent: '*', since: new Date(Date.now() + 60_000).toISOString() })).runs).toEqual([]);
    expect(b.model_cost).toBeNull();
  });
});
