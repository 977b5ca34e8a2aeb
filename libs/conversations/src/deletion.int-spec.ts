import { formatMillis } from '@loom/clickhouse';
import { nextVersion } from '@loom/platform';
import { ControllableProvider, startTestLoom, uniqueNamespace, type TestLoom } from '../../testing/src';

describe('Thread delete (conversation.delete)', () => {
  const provider = new ControllableProvider();
  let loom: TestLoom;
  let ns: string;

  beforeAll(async () => {
    loom = await startTestLoom({ provider, env: { LOOM_CONVERSATION_TITLER_ENABLED: 'false' } });
  });
  beforeEach(async () => {
    ns = uniqueNamespace();
    await loom.record(ns);
  });
  afterAll(async () => loom.close());

  const storage = () => loom.gateway.runtime.storage;
  const append = (thread: string, msg: string, content: string, extra: Record<string, unknown> = {}) =>
    loom.admin.ok('conversation.append', { namespace: ns, thread_id: thread, msg_id: msg, role: 'user', content, ...extra });
  const del = (body: Record<string, unknown>) => loom.admin.call('conversation.delete', { namespace: ns, ...body });
  const rows = (thread: string) =>
    storage().query<{ msg_id: string; agent: string; role: string; deleted: boolean; text: string }>(
      `SELECT msg_id, agent, role, deleted, text FROM ${storage().tables.conversationEmbeddings} FINAL WHERE namespace = {ns:String} AND thread_id = {t:String} ORDER BY msg_id`,
      { ns, t: thread },
    );
  const searchIds = async (query: string, agent = 'default') =>
    (await loom.admin.ok('conversation.search', { namespace: ns, agent, query, namespace_scope: 'namespace' })).hits.map((h: { msg_id: string }) => h.msg_id);
  /** Rewrites a live row's columns as an earlier build or an earlier operation left them. */
  const rewrite = async (table: 'conversations' | 'conversationEmbeddings', where: string, change: Record<string, unknown>) => {
    const t = storage().tables[table];
    const found = await storage().query<Record<string, unknown>>(`SELECT * EXCEPT (version) FROM ${t} FINAL WHERE namespace = {ns:String} AND ${where}`, { ns });
    await storage().insert(t, found.map((r) => ({ ...r, ...change, version: nextVersion() })));
  };

  it('CONV-DELETE-01: needs the admin role; a writer or viewer is refused and nothing changes', async () => {
    await append('t', 'm1', 'the heron plan');
    for (const role of ['writer', 'viewer'] as const) {
      const api = await loom.as(ns, role);
      expect((await api.call('conversation.delete', { thread_id: 't', confirm_thread_id: 't' })).status).toBe(403);
    }
    expect((await rows('t'))[0]!.deleted).toBe(false);
  });

  it('CONV-DELETE-02: confirm_thread_id missing or different is a 400 naming it, and nothing is tombstoned', async () => {
    await append('t', 'm1', 'the heron plan');
    const missing = await del({ thread_id: 't' });
    expect(missing.status).toBe(400);
    expect(missing.body.error.fields.map((f: { field: string }) => f.field)).toEqual(['confirm_thread_id']);
    const different = await del({ thread_id: 't', confirm_thread_id: 'other' });
    expect(different.status).toBe(400);
    expect(different.body.error.fields[0].field).toBe('confirm_thread_id');
    expect((await loom.admin.ok('conversation.list', { namespace: ns, thread_id: 't' })).messages).toHaveLength(1);
  });

  it('CONV-DELETE-03, CONV-DELETE-11: all the thread\'s turns, its thread row and embeddings are tombstoned; other threads are untouched', async () => {
    await loom.admin.ok('conversation.create', { namespace: ns, thread_id: 't', title: 'Heron rollout' });
    await append('t', 'm1', 'the heron rollout plan');
    await append('t', 'm2', 'heron rollout step two', { role: 'assistant' });
    await append('other', 'o1', 'the heron rollout in another thread');
    const { status, body } = await del({ thread_id: 't', confirm_thread_id: 't' });
    expect(status).toBe(200);
    expect(body).toEqual({ thread_id: 't', deleted: true, turns_deleted: 2, embeddings_kept: 0 });
    expect((await loom.admin.call('conversation.get', { namespace: ns, thread_id: 't' })).status).toBe(404);
    expect((await loom.admin.ok('conversation.threads', { namespace: ns })).threads.map((t: { thread_id: string }) => t.thread_id)).toEqual(['other']);
    expect((await rows('t')).every((r) => r.deleted)).toBe(true);
    expect(await searchIds('heron rollout plan')).toEqual(['o1']);
  });

  it('CONV-DELETE-04, CONV-DELETE-05: a row another agent still holds live with the same text passes to that copy; it leaves the deleter\'s search and stays in the other agent\'s', async () => {
    await append('t', 'm1', 'the shared kestrel note');
    await append('t', 'm1', 'the shared kestrel note', { agent: 'reviewer', run_id: 'run-r', user_id: 'u-r' });
    expect(await searchIds('the shared kestrel note')).toEqual(['m1']);
    const { body } = await del({ thread_id: 't', confirm_thread_id: 't' });
    expect(body).toMatchObject({ turns_deleted: 1, embeddings_kept: 1 });
    expect(await rows('t')).toEqual([expect.objectContaining({ msg_id: 'm1', agent: 'reviewer', deleted: false })]);
    const [row] = await storage().query<{ run_id: string; user_id: string }>(`SELECT run_id, user_id FROM ${storage().tables.conversationEmbeddings} FINAL WHERE namespace = {ns:String}`, { ns });
    expect(row).toEqual({ run_id: 'run-r', user_id: 'u-r' });
    expect(await searchIds('the shared kestrel note')).toEqual([]);
    expect(await searchIds('the shared kestrel note', 'reviewer')).toEqual(['m1']);
  });

  it('CONV-DELETE-06: if the other agent\'s only copy is a non-summary system or tool turn, the shared row is tombstoned', async () => {
    await append('t', 'm1', 'output of the migration tool');
    await append('t', 'm1', 'output of the migration tool', { agent: 'runner', role: 'tool' });
    const { body } = await del({ thread_id: 't', confirm_thread_id: 't' });
    expect(body.embeddings_kept).toBe(0);
    expect((await rows('t'))[0]!.deleted).toBe(true);
  });

  it('CONV-DELETE-07: a 240-character row passes only to a copy whose first 2,048 characters match the row\'s agent\'s turn', async () => {
    const long = 'L'.repeat(240) + ' and the rest of a long turn about the ledger';
    await append('t', 'same', long);
    await append('t', 'same', long, { agent: 'reviewer' });
    await append('t', 'diff', long);
    await append('t', 'diff', 'L'.repeat(240) + ' but a different ending', { agent: 'reviewer' });
    // As an earlier build cut them.
    await rewrite('conversationEmbeddings', "thread_id = 't'", { text: 'L'.repeat(240) });
    await del({ thread_id: 't', confirm_thread_id: 't' });
    const after = Object.fromEntries((await rows('t')).map((r) => [r.msg_id, r]));
    expect(after['same']).toMatchObject({ agent: 'reviewer', deleted: false });
    expect(after['diff']).toMatchObject({ deleted: true });
  });

  it('CONV-DELETE-08, CONV-DELETE-09, CONV-RET-05: rows whose own agent no longer holds the turn are settled; a 240-character one with no message left is tombstoned', async () => {
    // Agent "old" logged three turns; "reviewer" holds live copies of two of them.
    await append('t', 'gone', 'orphaned turn with a live copy', { agent: 'old' });
    await append('t', 'gone', 'orphaned turn with a live copy', { agent: 'reviewer' });
    await append('t', 'expired', 'E'.repeat(240), { agent: 'old' });
    await append('t', 'expired', 'E'.repeat(240), { agent: 'reviewer' });
    await append('t', 'alone', 'orphaned turn with no copy', { agent: 'old' });
    // "old" compacted or deleted "gone" and "alone" earlier (its transcript rows are tombstones),
    // and the retention TTL expired its "expired" row altogether.
    await rewrite('conversations', "agent = 'old' AND msg_id IN ('gone', 'alone')", { deleted: true, deleted_at: formatMillis() });
    await storage().command(`DELETE FROM ${storage().tables.conversations} WHERE namespace = {ns:String} AND agent = 'old' AND msg_id = 'expired'`, { ns });
    // The deleting agent (default) has one turn of its own.
    await append('t', 'mine', 'the deleting agent\'s own turn');
    await del({ thread_id: 't', confirm_thread_id: 't' });
    const after = Object.fromEntries((await rows('t')).map((r) => [r.msg_id, r]));
    expect(after['gone']).toMatchObject({ agent: 'reviewer', deleted: false });
    expect(after['alone']).toMatchObject({ deleted: true });
    expect(after['expired']).toMatchObject({ deleted: true });
    expect(after['mine']).toMatchObject({ deleted: true });
  });

  it('CONV-DELETE-12, CONV-REC-09: a delete while an append in the thread is embedding makes that append answer "deleted" with no vector', async () => {
    await append('t', 'm0', 'an earlier turn');
    provider.hold();
    const called = provider.whenCalled();
    const pending = append('t', 'late', 'this vector arrives after the delete');
    await called;
    try {
      expect((await del({ thread_id: 't', confirm_thread_id: 't' })).status).toBe(200);
    } finally {
      provider.release();
    }
    expect(await pending).toMatchObject({ stored: false, reason: 'deleted' });
    expect((await rows('t')).map((r) => [r.msg_id, r.deleted])).toEqual([['m0', true]]);
  });

  it('a thread with nothing of the calling agent is a 404', async () => {
    expect((await del({ thread_id: 'never', confirm_thread_id: 'never' })).status).toBe(404);
  });
});
