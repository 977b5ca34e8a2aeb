import { formatMicros } from '@loom/clickhouse';
import { nextVersion } from '@loom/platform';
import { ControllableProvider, startOpenAiCompatibleServer, startTestLoom, uniqueNamespace, type OpenAiCompatibleServer, type TestLoom } from '../../testing/src';

type Hit = { msg_id: string; score: number; excerpt: string };
const SUMMARY = 'Summary: the pelican rollout moved to ledger v2.';

/**
 * The lexical leg under every removal path: what leaves the vector leg leaves the BM25 leg, and
 * the BM25 statistics (document count, lengths, document frequencies) are those of the turns
 * still there: a turn scores exactly as in a namespace that only ever held the surviving turns.
 */
describe('Hybrid search under removal [issue 10: removal paths]', () => {
  let llm: OpenAiCompatibleServer;
  let loom: TestLoom;
  let ns: string;
  beforeAll(async () => {
    llm = await startOpenAiCompatibleServer({ chat: () => SUMMARY });
    loom = await startTestLoom({ provider: new ControllableProvider(), env: { LOOM_LLM_BASE_URL: llm.baseUrl, LOOM_LLM_MODEL: 'summaries', LOOM_CONVERSATION_TITLER_ENABLED: 'false' } });
  });
  beforeEach(async () => {
    ns = uniqueNamespace();
    await loom.record(ns);
  });
  afterAll(async () => {
    await loom.close();
    await llm.close();
  });
  const storage = () => loom.gateway.runtime.storage;
  const ok = (op: string, body: Record<string, unknown>, namespace = ns) => loom.admin.ok(op, { namespace, ...body });
  const lexical = async (query: string, namespace = ns): Promise<Array<[string, number]>> =>
    (await ok('conversation.search', { query, search_mode: 'lexical', namespace_scope: 'namespace', limit: 50 }, namespace)).hits.map((h: Hit) => [h.msg_id, h.score]);
  const seed = async (namespace: string, turns: Array<{ thread: string; msg: string; content: string; user?: string }>) => {
    for (const t of turns) await ok('conversation.append', { thread_id: t.thread, msg_id: t.msg, role: 'user', content: t.content, ...(t.user ? { user_id: t.user } : {}) }, namespace);
  };
  /** The scores a namespace holding only `turns` gives. */
  const twin = async (turns: Array<{ thread: string; msg: string; content: string }>, query: string) => {
    const other = uniqueNamespace();
    await loom.record(other);
    await seed(other, turns);
    return lexical(query, other);
  };
  /** Live header postings agree with the live embedding rows that carry terms: count and total length. */
  const statsAgree = async (namespace = ns) => {
    const s = storage();
    const [terms] = await s.query<{ n: string; len: string }>(
      `SELECT count() AS n, sum(doc_len) AS len FROM ${s.tables.conversationTerms} FINAL WHERE namespace = {ns:String} AND term = '' AND deleted = 0`,
      { ns: namespace },
    );
    const [vectors] = await s.query<{ n: string; len: string }>(
      `SELECT count() AS n, sum(lex_len) AS len FROM ${s.tables.conversationEmbeddings} FINAL WHERE namespace = {ns:String} AND deleted = 0 AND lex_len > 0`,
      { ns: namespace },
    );
    expect(terms).toEqual(vectors);
    return Number(terms!.n);
  };
  const keep = [
    { thread: 'keep', msg: 'k1', content: 'the flaky upload test fails on retry' },
    { thread: 'keep', msg: 'k2', content: 'upload retries are capped at three' },
    { thread: 'keep', msg: 'k3', content: 'lunch is at noon' },
  ];
  const query = 'flaky upload retry';

  it('CONV-SEARCH-20 conversation.delete: the thread leaves the BM25 leg and the statistics', async () => {
    await seed(ns, [...keep, { thread: 'gone', msg: 'g1', content: 'upload upload upload flaky' }, { thread: 'gone', msg: 'g2', content: 'retry the upload' }]);
    expect((await lexical(query)).map(([m]) => m)).toContain('g1');
    await ok('conversation.delete', { thread_id: 'gone', confirm_thread_id: 'gone' });
    expect(await lexical(query)).toEqual(await twin(keep, query));
    expect(await statsAgree()).toBe(3);
  });

  it('CONV-SEARCH-21 conversation.compact: retired turns leave the BM25 leg, the summary joins it', async () => {
    const window = Array.from({ length: 6 }, (_, i) => ({ thread: 'c', msg: `c${i}`, content: `pelican rollout step ${i} ${['zebu', 'yak', 'gnu', 'emu', 'kudu', 'ibex'][i]}` }));
    await seed(ns, [...keep, ...window]);
    await ok('conversation.compact', { thread_id: 'c', keep_recent: 2 });
    const found = (await lexical('pelican rollout')).map(([m]) => m);
    expect(found).toEqual(expect.arrayContaining(['c4', 'c5']));
    expect(found.filter((m) => /^c[0-3]$/.test(m))).toEqual([]);
    expect(found.some((m) => m.startsWith('sum_'))).toBe(true);
    expect(await lexical('zebu')).toEqual([]);
    expect((await lexical('kudu')).map(([m]) => m)).toEqual(['c4']);
    expect(await statsAgree()).toBe(3 + 2 + 1);
  });

  it('CONV-SEARCH-22 erasure of a person: their turns leave the BM25 leg and the statistics', async () => {
    const user = `u-${ns}`;
    await seed(ns, [...keep, { thread: 'p', msg: 'p1', content: 'my flaky upload again', user }, { thread: 'keep', msg: 'p2', content: 'retry retry upload', user }]);
    await ok('erasure.request', { user_id: user });
    expect(await lexical(query)).toEqual(await twin(keep, query));
    expect(await statsAgree()).toBe(3);
  });

  it('CONV-SEARCH-23 erasure with purge: the postings leave the disk', async () => {
    await seed(ns, keep);
    await ok('erasure.request', { namespace_list: [ns], purge: true });
    const s = storage();
    const [raw] = await s.query<{ n: string }>(`SELECT count() AS n FROM ${s.tables.conversationTerms} WHERE namespace = {ns:String}`, { ns });
    expect(Number(raw!.n)).toBe(0);
    expect(await lexical(query)).toEqual([]);
  });

  it('CONV-SEARCH-24 an unsave that removes the turn (namespace not recording) takes it out of the BM25 leg', async () => {
    const quiet = uniqueNamespace();
    const user = `u-${quiet}`;
    await ok('conversation.save_message', { user_id: user, conversation_id: 't', message_id: 's1', role: 'user', content: 'flaky upload saved note' }, quiet);
    expect((await lexical(query, quiet)).map(([m]) => m)).toEqual(['s1']);
    await ok('conversation.unsave_message', { user_id: user, conversation_id: 't', message_id: 's1' }, quiet);
    expect(await lexical(query, quiet)).toEqual([]);
    expect(await statsAgree(quiet)).toBe(0);
  });
});

