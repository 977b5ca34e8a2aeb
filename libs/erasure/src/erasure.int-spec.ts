import { formatMicros, runMigrations } from '@loom/clickhouse';
import { nextVersion } from '@loom/platform';
import { openTestStorage, startTestLoom, tombstoneTurn, uniqueNamespace, type TestLoom } from '../../testing/src';
import { InProcessThreadFence } from '@loom/conversations';
import { ErasureService } from './erasure.service';
import { applyRetention, conversationsTtl } from './retention';

const DAY_US = 86_400_000_000;

describe('Erasure (erasure.request, erasure.export)', () => {
  let loom: TestLoom;
  let ns: string;
  // People are per test: a person's export and erasure span every namespace the admin covers.
  let u1: string;
  let u2: string;
  beforeAll(async () => {
    loom = await startTestLoom({ env: { LOOM_CONVERSATION_TITLER_ENABLED: 'false' } });
  });
  beforeEach(async () => {
    ns = uniqueNamespace();
    u1 = `u1-${ns}`;
    u2 = `u2-${ns}`;
    await loom.record(ns);
  });
  afterAll(async () => loom.close());

  const storage = () => loom.gateway.runtime.storage;
  const ok = (op: string, body: Record<string, unknown>) => loom.admin.ok(op, { namespace: ns, ...body });
  const append = (thread: string, msg: string, user: string, content: string) => ok('conversation.append', { thread_id: thread, msg_id: msg, role: 'user', content, user_id: user });
  const rawCount = async (table: 'conversations' | 'conversationEmbeddings' | 'memories' | 'sessionBriefs' | 'runs' | 'runUsage', where = '1') => {
    const [row] = await storage().query<{ n: string }>(`SELECT count() AS n FROM ${storage().tables[table]} WHERE namespace = {ns:String} AND ${where}`, { ns });
    return Number(row!.n);
  };

  it('CONV-RET-01, CONV-RET-02: tombstoned turns are in no read but erasure.export, which includes them unless include_tombstoned is false', async () => {
    await append('t', 'live', u1, 'a live turn');
    await append('t', 'gone', u1, 'a tombstoned turn');
    await tombstoneTurn(storage(), { namespace: ns, thread_id: 't', msg_id: 'gone' });
    expect((await ok('conversation.list', { thread_id: 't' })).messages.map((m: { msg_id: string }) => m.msg_id)).toEqual(['live']);
    const all = (await ok('erasure.export', { user_id: u1 })).turns;
    expect(all.map((t: { msg_id: string; deleted: boolean }) => [t.msg_id, t.deleted])).toEqual([
      ['gone', true],
      ['live', false],
    ]);
    const liveOnly = (await ok('erasure.export', { user_id: u1, include_tombstoned: false })).turns;
    expect(liveOnly.map((t: { msg_id: string }) => t.msg_id)).toEqual(['live']);
    const namespaceWide = (await ok('erasure.export', {})).turns;
    expect(namespaceWide).toHaveLength(2);
  });

  it('CONV-RET-08, SAVE-UNSAVE-08: a person\'s erasure takes their saved messages with the rest of their rows, memories and bounded briefs; others are untouched', async () => {
    await append('t', 'u1-turn', u1, 'u1 talks about the ledger');
    await append('t', 'u2-turn', u2, 'u2 talks about the ledger');
    await ok('conversation.save_message', { user_id: u1, conversation_id: 't', message_id: 'u1-turn' });
    await ok('conversation.save_message', { user_id: u1, conversation_id: 'other', message_id: 'saved-only', role: 'user', content: 'a saved-only message about the ledger' });
    await ok('memory.set', { text: 'u1 likes squash merges', user_id: u1 });
    await ok('memory.set', { text: 'u2 likes rebases', user_id: u2 });
    const bounded = await loom.as(ns, 'writer', { read_scope: 'own_user', read_user_id: u1 });
    await bounded.ok('session.brief_save', { brief_key: 'mine', sections: { goal: 'u1 work' } });
    const result = await ok('erasure.request', { user_id: u1 });
    expect(result).toMatchObject({ subject: 'user', purged: false, erased: { turns: 2, embeddings: 2, memories: 1, briefs: 1 } });
    expect((await ok('conversation.list_saved_messages', { user_id: u1 })).messages).toEqual([]);
    expect((await ok('conversation.search_saved_messages', { user_id: u1, query: 'ledger' })).hits).toEqual([]);
    expect((await ok('conversation.list', { thread_id: 't' })).messages.map((m: { msg_id: string }) => m.msg_id)).toEqual(['u2-turn']);
    expect((await ok('memory.search', { query: 'who likes which merge style' })).hits.map((h: { text: string }) => h.text)).toEqual(['u2 likes rebases']);
    expect((await bounded.call('session.brief_get', { brief_key: 'mine' })).status).toBe(404);
    expect((await ok('conversation.search', { query: 'talks about the ledger', namespace_scope: 'namespace' })).hits.map((h: { msg_id: string }) => h.msg_id)).toEqual(['u2-turn']);
  });

  it('CONV-RET-08 [issue 9: principal key collision]: erasing a person takes their user and session briefs and none of a user whose id extends theirs with "~"', async () => {
    const brief = async (extra: Record<string, unknown>) => (await loom.as(ns, 'writer', extra)).ok('session.brief_save', { brief_key: 'plan', sections: { goal: JSON.stringify(extra) } });
    await brief({ read_scope: 'own_user', read_user_id: u1 });
    await brief({ read_scope: 'own_session', read_user_id: u1, read_session_id: 's1' });
    await brief({ read_scope: 'own_user', read_user_id: `${u1}~s1` });
    await brief({ read_scope: 'own_user', read_user_id: `${u1}%` });
    const result = await ok('erasure.request', { user_id: u1 });
    expect(result.erased.briefs).toBe(2);
    const left = (await ok('session.brief_list', {})).briefs.map((b: { brief_key: string }) => b.brief_key).sort();
    expect(left).toEqual([`~${u1}%7Es1~plan`, `~${u1}%25~plan`].sort());
    expect((await ok('erasure.request', { user_id: `${u1}~s1` })).erased.briefs).toBe(1);
  });

  it('CONV-RET-06, CONV-RET-07: an orphaned embedding row (its message expired) is tombstoned by the erasure, never exported, and removed from disk only by a namespace_list purge', async () => {
    await append('t', 'expired', u1, 'the excerpt of a turn whose message expired');
    await append('t', 'kept', u1, 'a turn still there');
    // The retention TTL took the transcript row; its embedding row (no TTL) is left.
    await storage().command(`DELETE FROM ${storage().tables.conversations} WHERE namespace = {ns:String} AND msg_id = 'expired'`, { ns });
    const exported = (await ok('erasure.export', { user_id: u1 })).turns.map((t: { msg_id: string; content: string }) => t.msg_id);
    expect(exported).toEqual(['kept']);
    await ok('erasure.request', { user_id: u1 });
    const [orphan] = await storage().query<{ deleted: boolean }>(`SELECT deleted FROM ${storage().tables.conversationEmbeddings} FINAL WHERE namespace = {ns:String} AND msg_id = 'expired'`, { ns });
    expect(orphan).toEqual({ deleted: true });
    expect(await rawCount('conversationEmbeddings')).toBeGreaterThan(0);
    const purge = await ok('erasure.request', { namespace_list: [ns], purge: true });
    expect(purge).toMatchObject({ subject: 'namespace_list', purged: true });
    expect(await rawCount('conversationEmbeddings')).toBe(0);
    expect(await rawCount('conversations')).toBe(0);
  });

  it('a namespace_list purge also removes the namespace\'s runs and their reported model usage', async () => {
    await ok('run.report_usage', { run_id: 'r1', goal: 'g', reports: [{ usage_id: 'u1', model: 'claude-sonnet-4-5', input_tokens: 1, output_tokens: 2 }] });
    const purge = await ok('erasure.request', { namespace_list: [ns], purge: true });
    expect(purge.erased.runs).toBe(2);
    expect(await rawCount('runs')).toBe(0);
    expect(await rawCount('runUsage')).toBe(0);
    expect((await loom.admin.call('run.get', { namespace: ns, run_id: 'r1' })).status).toBe(404);
  });

  it('a namespace_list erasure without purge tombstones everything in those namespaces', async () => {
    await append('t', 'm', u1, 'namespace data');
    await ok('conversation.create', { thread_id: 'titled', title: 'A title' });
    const r = await ok('erasure.request', { namespace_list: [ns] });
    expect(r.erased).toMatchObject({ turns: 1, embeddings: 1, threads: 1 });
    expect((await ok('conversation.threads', {})).threads).toEqual([]);
    expect(await rawCount('conversations')).toBeGreaterThan(0);
  });

  it('CONV-RET-08: a finished erasure answers status done with its counts, and erasure.status answers the same record later', async () => {
    await append('t', 'm1', u1, 'u1 says something');
    const done = await ok('erasure.request', { user_id: u1 });
    expect(done).toMatchObject({ status: 'done', subject: 'user', attempts: 1, last_error: '', erased: { turns: 1, embeddings: 1 } });
    expect(done.erasure_id).toMatch(/^era_/);
    expect(await ok('erasure.status', { erasure_id: done.erasure_id })).toEqual(done);
  });

  it('CONV-RET-08: with wait false the request answers pending once stored, and the queue finishes it in the background', async () => {
    await append('t', 'm1', u1, 'u1 asks about invoices');
    await append('t', 'm2', u2, 'u2 asks about invoices');
    const accepted = await ok('erasure.request', { user_id: u1, wait: false });
    expect(accepted).toMatchObject({ status: 'pending', erased: null, attempts: 0, purged: false });
    let status = accepted;
    for (const deadline = Date.now() + 10_000; status.status === 'pending' && Date.now() < deadline; ) {
      await new Promise((r) => setTimeout(r, 20));
      status = await ok('erasure.status', { erasure_id: accepted.erasure_id });
    }
    expect(status).toMatchObject({ status: 'done', attempts: 1, erased: { turns: 1, embeddings: 1 } });
    expect((await ok('conversation.list', { thread_id: 't' })).messages.map((m: { msg_id: string }) => m.msg_id)).toEqual(['m2']);
    // Operators count outcomes (and alert on failed ones) on /metrics.
    expect((await loom.admin.get('/metrics')).text).toMatch(/loom_jobs_total\{[^}]*kind="erasure",outcome="done"[^}]*\} [1-9]/);
  });

  it('CONV-RET-08: a request a crash left pending (stored, not run) is finished by the next replica to start, and a second run erases nothing twice', async () => {
    await append('t', 'm1', u1, 'u1 turn before the crash');
    await append('t', 'm2', u2, 'u2 turn that stays');
    const service = loom.gateway.runtime.erasure;
    // As a gateway would leave it if it died right after storing the request.
    const left = await service.queue.record(
      { namespace: ns, erasure_id: `era_crash_${ns}`, subject: 'user', user_id: u1, namespaces: [ns], all_namespaces: false, purge: false, status: 'pending', erased: '' },
      { background: false },
    );
    expect((await ok('erasure.status', { erasure_id: left.erasure_id })).status).toBe('pending');
    // A replica starting up: its own queue, the same storage.
    const restarted = new ErasureService(storage(), new InProcessThreadFence(), undefined, { options: { pollMs: 60_000 } });
    restarted.start();
    await restarted.queue.idle();
    await restarted.close();
    expect(await ok('erasure.status', { erasure_id: left.erasure_id })).toMatchObject({ status: 'done', erased: { turns: 1, embeddings: 1 } });
    expect((await ok('conversation.list', { thread_id: 't' })).messages.map((m: { msg_id: string }) => m.msg_id)).toEqual(['m2']);
    // Sent again, it finds nothing left of that person.
    expect((await ok('erasure.request', { user_id: u1 })).erased).toMatchObject({ turns: 0, embeddings: 0 });
  });

  it('CONV-RET-08: a person\'s erasure of thousands of turns tombstones every one of them and their vectors, inside the engine', async () => {
    await append('t0', 'seed', u1, 'the seed turn of a long history');
    const [turn] = await storage().query<Record<string, unknown>>(`SELECT * EXCEPT (version) FROM ${storage().tables.conversations} FINAL WHERE namespace = {ns:String}`, { ns });
    const [vector] = await storage().query<Record<string, unknown>>(`SELECT * EXCEPT (version, embedding_q8, embedding_scale) FROM ${storage().tables.conversationEmbeddings} FINAL WHERE namespace = {ns:String}`, { ns });
    const n = 3_000;
    const ids = Array.from({ length: n }, (_, i) => ({ thread_id: `t${i % 40}`, msg_id: `m${i}` }));
    await storage().insert(storage().tables.conversations, ids.map((id) => ({ ...turn, ...id, version: nextVersion() })));
    await storage().insert(storage().tables.conversationEmbeddings, ids.map((id) => ({ ...vector, ...id, version: nextVersion() })));
    const result = await ok('erasure.request', { user_id: u1 });
    expect(result.erased).toMatchObject({ turns: n + 1, embeddings: n + 1 });
    const [live] = await storage().query<{ turns: string }>(
      `SELECT count() AS turns FROM ${storage().tables.conversations} FINAL WHERE namespace = {ns:String} AND user_id = {u:String} AND deleted = 0`,
      { ns, u: u1 },
    );
    expect(Number(live!.turns)).toBe(0);
    expect((await ok('conversation.search', { query: 'the seed turn of a long history', namespace_scope: 'namespace' })).hits).toEqual([]);
  });

  it('erasure.status: an unknown id is 404, a missing id 400, a writer 403; a purge keeps the request record', async () => {
    expect((await loom.admin.call('erasure.status', { namespace: ns, erasure_id: 'era_nope' })).status).toBe(404);
    const missing = await loom.admin.call('erasure.status', { namespace: ns });
    expect(missing.status).toBe(400);
    expect(missing.body.error.fields.map((f: { field: string }) => f.field)).toContain('erasure_id');
    const writer = await loom.as(ns, 'writer');
    expect((await writer.call('erasure.status', { erasure_id: 'era_nope' })).status).toBe(403);
    const purge = await ok('erasure.request', { namespace_list: [ns], purge: true });
    expect(await ok('erasure.status', { erasure_id: purge.erasure_id })).toMatchObject({ status: 'done', purged: true, namespaces: [ns] });
  });

  it('bad requests: both or neither subject, purge for a person, or a namespace the token does not cover', async () => {
    const call = (body: Record<string, unknown>) => loom.admin.call('erasure.request', { namespace: ns, ...body });
    expect((await call({})).status).toBe(400);
    expect((await call({ user_id: 'u', namespace_list: [ns] })).status).toBe(400);
    expect((await call({ user_id: 'u', purge: true })).body.error.fields[0].field).toBe('purge');
    const scoped = await loom.as(ns, 'admin');
    expect((await scoped.call('erasure.request', { namespace_list: ['someone-else'] })).status).toBe(403);
    const writer = await loom.as(ns, 'writer');
    expect((await writer.call('erasure.request', { user_id: 'u' })).status).toBe(403);
  });
});

