import { nextVersion, createLogger } from '@loom/platform';
import { startTestLoom, uniqueDatabase, uniqueNamespace, workerDataDir, type TestLoom } from '../../testing/src';
import { LexicalBackfill } from './lexical/lexical-backfill';
import { tokenize } from './lexical/tokenizer';

type Hit = { msg_id: string; score: number; excerpt: string };

/**
 * Turns stored before the lexical index (migrations 0032-0034) have embedding rows without
 * terms and no postings: the backfill gives them their terms, at start, resumably.
 */
describe('Lexical backfill of turns stored before the index [issue 10: backfill]', () => {
  let loom: TestLoom;
  let ns: string;
  beforeAll(async () => {
    loom = await startTestLoom({ env: { LOOM_CONVERSATION_TITLER_ENABLED: 'false' } });
  });
  afterAll(async () => {
    await loom.close();
  });
  beforeEach(async () => {
    ns = uniqueNamespace();
    await loom.record(ns);
  });
  const storage = () => loom.gateway.runtime.storage;
  const ok = (op: string, body: Record<string, unknown>, namespace = ns) => loom.admin.ok(op, { namespace, ...body });
  const lexical = async (query: string, namespace = ns): Promise<Array<[string, number]>> =>
    (await ok('conversation.search', { query, search_mode: 'lexical', namespace_scope: 'namespace', limit: 50 }, namespace)).hits.map((h: Hit) => [h.msg_id, h.score]);

  /** A turn as a build before the lexical index stored it: transcript and embedding rows, no terms, no postings. */
  const storeUnindexed = async (msg: string, content: string, options: { transcript?: boolean } = {}) => {
    const s = storage();
    await ok('conversation.append', { thread_id: 'template', msg_id: `tpl-${msg}`, role: 'user', content });
    const [turn] = await s.query<Record<string, unknown>>(`SELECT * EXCEPT (version) FROM ${s.tables.conversations} FINAL WHERE namespace = {ns:String} AND msg_id = {m:String}`, { ns, m: `tpl-${msg}` });
    const [vector] = await s.query<Record<string, unknown>>(`SELECT * EXCEPT (version) FROM ${s.tables.conversationEmbeddings} FINAL WHERE namespace = {ns:String} AND msg_id = {m:String}`, { ns, m: `tpl-${msg}` });
    await ok('conversation.delete', { thread_id: 'template', confirm_thread_id: 'template' });
    if (options.transcript !== false) await s.insert(s.tables.conversations, [{ ...turn, thread_id: 'old', msg_id: msg, version: nextVersion() }]);
    await s.insert(s.tables.conversationEmbeddings, [{ ...vector, thread_id: 'old', msg_id: msg, lex_terms: [], lex_tfs: [], lex_len: 0, version: nextVersion() }]);
  };
  const backfill = () => new LexicalBackfill(storage(), loom.gateway.runtime.plane.fence);

  it('[issue 10: backfill] a turn stored without terms is found by its words after the backfill, scored as if indexed on write; a second run has nothing to do', async () => {
    const long = `the ledger migration notes ${'filler words here '.repeat(200)} and at the very end the kestrel flag`;
    await storeUnindexed('o1', long);
    await storeUnindexed('o2', 'kestrel flag flipped for the ledger');
    await ok('conversation.append', { thread_id: 'new', msg_id: 'n1', role: 'user', content: 'ledger only' });
    expect((await lexical('kestrel')).map(([m]) => m)).toEqual([]);

    const progress: number[] = [];
    const first = await backfill().run({ batchSize: 1, onProgress: (p) => progress.push(p.done) });
    expect(first.indexed).toBeGreaterThanOrEqual(2);
    expect(progress.length).toBeGreaterThan(2);
    // The whole transcript is indexed, not the embedding row's first 2,048 characters.
    expect((await lexical('kestrel')).map(([m]) => m).sort()).toEqual(['o1', 'o2']);

    const twin = uniqueNamespace();
    await loom.record(twin);
    await ok('conversation.append', { thread_id: 'old', msg_id: 'o1', role: 'user', content: long }, twin);
    await ok('conversation.append', { thread_id: 'old', msg_id: 'o2', role: 'user', content: 'kestrel flag flipped for the ledger' }, twin);
    await ok('conversation.append', { thread_id: 'new', msg_id: 'n1', role: 'user', content: 'ledger only' }, twin);
    expect(await lexical('kestrel ledger')).toEqual(await lexical('kestrel ledger', twin));

    const second = await backfill().run();
    expect(second.indexed).toBe(0);
  });

  it('[issue 10: backfill] the backfill skips word-less turns, never revives a tombstoned turn, and indexes an expired transcript from its embedding row', async () => {
    await storeUnindexed('quiet', '?');
    await storeUnindexed('gone', 'osprey deploy notes');
    await storeUnindexed('expired', 'osprey rollback plan', { transcript: false });
    // 'gone' is tombstoned as a delete or an erasure would (a new version, deleted, still without terms).
    const s = storage();
    await s.insertSelect(
      s.tables.conversationEmbeddings,
      `SELECT * REPLACE (true AS deleted, {version:UInt64} AS version) FROM (SELECT * FROM ${s.tables.conversationEmbeddings} FINAL WHERE namespace = {ns:String} AND msg_id = 'gone')`,
      { ns, version: nextVersion() },
    );
    await backfill().run();
    expect((await lexical('osprey')).map(([m]) => m)).toEqual(['expired']);
    const [gone] = await s.query<{ deleted: boolean; lex_len: number }>(`SELECT deleted, lex_len FROM ${s.tables.conversationEmbeddings} FINAL WHERE namespace = {ns:String} AND msg_id = 'gone'`, { ns });
    expect(gone).toEqual({ deleted: true, lex_len: 0 });
    const [quiet] = await s.query<{ n: string }>(`SELECT count() AS n FROM ${s.tables.conversationEmbeddings} WHERE namespace = {ns:String} AND msg_id = 'quiet'`, { ns });
    expect(Number(quiet!.n)).toBe(1);
  });
});

