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
  /** A ranker once the copy and the terms are read: the first ask of a namespace reads its turns, of a term its postings, both in the background. */
  const rankerOf = async (k: KeptPostings, namespace: string, terms: string[]) => {
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const ranker = await k.ranker([namespace], terms, BM25);
      if (ranker) return ranker;
      await k.settled();
    }
    throw new Error('the copy was never read');
  };

  it('[ADR 0039] a row that lands with a version older than the margin is found after the count check reads the copy again', async () => {
    const ns = uniqueNamespace();
    await seed(ns, 6);
    const k = new KeptPostings(storage(), { countEveryMs: 0 });
    const billing = queryTerms('billing');
    expect(await k.ranker([ns], billing, BM25)).toBeUndefined();
    await rankerOf(k, ns, billing);
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

  it('[ADR 0039] the budget drops the least recently asked terms first, does not read again at once a term dropped while in use, and refuses a namespace whose turns alone exceed it', async () => {
    const ns = uniqueNamespace();
    await seed(ns, 12);
    let clock = Date.now();
    // 12 turns (headers) + "billing" (2 postings) + "deploy" (2) fit in 16; a third term pushes out the oldest.
    const k = new KeptPostings(storage(), { maxPostings: 16, now: () => clock });
    const [billing, deployment, cache] = [queryTerms('billing'), queryTerms('deployment'), queryTerms('cache')];
    await rankerOf(k, ns, billing);
    await rankerOf(k, ns, deployment);
    expect(k.held()).toEqual({ namespaces: 1, postings: 16 });
    const ranker = await rankerOf(k, ns, cache);
    expect(ranker.rank({}, 10).map((r) => r.msg_id).sort()).toEqual(['m10', 'm4']);
    expect(k.held().postings).toBeLessThanOrEqual(16);
    // "billing" was asked least recently: dropped. It was in use a moment ago, so it is not read
    // again at once (the terms in use do not fit together): the engine ranks it meanwhile.
    expect(await k.ranker([ns], billing, BM25)).toBeUndefined();
    await k.settled();
    expect(await k.ranker([ns], billing, BM25)).toBeUndefined();
    clock += 11 * 60_000;
    const again = await rankerOf(k, ns, billing);
    expect(again.rank({}, 10).map((r) => r.msg_id).sort()).toEqual(['m0', 'm6']);
    expect(k.held().postings).toBeLessThanOrEqual(16);
    const big = uniqueNamespace();
    await seed(big, 17);
    expect(await k.ranker([big], billing, BM25)).toBeUndefined();
    await k.settled();
    expect(await k.ranker([big], billing, BM25)).toBeUndefined();
    await k.close();
  });

  it('[ADR 0039] a term with more postings than a term may hold is never read: searches naming it rank in the engine', async () => {
    const ns = uniqueNamespace();
    await seed(ns, 12);
    // Four more turns say "pelican": with m5 and m11, six postings, over a cap of 3.
    for (let i = 0; i < 4; i += 1) await loom.admin.ok('conversation.append', { namespace: ns, thread_id: 'p', msg_id: `p${i}`, role: 'user', content: 'pelican ledger rollout' });
    const k = new KeptPostings(storage(), { maxTermPostings: 3 });
    const cache = queryTerms('cache');
    // "cache" is in m4 and m10 only (postings hold its stem; the query asks the word as typed too, which has none): under the cap, kept.
    await rankerOf(k, ns, cache);
    const held = k.held().postings;
    expect(held).toBe(16 + 2);
    const pelican = queryTerms('pelican');
    expect(await k.ranker([ns], pelican, BM25)).toBeUndefined();
    await k.settled();
    expect(await k.ranker([ns], pelican, BM25)).toBeUndefined();
    expect(k.held().postings).toBe(held);
    await k.close();
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
