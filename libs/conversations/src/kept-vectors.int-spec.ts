import { mkdtempSync, readdirSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ALL_AGENTS, type SearchTurnsRequest } from '@loom/contracts';
import { HashedEmbeddingProvider } from '@loom/providers';
import { ControllableProvider, startOpenAiCompatibleServer, runGeneratedWrites, startTestLoom, tombstoneTurn, uniqueNamespace, type OpenAiCompatibleServer, type TestLoom } from '../../testing/src';
import { EmbeddingClient } from './embedding/embedding.client';
import { SearchService } from './search/search.service';
import { KeptVectors } from './search/kept-vectors';
import { SharedCatchUp } from './search/shared-catch-up';
import { quantize } from './search/vector-ranking';

type Hit = { msg_id: string; score: number; excerpt: string };

const TOPICS = [
  'the billing reconcile job double counts refunds',
  'deployment ingress config drops the websocket upgrade header',
  'foreign key deadlock on the orders column index',
  'flaky upload test fails on retry after a timeout',
  'the cache eviction policy evicts hot keys first',
  'release notes for the pelican rollout on ledger v2',
];

/**
 * ADR 0038: a namespace-wide vector search ranks its first stage on Int8 vectors kept in the
 * gateway. Whatever the copy holds, the answer must be the engine path's: the same hits, scores
 * and excerpts, and nothing that was removed.
 */
/** Where the exact copies of these small namespaces keep their Float32 vectors: in memory (the default at this size), or in a file (ADR 0043). */
const fileDir = mkdtempSync(join(tmpdir(), 'loom-kept-files-'));
const stores = [
  { store: 'memory', env: {} },
  { store: 'file', env: { LOOM_SEARCH_KEPT_EXACT_VECTORS: '0', LOOM_SEARCH_KEPT_FILE_DIR: fileDir } },
];
afterAll(() => rmSync(fileDir, { recursive: true, force: true }));

