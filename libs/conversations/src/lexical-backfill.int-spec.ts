import { nextVersion, createLogger } from '@loom/platform';
import { startTestLoom, uniqueDatabase, uniqueNamespace, workerDataDir, type TestLoom } from '../../testing/src';
import { LexicalBackfill } from './lexical/lexical-backfill';

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
