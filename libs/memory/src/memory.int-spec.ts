import { ControllableProvider, startOpenAiCompatibleServer, startTestLoom, uniqueNamespace, type OpenAiCompatibleServer, type TestLoom } from '../../testing/src';

describe('Memory plane (memory.set, set_from_messages, search, recall)', () => {
  const provider = new ControllableProvider();
  let llm: OpenAiCompatibleServer;
  let answer: (prompt: string) => string;
  let loom: TestLoom;
  let ns: string;

  beforeAll(async () => {
    llm = await startOpenAiCompatibleServer({ chat: (messages) => answer(messages.map((m) => m.content).join('\n')) });
    loom = await startTestLoom({ provider, env: { LOOM_LLM_BASE_URL: llm.baseUrl, LOOM_LLM_MODEL: 'facts', LOOM_CONVERSATION_TITLER_ENABLED: 'false' } });
  });
  beforeEach(() => {
    ns = uniqueNamespace();
    answer = () => '- Invoices are stored in the ledger_v2 table.\n- The nightly export job reads ledger_v2.';
  });
  afterAll(async () => {
    await loom.close();
    await llm.close();
  });

  const ok = (op: string, body: Record<string, unknown>) => loom.admin.ok(op, { namespace: ns, ...body });
  const memories = async (query: string) => (await ok('memory.search', { query })).hits.map((h: { text: string }) => h.text);
  const messages = [
    { role: 'user', content: 'Where do invoices live now?' },
    { role: 'assistant', content: 'In the ledger_v2 table; the nightly export job reads it.' },
  ];

  it('CONV-APPEND-10, CONV-SEARCH-11: recorded turns never become memories; memory.search finds facts only once the turns go to memory.set_from_messages', async () => {
    await loom.record(ns);
    for (const m of messages) await ok('conversation.append', { thread_id: 't', ...m });
    expect(await memories('where do invoices live ledger_v2')).toEqual([]);
    const extracted = await ok('memory.set_from_messages', { messages, user_id: 'u1' });
    expect(extracted).toMatchObject({ deferred: false, evidence: 2, skipped_high: 0, facts: 2 });
    expect(await memories('where are invoices stored ledger_v2')).toContain('Invoices are stored in the ledger_v2 table.');
  });

  it('memory.set writes one fact; a fact that reads as high is refused and never embedded', async () => {
    expect(await ok('memory.set', { text: 'The team prefers squash merges.' })).toMatchObject({ stored: true, memory_id: expect.stringMatching(/^mem_/) });
    expect(await memories('which merge style does the team prefer')).toEqual(['The team prefers squash merges.']);
    const sent = provider.received.length;
    expect(await ok('memory.set', { text: 'the prod password=Hunter2Prod!' })).toEqual({ memory_id: null, stored: false, reason: 'high_sensitivity' });
    expect(provider.received.slice(sent).join()).not.toContain('Hunter2');
  });

  it('CONV-REC-08: turning recording off does not touch memories already extracted', async () => {
    await loom.record(ns);
    await ok('memory.set_from_messages', { messages });
    await ok('conversation.set_logging', { enabled: false });
    expect(await memories('where are invoices stored ledger_v2')).toContain('Invoices are stored in the ledger_v2 table.');
  });

  it('CONV-SEARCH-10: memory.recall reads the evidence an extraction read, kept although the namespace does not record; conversation.search does not read it', async () => {
    await ok('memory.set_from_messages', { messages, session_id: 'sess-1', user_id: 'u1' });
    const recalled = await ok('memory.recall', { query: 'ledger_v2 export' });
    expect(recalled.hits[0]).toMatchObject({ role: 'assistant', session_id: 'sess-1', user_id: 'u1', excerpt: expect.stringContaining('ledger_v2') });
    const window = await ok('memory.recall', { since: new Date(Date.now() - 60_000).toISOString() });
    expect(window.hits).toHaveLength(2);
    expect((await ok('memory.recall', { until: new Date(Date.now() - 3_600_000).toISOString() })).hits).toEqual([]);
    expect((await ok('conversation.search', { query: 'ledger_v2 export', namespace_scope: 'namespace' })).hits).toEqual([]);
    expect((await loom.admin.call('memory.recall', { namespace: ns, since: 'yesterday' })).status).toBe(400);
  });

  it('a turn that reads as high is never kept as evidence nor sent to the model', async () => {
    const prompts: string[] = [];
    answer = (p) => (prompts.push(p), '');
    const result = await ok('memory.set_from_messages', { messages: [...messages, { role: 'user', content: 'my SSN is 123-45-6789' }] });
    expect(result).toMatchObject({ evidence: 2, skipped_high: 1, facts: 0 });
    expect(prompts.join()).not.toContain('123-45-6789');
    expect((await ok('memory.recall', { query: 'SSN' })).hits).toEqual([]);
  });

  it('defer: answers at once; the facts land in the background', async () => {
    const result = await ok('memory.set_from_messages', { messages, defer: true });
    expect(result).toMatchObject({ deferred: true, evidence: 2 });
    expect(result.facts).toBeUndefined();
    const deadline = Date.now() + 10_000;
    while ((await memories('where are invoices stored ledger_v2')).length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(await memories('where are invoices stored ledger_v2')).toContain('Invoices are stored in the ledger_v2 table.');
  });

  it('memory.extraction_status: a deferred extraction is pending, then done with its facts; a synchronous one is done at once', async () => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((r) => (release = r));
    const slow = await startOpenAiCompatibleServer({ chat: async () => (await held, answer('')) });
    const deferred = await startTestLoom({ provider, env: { LOOM_LLM_BASE_URL: slow.baseUrl, LOOM_LLM_MODEL: 'facts', LOOM_CONVERSATION_TITLER_ENABLED: 'false' } });
    try {
      const { extraction_id } = await deferred.admin.ok('memory.set_from_messages', { namespace: ns, messages, defer: true });
      expect(await deferred.admin.ok('memory.extraction_status', { namespace: ns, extraction_id })).toMatchObject({ extraction_id, status: 'pending', facts: null, last_error: null });
      release();
      await deferred.gateway.runtime.memory.extractions.idle();
      expect(await deferred.admin.ok('memory.extraction_status', { namespace: ns, extraction_id })).toMatchObject({ status: 'done', facts: 2, attempts: 1, next_attempt_at: null });
      const sync = await deferred.admin.ok('memory.set_from_messages', { namespace: ns, messages });
      expect(await deferred.admin.ok('memory.extraction_status', { namespace: ns, extraction_id: sync.extraction_id })).toMatchObject({ status: 'done', facts: 2 });
      expect((await deferred.admin.call('memory.extraction_status', { namespace: ns, extraction_id: 'ext_nope' })).status).toBe(404);
    } finally {
      release();
      await deferred.close();
      await slow.close();
    }
  });

  it('a deferred extraction whose model call fails is retried, and its facts land once the model answers', async () => {
    const flaky = await startOpenAiCompatibleServer({ chat: () => '- Invoices are stored in the ledger_v2 table.', failWith: 500 });
    const retrying = await startTestLoom({
      provider,
      env: { LOOM_LLM_BASE_URL: flaky.baseUrl, LOOM_LLM_MODEL: 'facts', LOOM_CONVERSATION_TITLER_ENABLED: 'false', LOOM_MEMORY_EXTRACTION_RETRY_MS: '50', LOOM_MEMORY_EXTRACTION_POLL_MS: '50', LOOM_LLM_TIMEOUT_MS: '2000' },
    });
    try {
      const { extraction_id } = await retrying.admin.ok('memory.set_from_messages', { namespace: ns, messages, defer: true });
      const status = () => retrying.admin.ok('memory.extraction_status', { namespace: ns, extraction_id });
      const deadline = Date.now() + 20_000;
      while ((await status()).attempts < 1 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      const failing = await status();
      expect(failing).toMatchObject({ status: 'pending', facts: null });
      expect(failing.last_error).toMatch(/500/);
      expect(failing.last_error).not.toContain('ledger_v2');
      flaky.setFailure(undefined);
      while ((await status()).status !== 'done' && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(await status()).toMatchObject({ status: 'done', facts: 1, last_error: null });
      expect((await retrying.admin.ok('memory.search', { namespace: ns, query: 'where are invoices stored ledger_v2' })).hits.map((h: { text: string }) => h.text)).toEqual([
        'Invoices are stored in the ledger_v2 table.',
      ]);
    } finally {
      await retrying.close();
      await flaky.close();
    }
  });

  it('context.pack: facts, the session\'s turns and evidence for one scope; a section whose dependency is down is named, not fatal', async () => {
    await loom.record(ns);
    await ok('conversation.append', { thread_id: 's1', role: 'user', content: 'the ledger_v2 move is half done' });
    await ok('conversation.append', { thread_id: 's2', role: 'user', content: 'another session about the ledger_v2 move' });
    await ok('memory.set_from_messages', { messages, user_id: 'u1', session_id: 's1' });
    const pack = await ok('context.pack', { query: 'ledger_v2 move', user_id: 'u1', session_id: 's1' });
    expect(pack.memories.map((m: { text: string }) => m.text)).toContain('Invoices are stored in the ledger_v2 table.');
    expect(pack.conversation.map((h: { thread_id: string }) => h.thread_id)).toEqual(['s1']);
    expect(pack.evidence.length).toBeGreaterThan(0);
    expect(pack.unavailable).toEqual([]);
    const small = await ok('context.pack', { query: 'ledger_v2 move', user_id: 'u1', session_id: 's1', max_chars: 500 });
    expect(small.pack.length).toBeLessThanOrEqual(500);
    expect((await ok('context.pack', { query: 'ledger_v2 move', user_id: 'u2' })).memories).toEqual([]);
    provider.failing = true;
    try {
      const degraded = await ok('context.pack', { query: 'ledger_v2 move', user_id: 'u1', session_id: 's1' });
      expect(degraded.unavailable).toEqual(['memories']);
      // conversation.search falls back to substring matching; evidence is read by words.
      expect(degraded.evidence.length).toBeGreaterThan(0);
    } finally {
      provider.failing = false;
    }
    const bad = await loom.admin.call('context.pack', { namespace: ns, max_chars: 10 });
    expect(bad.status).toBe(400);
    expect(bad.body.error.fields.map((f: { field: string }) => f.field).sort()).toEqual(['max_chars', 'query']);
  });

  it('with the fake LLM, extraction finds no facts and keeps the evidence', async () => {
    const bare = await startTestLoom({ provider, env: { LOOM_CONVERSATION_TITLER_ENABLED: 'false' } });
    try {
      const result = await bare.admin.ok('memory.set_from_messages', { namespace: ns, messages });
      expect(result).toMatchObject({ facts: 0, evidence: 2 });
      expect((await bare.admin.ok('memory.recall', { namespace: ns, query: 'ledger_v2' })).hits).toHaveLength(1);
    } finally {
      await bare.close();
    }
  });
});