describe.each(stores)('Vector search over kept vectors, exact copies in $store [ADR 0038, ADR 0043]', ({ store, env }) => {
  let llm: OpenAiCompatibleServer;
  let loom: TestLoom;
  let ns: string;
  beforeAll(async () => {
    llm = await startOpenAiCompatibleServer({ chat: () => 'Summary: the pelican rollout moved to ledger v2.' });
    loom = await startTestLoom({ provider: new ControllableProvider(), env: { LOOM_LLM_BASE_URL: llm.baseUrl, LOOM_LLM_MODEL: 'summaries', LOOM_CONVERSATION_TITLER_ENABLED: 'false', ...env } });
  });
  beforeEach(async () => {
    ns = uniqueNamespace();
    await loom.record(ns);
  });
  afterAll(async () => {
    await loom.close();
    await llm.close();
  });
  const kept = () => loom.gateway.runtime.plane.keptVectors;
  const ok = (op: string, body: Record<string, unknown>, namespace = ns) => loom.admin.ok(op, { namespace, ...body });
  const search = async (query: string, namespace = ns, extra: Record<string, unknown> = {}): Promise<Hit[]> =>
    (await ok('conversation.search', { query, search_mode: 'vector', namespace_scope: 'namespace', limit: 10, ...extra }, namespace)).hits;
  const seed = async (namespace: string, turns: number, offset = 0) => {
    for (let i = offset; i < offset + turns; i += 1) {
      await ok('conversation.append', { thread_id: `t${i % 7}`, msg_id: `m${i}`, role: i % 2 ? 'assistant' : 'user', content: `${TOPICS[i % TOPICS.length]} (note ${i})` }, namespace);
    }
  };
  /** The first search of a namespace runs in the engine (its copy is read in the background); later ones on the copy. */
  const engineThenKept = async (query: string, namespace = ns, extra: Record<string, unknown> = {}) => {
    const engine = await search(query, namespace, extra);
    await kept().settled();
    const fromCopy = await search(query, namespace, extra);
    return { engine, fromCopy };
  };

  /** The same search, its first stage in the engine (no kept vectors) and on the copy. */
  const bothPaths = async (input: SearchTurnsRequest, agent: string = ALL_AGENTS) => {
    const runtime = loom.gateway.runtime;
    const engineOnly = new SearchService(runtime.storage, new EmbeddingClient(runtime.requests, 10_000), runtime.plane.settings);
    const scope = { all: false as const, namespaces: [ns] };
    await runtime.plane.search.search(scope, agent, input);
    await kept().settled();
    expect(kept().holds(ns, new HashedEmbeddingProvider().model)).toBe(true);
    // Every copy of this suite is exact, in the store under test; a file copy leaves no file behind.
    expect(kept().held().fileRows > 0).toBe(store === 'file');
    expect(readdirSync(fileDir)).toEqual([]);
    return { engine: await engineOnly.search(scope, agent, input), fromCopy: await runtime.plane.search.search(scope, agent, input) };
  };

  const runtimeSearch = (input: SearchTurnsRequest) => loom.gateway.runtime.plane.search.search({ all: false, namespaces: [ns] }, ALL_AGENTS, input);

  it('CONV-SEARCH-01 CONV-SEARCH-02 a kept namespace answers exactly as the engine: hits, order, scores, excerpts, floor', async () => {
    await seed(ns, 40);
    for (const query of ['refunds double counted by billing', 'websocket ingress header', 'deadlock on orders index', 'hot keys evicted', 'pelican ledger', 'zzz unrelated words']) {
      const { engine, fromCopy } = await bothPaths({ query, search_mode: 'vector', limit: 10 } as SearchTurnsRequest);
      expect(fromCopy).toEqual(engine);
    }
    const { engine, fromCopy } = await bothPaths({ query: 'billing refunds', search_mode: 'vector', limit: 3 } as SearchTurnsRequest);
    expect(fromCopy.hits).toHaveLength(3);
    expect(fromCopy).toEqual(engine);
  });

  it('CONV-SEARCH-03 CONV-SEARCH-10 role, run and agent filters, and hybrid mode, answer on the copy as in the engine', async () => {
    await seed(ns, 30);
    await ok('conversation.append', { thread_id: 'r', msg_id: 'run-turn', role: 'user', run_id: 'run-1', content: 'flaky upload retry inside a run' });
    for (const input of [
      { query: 'flaky upload retry timeout', search_mode: 'vector', role: 'assistant' },
      { query: 'flaky upload retry', search_mode: 'vector', run_id: 'run-1' },
      { query: 'billing refunds deployment', search_mode: 'hybrid' },
    ]) {
      const { engine, fromCopy } = await bothPaths({ limit: 10, ...input } as SearchTurnsRequest);
      expect(fromCopy).toEqual(engine);
      expect(fromCopy.hits.length).toBeGreaterThan(0);
    }
    const { engine, fromCopy } = await bothPaths({ query: 'cache eviction', search_mode: 'vector', limit: 10 } as SearchTurnsRequest, 'default');
    expect(fromCopy).toEqual(engine);
    const { engine: none, fromCopy: noneFromCopy } = await bothPaths({ query: 'cache eviction', search_mode: 'vector', limit: 10 } as SearchTurnsRequest, 'another-agent');
    expect(noneFromCopy).toEqual(none);
    expect(noneFromCopy.hits).toEqual([]);
  });

  it('CONV-APPEND-01 a turn appended after the copy was read is found by the next search (read your writes)', async () => {
    await seed(ns, 20);
    await engineThenKept('cache eviction');
    await ok('conversation.append', { thread_id: 'new', msg_id: 'fresh', role: 'user', content: 'zanzibar quokka telemetry exporter' });
    const hits = await search('zanzibar quokka telemetry exporter');
    expect(hits[0]?.msg_id).toBe('fresh');
  });

  it('CONV-SEARCH-20 CONV-DELETE-01 a thread deleted after the copy was read is not found, though the copy still holds its rows', async () => {
    await seed(ns, 21);
    const { fromCopy } = await engineThenKept('deployment ingress websocket header');
    expect(fromCopy.some((h) => h.msg_id === 'm1')).toBe(true);
    await ok('conversation.delete', { thread_id: 't1', confirm_thread_id: 't1' });
    const after = await search('deployment ingress websocket header');
    expect(after.length).toBeGreaterThan(0);
    expect(after.filter((h) => ['m1', 'm8', 'm15'].includes(h.msg_id))).toEqual([]);
  });

  it('CONV-SEARCH-21 compaction after the copy was read: the retired turns leave as in the engine path', async () => {
    await seed(ns, 42);
    const query = { query: 'release notes for the pelican rollout on ledger v2', search_mode: 'vector', limit: 10 } as SearchTurnsRequest;
    const before = await bothPaths(query, 'default');
    expect(before.fromCopy.hits.map((h) => h.msg_id)).toContain('m5');
    // t5 holds m5, m12, m19, m26, m33, m40: the first four are retired.
    await ok('conversation.compact', { thread_id: 't5', keep_recent: 2 });
    const { engine, fromCopy } = await bothPaths(query, 'default');
    expect(fromCopy).toEqual(engine);
    expect(fromCopy.hits.map((h) => h.msg_id)).not.toContain('m5');
    expect(fromCopy.hits.map((h) => h.msg_id)).toContain('m11');
  });

  it('CONV-SEARCH-01 CONV-SEARCH-20 CONV-SEARCH-21 generated operations: after every write, the copy answers as the engine (appends, re-sends, tombstones, thread deletes, compaction)', async () => {
    // A fixed seed: a failure repeats.
    const compared = await runGeneratedWrites(loom, ns, {
      seed: 20261202,
      steps: 70,
      check: async (next, sentence, step) => {
        const filter = [{}, { role: 'user' }, { role: 'assistant' }, { run_id: 'run-0' }][next(4)]!;
        const input = { query: sentence(), search_mode: next(3) === 0 ? 'hybrid' : 'vector', limit: 1 + next(15), ...filter } as SearchTurnsRequest;
        const { engine, fromCopy } = await bothPaths(input, next(4) === 0 ? 'default' : ALL_AGENTS);
        expect({ step, input, hits: fromCopy.hits }).toEqual({ step, input, hits: engine.hits });
      },
    });
    expect(compared).toBeGreaterThan(20);
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
    const { engine, fromCopy } = await bothPaths({ query: 'flaky upload retry timeout', search_mode: 'vector', limit: 10 } as SearchTurnsRequest);
    expect(fromCopy).toEqual(engine);
    expect(fromCopy.hits.map((h) => [h.thread_id, h.msg_id]).sort()).toEqual([...ids].sort());
  });

  it('CONV-SEARCH-01 hostile queries on a kept namespace: no words, an emoji, a lone surrogate, quotes answer as the engine does', async () => {
    await seed(ns, 12);
    // The copy is read first (a query with words): the hostile ones then meet a kept namespace.
    await bothPaths({ query: 'flaky upload retry', search_mode: 'vector', limit: 5 } as SearchTurnsRequest);
    for (const query of ['!!!', '👍', 'upload \uD800 retry', `'; DROP TABLE x; --`, 'a'.repeat(2_000)]) {
      for (const search_mode of ['vector', 'hybrid']) {
        const { engine, fromCopy } = await bothPaths({ query, search_mode, limit: 5 } as SearchTurnsRequest);
        expect({ query, search_mode, answer: fromCopy }).toEqual({ query, search_mode, answer: engine });
      }
    }
  });

  it('CONV-SEARCH-23 erasure with purge after the copy was read: nothing of the namespace is found', async () => {
    await seed(ns, 12);
    const { fromCopy } = await engineThenKept('foreign key deadlock');
    expect(fromCopy.length).toBeGreaterThan(0);
    await loom.admin.ok('erasure.request', { namespace: ns, namespace_list: [ns], purge: true });
    expect(await search('foreign key deadlock')).toEqual([]);
    // The exact copy vouched for hits whose rows were gone: it is dropped, to be read again.
    expect(kept().holds(ns, new HashedEmbeddingProvider().model)).toBe(false);
  });

  it('CONV-SEARCH-01 [ADR 0040] an exact copy answers a vector or hybrid search with no stage 2 in the engine: one catch-up and the answer\'s texts', async () => {
    await seed(ns, 30);
    await bothPaths({ query: 'warm the copies', search_mode: 'hybrid', limit: 10 } as SearchTurnsRequest);
    await loom.gateway.runtime.plane.keptPostings.settled();
    const storage = loom.gateway.runtime.storage;
    for (const search_mode of ['vector', 'hybrid']) {
      const input = { query: 'flaky upload retry timeout', search_mode, limit: 5 } as SearchTurnsRequest;
      await runtimeSearch(input);
      await loom.gateway.runtime.plane.keptPostings.settled();
      const spy = jest.spyOn(storage, 'query');
      try {
        const answer = await runtimeSearch(input);
        expect(answer.hits.length).toBe(5);
        const statements = spy.mock.calls.map(([sql]) => String(sql));
        expect(statements.filter((sql) => /kept_threads/.test(sql))).toEqual([]);
        // Both kept copies caught up by one statement, then one read of the hits' texts.
        expect({ search_mode, catchUps: statements.filter((sql) => /cu_since/.test(sql)).length, all: statements.length }).toEqual({ search_mode, catchUps: 1, all: 2 });
      } finally {
        spy.mockRestore();
      }
    }
  });

  it('CONV-SEARCH-01 [ADR 0041] vector searches catch up from the vector copy\'s own position, not from the kept postings\' one that no vector search moves', async () => {
    await seed(ns, 12);
    await bothPaths({ query: 'warm the copies', search_mode: 'hybrid', limit: 10 } as SearchTurnsRequest);
    await loom.gateway.runtime.plane.keptPostings.settled();
    const storage = loom.gateway.runtime.storage;
    const spy = jest.spyOn(storage, 'query');
    try {
      for (let i = 0; i < 3; i += 1) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        await runtimeSearch({ query: 'flaky upload retry timeout', search_mode: 'vector', limit: 5 } as SearchTurnsRequest);
      }
      const froms = spy.mock.calls.filter(([sql]) => /cu_since/.test(String(sql))).map(([, params]) => Number((params as { cu_since: number }).cu_since));
      expect(froms).toHaveLength(3);
      // Each read starts where the previous one left the vector copy; a lagging copy's position held them all at one point.
      expect(froms[1]).toBeGreaterThan(froms[0]!);
      expect(froms[2]).toBeGreaterThan(froms[1]!);
    } finally {
      spy.mockRestore();
    }
  });

  it('CONV-SEARCH-01 CONV-SEARCH-03 [ADR 0040] a copy over LOOM_SEARCH_KEPT_EXACT_VECTORS and LOOM_SEARCH_KEPT_FILE_VECTORS re-scores in the engine and answers as the exact copy and the engine do', async () => {
    await seed(ns, 30);
    const runtime = loom.gateway.runtime;
    const notExact = new KeptVectors(runtime.storage, { maxExactRows: 0, maxFileRows: 0 });
    const viaEngineStage2 = new SearchService(runtime.storage, new EmbeddingClient(runtime.requests, 10_000), runtime.plane.settings, { statsMaxAgeMs: 0, retentionDays: 0, keptVectors: notExact });
    const scope = { all: false as const, namespaces: [ns] };
    try {
      for (const input of [
        { query: 'billing refunds', search_mode: 'vector', limit: 10 },
        { query: 'flaky upload retry timeout', search_mode: 'vector', role: 'assistant', limit: 5 },
        { query: 'cache eviction hot keys', search_mode: 'hybrid', limit: 10 },
      ] as SearchTurnsRequest[]) {
        await viaEngineStage2.search(scope, ALL_AGENTS, input);
        await notExact.settled();
        const { engine, fromCopy } = await bothPaths(input);
        expect(notExact.holds(ns, new HashedEmbeddingProvider().model)).toBe(true);
        expect(await viaEngineStage2.search(scope, ALL_AGENTS, input)).toEqual(engine);
        expect(fromCopy).toEqual(engine);
      }
    } finally {
      await notExact.close();
    }
  });

  it('CONV-APPEND-01 [ADR 0040] hybrid search reads its own writes through the shared catch-up: a turn appended after both copies were read is found by its words and its meaning', async () => {
    await seed(ns, 20);
    await bothPaths({ query: 'zanzibar quokka telemetry exporter', search_mode: 'hybrid', limit: 10 } as SearchTurnsRequest);
    await loom.gateway.runtime.plane.keptPostings.settled();
    for (let i = 0; i < 3; i += 1) {
      await ok('conversation.append', { thread_id: 'new', msg_id: `fresh-${i}`, role: 'user', content: `zanzibar quokka telemetry exporter, take ${i}` });
      const hybrid = await runtimeSearch({ query: 'zanzibar quokka telemetry exporter', search_mode: 'hybrid', limit: 10 } as SearchTurnsRequest);
      expect(hybrid.hits.map((h) => h.msg_id)).toEqual(expect.arrayContaining([`fresh-${i}`]));
      const vector = await runtimeSearch({ query: `zanzibar quokka telemetry exporter, take ${i}`, search_mode: 'vector', limit: 1 } as SearchTurnsRequest);
      expect(vector.hits[0]?.msg_id).toBe(`fresh-${i}`);
    }
  });
});

