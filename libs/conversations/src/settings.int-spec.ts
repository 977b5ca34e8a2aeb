import { startTestLoom, uniqueNamespace, type TestLoom } from '../../testing/src';

describe('Settings', () => {
  let loom: TestLoom;
  let ns: string;
  beforeAll(async () => {
    loom = await startTestLoom({ env: { LOOM_CONVERSATION_TITLER_ENABLED: 'false' } });
  });
  beforeEach(() => {
    ns = uniqueNamespace();
  });
  afterAll(async () => loom.close());
  const ok = (op: string, body: Record<string, unknown>) => loom.admin.ok(op, { namespace: ns, ...body });

  it('SETTINGS-01: conversation_logging_enabled defaults to false for a namespace with no row', async () => {
    expect(await ok('conversation.get_logging', {})).toEqual({ namespace: ns, conversation_logging_enabled: false });
    expect((await ok('conversation.append', { thread_id: 't', role: 'user', content: 'x' })).reason).toBe('logging_disabled');
  });

  it('SETTINGS-02: the cosine floor of conversation.search defaults to 0.30 and is what drops weak hits', async () => {
    expect((await loom.admin.ok('settings.get', {})).conversation_search_min_similarity).toBe(0.3);
    await loom.record(ns);
    await ok('conversation.append', { thread_id: 't', role: 'user', content: 'rotate the billing database credentials every quarter' });
    const query = { query: 'rotate billing credentials', namespace_scope: 'namespace', search_mode: 'vector' };
    const [hit] = (await ok('conversation.search', query)).hits;
    expect(hit.score).toBeGreaterThanOrEqual(0.3);
    await loom.admin.ok('settings.set', { key: 'conversation_search_min_similarity', value: Math.min(1, hit.score + 0.01) });
    try {
      expect((await ok('conversation.search', query)).hits).toEqual([]);
    } finally {
      await loom.admin.ok('settings.set', { key: 'conversation_search_min_similarity', value: 0.3 });
    }
  });

  it('SETTINGS-03: conversation_search_excerpt_chars defaults to 240 and one live change sets both search hits and saved listings', async () => {
    await loom.record(ns);
    const text = 'ledger '.repeat(100);
    await ok('conversation.append', { thread_id: 't', msg_id: 'm', role: 'user', content: text, user_id: 'u1' });
    await ok('conversation.save_message', { user_id: 'u1', conversation_id: 't', message_id: 'm' });
    const excerpts = async () => [
      (await ok('conversation.search', { query: 'ledger', namespace_scope: 'namespace' })).hits[0].excerpt.length,
      (await ok('conversation.list_saved_messages', { user_id: 'u1' })).messages[0].excerpt.length,
    ];
    expect(await excerpts()).toEqual([240, 240]);
    await loom.admin.ok('settings.set', { key: 'conversation_search_excerpt_chars', value: 60 });
    try {
      expect(await excerpts()).toEqual([60, 60]);
    } finally {
      await loom.admin.ok('settings.set', { key: 'conversation_search_excerpt_chars', value: 240 });
    }
  });
});
