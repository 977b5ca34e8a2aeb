import type { SearchSavedMessagesResponse } from '@loom/contracts';
import { ControllableProvider, startTestLoom, tombstoneTurn, uniqueNamespace, type TestLoom } from '../../testing/src';
import { EmbeddingClient } from './embedding/embedding.client';
import { queryTerms } from './lexical/tokenizer';
import { SavedCorpusCache } from './saved/saved-corpus-cache';
import { SavedSearchService } from './saved/saved-search.service';

/**
 * ADR 0037: saved search ranks a kept corpus in memory. A service with the default budget ranks
 * both legs over the held vectors and postings; one with a budget of
 * nothing ranks them in the engine (the statements of ADR 0024) and reads every text. Both read
 * the same rows, so they must answer the same.
 */
describe('Saved search ranked in memory (ADR 0037)', () => {
  const provider = new ControllableProvider();
  let loom: TestLoom;
  let ns: string;
  let memory: SavedSearchService;
  let engine: SavedSearchService;

  beforeAll(async () => {
    loom = await startTestLoom({ provider, env: { LOOM_CONVERSATION_TITLER_ENABLED: 'false' } });
  });
  beforeEach(() => {
    ns = uniqueNamespace();
    const { storage, requests, plane } = loom.gateway.runtime;
    const embedder = new EmbeddingClient(requests, 10_000);
    memory = new SavedSearchService(storage, embedder, plane.settings);
    // Nothing held: both legs in the engine, and every hit's text read.
    engine = new SavedSearchService(storage, embedder, plane.settings, { maxVectors: 0, maxPostings: 0 }, { maxTextChars: 0 });
  });
  afterAll(async () => {
    await loom.close();
  });

  const storage = () => loom.gateway.runtime.storage;
  const ok = async (name: string, body: Record<string, unknown>) => {
    const r = await loom.admin.call(name, { namespace: ns, ...body });
    if (r.status !== 200) throw new Error(`${name} ${r.status} ${JSON.stringify(r.body)}`);
    return r.body;
  };
  const saveNew = (user: string, conv: string, id: string, content: string) =>
    ok('conversation.save_message', { user_id: user, conversation_id: conv, message_id: id, role: 'assistant', content });

  const WORDS = ['ledger', 'invoice', 'export', 'nightly', 'gannet', 'rollout', 'budget', 'archive', 'backfill', 'kestrel', 'quota', 'shard'];
  /**
   * Messages of strictly increasing lengths in terms, so no two share a BM25 score (the order
   * among equal sums could then depend on the engine's summing order, not the ranking).
   */
  const seed = async (user: string, count: number, prefix = 'm') => {
    for (let i = 0; i < count; i += 1) {
      const words = Array.from({ length: 2 + (i % 4) }, (_, k) => WORDS[(i * 5 + k * 7) % WORDS.length]!);
      // Its first word again: the length grows without drawing the vector away from the words.
      const filler = Array.from({ length: 5 * i }, () => words[0]!);
      await saveNew(user, `c${i % 3}`, `${prefix}${i}`, [...words, ...filler, ...(i % 2 === 1 ? [words[0]!] : []), `note${i}`].join(' '));
    }
  };

  /**
   * The statements a search sent, without the live settings' own refresh: when their cache lapses
   * mid-test it reads the settings table, and that read is not the search's.
   */
  const searchSql = (statements: jest.SpyInstance) => {
    const settingsRead = new RegExp(`FROM ${storage().tables.settings.replace('.', '\\.')} FINAL`);
    return statements.mock.calls.map(([q]) => q as string).filter((q) => !settingsRead.test(q));
  };

  const ask = (service: SavedSearchService, query: string, extra: Record<string, unknown> = {}) => service.search(ns, 'u1', { namespace: ns, user_id: 'u1', query, limit: 10, ...extra } as never);

  /** The same hits, in the same order, with the same excerpts and legs, and scores within 1e-6. */
  const expectSame = (mine: SearchSavedMessagesResponse, theirs: SearchSavedMessagesResponse, what: string) => {
    const shape = (r: SearchSavedMessagesResponse) => r.hits.map(({ score: _score, ...rest }) => rest);
    expect({ what, mode: mine.mode, hits: shape(mine) }).toEqual({ what, mode: theirs.mode, hits: shape(theirs) });
    mine.hits.forEach((h, i) => expect({ what, id: h.message_id, diff: Math.abs(h.score - theirs.hits[i]!.score) < 1e-6 }).toEqual({ what, id: h.message_id, diff: true }));
  };

  /** The ids each mode finds for `query`, after checking they equal the engine's answer. */
  const same = async (query: string) => {
    const ids: Record<string, string[]> = {};
    for (const search_mode of ['hybrid', 'lexical', 'semantic']) {
      const mine = await ask(memory, query, { search_mode });
      expectSame(mine, await ask(engine, query, { search_mode }), `${query} ${search_mode}`);
      ids[search_mode] = mine.hits.map((h) => h.message_id);
    }
    return ids;
  };

  const QUERIES = ['ledger invoice', 'gannet rollout budget', 'kestrel', 'archive backfill shard nightly', 'note7', 'nothing-matches-this'];
  const compareAll = async (extra: Record<string, unknown> = {}) => {
    const hits: Record<string, number> = {};
    for (const query of QUERIES) {
      for (const search_mode of ['hybrid', 'lexical', 'semantic']) {
        for (const scope of [{}, { conversation_id: 'c1' }]) {
          const args = { search_mode, ...scope, ...extra };
          const mine = await ask(memory, query, args);
          expectSame(mine, await ask(engine, query, args), `${query} ${JSON.stringify(args)}`);
          hits[search_mode] = (hits[search_mode] ?? 0) + mine.hits.length;
        }
      }
    }
    // Not a comparison of empty answers.
    for (const mode of ['hybrid', 'lexical', 'semantic']) expect(hits[mode]).toBeGreaterThan(5);
  };

  it('SAVE-SEARCH-04, SAVE-SEARCH-05, SAVE-SEARCH-10: ranked in memory, every mode answers the hits and scores the engine statements answer, with no leg statement once the corpus is read', async () => {
    await seed('u1', 40);
    await seed('u2', 10, 'o');
    await compareAll();
    await compareAll({ lexical_weight: 0.9, limit: 3 });

    // A user's first search ranked its vector leg in the engine while the vectors loaded (ADR 0037 amendment).
    await memory.settled();
    // Warm: the signature and the hits' rows only; the engine service still runs both legs.
    const statements = jest.spyOn(storage(), 'query');
    const legs = () => statements.mock.calls.filter(([sql]) => /cosineDistance|sum\(idf/.test(sql)).length;
    try {
      await ask(memory, 'ledger invoice');
      expect(legs()).toBe(0);
      await ask(engine, 'ledger invoice');
      expect(legs()).toBeGreaterThanOrEqual(2);
    } finally {
      statements.mockRestore();
    }
  });

  it('SAVE-SEARCH-04, SAVE-SEARCH-05 [ADR 0037]: a user\'s first search does not wait for every vector: it ranks its vector leg in the engine while they load, and answers as the engine does', async () => {
    await seed('u1', 12);
    // Hold the full read of the vectors (a background read, ADR 0042) until the first search has answered.
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const background = storage().backgroundQuery.bind(storage());
    const held = jest.spyOn(storage(), 'backgroundQuery').mockImplementation((async (sql: string, params?: Record<string, unknown>) => {
      if (sql.includes('AS row_version')) await gate;
      return background(sql, params as never);
    }) as never);
    const statements = jest.spyOn(storage(), 'query');
    try {
      for (const search_mode of ['hybrid', 'semantic']) expectSame(await ask(memory, 'ledger invoice', { search_mode }), await ask(engine, 'ledger invoice', { search_mode }), `cold ${search_mode}`);
      // The vectors' read was held, and two searches of each service ranked their vector leg in the engine.
      expect(held.mock.calls.filter(([sql]) => sql.includes('AS row_version, model')).length).toBeGreaterThanOrEqual(1);
      expect(statements.mock.calls.filter(([sql]) => /cosineDistance/.test(sql)).length).toBeGreaterThanOrEqual(4);
    } finally {
      release();
      await memory.settled();
      held.mockRestore();
      statements.mockRestore();
    }
    expectSame(await ask(memory, 'ledger invoice'), await ask(engine, 'ledger invoice'), 'loaded');
  });

  it('SAVE-SEARCH-04 [ADR 0037]: concurrent first searches of one user read its vectors and its complete postings once', async () => {
    await seed('u1', 12);
    // The full reads are background reads (ADR 0042); a search's own statements go through query.
    const reads = jest.spyOn(storage(), 'backgroundQuery');
    const searches = jest.spyOn(storage(), 'query');
    try {
      const answers = await Promise.all(['ledger', 'invoice', 'kestrel', 'quota'].map((q) => ask(memory, q)));
      await memory.settled();
      expect(answers.every((a) => a.hits.length > 0)).toBe(true);
      const all = [...reads.mock.calls, ...searches.mock.calls];
      expect(all.filter(([sql]) => sql.includes('AS row_version, model')).length).toBe(1);
      // And its complete postings once (ADR 0037 addendum).
      expect(all.filter(([sql]) => sql.includes('groupArray(term)')).length).toBe(1);
    } finally {
      reads.mockRestore();
      searches.mockRestore();
    }
  });

  it('SAVE-SEARCH-11, SAVE-SEARCH-02: the next search reflects a save, an unsave, a tombstone and a re-save with other text, as the engine statements do', async () => {
    await seed('u1', 12);
    const ids = async (query: string, search_mode: string) => {
      const mine = await ask(memory, query, { search_mode });
      expectSame(mine, await ask(engine, query, { search_mode }), `${query} ${search_mode}`);
      return mine.hits.map((h) => h.message_id);
    };
    for (const mode of ['hybrid', 'lexical', 'semantic']) await ids('pelican harbour', mode);

    await memory.settled();
    await saveNew('u1', 'c9', 'new', 'pelican harbour ledger');
    for (const mode of ['hybrid', 'lexical', 'semantic']) expect(await ids('pelican harbour', mode)).toContain('new');

    await ok('conversation.unsave_message', { user_id: 'u1', conversation_id: 'c9', message_id: 'new' });
    for (const mode of ['hybrid', 'lexical', 'semantic']) expect(await ids('pelican harbour', mode)).not.toContain('new');

    await saveNew('u1', 'c9', 'new', 'cormorant lagoon');
    for (const mode of ['hybrid', 'lexical']) expect(await ids('pelican harbour', mode)).not.toContain('new');
    for (const mode of ['hybrid', 'lexical', 'semantic']) expect(await ids('cormorant lagoon', mode)).toContain('new');

    await tombstoneTurn(storage(), { namespace: ns, thread_id: 'c9', msg_id: 'new' }, loom.gateway.runtime.plane.fence);
    for (const mode of ['hybrid', 'lexical', 'semantic']) expect(await ids('cormorant lagoon', mode)).not.toContain('new');

    await saveNew('u1', 'c9', 'again', 'cormorant lagoon again');
    for (const mode of ['hybrid', 'lexical', 'semantic']) expect(await ids('cormorant lagoon', mode)).toContain('again');
  });

  it('SAVE-SEARCH-10, SAVE-SEARCH-07 [ADR 0037 addendum]: once the corpus holds every posting, a term never asked before is answered with one statement, the hits\' rows read with the signature (ADR 0037 addendum 2), as the engine answers it', async () => {
    await seed('u1', 24);
    await seed('u2', 10, 'o');
    await ask(memory, 'ledger');
    await memory.settled();
    const statements = jest.spyOn(storage(), 'query');
    try {
      for (const query of ['quota shard', 'note11 kestrel', 'archive', 'absent-everywhere']) {
        for (const search_mode of ['hybrid', 'lexical']) {
          statements.mockClear();
          const mine = await ask(memory, query, { search_mode });
          const sql = searchSql(statements);
          expect({ query, postings: sql.filter((q) => /any\(tf\)|groupArray\(term\)|cosineDistance|FINAL/.test(q)).length }).toEqual({ query, postings: 0 });
          expect({ query, statements: sql.length }).toEqual({ query, statements: 1 });
          expectSame(mine, await ask(engine, query, { search_mode }), `${query} ${search_mode}`);
        }
      }
    } finally {
      statements.mockRestore();
    }
  });

  it('SAVE-SEARCH-11, SAVE-SEARCH-02, SAVE-SEARCH-10 [ADR 0037 addendum]: after the complete postings are held, a save, an unsave and an erasure show in the next search of terms never asked, as in the engine', async () => {
    await seed('u1', 12);
    await seed('u2', 6, 'o');
    await ask(memory, 'ledger');
    await memory.settled();
    // Carried over to the next corpus with the one version written since.
    await saveNew('u1', 'c7', 'fresh', 'albatross estuary ledger');
    const statements = jest.spyOn(storage(), 'query');
    try {
      await ask(memory, 'albatross estuary', { search_mode: 'lexical' });
      const sql = statements.mock.calls.map(([q]) => q);
      // No term counted in the engine; the complete postings were carried with one delta read.
      expect(sql.filter((q) => /any\(tf\)|sum\(idf/.test(q)).length).toBe(0);
      expect(sql.filter((q) => /groupArray\(term\)/.test(q)).length).toBe(1);
    } finally {
      statements.mockRestore();
    }
    expect((await same('albatross estuary')).lexical).toEqual(['fresh']);
    await ok('conversation.unsave_message', { user_id: 'u1', conversation_id: 'c7', message_id: 'fresh' });
    expect((await same('albatross estuary')).lexical).toEqual([]);
    expect((await same('ledger')).lexical).not.toContain('fresh');
    await saveNew('u1', 'c7', 'fresh', 'puffin shoal');
    expect((await same('puffin shoal')).lexical).toEqual(['fresh']);
    await ok('erasure.request', { user_id: 'u1' });
    for (const query of ['puffin shoal', 'ledger', 'kestrel quota']) {
      const ids = await same(query);
      expect({ query, ids }).toEqual({ query, ids: { hybrid: [], lexical: [], semantic: [] } });
    }
  });

  it('SAVE-SEARCH-02, SAVE-SEARCH-11 [ADR 0037 addendum 3]: once a user\'s rows are held, a warm search reads the signature alone, and the next search after a save, an unsave, a re-save with other text, a tombstone and an erasure shows what the engine shows', async () => {
    await seed('u1', 24);
    await seed('u2', 10, 'o');
    await ask(memory, 'ledger');
    await ask(memory, 'ledger', { conversation_id: 'c1' });
    await memory.settled();
    // Every live message of u1 is held (the fill read them in the background), none of u2.
    expect(memory.heldTexts().users).toBe(1);
    expect(memory.heldTexts().chars).toBeGreaterThan(24 * 10);
    const statements = jest.spyOn(storage(), 'query');
    const warm = async (query: string, extra: { search_mode?: string; conversation_id?: string }) => {
      statements.mockClear();
      const mine = await ask(memory, query, extra);
      const sql = searchSql(statements);
      const transcript = new RegExp(`${storage().tables.conversations.replace('.', '\\.')}\\b`);
      // No hit's row is read; a corpus of the whole user checks its signature alone (one of a
      // conversation also counts a term it was never asked, as before).
      expect({ query, extra, transcript: sql.filter((q) => transcript.test(q)).length }).toEqual({ query, extra, transcript: 0 });
      if (extra.conversation_id === undefined) expect({ query, extra, sql: sql.map((q) => /FROM \S*saved_docs WHERE/.test(q)) }).toEqual({ query, extra, sql: [true] });
      statements.mockClear();
      return mine;
    };
    try {
      for (const query of ['ledger invoice', 'kestrel', 'gannet rollout budget']) {
        for (const extra of [{ search_mode: 'hybrid' }, { search_mode: 'lexical' }, { search_mode: 'semantic' }, { conversation_id: 'c1' }]) {
          const mine = await warm(query, extra);
          expect({ query, extra, found: mine.hits.length > 0 }).toEqual({ query, extra, found: true });
          expectSame(mine, await ask(engine, query, extra), `${query} ${JSON.stringify(extra)}`);
        }
      }
    } finally {
      statements.mockRestore();
    }
    await saveNew('u1', 'c8', 'held', 'heron marsh ledger');
    expect((await same('heron marsh')).lexical).toEqual(['held']);
    await memory.settled();
    await ok('conversation.unsave_message', { user_id: 'u1', conversation_id: 'c8', message_id: 'held' });
    expect((await same('heron marsh')).lexical).toEqual([]);
    await saveNew('u1', 'c8', 'held', 'heron marsh rewritten');
    await memory.settled();
    const resaved = await ask(memory, 'heron marsh', { search_mode: 'lexical' });
    expect(resaved.hits.map((h) => h.excerpt)).toEqual(['heron marsh rewritten']);
    await tombstoneTurn(storage(), { namespace: ns, thread_id: 'c8', msg_id: 'held' }, loom.gateway.runtime.plane.fence);
    expect(await same('heron marsh')).toEqual({ hybrid: [], lexical: [], semantic: [] });
    await memory.settled();
    await ok('erasure.request', { user_id: 'u1' });
    for (const query of ['ledger', 'kestrel quota']) expect({ query, ids: await same(query) }).toEqual({ query, ids: { hybrid: [], lexical: [], semantic: [] } });
  });

  it('SAVE-SEARCH-10, SAVE-SEARCH-04 [ADR 0037 addendum]: a corpus whose postings are over the budget holds none in full: it counts the terms asked and, once they overflow too, ranks BM25 in the engine, the same as in memory', async () => {
    await seed('u1', 30);
    const cache = new SavedCorpusCache(storage(), { maxPostings: 40 });
    const corpus = await cache.refresh({ ns, user: 'u1' }, queryTerms('kestrel'));
    await cache.settled();
    expect(cache.cached({ ns, user: 'u1' })).toBe(corpus);
    expect(corpus.complete).toBe(false);
    expect(corpus.postings?.get('kestrel')?.slots.length).toBe(corpus.df.get('kestrel'));
    const { storage: s, requests, plane } = loom.gateway.runtime;
    memory = new SavedSearchService(s, new EmbeddingClient(requests, 10_000), plane.settings, { maxPostings: 40 });
    await compareAll();
    const statements = jest.spyOn(storage(), 'query');
    try {
      await ask(memory, 'ledger invoice budget', { search_mode: 'lexical' });
      expect(statements.mock.calls.filter(([sql]) => /sum\(idf/.test(sql)).length).toBe(1);
    } finally {
      statements.mockRestore();
    }
  });

  it('SAVE-SEARCH-04, SAVE-SEARCH-05: a corpus over the memory budget still answers, its legs ranked in the engine, the same as in memory', async () => {
    await seed('u1', 30);
    const { storage: s, requests, plane } = loom.gateway.runtime;
    // The user's 30 vectors do not fit (one conversation's 10 do); the postings overflow within the first queries.
    engine = new SavedSearchService(s, new EmbeddingClient(requests, 10_000), plane.settings, { maxVectors: 29, maxPostings: 25 });
    await compareAll();
  });

  it('[ADR 0037] the budget holds across corpora: the least recently used corpus is dropped to make room', async () => {
    await seed('u1', 20);
    await seed('u2', 15, 'o');
    const ledger = queryTerms('ledger');
    const cache = new SavedCorpusCache(storage(), { maxVectors: 30, maxPostings: 1_000 });
    // A first read loads its vectors in the background (they may be in by the time it returns).
    const first = await cache.refresh({ ns, user: 'u1' }, ledger);
    await cache.settled();
    expect(first.vectors?.size).toBe(20);
    expect(cache.held()).toMatchObject({ corpora: 1, vectors: 20 });
    await cache.refresh({ ns, user: 'u2' }, ledger);
    await cache.settled();
    expect(cache.cached({ ns, user: 'u1' })).toBeUndefined();
    expect(cache.held()).toMatchObject({ corpora: 1, vectors: 15 });
    // Both fit when narrowed to one conversation each (7 and 5 messages).
    await cache.refresh({ ns, user: 'u1', conv: 'c0' }, ledger);
    await cache.settled();
    expect(cache.held().corpora).toBe(2);
    expect(cache.held().vectors).toBeLessThanOrEqual(30);
    // Read in pages of 3 rows (the default is 1,000): every vector arrives, one background statement per page.
    const pages = jest.spyOn(storage(), 'backgroundQuery');
    try {
      const paged = new SavedCorpusCache(storage(), {}, 3);
      const read = await paged.refresh({ ns, user: 'u1' }, []);
      await paged.settled();
      expect(read.vectors?.size).toBe(20);
      expect([...read.vectors!.values()].every((v) => v.vector !== undefined && read.live.get(v.key) === v.version)).toBe(true);
      expect(pages.mock.calls.filter(([sql]) => sql.includes('AS row_version, model')).length).toBeGreaterThanOrEqual(7);
    } finally {
      pages.mockRestore();
    }
    const tiny = new SavedCorpusCache(storage(), { maxVectors: 5, maxPostings: 1 });
    const corpus = await tiny.refresh({ ns, user: 'u1' }, ledger);
    await tiny.settled();
    expect(corpus.vectors).toBeUndefined();
    expect(corpus.postings).toBeUndefined();
    expect(corpus.df.get(ledger[0]!)).toBeGreaterThan(1);
    expect(tiny.held()).toMatchObject({ vectors: 0, postings: 0 });
  });
});