describe('KeptVectors catch-up and budget [ADR 0038]', () => {
  let loom: TestLoom;
  beforeAll(async () => {
    loom = await startTestLoom({ provider: new ControllableProvider(), env: { LOOM_CONVERSATION_TITLER_ENABLED: 'false' } });
  });
  afterAll(async () => {
    await loom.close();
  });
  const storage = () => loom.gateway.runtime.storage;
  const model = new HashedEmbeddingProvider().model;
  const queryOf = async (text: string) => quantize((await new HashedEmbeddingProvider().embed([text]))[0]!);
  const seed = async (namespace: string, n: number) => {
    await loom.record(namespace);
    for (let i = 0; i < n; i += 1) await loom.admin.ok('conversation.append', { namespace, thread_id: 't', msg_id: `m${i}`, role: 'user', content: `${TOPICS[i % TOPICS.length]} #${i}` });
  };
  const rankerOf = async (k: KeptVectors, namespace: string) => {
    expect(await k.ranker([namespace], model)).toBeUndefined();
    await k.settled();
    const ranker = await k.ranker([namespace], model);
    expect(ranker).toBeDefined();
    return ranker!;
  };

  it('[ADR 0038] a row that lands with a version older than the margin is found after the count check reads the copy again', async () => {
    const ns = uniqueNamespace();
    await seed(ns, 6);
    const k = new KeptVectors(storage(), { countEveryMs: 0 });
    await rankerOf(k, ns);
    // The count check that ask started (a background statement, ADR 0042) ends before the row lands.
    await k.settled();
    const s = storage();
    // A write-behind replay: a row whose version was taken long ago lands now.
    await s.insertSelect(
      s.tables.conversationEmbeddings,
      // (The subquery: in one SELECT, WHERE would see the replaced msg_id.)
      `SELECT * REPLACE ('late' AS msg_id, toUInt64(1000) AS version) FROM (SELECT * FROM ${s.tables.conversationEmbeddings} WHERE namespace = {ns:String} AND msg_id = 'm0')`,
      { ns },
    );
    const query = await queryOf(`${TOPICS[0]} #0`);
    // The catch-up cannot see it (its version is below the margin); the count check finds the gap and drops the copy.
    const stale = await k.ranker([ns], model);
    expect(stale?.candidates(query, {}, 10).map((c) => c.msg_id)).not.toContain('late');
    await k.settled();
    const reread = await k.ranker([ns], model);
    expect(reread?.candidates(query, {}, 10).map((c) => c.msg_id)).toEqual(expect.arrayContaining(['m0', 'late']));
  });

  it('[ADR 0038] a copy too far behind is not caught up on a search: the engine ranks it while the copy is read again, then the copy holds every row', async () => {
    const ns = uniqueNamespace();
    await seed(ns, 6);
    // The bound is 3 rows here (20,000 by default), and no margin (every append is awaited): a burst above it must not be read on a search's time.
    const k = new KeptVectors(storage(), { minCatchUp: 3, marginMicros: 0, catchUp: new SharedCatchUp(storage()) });
    await rankerOf(k, ns);
    const burst = async (from: number, n: number) => {
      for (let i = from; i < from + n; i += 1) await loom.admin.ok('conversation.append', { namespace: ns, thread_id: 'burst', msg_id: `b${i}`, role: 'user', content: `${TOPICS[i % TOPICS.length]} burst ${i}` });
    };
    await burst(0, 2);
    const near = await k.ranker([ns], model);
    // Within the bound the catch-up applies: both new rows rank on the copy.
    expect(near?.candidates(await queryOf(`${TOPICS[1]} burst 1`), {}, 1).map((c) => c.msg_id)).toEqual(['b1']);
    await burst(2, 4);
    expect(await k.ranker([ns], model)).toBeUndefined();
    await k.settled();
    const reread = await k.ranker([ns], model);
    expect(reread?.candidates(await queryOf(`${TOPICS[5]} burst 5`), {}, 1).map((c) => c.msg_id)).toEqual(['b5']);
    expect(k.held()).toEqual({ namespaces: 1, rows: 12, fileRows: 0 });
    await k.close();
  });

  it('[ADR 0038] a namespace over the budget is not kept, and the least recently used copy makes room', async () => {
    const [a, b, big] = [uniqueNamespace(), uniqueNamespace(), uniqueNamespace()];
    await seed(a, 4);
    await seed(b, 4);
    await seed(big, 9);
    const k = new KeptVectors(storage(), { maxRows: 8 });
    await rankerOf(k, a);
    expect(k.held()).toEqual({ namespaces: 1, rows: 4, fileRows: 0 });
    await rankerOf(k, b);
    expect(k.held()).toEqual({ namespaces: 2, rows: 8, fileRows: 0 });
    // `a` was used least recently: reading `c` of 4 rows drops it.
    await k.ranker([b], model);
    const c = uniqueNamespace();
    await seed(c, 4);
    await rankerOf(k, c);
    expect(k.held()).toEqual({ namespaces: 2, rows: 8, fileRows: 0 });
    expect(await k.ranker([a], model)).toBeUndefined();
    expect(await k.ranker([b], model)).toBeDefined();
    // Over the budget alone: never kept, the engine path answers.
    expect(await k.ranker([big], model)).toBeUndefined();
    await k.settled();
    expect(await k.ranker([big], model)).toBeUndefined();
    await k.settled();
  });

  it('[ADR 0042] CONV-SEARCH-01 a copy read in pages of 2, across threads and a tombstoned version, holds every row once, as a copy read in one page', async () => {
    const ns = uniqueNamespace();
    await loom.record(ns);
    for (let i = 0; i < 11; i += 1) await loom.admin.ok('conversation.append', { namespace: ns, thread_id: `t${i % 3}`, msg_id: `m${i}`, role: 'user', content: `${TOPICS[i % TOPICS.length]} #${i}` });
    // A tombstone: a newer version of the same (thread, message) key (stage 1 holds both versions until a merge keeps the newer; the answer's checks drop it).
    await tombstoneTurn(storage(), { namespace: ns, thread_id: 't1', msg_id: 'm4' }, loom.gateway.runtime.plane.fence);
    // No catch-up margin and no count check: the copies hold what their full reads read, nothing more.
    const only = { marginMicros: 0, countEveryMs: 3_600_000 };
    const paged = new KeptVectors(storage(), { ...only, page: 2 });
    const whole = new KeptVectors(storage(), only);
    const query = await queryOf(TOPICS[5]!);
    const [a, b] = [await rankerOf(paged, ns), await rankerOf(whole, ns)];
    expect(paged.held()).toEqual(whole.held());
    expect(a.candidates(query, {}, 20)).toEqual(b.candidates(query, {}, 20));
    expect([...new Set(a.candidates(query, {}, 20).map((c) => c.msg_id))].sort()).toEqual(Array.from({ length: 11 }, (_, i) => `m${i}`).sort());
  });

  it('[ADR 0038] LOOM_SEARCH_KEPT_VECTORS=0 keeps nothing', async () => {
    const ns = uniqueNamespace();
    await seed(ns, 2);
    const k = new KeptVectors(storage(), { maxRows: 0 });
    expect(await k.ranker([ns], model)).toBeUndefined();
    await k.settled();
    expect(await k.ranker([ns], model)).toBeUndefined();
    expect(k.held()).toEqual({ namespaces: 0, rows: 0, fileRows: 0 });
  });

  /** This process's open descriptors on files of `dir` (unlinked ones included), from /proc. */
  const openFilesIn = (dir: string): number =>
    readdirSync('/proc/self/fd').filter((fd) => {
      try {
        return readlinkSync(`/proc/self/fd/${fd}`).startsWith(`${dir}/`);
      } catch {
        return false;
      }
    }).length;

  it('[ADR 0043] a copy over LOOM_SEARCH_KEPT_EXACT_VECTORS keeps its Float32 vectors in an unlinked file: ranked exactly here, its file closed when the copy is dropped or the store closes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'loom-kept-file-'));
    const ns = uniqueNamespace();
    await seed(ns, 5);
    const k = new KeptVectors(storage(), { maxExactRows: 0, fileDir: dir, releaseAfterMs: 0 });
    try {
      const ranker = await rankerOf(k, ns);
      expect(ranker.hits).toBeDefined();
      expect(k.held()).toEqual({ namespaces: 1, rows: 5, fileRows: 5 });
      expect(readdirSync(dir)).toEqual([]);
      expect(openFilesIn(dir)).toBe(1);
      const vector = (await new HashedEmbeddingProvider().embed([`${TOPICS[2]} #2`]))[0]!;
      expect(ranker.hits!(quantize(vector), vector, {}, 1, 0).map((h) => h.msg_id)).toEqual(['m2']);
      // Dropped (a hit it vouched for was purged): its file closes once no search can hold it.
      k.suspect(ns);
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(openFilesIn(dir)).toBe(0);
      await rankerOf(k, ns);
      expect(openFilesIn(dir)).toBe(1);
      await k.close();
      expect(openFilesIn(dir)).toBe(0);
    } finally {
      await k.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('[ADR 0043] a file directory that cannot be written, or LOOM_SEARCH_KEPT_FILE_VECTORS=0: the copy is kept without Float32 vectors and re-scores in the engine', async () => {
    const ns = uniqueNamespace();
    await seed(ns, 3);
    const warnings: string[] = [];
    const logger = { warn: (_: unknown, message: string) => warnings.push(message), info: () => undefined } as never;
    for (const options of [{ fileDir: join(tmpdir(), `loom-missing-${ns}`), logger }, { maxFileRows: 0 }]) {
      const k = new KeptVectors(storage(), { maxExactRows: 0, ...options });
      const ranker = await rankerOf(k, ns);
      expect(ranker.hits).toBeUndefined();
      expect(ranker.candidates(await queryOf(`${TOPICS[1]} #1`), {}, 1).map((c) => c.msg_id)).toEqual(['m1']);
      expect(k.held()).toEqual({ namespaces: 1, rows: 3, fileRows: 0 });
      await k.close();
    }
    expect(warnings).toEqual([expect.stringContaining('cannot keep Float32 vectors in a file (LOOM_SEARCH_KEPT_FILE_DIR')]);
  });
});