describe('Lexical backfill at start [issue 10: backfill]', () => {
  it('[issue 10: backfill] a start finds turns without terms, indexes them in the background and logs its progress', async () => {
    const env = { LOOM_CONVERSATION_TITLER_ENABLED: 'false', LOOM_DATA_DIR: workerDataDir(), LOOM_CLICKHOUSE_DATABASE: uniqueDatabase() };
    const ns = uniqueNamespace();
    const first = await startTestLoom({ env });
    try {
      await first.record(ns);
      await first.admin.ok('conversation.append', { namespace: ns, thread_id: 't', msg_id: 'm1', role: 'user', content: 'the heron cache warmed' });
      // As a build before the index left it: the embedding row without terms, and no postings.
      const s = first.gateway.runtime.storage;
      await s.command(`ALTER TABLE ${s.tables.conversationEmbeddings} UPDATE lex_terms = [], lex_tfs = [], lex_len = 0 WHERE namespace = {ns:String} SETTINGS mutations_sync = 2`, { ns });
      await s.command(`ALTER TABLE ${s.tables.conversationTerms} DELETE WHERE namespace = {ns:String} SETTINGS mutations_sync = 2`, { ns });
      expect((await first.admin.ok('conversation.search', { namespace: ns, query: 'heron', search_mode: 'lexical' })).hits).toEqual([]);
    } finally {
      // Stopped, not closed: close drops the database the second start must find.
      await first.gateway.close();
      await first.stopEmbedder();
    }
    const lines: string[] = [];
    const second = await startTestLoom({ env, logger: createLogger('gateway', 'info', { write: (line: string) => void lines.push(line) }) });
    try {
      for (let i = 0; i < 200 && !lines.some((l) => l.includes('lexical backfill: run ended')); i += 1) await new Promise((r) => setTimeout(r, 50));
      const logged = lines.filter((l) => l.includes("lexical backfill")).map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(logged[0]).toMatchObject({ rows: 1 });
      expect(logged[logged.length - 1]).toMatchObject({ total: 1, done: 1, indexed: 1, skipped: 0 });
      const hits = (await second.admin.ok('conversation.search', { namespace: ns, query: 'heron', search_mode: 'lexical' })).hits;
      expect(hits.map((h: Hit) => h.msg_id)).toEqual(['m1']);
    } finally {
      await second.close();
    }
  });
});

/**
 * Issue 10's backfills of old rows: turns indexed before Porter stemming (words as typed) are
 * re-derived through `lexicalColumns`; saved messages saved before saved search's index
 * (migrations 0037, 0045) get their rows there. Both resumable, and a rerun doubles nothing.
 */
