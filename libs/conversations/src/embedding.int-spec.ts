import { ControllableProvider, embeddingRows, startTestLoom, uniqueNamespace, type TestLoom } from '../../testing/src';

describe('Embedding & fail-open', () => {
  const provider = new ControllableProvider();
  let loom: TestLoom;
  let ns: string;
  beforeAll(async () => {
    loom = await startTestLoom({ provider });
  });
  beforeEach(async () => {
    provider.failing = false;
    ns = uniqueNamespace();
    await loom.record(ns);
  });
  afterAll(async () => loom.close());
  const append = (body: Record<string, unknown>) => loom.admin.ok('conversation.append', { namespace: ns, ...body });
  const storage = () => loom.gateway.runtime.storage;

  it('CONV-EMBED-01: each stored user or assistant turn gets one embedding row holding its text', async () => {
    await append({ thread_id: 't', role: 'user', content: 'What is the retention policy?', msg_id: 'u' });
    await append({ thread_id: 't', role: 'assistant', content: 'Ninety days for invoices.', msg_id: 'a' });
    const rows = await embeddingRows(storage(), ns);
    expect(rows.map((r) => [r.msg_id, r.text, r.embed_error])).toEqual([
      ['u', 'What is the retention policy?', ''],
      ['a', 'Ninety days for invoices.', ''],
    ]);
    expect(rows.every((r) => r.dims === provider.dims && r.model === provider.model)).toBe(true);
  });

  it('CONV-EMBED-02: a 5,000-character turn is kept whole while its embedding row holds exactly characters 1-2,048', async () => {
    const content = Array.from({ length: 5000 }, (_, i) => String.fromCharCode(97 + (i % 26))).join('');
    const sentBefore = provider.received.length;
    await append({ thread_id: 't', role: 'user', content, msg_id: 'long' });
    const [turn] = (await loom.admin.ok('conversation.list', { namespace: ns, thread_id: 't' })).messages;
    expect(turn.content).toHaveLength(5000);
    const [row] = await embeddingRows(storage(), ns);
    expect(row!.text).toBe(content.slice(0, 2048));
    expect(provider.received.slice(sentBefore)).toEqual([content.slice(0, 2048)]);
  });

  it('the 2,048-character cut counts characters, never splitting an emoji', async () => {
    const content = 'a'.repeat(2047) + '🙂🙂';
    await append({ thread_id: 't', role: 'user', content });
    const [row] = await embeddingRows(storage(), ns);
    expect(row!.text).toBe('a'.repeat(2047) + '🙂');
  });

  it('a turn two agents log in one thread has one shared embedding row, kept by the first agent', async () => {
    const turn = { thread_id: 't', role: 'user', content: 'shared between two agents', msg_id: 'same' };
    expect(await append({ ...turn, agent: 'claude' })).toMatchObject({ stored: true });
    expect(await append({ ...turn, agent: 'codex' })).toMatchObject({ stored: true });
    const storage = loom.gateway.runtime.storage;
    const rows = await storage.query<{ agent: string }>(`SELECT agent FROM ${storage.tables.conversationEmbeddings} WHERE namespace = {ns:String}`, { ns });
    expect(rows).toEqual([{ agent: 'claude' }]);
    const transcripts = await storage.query<{ agent: string }>(`SELECT agent FROM ${storage.tables.conversations} FINAL WHERE namespace = {ns:String} ORDER BY agent`, { ns });
    expect(transcripts.map((r) => r.agent)).toEqual(['claude', 'codex']);
  });

  it('CONV-EMBED-05: system and tool turns stay in the transcript with no embedding row and never in search', async () => {
    await append({ thread_id: 't', role: 'system', content: 'You are the billing assistant for ledger questions' });
    await append({ thread_id: 't', role: 'tool', content: 'ledger query returned 42 invoices for billing' });
    expect((await loom.admin.ok('conversation.list', { namespace: ns, thread_id: 't' })).messages).toHaveLength(2);
    expect(await embeddingRows(storage(), ns)).toEqual([]);
    await loom.admin.ok('settings.set', { key: 'conversation_search_min_similarity', value: 0 });
    try {
      const hits = await loom.admin.ok('conversation.search', { namespace: ns, query: 'billing assistant ledger invoices', namespace_scope: 'namespace' });
      expect(hits.hits).toEqual([]);
    } finally {
      await loom.admin.ok('settings.set', { key: 'conversation_search_min_similarity', value: 0.3 });
    }
  });

  it('CONV-EMBED-07: when the embedder fails the turn is still stored and its embedding row records the error', async () => {
    provider.failing = true;
    const result = await append({ thread_id: 't', role: 'user', content: 'Remember the Zanzibar rollout', msg_id: 'fail' });
    expect(result).toEqual({ stored: true, thread_id: 't', msg_id: 'fail' });
    const [row] = await embeddingRows(storage(), ns);
    expect(row!.text).toBe('Remember the Zanzibar rollout');
    expect(row!.dims).toBe(0);
    expect(row!.embed_error).toMatch(/^provider_failed: .*failing on purpose/);
    const metrics = await loom.admin.get('/metrics');
    expect(metrics.text).toMatch(/loom_embed_failures_total\{reason="provider_failed"[^}]*\} [1-9]/);
  });

  it('CONV-EMBED-08: a failed-embed turn is never re-embedded; vector search skips it and only the substring fallback finds it', async () => {
    provider.failing = true;
    await append({ thread_id: 't', role: 'user', content: 'Zanzibar rollout checklist', msg_id: 'lost' });
    provider.failing = false;
    const sentAfterFailure = provider.received.length;
    const vector = await loom.admin.ok('conversation.search', { namespace: ns, query: 'Zanzibar rollout checklist', namespace_scope: 'namespace', search_mode: 'vector' });
    expect(vector.mode).toBe('vector');
    expect(vector.hits).toEqual([]);
    // Only the query was embedded: nothing went back for the failed turn.
    expect(provider.received.slice(sentAfterFailure)).toEqual(['Zanzibar rollout checklist']);
    await loom.stopEmbedder();
    try {
      const fallback = await loom.admin.ok('conversation.search', { namespace: ns, query: 'zanzibar', namespace_scope: 'namespace', search_mode: 'vector' });
      expect(fallback.mode).toBe('substring');
      expect(fallback.hits.map((h: { msg_id: string }) => h.msg_id)).toEqual(['lost']);
    } finally {
      await loom.startEmbedder();
    }
  });

  it('CONV-EMBED-09: a high turn\'s text is never sent to the embedder', async () => {
    const secret = 'sk-proj-' + 'Q7x9'.repeat(12);
    const before = provider.received.length;
    const result = await append({ thread_id: 't', role: 'user', content: `here is my key ${secret} please use it` });
    expect(result.stored).toBe(true);
    expect(provider.received.slice(before)).toEqual([]);
    expect(provider.sawText(secret)).toBe(false);
  });

  it('AMBIGUOUS(fail-open answer): an append whose embed failed answers plainly stored:true, with no warning field', async () => {
    await loom.stopEmbedder();
    try {
      const result = await append({ thread_id: 't', role: 'assistant', content: 'no embedder is running', msg_id: 'down' });
      expect(result).toEqual({ stored: true, thread_id: 't', msg_id: 'down' });
      const [row] = await embeddingRows(storage(), ns);
      expect(row!.embed_error).toMatch(/^embedder_unavailable: nothing serves loom\.embed\.batch\.v1/);
    } finally {
      await loom.startEmbedder();
    }
  });
});