describe('Retention (table TTL)', () => {
  it('CONV-RET-03, CONV-RET-04: with LOOM_RETENTION_CONVERSATIONS_DAYS=N transcript rows older than N days leave the disk; their embedding rows stay', async () => {
    const loom = await startTestLoom({ env: { LOOM_CONVERSATION_TITLER_ENABLED: 'false', LOOM_RETENTION_CONVERSATIONS_DAYS: '2' } });
    try {
      const ns = uniqueNamespace();
      await loom.record(ns);
      const storage = loom.gateway.runtime.storage;
      await loom.admin.ok('conversation.append', { namespace: ns, thread_id: 't', msg_id: 'recent', role: 'user', content: 'a recent turn' });
      // The same turn as if logged three days ago, in both tables.
      const [turn] = await storage.query<Record<string, unknown>>(`SELECT * EXCEPT (version) FROM ${storage.tables.conversations} FINAL WHERE namespace = {ns:String}`, { ns });
      const [vector] = await storage.query<Record<string, unknown>>(`SELECT * EXCEPT (version) FROM ${storage.tables.conversationEmbeddings} FINAL WHERE namespace = {ns:String}`, { ns });
      const old = formatMicros(Date.now() * 1000 - 3 * DAY_US);
      await storage.insert(storage.tables.conversations, [{ ...turn, msg_id: 'old', ts: old, version: nextVersion() }]);
      await storage.insert(storage.tables.conversationEmbeddings, [{ ...vector, msg_id: 'old', ts: old, version: nextVersion() }]);
      await storage.command(`ALTER TABLE ${storage.tables.conversations} MATERIALIZE TTL SETTINGS mutations_sync = 2`);
      const ids = async (table: string) => (await storage.query<{ msg_id: string }>(`SELECT msg_id FROM ${table} WHERE namespace = {ns:String} ORDER BY msg_id`, { ns })).map((r) => r.msg_id);
      expect(await ids(storage.tables.conversations)).toEqual(['recent']);
      expect(await ids(storage.tables.conversationEmbeddings)).toEqual(['old', 'recent']);
    } finally {
      await loom.close();
    }
  });

  it('CONV-RET-03: with the default 0 (keep forever) a tombstoned row stays on disk, and the table has no TTL', async () => {
    const loom = await startTestLoom({ env: { LOOM_CONVERSATION_TITLER_ENABLED: 'false' } });
    try {
      const ns = uniqueNamespace();
      await loom.record(ns);
      const storage = loom.gateway.runtime.storage;
      await loom.admin.ok('conversation.append', { namespace: ns, thread_id: 't', msg_id: 'm', role: 'user', content: 'x' });
      await tombstoneTurn(storage, { namespace: ns, thread_id: 't', msg_id: 'm' });
      await storage.command(`OPTIMIZE TABLE ${storage.tables.conversations} FINAL`);
      const rows = await storage.query<{ deleted: boolean }>(`SELECT deleted FROM ${storage.tables.conversations} WHERE namespace = {ns:String}`, { ns });
      expect(rows).toEqual([{ deleted: true }]);
      const [table] = await storage.query<{ q: string }>(`SELECT create_table_query AS q FROM system.tables WHERE database = {db:String} AND name = 'conversations'`, { db: storage.tables.database });
      expect(table!.q).not.toMatch(/\bTTL\b/);
    } finally {
      await loom.close();
    }
  });

  it('CONV-RET-09: the warm-volume move is a TTL clause; where no volume named "warm" exists, start-up says what to set up', async () => {
    expect(conversationsTtl({ days: 0, warmDays: 0 })).toBeUndefined();
    expect(conversationsTtl({ days: 365, warmDays: 30 })).toBe("toDateTime(ts) + toIntervalDay(30) TO VOLUME 'warm', toDateTime(ts) + toIntervalDay(365) DELETE");
    const storage = await openTestStorage();
    try {
      await runMigrations(storage);
      await expect(applyRetention(storage, { days: 0, warmDays: 30 })).rejects.toThrow(/storage policy with a volume named 'warm'/);
      await expect(applyRetention(storage, { days: 10, warmDays: 30 })).rejects.toThrow(/must be less than/);
      expect(await applyRetention(storage, { days: 5, warmDays: 0 })).toBe('set');
      expect(await applyRetention(storage, { days: 0, warmDays: 0 })).toBe('removed');
      expect(await applyRetention(storage, { days: 0, warmDays: 0 })).toBe('unchanged');
    } finally {
      await storage.drop();
    }
  });
});