describe('Hybrid search under the retention TTL [issue 10: removal paths]', () => {
  it('CONV-SEARCH-25 CONV-RET-04: a turn whose transcript expired is not found by its words, nor counted in the BM25 statistics, before and after the TTL merge', async () => {
    const loom = await startTestLoom({ env: { LOOM_CONVERSATION_TITLER_ENABLED: 'false', LOOM_RETENTION_CONVERSATIONS_DAYS: '2' } });
    try {
      const ns = uniqueNamespace();
      const twin = uniqueNamespace();
      await loom.record(ns);
      await loom.record(twin);
      const storage = loom.gateway.runtime.storage;
      const append = (namespace: string, msg: string, content: string) => loom.admin.ok('conversation.append', { namespace, thread_id: 't', msg_id: msg, role: 'user', content });
      const lexical = async (namespace: string): Promise<Array<[string, number]>> =>
        (await loom.admin.ok('conversation.search', { namespace, query: 'kestrel deploy', search_mode: 'lexical', namespace_scope: 'namespace' })).hits.map((h: Hit) => [h.msg_id, h.score]);
      await append(ns, 'recent', 'a recent turn about the kestrel deploy');
      await append(ns, 'other', 'the deploy of something else');
      await append(twin, 'recent', 'a recent turn about the kestrel deploy');
      await append(twin, 'other', 'the deploy of something else');
      // The same turn as if logged three days ago, in both tables (the embedding row's terms with it).
      const [turn] = await storage.query<Record<string, unknown>>(`SELECT * EXCEPT (version) FROM ${storage.tables.conversations} FINAL WHERE namespace = {ns:String} AND msg_id = 'recent'`, { ns });
      const [vector] = await storage.query<Record<string, unknown>>(`SELECT * EXCEPT (version) FROM ${storage.tables.conversationEmbeddings} FINAL WHERE namespace = {ns:String} AND msg_id = 'recent'`, { ns });
      const old = formatMicros(Date.now() * 1000 - 3 * 86_400_000_000);
      await storage.insert(storage.tables.conversations, [{ ...turn, msg_id: 'old', ts: old, version: nextVersion() }]);
      await storage.insert(storage.tables.conversationEmbeddings, [{ ...vector, msg_id: 'old', ts: old, version: nextVersion() }]);
      // Expired, but no merge has removed its transcript row yet: not found, not counted.
      expect(await lexical(ns)).toEqual(await lexical(twin));
      await storage.command(`ALTER TABLE ${storage.tables.conversations} MATERIALIZE TTL SETTINGS mutations_sync = 2`);
      expect(await lexical(ns)).toEqual(await lexical(twin));
      // The postings table has the transcript's TTL too: the expired turn's postings leave the disk.
      await storage.command(`ALTER TABLE ${storage.tables.conversationTerms} MATERIALIZE TTL SETTINGS mutations_sync = 2`);
      const [left] = await storage.query<{ n: string }>(`SELECT count() AS n FROM ${storage.tables.conversationTerms} WHERE namespace = {ns:String} AND msg_id = 'old'`, { ns });
      expect(Number(left!.n)).toBe(0);
      expect(await lexical(ns)).toEqual(await lexical(twin));
      // The vector leg still holds the embedding row (CONV-RET-04): only its words are gone.
      const vectorHits = await loom.admin.ok('conversation.search', { namespace: ns, query: 'a recent turn about the kestrel deploy', search_mode: 'vector', namespace_scope: 'namespace' });
      expect(vectorHits.hits.map((h: Hit) => h.msg_id)).toContain('old');
    } finally {
      await loom.close();
    }
  });
});