describe('Backfills of rows written the old way [issue 10: backfills]', () => {
  let loom: TestLoom;
  let ns: string;
  beforeAll(async () => {
    loom = await startTestLoom({ env: { LOOM_CONVERSATION_TITLER_ENABLED: 'false' } });
  });
  afterAll(async () => {
    await loom.close();
  });
  beforeEach(() => {
    ns = uniqueNamespace();
  });
  const storage = () => loom.gateway.runtime.storage;
  const ok = (op: string, body: Record<string, unknown>, namespace = ns) => loom.admin.ok(op, { namespace, ...body });
  const lexical = async (query: string, namespace = ns): Promise<Array<[string, number]>> =>
    (await ok('conversation.search', { query, search_mode: 'lexical', namespace_scope: 'namespace', limit: 50 }, namespace)).hits.map((h: Hit) => [h.msg_id, h.score]);
  const backfill = (selection: 'terms' | 'saved') => new LexicalBackfill(storage(), loom.gateway.runtime.plane.fence, selection);
  /** Live postings of one turn in conversation_terms (header included). */
  const postings = async (msg: string): Promise<string[]> =>
    (
      await storage().query<{ term: string }>(
        `SELECT term FROM ${storage().tables.conversationTerms} FINAL WHERE namespace = {ns:String} AND msg_id = {m:String} AND deleted = 0 ORDER BY term`,
        { ns, m: msg },
      )
    ).map((r) => r.term);

  /** A turn as a build before Porter stemming stored it: terms as typed, no revision, and only those postings. */
  const storeUnstemmed = async (msg: string, content: string) => {
    const s = storage();
    await ok('conversation.append', { thread_id: 'template', msg_id: `tpl-${msg}`, role: 'user', content });
    const [turn] = await s.query<Record<string, unknown>>(`SELECT * EXCEPT (version) FROM ${s.tables.conversations} FINAL WHERE namespace = {ns:String} AND msg_id = {m:String}`, { ns, m: `tpl-${msg}` });
    const [vector] = await s.query<Record<string, unknown>>(`SELECT * EXCEPT (version) FROM ${s.tables.conversationEmbeddings} FINAL WHERE namespace = {ns:String} AND msg_id = {m:String}`, { ns, m: `tpl-${msg}` });
    await ok('conversation.delete', { thread_id: 'template', confirm_thread_id: 'template' });
    const typed = new Map<string, number>();
    for (const t of tokenize(content)) typed.set(t, (typed.get(t) ?? 0) + 1);
    await s.insert(s.tables.conversations, [{ ...turn, thread_id: 'old', msg_id: msg, version: nextVersion() }]);
    await s.insert(s.tables.conversationEmbeddings, [
      { ...vector, thread_id: 'old', msg_id: msg, lex_terms: [...typed.keys()], lex_tfs: [...typed.values()], lex_len: tokenize(content).length, lex_rev: 0, version: nextVersion() },
    ]);
  };

  it('[issue 10: backfills] a turn indexed before stemming is found by another form of its words after the backfill, scored as if indexed on write; a rerun doubles nothing', async () => {
    await loom.record(ns);
    await storeUnstemmed('o1', 'rotating the signing keys every night');
    await storeUnstemmed('o2', 'the keys were rotated by hand once');
    await ok('conversation.append', { thread_id: 'new', msg_id: 'n1', role: 'user', content: 'signing only' });
    expect(await lexical('rotation')).toEqual([]);
    expect(await postings('o1')).toContain('rotating');

    const first = await backfill('terms').run({ batchSize: 1 });
    expect(first.indexed).toBeGreaterThanOrEqual(2);
    expect((await lexical('rotation')).map(([m]) => m).sort()).toEqual(['o1', 'o2']);
    // The word as typed no longer has a live posting: the stem replaced it.
    const after = await postings('o1');
    expect(after).not.toContain('rotating');
    expect(after).toContain('rotat');

    // The same turns appended today score the same: no stale posting adds to a score or a frequency.
    const twin = uniqueNamespace();
    await loom.record(twin);
    await ok('conversation.append', { thread_id: 'old', msg_id: 'o1', role: 'user', content: 'rotating the signing keys every night' }, twin);
    await ok('conversation.append', { thread_id: 'old', msg_id: 'o2', role: 'user', content: 'the keys were rotated by hand once' }, twin);
    await ok('conversation.append', { thread_id: 'new', msg_id: 'n1', role: 'user', content: 'signing only' }, twin);
    expect(await lexical('rotating keys signing')).toEqual(await lexical('rotating keys signing', twin));

    const second = await backfill('terms').run();
    expect(second.indexed).toBe(0);
    expect(await postings('o1')).toEqual(after);
    expect(await lexical('rotating keys signing')).toEqual(await lexical('rotating keys signing', twin));
  });

  it('[issue 10: backfills] a stemming backfill stopped after its first page resumes at the next run and ends with every turn indexed once', async () => {
    await loom.record(ns);
    for (const m of ['r1', 'r2', 'r3']) await storeUnstemmed(m, `${m} rotating the signing keys`);
    const stopped = backfill('terms');
    const partial = await stopped.run({ batchSize: 1, onProgress: (p) => void (p.done >= 1 && stopped.stop()) });
    expect(partial.indexed).toBe(1);
    expect((await lexical('rotation')).length).toBe(1);
    const rest = await backfill('terms').run({ batchSize: 1 });
    expect(rest.indexed).toBe(2);
    expect((await lexical('rotation')).map(([m]) => m).sort()).toEqual(['r1', 'r2', 'r3']);
    expect((await backfill('terms').run()).indexed).toBe(0);
  });

  /** A message saved before saved search had its index: its rows in saved_terms and saved_docs removed. */
  const saveOldWay = async (id: string, content: string) => {
    await ok('conversation.save_message', { user_id: 'u1', conversation_id: 'c', message_id: id, role: 'assistant', content });
    const s = storage();
    for (const t of [s.tables.savedTerms, s.tables.savedDocs]) {
      await s.command(`ALTER TABLE ${t} DELETE WHERE namespace = {ns:String} AND msg_id = {m:String} SETTINGS mutations_sync = 2`, { ns, m: id });
    }
  };
  const saved = async (query: string, mode: string) =>
    (await ok('conversation.search_saved_messages', { user_id: 'u1', query, search_mode: mode })).hits.map((h: { message_id: string }) => h.message_id).sort();
  const savedDocs = async () =>
    Number((await storage().query<{ n: string }>(`SELECT count() AS n FROM ${storage().tables.savedDocs} FINAL WHERE namespace = {ns:String} AND live`, { ns }))[0]!.n);

  it('[issue 10: backfills] a message saved before the saved-search index is found in every mode after the backfill; a rerun doubles nothing', async () => {
    await saveOldWay('s1', 'the heron ledger export');
    await ok('conversation.save_message', { user_id: 'u1', conversation_id: 'c', message_id: 's2', role: 'assistant', content: 'lunch at noon' });
    expect(await saved('heron ledger', 'lexical')).toEqual([]);
    expect(await saved('the heron ledger export', 'semantic')).toEqual([]);

    const first = await backfill('saved').run();
    expect(first.indexed).toBe(1);
    for (const mode of ['lexical', 'hybrid']) expect(await saved('heron ledger', mode)).toEqual(['s1']);
    expect(await saved('the heron ledger export', 'semantic')).toContain('s1');
    expect(await savedDocs()).toBe(2);

    expect((await backfill('saved').run()).indexed).toBe(0);
    expect(await savedDocs()).toBe(2);
    expect(await saved('heron ledger', 'lexical')).toEqual(['s1']);
  });

  it('[issue 10: backfills] a saved-index backfill stopped after its first page resumes at the next run', async () => {
    for (const id of ['a', 'b', 'c']) await saveOldWay(id, `${id} osprey budget notes`);
    const stopped = backfill('saved');
    const partial = await stopped.run({ batchSize: 1, onProgress: (p) => void (p.done >= 1 && stopped.stop()) });
    expect(partial.indexed).toBe(1);
    expect((await saved('osprey', 'lexical')).length).toBe(1);
    const rest = await backfill('saved').run({ batchSize: 1 });
    expect(rest.indexed).toBe(2);
    expect(await saved('osprey', 'lexical')).toEqual(['a', 'b', 'c']);
    expect(await savedDocs()).toBe(3);
    expect((await backfill('saved').run()).indexed).toBe(0);
  });
});
