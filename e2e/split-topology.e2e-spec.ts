import { Storage } from '@loom/clickhouse';
import {
  countRows,
  describeApiChecks,
  LoomApi,
  startOpenAiCompatibleServer,
  startSplitTopology,
  uniqueNamespace,
  type OpenAiCompatibleServer,
  type SplitTopology,
} from '../libs/testing/src';

/**
 * The production shape as separate processes — a development ClickHouse endpoint over chDB,
 * a NATS server, two embedder replicas in queue group `embedder`, the gateway, two titler
 * replicas — running the same API checks as the embedded topology.
 */
describe('split topology (separate processes on NATS)', () => {
  let topology: SplitTopology;
  let storage: Storage;
  let llm: OpenAiCompatibleServer;
  beforeAll(async () => {
    llm = await startOpenAiCompatibleServer({ chat: (messages) => `Title ${/thread-(\d+)/.exec(messages.map((m) => m.content).join(' '))?.[1] ?? 'x'}` });
    topology = await startSplitTopology({
      embedders: 2,
      titlers: 2,
      gateways: 2,
      env: { LOOM_LLM_BASE_URL: llm.baseUrl, LOOM_LLM_MODEL: 'titles', LOOM_CONVERSATION_TITLER_INTERVAL_SECONDS: '1' },
    });
    storage = Storage.open({ url: topology.clickhouseUrl, database: topology.database, dataDir: '/nonexistent' });
  }, 120_000);
  afterAll(async () => {
    await storage?.close();
    await topology?.close();
    await llm?.close();
  });

  describeApiChecks('split', () => ({
    admin: topology.admin,
    storage,
    as: async (ns, role) => topology.admin.withToken((await topology.admin.ok('token.create', { namespace: ns, role })).token),
    stopEmbedder: () => topology.stopEmbedders(),
    startEmbedder: () => topology.startEmbedders(2),
  }));

  it('CONV-TITLE-01 (split): two titler replicas title untitled threads, one pass at a time, so each thread costs one LLM call', async () => {
    const ns = uniqueNamespace();
    await topology.admin.ok('conversation.set_logging', { namespace: ns, enabled: true });
    for (let t = 0; t < 3; t++) {
      for (let i = 0; i < 4; i++) {
        await topology.admin.ok('conversation.append', { namespace: ns, thread_id: `t${t}`, role: i % 2 ? 'assistant' : 'user', content: `thread-${t} ${ns} turn ${i}` });
      }
    }
    const titles = async () =>
      Promise.all([0, 1, 2].map(async (t) => (await topology.admin.ok('conversation.get', { namespace: ns, thread_id: `t${t}` })).thread.title as string | null));
    const deadline = Date.now() + 30_000;
    while ((await titles()).some((t) => t === null) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 250));
    expect(await titles()).toEqual(['Title 0', 'Title 1', 'Title 2']);
    // A few more passes by both replicas: nobody asks again.
    await new Promise((r) => setTimeout(r, 2_500));
    for (let t = 0; t < 3; t++) {
      const asked = llm.requests.filter((r) => JSON.stringify(r.body).includes(`thread-${t} ${ns}`));
      expect(asked).toHaveLength(1);
    }
  });

  it('CONV-APPEND-06 across two gateway replicas: each of 100 new turns sent to both at once is stored once, and exactly one of the two answers stored:true', async () => {
    const ns = uniqueNamespace();
    await topology.admin.ok('conversation.set_logging', { namespace: ns, enabled: true });
    const apis = topology.urls.map((u) => new LoomApi(u, topology.admin.token));
    const results = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        Promise.all(apis.map((api) => api.ok('conversation.append', { namespace: ns, thread_id: `race-${i % 10}`, msg_id: `m-${i}`, role: 'user', content: `turn ${i}, sent to both replicas at once` }))),
      ),
    );
    const storedTwice = results.filter((pair) => pair.every((r) => r.stored));
    expect(storedTwice).toEqual([]);
    expect(results.every((pair) => pair.filter((r) => r.stored).length === 1)).toBe(true);
    // Every row, not only the latest version: the loser wrote nothing.
    expect(await countRows(storage, 'conversations', { namespace: ns }, false)).toBe(100);
  });

  it('each embedder serves its own /metrics, with batch sizes and trace-free counters', async () => {
    const ns = uniqueNamespace();
    await topology.admin.ok('conversation.set_logging', { namespace: ns, enabled: true });
    await Promise.all(Array.from({ length: 10 }, (_, i) => topology.admin.ok('conversation.append', { namespace: ns, thread_id: 't', role: 'user', content: `metrics ${i}` })));
    const texts = await Promise.all(topology.embedderMetricsUrls().map(async (url) => (await fetch(url)).text()));
    const batches = texts.map((t) => Number(/^loom_embed_batch_size_count\{[^}]*\} (\d+)/m.exec(t)?.[1] ?? 0));
    expect(batches.reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
  });

  it('with one embedder replica gone, the other still serves every append', async () => {
    const ns = uniqueNamespace();
    await topology.admin.ok('conversation.set_logging', { namespace: ns, enabled: true });
    await topology.stopEmbedders();
    await topology.startEmbedders(1);
    try {
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) => topology.admin.ok('conversation.append', { namespace: ns, thread_id: 't', role: 'user', content: `replica test ${i}` })),
      );
      expect(results.every((r) => r.stored)).toBe(true);
      const failed = await storage.query<{ n: string }>(
        `SELECT count() AS n FROM ${storage.tables.conversationEmbeddings} FINAL WHERE namespace = {ns:String} AND embed_error != ''`,
        { ns },
      );
      expect(Number(failed[0]!.n)).toBe(0);
    } finally {
      await topology.stopEmbedders();
      await topology.startEmbedders(2);
    }
  });

  it('storage down: appends answer 503 "unavailable" (retry is safe), /readyz says not ready, and nothing is half-written', async () => {
    const ns = uniqueNamespace();
    await topology.admin.ok('conversation.set_logging', { namespace: ns, enabled: true });
    await topology.admin.ok('conversation.append', { namespace: ns, thread_id: 't', role: 'user', content: 'before the outage', msg_id: 'before' });
    await topology.stopClickHouse();
    try {
      const down = await topology.admin.call('conversation.append', { namespace: ns, thread_id: 't', role: 'user', content: 'during the outage', msg_id: 'during' });
      expect(down.status).toBe(503);
      expect(down.body.error.code).toBe('unavailable');
      const ready = await topology.admin.get('/readyz');
      expect(ready.status).toBe(503);
      expect(JSON.parse(ready.text).checks.storage).toBe(false);
    } finally {
      await topology.startClickHouse();
    }
    // The client retries the refused append: it lands once, whole, with its vector.
    const retried = await topology.admin.ok('conversation.append', { namespace: ns, thread_id: 't', role: 'user', content: 'during the outage', msg_id: 'during' });
    expect(retried).toMatchObject({ stored: true, msg_id: 'during' });
    expect(await countRows(storage, 'conversations', { namespace: ns }, false)).toBe(2);
    expect(await countRows(storage, 'conversationEmbeddings', { namespace: ns }, false)).toBe(2);
    const listed = await topology.admin.ok('conversation.list', { namespace: ns, thread_id: 't' });
    expect(listed.messages.map((m: { msg_id: string }) => m.msg_id)).toEqual(['before', 'during']);
  });
});
