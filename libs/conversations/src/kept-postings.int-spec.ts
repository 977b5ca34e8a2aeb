import { ALL_AGENTS, type SearchTurnsRequest } from '@loom/contracts';
import { ControllableProvider, startOpenAiCompatibleServer, runGeneratedWrites, startTestLoom, tombstoneTurn, uniqueNamespace, type OpenAiCompatibleServer, type TestLoom } from '../../testing/src';
import { EmbeddingClient } from './embedding/embedding.client';
import { KeptPostings } from './lexical/kept-postings';
import { queryTerms } from './lexical/tokenizer';
import { SearchService } from './search/search.service';

const TOPICS = [
  'the billing reconcile job double counts refunds',
  'deployment ingress config drops the websocket upgrade header',
  'foreign key deadlock on the orders column index',
  'flaky upload test fails on retry after a timeout',
  'the cache eviction policy evicts hot keys first',
  'release notes for the pelican rollout on ledger v2',
];
const BM25 = { k1: 1.2, b: 0.5 };

/**
 * ADR 0039: a namespace-wide lexical leg ranks BM25 on postings kept in the gateway. Whatever
 * the copy holds, the answer must be the engine path's: the same hits, scores and excerpts, and
 * nothing that was removed.
 */
describe('Lexical and hybrid search over kept postings [ADR 0039]', () => {
  let llm: OpenAiCompatibleServer;
  let loom: TestLoom;
  let ns: string;
  beforeAll(async () => {
    llm = await startOpenAiCompatibleServer({ chat: () => 'Summary: the pelican rollout moved to ledger v2.' });
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
  const plane = () => loom.gateway.runtime.plane;
  const ok = (op: string, body: Record<string, unknown>) => loom.admin.ok(op, { namespace: ns, ...body });
  const seed = async (turns: number, offset = 0) => {
    for (let i = offset; i < offset + turns; i += 1) {
      await ok('conversation.append', { thread_id: `t${i % 7}`, msg_id: `m${i}`, role: i % 2 ? 'assistant' : 'user', content: `${TOPICS[i % TOPICS.length]} (note ${i})` });
    }
  };
  const settle = async () => {
    await plane().keptPostings.settled();
    await plane().keptVectors.settled();
  };

  /** The same search answered by a service with no kept postings (the engine's statements) and by the gateway's, its copy read. */
  const bothPaths = async (input: SearchTurnsRequest, agent: string = ALL_AGENTS) => {
    const runtime = loom.gateway.runtime;
    const engineOnly = new SearchService(runtime.storage, new EmbeddingClient(runtime.requests, 10_000), runtime.plane.settings);
    const scope = { all: false as const, namespaces: [ns] };
    await runtime.plane.search.search(scope, agent, input);
    await settle();
    expect(plane().keptPostings.holds(ns)).toBe(true);
    return { engine: await engineOnly.search(scope, agent, input), fromCopy: await runtime.plane.search.search(scope, agent, input) };
  };

  it('CONV-SEARCH-01 a kept namespace answers lexical and hybrid searches exactly as the engine: hits, order, scores, excerpts', async () => {
    await seed(40);
    for (const search_mode of ['lexical', 'hybrid']) {
      for (const query of ['refunds double counted by billing', 'websocket ingress header', 'deadlock on orders index', 'hot keys evicted', 'pelican ledger', 'zzz unrelated words', 'note 17']) {
        const { engine, fromCopy } = await bothPaths({ query, search_mode, limit: 10 } as SearchTurnsRequest);
        expect({ query, search_mode, answer: fromCopy }).toEqual({ query, search_mode, answer: engine });
      }
    }
    const { fromCopy } = await bothPaths({ query: 'billing refunds', search_mode: 'lexical', limit: 3 } as SearchTurnsRequest);
    expect(fromCopy.hits).toHaveLength(3);
    expect(fromCopy.hits[0]!.excerpt).toMatch(/billing|refunds/);
  });

  it('CONV-SEARCH-03 CONV-SEARCH-10 thread, role, run and agent filters answer on the copy as in the engine', async () => {
    await seed(30);
    await ok('conversation.append', { thread_id: 'r', msg_id: 'run-turn', role: 'user', run_id: 'run-1', content: 'flaky upload retry inside a run' });
    for (const input of [
      { query: 'flaky upload retry timeout', search_mode: 'lexical', role: 'assistant' },
      { query: 'flaky upload retry', search_mode: 'lexical', run_id: 'run-1' },
      { query: 'flaky upload retry', search_mode: 'hybrid', thread_id: 't3' },
      { query: 'billing refunds deployment', search_mode: 'hybrid', role: 'user' },
    ]) {
      const { engine, fromCopy } = await bothPaths({ limit: 10, ...input } as SearchTurnsRequest);
      expect(fromCopy).toEqual(engine);
      expect(fromCopy.hits.length).toBeGreaterThan(0);
    }
    const mine = await bothPaths({ query: 'cache eviction', search_mode: 'lexical', limit: 10 } as SearchTurnsRequest, 'default');
    expect(mine.fromCopy).toEqual(mine.engine);
    const none = await bothPaths({ query: 'cache eviction', search_mode: 'lexical', limit: 10 } as SearchTurnsRequest, 'another-agent');
    expect(none.fromCopy).toEqual(none.engine);
    expect(none.fromCopy.hits).toEqual([]);
  });

  it('CONV-APPEND-01 a turn appended after the copy was read is found by its words at once (read your writes), with the statistics it changes', async () => {
    await seed(20);
    await bothPaths({ query: 'cache eviction', search_mode: 'lexical', limit: 5 } as SearchTurnsRequest);
    await ok('conversation.append', { thread_id: 'new', msg_id: 'fresh', role: 'user', content: 'zanzibar quokka telemetry exporter cache' });
    const { engine, fromCopy } = await bothPaths({ query: 'zanzibar cache eviction', search_mode: 'lexical', limit: 10 } as SearchTurnsRequest);
    expect(fromCopy.hits[0]?.msg_id).toBe('fresh');
    expect(fromCopy).toEqual(engine);
  });

  it('CONV-SEARCH-20 CONV-DELETE-01 CONV-SEARCH-21 tombstone, thread delete and compaction after the copy was read leave as in the engine path', async () => {
    await seed(42);
    const query = { query: 'release notes pelican rollout ledger', search_mode: 'lexical', limit: 10 } as SearchTurnsRequest;
    const before = await bothPaths(query);
    expect(before.fromCopy.hits.map((h) => h.msg_id)).toContain('m5');
    await tombstoneTurn(loom.gateway.runtime.storage, { namespace: ns, thread_id: 't4', msg_id: 'm11' }, plane().fence);
    await ok('conversation.delete', { thread_id: 't3', confirm_thread_id: 't3' });
    // t5 holds m5, m12, m19, m26, m33, m40: the first four are retired.
    await ok('conversation.compact', { thread_id: 't5', keep_recent: 2 });
    for (const search_mode of ['lexical', 'hybrid']) {
      const { engine, fromCopy } = await bothPaths({ ...query, search_mode } as SearchTurnsRequest, 'default');
      expect(fromCopy).toEqual(engine);
      const ids = fromCopy.hits.map((h) => h.msg_id);
      for (const gone of ['m5', 'm11', 'm17', 'm3']) expect(ids).not.toContain(gone);
    }
  });

  it('CONV-SEARCH-01 CONV-SEARCH-20 CONV-SEARCH-21 generated operations: after every write, the copy answers as the engine (appends, re-sends, tombstones, thread deletes, compaction)', async () => {
    // A fixed seed: a failure repeats.
    const compared = await runGeneratedWrites(loom, ns, {
      seed: 20261203,
      steps: 70,
      check: async (next, sentence, step) => {
        const filter = [{}, { role: 'user' }, { role: 'assistant' }, { run_id: 'run-0' }, { thread_id: 'g1' }][next(5)]!;
        const input = { query: sentence(), search_mode: next(2) === 0 ? 'hybrid' : 'lexical', limit: 1 + next(15), ...filter } as SearchTurnsRequest;
        const { engine, fromCopy } = await bothPaths(input, next(4) === 0 ? 'default' : ALL_AGENTS);
        expect({ step, input, hits: fromCopy.hits }).toEqual({ step, input, hits: engine.hits });
      },
    });
    expect(compared).toBeGreaterThan(20);
  });

  it('CONV-SEARCH-23 erasure with purge after the copy was read: nothing of the namespace is found, and the copy is read again', async () => {
    await seed(12);
    const { fromCopy } = await bothPaths({ query: 'foreign key deadlock', search_mode: 'lexical', limit: 5 } as SearchTurnsRequest);
    expect(fromCopy.hits.length).toBeGreaterThan(0);
    await loom.admin.ok('erasure.request', { namespace: ns, namespace_list: [ns], purge: true });
    for (const search_mode of ['lexical', 'hybrid']) {
      expect((await ok('conversation.search', { query: 'foreign key deadlock', search_mode, namespace_scope: 'namespace', limit: 5 })).hits).toEqual([]);
    }
    await settle();
    const reread = await bothPaths({ query: 'foreign key deadlock', search_mode: 'lexical', limit: 5 } as SearchTurnsRequest);
    expect(reread.fromCopy.hits).toEqual([]);
  });

  it('CONV-APPEND-01 ids of any characters (NUL, emoji, quotes, a separator inside) keep their turns apart on the copy', async () => {
    const ids = [
      ['a\u0000b', 'c'],
      ['a', 'b\u0000c'],
      ['🧵 "thread"', "msg 'one' 💬"],
      ['1:2', '3'],
      ['1', ':23'],
    ];
    for (const [thread, msg] of ids) await ok('conversation.append', { thread_id: thread, msg_id: msg, role: 'user', content: `flaky upload retry after a timeout, said in ${msg}` });
    const { engine, fromCopy } = await bothPaths({ query: 'flaky upload retry timeout', search_mode: 'lexical', limit: 10 } as SearchTurnsRequest);
    expect(fromCopy).toEqual(engine);
    expect(fromCopy.hits.map((h) => [h.thread_id, h.msg_id]).sort()).toEqual([...ids].sort());
  });

  it('CONV-SEARCH-01 hostile queries on a kept namespace: no words, an emoji, a lone surrogate, quotes, 2,000 characters answer as the engine does', async () => {
    await seed(12);
    await bothPaths({ query: 'flaky upload retry', search_mode: 'lexical', limit: 5 } as SearchTurnsRequest);
    for (const query of ['!!!', '👍', 'upload \uD800 retry', `'; DROP TABLE x; --`, 'a'.repeat(2_000), 'ledger '.repeat(200)]) {
      for (const search_mode of ['lexical', 'hybrid']) {
        const { engine, fromCopy } = await bothPaths({ query, search_mode, limit: 5 } as SearchTurnsRequest);
        expect({ query, search_mode, answer: fromCopy }).toEqual({ query, search_mode, answer: engine });
      }
    }
  });
});

describe('KeptPostings catch-up and budget [ADR 0039]', () => {
  let loom: TestLoom;
  beforeAll(async () => {
    loom = await startTestLoom({ provider: new ControllableProvider(), env: { LOOM_CONVERSATION_TITLER_ENABLED: 'false' } });
  });
  afterAll(async () => {
    await loom.close();
  });
  const storage = () => loom.gateway.runtime.storage;
  const seed = async (namespace: string, n: number) => {
    await loom.record(namespace);
    for (let i = 0; i < n; i += 1) await loom.admin.ok('conversation.append', { namespace, thread_id: 't', msg_id: `m${i}`, role: 'user', content: `${TOPICS[i % TOPICS.length]} #${i}` });
  };
  /** A ranker once the copy is read: the first ask of a namespace reads its turns and postings in the background. */
  const rankerOf = async (k: KeptPostings, namespace: string, terms: string[]) => {
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const ranker = await k.ranker([namespace], terms, BM25);
      if (ranker) return ranker;
      await k.settled();
    }
    throw new Error('the copy was never read');
  };

  it('[ADR 0039] a copy too far behind is not caught up on a search: the engine ranks it while the copy is read again, then the copy holds every turn', async () => {
    const ns = uniqueNamespace();
    await seed(ns, 6);
    // The bound is 3 rows here (20,000 by default), and no margin (every append is awaited).
    const k = new KeptPostings(storage(), { minCatchUp: 3, marginMicros: 0 });
    const words = queryTerms('quokka');
    await rankerOf(k, ns, words);
    const burst = async (from: number, n: number) => {
      for (let i = from; i < from + n; i += 1) await loom.admin.ok('conversation.append', { namespace: ns, thread_id: 'burst', msg_id: `b${i}`, role: 'user', content: `quokka burst ${i}` });
    };
    await burst(0, 2);
    const near = await k.ranker([ns], words, BM25);
    expect(near?.rank({}, 10).map((r) => r.msg_id).sort()).toEqual(['b0', 'b1']);
    await burst(2, 4);
    expect(await k.ranker([ns], words, BM25)).toBeUndefined();
    await k.settled();
    const reread = await k.ranker([ns], words, BM25);
    expect(reread?.rank({}, 10).map((r) => r.msg_id).sort()).toEqual(['b0', 'b1', 'b2', 'b3', 'b4', 'b5']);
    await k.close();
  });

  it('[ADR 0039] a row that lands with a version older than the margin is found after the count check reads the copy again', async () => {
    const ns = uniqueNamespace();
    await seed(ns, 6);
    const k = new KeptPostings(storage(), { countEveryMs: 0 });
    const billing = queryTerms('billing');
    expect(await k.ranker([ns], billing, BM25)).toBeUndefined();
    await rankerOf(k, ns, billing);
    // The count check that ask started (a background statement, ADR 0042) ends before the row lands.
    await k.settled();
    const s = storage();
    // A write-behind replay: an embedding row (hence its postings) whose version was taken long ago lands now.
    await s.insertSelect(
      s.tables.conversationEmbeddings,
      `SELECT * REPLACE ('late' AS msg_id, toUInt64(1000) AS version) FROM (SELECT * FROM ${s.tables.conversationEmbeddings} WHERE namespace = {ns:String} AND msg_id = 'm0')`,
      { ns },
    );
    const stale = await k.ranker([ns], billing, BM25);
    expect(stale?.rank({}, 10).map((r) => r.msg_id).sort()).toEqual(['m0']);
    await k.settled();
    const reread = await rankerOf(k, ns, billing);
    expect(reread.rank({}, 10).map((r) => r.msg_id)).toEqual(expect.arrayContaining(['m0', 'late']));
    await k.close();
  });

  it('[ADR 0041] CONV-SEARCH-01 every term is held once the copy is read: words never asked before rank on the copy at their first ask', async () => {
    const ns = uniqueNamespace();
    await seed(ns, 12);
    const k = new KeptPostings(storage());
    // The first ask of a namespace starts its read; the engine answers that search.
    expect(await k.ranker([ns], queryTerms('billing'), BM25)).toBeUndefined();
    await k.settled();
    for (const [words, expected] of [
      ['deadlock orders', ['m2', 'm8']],
      ['websocket upgrade', ['m1', 'm7']],
      ['pelican', ['m11', 'm5']],
      ['zanzibar quokka', []],
    ] as const) {
      const ranker = await k.ranker([ns], queryTerms(words), BM25);
      expect({ words, hits: ranker?.rank({}, 10).map((r) => r.msg_id).sort() }).toEqual({ words, hits: [...expected] });
    }
    await k.close();
  });

  it('[ADR 0041] the budget drops the least recently used namespace first and refuses one whose postings alone exceed it', async () => {
    const [a, b, big] = [uniqueNamespace(), uniqueNamespace(), uniqueNamespace()];
    await seed(a, 12);
    await seed(b, 12);
    await seed(big, 36);
    const billing = queryTerms('billing');
    const sizes = new KeptPostings(storage());
    const sizeOf = async (ns: string) => {
      await rankerOf(sizes, ns, billing);
      return sizes.held().postings;
    };
    const pa = await sizeOf(a);
    const pb = (await sizeOf(b)) - pa;
    await sizes.close();
    expect(pa).toBeGreaterThan(12);
    // Room for either namespace, not both.
    const k = new KeptPostings(storage(), { maxPostings: Math.max(pa, pb) + 1 });
    expect((await rankerOf(k, a, billing)).rank({}, 10).map((r) => r.msg_id).sort()).toEqual(['m0', 'm6']);
    await rankerOf(k, b, billing);
    expect(k.held().namespaces).toBe(1);
    expect(k.holds(b)).toBe(true);
    expect(k.holds(a)).toBe(false);
    // a was used least recently: dropped, read again on its next ask.
    expect(await k.ranker([a], billing, BM25)).toBeUndefined();
    await rankerOf(k, a, billing);
    expect(k.holds(b)).toBe(false);
    // 36 turns hold about three times the postings of 12: never kept, searches naming it rank in the engine.
    expect(await k.ranker([big], billing, BM25)).toBeUndefined();
    await k.settled();
    expect(await k.ranker([big], billing, BM25)).toBeUndefined();
    expect(k.holds(big)).toBe(false);
    expect(k.held().postings).toBeLessThanOrEqual(Math.max(pa, pb) + 1);
    await k.close();
  });

  it('[ADR 0042] CONV-SEARCH-01 a copy read in pages of 2, across threads and a tombstoned version, ranks as a copy read in one page', async () => {
    const ns = uniqueNamespace();
    await loom.record(ns);
    for (let i = 0; i < 11; i += 1) await loom.admin.ok('conversation.append', { namespace: ns, thread_id: `t${i % 3}`, msg_id: `m${i}`, role: 'user', content: `${TOPICS[i % TOPICS.length]} #${i}` });
    // A tombstone: a newer version of the same key, whose words must leave.
    await tombstoneTurn(storage(), { namespace: ns, thread_id: 't0', msg_id: 'm0' }, loom.gateway.runtime.plane.fence);
    // No catch-up margin and no count check: the copies hold what their full reads read, nothing more.
    const only = { marginMicros: 0, countEveryMs: 3_600_000 };
    const paged = new KeptPostings(storage(), { ...only, page: 2 });
    const whole = new KeptPostings(storage(), only);
    for (const words of ['billing refunds', 'pelican ledger', 'deadlock orders']) {
      const terms = queryTerms(words);
      const [a, b] = [await rankerOf(paged, ns, terms), await rankerOf(whole, ns, terms)];
      expect({ words, paged: a.rank({}, 20) }).toEqual({ words, paged: b.rank({}, 20) });
    }
    expect((await rankerOf(paged, ns, queryTerms('billing'))).rank({}, 20).map((r) => r.msg_id).sort()).toEqual(['m6']);
    expect(paged.held()).toEqual(whole.held());
    await paged.close();
    await whole.close();
  });

  it('[ADR 0039] LOOM_SEARCH_KEPT_POSTINGS=0 keeps nothing', async () => {
    const ns = uniqueNamespace();
    await seed(ns, 2);
    const k = new KeptPostings(storage(), { maxPostings: 0 });
    expect(await k.ranker([ns], queryTerms('billing'), BM25)).toBeUndefined();
    await k.settled();
    expect(await k.ranker([ns], queryTerms('billing'), BM25)).toBeUndefined();
    expect(k.held()).toEqual({ namespaces: 0, postings: 0 });
  });
});
