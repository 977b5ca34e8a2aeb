import { startOpenAiCompatibleServer, startTestLoom, uniqueNamespace, type OpenAiCompatibleServer, type TestLoom } from '../../testing/src';

describe('episodic observations (observe.record, observe.list, observe.crystallize)', () => {
  let llm: OpenAiCompatibleServer;
  let loom: TestLoom;
  let ns: string;
  let prompts: string[];

  beforeAll(async () => {
    llm = await startOpenAiCompatibleServer({
      chat: (messages) => {
        prompts.push(messages.map((m) => m.content).join('\n'));
        return '- The export job test fails until ledger_v2 is migrated.';
      },
    });
    loom = await startTestLoom({ env: { LOOM_LLM_BASE_URL: llm.baseUrl, LOOM_LLM_MODEL: 'facts', LOOM_CONVERSATION_TITLER_ENABLED: 'false' } });
  });
  beforeEach(() => {
    ns = uniqueNamespace();
    prompts = [];
  });
  afterAll(async () => {
    await loom.close();
    await llm.close();
  });

  const ok = (op: string, body: Record<string, unknown>) => loom.admin.ok(op, { namespace: ns, ...body });
  const actions = [
    { obs_id: 'tu1', tool: 'Bash', summary: 'Bash: npm test -- export', outcome: 'error', ts: '2026-11-29T10:00:00Z' },
    { obs_id: 'tu2', tool: 'Edit', summary: 'Edit: apps/billing/export.ts', path: 'apps/billing/export.ts', outcome: 'ok', ts: '2026-11-29T10:01:00Z' },
    { obs_id: 'tu3', tool: 'Bash', summary: 'Bash: export DB_PASSWORD=hunter2-tr0ub4dor && npm run migrate', outcome: 'ok', ts: '2026-11-29T10:02:00Z' },
  ];

  it('CAPTURE-08: tool actions are kept as observations whether or not the namespace records; one sent again is kept once; a high one never', async () => {
    expect((await ok('conversation.get_logging', {})).conversation_logging_enabled).toBe(false);
    expect(await ok('observe.record', { session_id: 's1', user_id: 'u1', observations: actions })).toEqual({ session_id: 's1', recorded: 2, skipped_high: 1 });
    await ok('observe.record', { session_id: 's1', user_id: 'u1', observations: actions.slice(0, 2) });
    const { observations } = await ok('observe.list', { session_id: 's1' });
    expect(observations.map((o: { obs_id: string; summary: string; outcome: string }) => [o.obs_id, o.summary, o.outcome])).toEqual([
      ['tu2', 'Edit: apps/billing/export.ts', 'ok'],
      ['tu1', 'Bash: npm test -- export', 'error'],
    ]);
    expect(JSON.stringify(await ok('observe.list', { agent: '*' }))).not.toContain('hunter2');
    expect((await ok('observe.list', { session_id: 's1', outcome: 'error' })).observations.map((o: { obs_id: string }) => o.obs_id)).toEqual(['tu1']);
    expect((await ok('observe.list', { session_id: 's1', agent: 'someone-else' })).observations).toEqual([]);
  });

  it('CAPTURE-08: observe.crystallize hands the session\'s new observations to memory extraction once, and the facts are searchable', async () => {
    await ok('observe.record', { session_id: 's1', observations: actions.slice(0, 2) });
    const first = await ok('observe.crystallize', { session_id: 's1' });
    expect(first).toMatchObject({ session_id: 's1', observations: 2, deferred: false, facts: 1 });
    expect(prompts.join('\n')).toContain('- [error] Bash: npm test -- export');
    expect((await ok('memory.search', { query: 'export job test fails ledger_v2' })).hits.map((h: { text: string }) => h.text)).toEqual([
      'The export job test fails until ledger_v2 is migrated.',
    ]);
    // Nothing new: no extraction. One sent again keeps its stamp, so it is not extracted twice.
    expect(await ok('observe.crystallize', { session_id: 's1' })).toEqual({ session_id: 's1', observations: 0, extraction_id: null, deferred: false });
    await ok('observe.record', { session_id: 's1', observations: actions.slice(0, 1) });
    expect((await ok('observe.crystallize', { session_id: 's1' })).observations).toBe(0);
    expect((await ok('observe.list', { session_id: 's1' })).observations.every((o: { crystallized_at: string | null }) => o.crystallized_at !== null)).toBe(true);
    // Two at once never hand over the same observations.
    await ok('observe.record', { session_id: 's2', observations: actions.slice(0, 2) });
    const both = await Promise.all([ok('observe.crystallize', { session_id: 's2', defer: true }), ok('observe.crystallize', { session_id: 's2', defer: true })]);
    expect(both.map((r) => r.observations).sort()).toEqual([0, 2]);
  });

  it('context.pack lists the session\'s latest tool actions, oldest first', async () => {
    await ok('observe.record', { session_id: 's1', observations: actions.slice(0, 2) });
    const pack = await ok('context.pack', { query: 'export job', session_id: 's1' });
    expect(pack.actions.map((a: { obs_id: string }) => a.obs_id)).toEqual(['tu1', 'tu2']);
    expect(pack.pack).toContain('## Recent actions in this session\n- [error] Bash: npm test -- export\n- [ok] Edit: apps/billing/export.ts');
  });

  it('bad observations are refused naming each bad field, and nothing is written', async () => {
    const bad = await loom.admin.call('observe.record', { namespace: ns, session_id: 's1', observations: [actions[0], { obs_id: '', tool: 'Bash', summary: '', outcome: 'maybe' }] });
    expect(bad.status).toBe(400);
    expect(bad.body.error.fields.map((f: { field: string }) => f.field).sort()).toEqual(['observations.1.obs_id', 'observations.1.outcome', 'observations.1.summary']);
    expect((await ok('observe.list', { session_id: 's1' })).observations).toEqual([]);
    expect((await loom.admin.call('observe.record', { namespace: ns, observations: actions })).body.error.fields.map((f: { field: string }) => f.field)).toEqual(['session_id']);
  });

  it('a person\'s erasure removes their observations', async () => {
    const [gone, kept] = [`u-${ns}-gone`, `u-${ns}-kept`];
    await ok('observe.record', { session_id: 's1', user_id: gone, observations: actions.slice(0, 2) });
    await ok('observe.record', { session_id: 's2', user_id: kept, observations: actions.slice(0, 1) });
    expect((await ok('erasure.request', { user_id: gone })).erased.observations).toBe(2);
    expect((await ok('observe.list', { agent: '*' })).observations.map((o: { user_id: string }) => o.user_id)).toEqual([kept]);
  });
});
