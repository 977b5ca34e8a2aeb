import { embeddingRows, startOpenAiCompatibleServer, startTestLoom, uniqueNamespace, type TestLoom } from '../../testing/src';

/** The real `openai` client path: Loom's embedder configured by env against an OpenAI-compatible server on loopback. */
describe('OpenAI-compatible embeddings through Loom', () => {
  let server: Awaited<ReturnType<typeof startOpenAiCompatibleServer>>;
  let loom: TestLoom;
  beforeAll(async () => {
    server = await startOpenAiCompatibleServer();
    loom = await startTestLoom({
      env: { LOOM_EMBEDDINGS_BASE_URL: server.baseUrl, LOOM_EMBEDDINGS_MODEL: 'text-embedding-test', LOOM_EMBEDDINGS_API_KEY: 'sk-test-key-not-real' },
    });
  });
  afterAll(async () => {
    await loom.close();
    await server.close();
  });

  it('CONV-EMBED-01: appends and searches embed through the endpoint named by LOOM_EMBEDDINGS_BASE_URL and _MODEL', async () => {
    const ns = uniqueNamespace();
    await loom.record(ns);
    await loom.admin.ok('conversation.append', { namespace: ns, thread_id: 't', role: 'user', content: 'migrate invoices to the new ledger' });
    const embedCalls = server.requests.filter((r) => r.path.endsWith('/embeddings'));
    expect(embedCalls.length).toBeGreaterThan(0);
    expect(embedCalls.at(-1)!.body).toMatchObject({ model: 'text-embedding-test', input: ['migrate invoices to the new ledger'] });
    const [row] = await embeddingRows(loom.gateway.runtime.storage, ns);
    expect(row).toMatchObject({ embed_error: '', model: expect.stringContaining('text-embedding-test') });
    const found = await loom.admin.ok('conversation.search', { namespace: ns, query: 'invoices ledger migration', namespace_scope: 'namespace', search_mode: 'vector' });
    expect(found.mode).toBe('vector');
    expect(found.hits.map((h: { excerpt: string }) => h.excerpt)).toEqual(['migrate invoices to the new ledger']);
  });

  it('CONV-SENS-02: a high turn never reaches the embedding endpoint', async () => {
    const ns = uniqueNamespace();
    await loom.record(ns);
    const secret = 'ghp_' + 'a1B2c3D4e5'.repeat(4);
    await loom.admin.ok('conversation.append', { namespace: ns, thread_id: 't', role: 'user', content: `token ${secret}` });
    expect(JSON.stringify(server.requests)).not.toContain(secret);
  });

  it('CONV-EMBED-07: an endpoint answering 500 fails open: the turn is stored and the error kept, without the API key', async () => {
    const ns = uniqueNamespace();
    await loom.record(ns);
    server.setFailure(500);
    try {
      const result = await loom.admin.ok('conversation.append', { namespace: ns, thread_id: 't', role: 'assistant', content: 'stored despite the outage' });
      expect(result.stored).toBe(true);
    } finally {
      server.setFailure(undefined);
    }
    const [row] = await embeddingRows(loom.gateway.runtime.storage, ns);
    expect(row!.embed_error).toMatch(/^provider_failed: /);
    expect(row!.embed_error).not.toContain('sk-test-key-not-real');
  });
});