describe('BM25 statistics kept between searches [issue 10: statistics cache]', () => {
  it('[issue 10: statistics cache] a search after an append, a delete or a purge scores with the statistics of the turns there now, as a namespace holding only them does', async () => {
    const loom = await startTestLoom({ env: { LOOM_CONVERSATION_TITLER_ENABLED: 'false' } });
    try {
      const [ns, twin] = [uniqueNamespace(), uniqueNamespace()];
      await loom.record(ns);
      await loom.record(twin);
      const append = (namespace: string, thread: string, msg: string, content: string) => loom.admin.ok('conversation.append', { namespace, thread_id: thread, msg_id: msg, role: 'user', content });
      const lexical = async (namespace: string): Promise<Array<[string, number]>> =>
        (await loom.admin.ok('conversation.search', { namespace, query: 'heron cache', search_mode: 'lexical', namespace_scope: 'namespace', limit: 50 })).hits.map((h: Hit) => [h.msg_id, h.score]);
      await append(ns, 'a', 'a1', 'the heron cache warmed slowly');
      await append(ns, 'a', 'a2', 'cache misses after the deploy');
      const first = await lexical(ns);
      // Another search with nothing written in between: the kept statistics, the same scores.
      expect(await lexical(ns)).toEqual(first);
      await append(ns, 'b', 'b1', 'heron heron heron');
      await append(twin, 'a', 'a1', 'the heron cache warmed slowly');
      await append(twin, 'a', 'a2', 'cache misses after the deploy');
      await append(twin, 'b', 'b1', 'heron heron heron');
      expect(await lexical(ns)).toEqual(await lexical(twin));
      await loom.admin.ok('conversation.delete', { namespace: ns, thread_id: 'b', confirm_thread_id: 'b' });
      await loom.admin.ok('conversation.delete', { namespace: twin, thread_id: 'b', confirm_thread_id: 'b' });
      expect(await lexical(ns)).toEqual(first);
      await loom.admin.ok('erasure.request', { namespace: ns, namespace_list: [ns], purge: true });
      expect(await lexical(ns)).toEqual([]);
      await append(ns, 'c', 'c1', 'heron cache again');
      await append(twin, 'c', 'c1', 'heron cache again');
      const only = uniqueNamespace();
      await loom.record(only);
      await append(only, 'c', 'c1', 'heron cache again');
      expect(await lexical(ns)).toEqual(await lexical(only));
    } finally {
      await loom.close();
    }
  });
});
