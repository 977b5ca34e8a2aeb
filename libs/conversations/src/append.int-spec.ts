import { countRows, startTestLoom, uniqueNamespace, type TestLoom } from '../../testing/src';

describe('Append & idempotency', () => {
  let loom: TestLoom;
  let ns: string;
  beforeAll(async () => {
    loom = await startTestLoom();
  });
  beforeEach(async () => {
    ns = uniqueNamespace();
    await loom.record(ns);
  });
  afterAll(async () => loom.close());
  const append = (body: Record<string, unknown>) => loom.admin.call('conversation.append', { namespace: ns, ...body });
  const list = async (thread: string, extra: Record<string, unknown> = {}) =>
    (await loom.admin.ok('conversation.list', { namespace: ns, thread_id: thread, ...extra })).messages as Array<Record<string, unknown>>;

  it('CONV-APPEND-01: thread_id, role and content are required and role is one of user, assistant, system, tool', async () => {
    const missing = await append({});
    expect(missing.status).toBe(400);
    expect(missing.body.error.fields.map((f: { field: string }) => f.field).sort()).toEqual(['content', 'role', 'thread_id']);
    const badRole = await append({ thread_id: 't', role: 'narrator', content: 'x' });
    expect(badRole.status).toBe(400);
    expect(badRole.body.error.fields).toEqual([{ field: 'role', message: 'role must be one of user, assistant, system, tool' }]);
    for (const role of ['user', 'assistant', 'system', 'tool']) {
      expect((await append({ thread_id: 't', role, content: `a ${role} turn` })).body.stored).toBe(true);
    }
    expect(await countRows(loom.gateway.runtime.storage, 'conversations', { namespace: ns })).toBe(4);
  });

  it('CONV-APPEND-02: msg_id, reasoning, user_id, run_id, metadata and tokens are persisted on the transcript row', async () => {
    await append({ thread_id: 't', role: 'assistant', content: 'done', msg_id: 'uuid-1', reasoning: 'checked the ledger', user_id: 'u1', run_id: 'run-7', metadata: { client: 'codex', n: 2 }, tokens: 321 });
    expect(await list('t')).toEqual([
      expect.objectContaining({ msg_id: 'uuid-1', reasoning: 'checked the ledger', user_id: 'u1', run_id: 'run-7', metadata: { client: 'codex', n: 2 }, tokens: 321, role: 'assistant', agent: 'default' }),
    ]);
  });

  it('CONV-APPEND-03: reasoning is kept in its own column and content is stored exactly as sent', async () => {
    const content = '  Exact content, with "quotes", unicode é中文🙂 and\nnewlines\t ';
    await append({ thread_id: 't', role: 'assistant', content, reasoning: 'R: the private chain of thought' });
    const [turn] = await list('t');
    expect(turn!['content']).toBe(content);
    expect(turn!['reasoning']).toBe('R: the private chain of thought');
  });

  it('CONV-APPEND-04: the first append to an unknown thread_id creates the thread', async () => {
    expect((await loom.admin.call('conversation.get', { namespace: ns, thread_id: 'fresh' })).status).toBe(404);
    await append({ thread_id: 'fresh', role: 'user', content: 'first words' });
    const got = await loom.admin.ok('conversation.get', { namespace: ns, thread_id: 'fresh' });
    expect(got.thread).toMatchObject({ thread_id: 'fresh', turn_count: 1, title: null });
  });

  it('CONV-APPEND-05: conversation.create pre-sets title, metadata and run_id and stores no turn', async () => {
    const created = await loom.admin.ok('conversation.create', { namespace: ns, thread_id: 'planned', title: 'Ledger move', metadata: { ticket: 'BILL-9' }, run_id: 'run-1' });
    expect(created).toEqual({ created: true, thread_id: 'planned' });
    expect(await list('planned')).toEqual([]);
    const got = await loom.admin.ok('conversation.get', { namespace: ns, thread_id: 'planned' });
    expect(got.thread).toMatchObject({ title: 'Ledger move', metadata: { ticket: 'BILL-9' }, run_id: 'run-1', turn_count: 0 });
    const again = await loom.admin.call('conversation.create', { namespace: ns, thread_id: 'planned' });
    expect(again.status).toBe(409);
    const generated = await loom.admin.ok('conversation.create', { namespace: ns });
    expect(generated.thread_id).toMatch(/^thr_/);
  });

  it('CONV-APPEND-06: a second append of the same (thread_id, msg_id) is not written and answers "duplicate"', async () => {
    expect((await append({ thread_id: 't', role: 'user', content: 'one', msg_id: 'x' })).body).toMatchObject({ stored: true });
    expect((await append({ thread_id: 't', role: 'user', content: 'different text, same id', msg_id: 'x' })).body).toMatchObject({ stored: false, reason: 'duplicate' });
    expect((await list('t')).map((m) => m['content'])).toEqual(['one']);
  });

  it('CONV-APPEND-07: the same msg_id in two threads is stored once in each', async () => {
    expect((await append({ thread_id: 'a', role: 'user', content: 'hello', msg_id: 'shared' })).body.stored).toBe(true);
    expect((await append({ thread_id: 'b', role: 'user', content: 'hello', msg_id: 'shared' })).body.stored).toBe(true);
    expect(await list('a')).toHaveLength(1);
    expect(await list('b')).toHaveLength(1);
  });

  it('CONV-APPEND-08: without msg_id the server derives one from thread, role and content, so a re-sent turn is a duplicate', async () => {
    const first = await append({ thread_id: 't', role: 'user', content: 'yes' });
    const second = await append({ thread_id: 't', role: 'user', content: 'yes' });
    expect(first.body.stored).toBe(true);
    expect(second.body).toEqual({ stored: false, reason: 'duplicate', thread_id: 't', msg_id: first.body.msg_id });
    expect(await list('t')).toHaveLength(1);
  });

  it('CONV-APPEND-09: without msg_id, turns that differ in role or content get different ids and are both stored', async () => {
    const a = await append({ thread_id: 't', role: 'user', content: 'ok' });
    const b = await append({ thread_id: 't', role: 'assistant', content: 'ok' });
    const c = await append({ thread_id: 't', role: 'user', content: 'ok!' });
    expect(new Set([a.body.msg_id, b.body.msg_id, c.body.msg_id]).size).toBe(3);
    expect([a, b, c].every((r) => r.body.stored === true)).toBe(true);
    expect(await list('t')).toHaveLength(3);
  });

  it('CONV-APPEND-11: turns carry their run_id, so list and search filter on it', async () => {
    await append({ thread_id: 't', role: 'user', content: 'migrate the invoices table', run_id: 'run-a' });
    await append({ thread_id: 't', role: 'user', content: 'migrate the invoices table again', run_id: 'run-b' });
    expect((await list('t', { run_id: 'run-a' })).map((m) => m['content'])).toEqual(['migrate the invoices table']);
    const hits = await loom.admin.ok('conversation.search', { namespace: ns, query: 'migrate invoices table', run_id: 'run-b' });
    expect(hits.hits.map((h: { run_id: string }) => h.run_id)).toEqual(['run-b']);
  });

  it('appends from many concurrent writers to many threads are all stored exactly once', async () => {
    const turns = Array.from({ length: 200 }, (_, i) => ({ thread_id: `t${i % 10}`, role: i % 2 ? 'assistant' : 'user', content: `turn number ${i}`, msg_id: `m${i}` }));
    const results = await Promise.all([...turns, ...turns.slice(0, 50)].map((t) => append(t)));
    expect(results.filter((r) => r.body.stored === true)).toHaveLength(200);
    expect(results.filter((r) => r.body.reason === 'duplicate')).toHaveLength(50);
    expect(await countRows(loom.gateway.runtime.storage, 'conversations', { namespace: ns }, false)).toBe(200);
  });

  it('a retry repairs a turn whose earlier attempt stored the transcript row but died before its embedding row', async () => {
    const storage = loom.gateway.runtime.storage;
    // What a crash between the two inserts leaves behind: the transcript row alone.
    await storage.insert(storage.tables.conversations, [
      {
        namespace: ns,
        thread_id: 't',
        agent: 'default',
        msg_id: 'crashed',
        ts: '2026-11-29 12:00:00.000000',
        role: 'user',
        content: 'the stored text of the crashed turn',
        created_at: '2026-11-29 12:00:00.000',
        version: 1,
      },
    ]);
    const retry = await append({ thread_id: 't', role: 'user', content: 'the stored text of the crashed turn', msg_id: 'crashed' });
    expect(retry.body).toEqual({ stored: false, reason: 'duplicate', thread_id: 't', msg_id: 'crashed' });
    expect(await countRows(storage, 'conversationEmbeddings', { namespace: ns })).toBe(1);
    const found = await loom.admin.ok('conversation.search', { namespace: ns, query: 'stored text of the crashed turn', namespace_scope: 'namespace' });
    expect(found.hits.map((h: { msg_id: string }) => h.msg_id)).toEqual(['crashed']);
    // A plain duplicate with its vector in place embeds nothing more.
    await append({ thread_id: 't', role: 'user', content: 'the stored text of the crashed turn', msg_id: 'crashed' });
    expect(await countRows(storage, 'conversationEmbeddings', { namespace: ns }, false)).toBe(1);
  });

  it('"*" is a read filter: appending as agent "*" is refused', async () => {
    const result = await append({ thread_id: 't', role: 'user', content: 'x', agent: '*' });
    expect(result.status).toBe(400);
    expect(result.body.error.fields).toEqual([{ field: 'agent', message: 'must name one agent' }]);
  });
});
