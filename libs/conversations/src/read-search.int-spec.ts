import { formatMicros } from '@loom/clickhouse';
import { TRACKER_DEFAULT_DUPLICATE_THRESHOLD } from '@loom/contracts';
import { ControllableProvider, startTestLoom, tombstoneTurn, uniqueNamespace, type LoomApi, type TestLoom } from '../../testing/src';

describe('Reading & search', () => {
  const provider = new ControllableProvider();
  let loom: TestLoom;
  let ns: string;
  /** A writer for this test's namespace only: its default search scope is that one namespace. */
  let api: LoomApi;
  beforeAll(async () => {
    loom = await startTestLoom({ provider });
  });
  beforeEach(async () => {
    ns = uniqueNamespace();
    await loom.record(ns);
    api = await loom.as(ns, 'writer');
  });
  afterAll(async () => loom.close());
  const append = (body: Record<string, unknown>) => api.ok('conversation.append', { namespace: ns, ...body });
  const op = (name: string, body: Record<string, unknown> = {}, as: LoomApi = api) => as.ok(name, { namespace: ns, ...body });
  const ids = (items: Array<{ thread_id: string }>) => items.map((i) => i.thread_id);

  it('CONV-READ-01: a viewer lists the namespace\'s threads newest first', async () => {
    for (const thread of ['first', 'second', 'third']) await append({ thread_id: thread, role: 'user', content: `in ${thread}` });
    await append({ thread_id: 'first', role: 'assistant', content: 'first is active again' });
    const viewer = await loom.as(ns, 'viewer');
    const { threads } = await viewer.ok('conversation.threads', {});
    expect(ids(threads)).toEqual(['first', 'third', 'second']);
    expect(threads[0]).toMatchObject({ excerpt: 'first is active again', last_role: 'assistant', turn_count: 2, agents: ['default'] });
  });

  it('CONV-READ-02: threads takes window_days, limit and offset, with offset capped at 100,000', async () => {
    for (let i = 0; i < 5; i += 1) await append({ thread_id: `t${i}`, role: 'user', content: `turn ${i}` });
    expect(ids((await op('conversation.threads', { limit: 2 })).threads)).toEqual(['t4', 't3']);
    expect(ids((await op('conversation.threads', { limit: 2, offset: 2 })).threads)).toEqual(['t2', 't1']);
    expect((await op('conversation.threads', { offset: 100_000 })).threads).toEqual([]);
    const over = await loom.admin.call('conversation.threads', { namespace: ns, offset: 100_001 });
    expect(over.status).toBe(400);
    expect(over.body.error.fields[0].field).toBe('offset');
    // A thread last active 10 days ago is inside a 30-day window and outside a 7-day one.
    const storage = loom.gateway.runtime.storage;
    const tenDaysAgo = new Date(Date.now() - 10 * 86_400_000).toISOString().replace('T', ' ').replace('Z', '');
    await storage.insert(storage.tables.conversations, [
      { namespace: ns, thread_id: 'old', agent: 'default', msg_id: 'm', ts: tenDaysAgo, role: 'user', content: 'long ago', created_at: tenDaysAgo, version: 1 },
    ]);
    expect(ids((await op('conversation.threads', { window_days: 30 })).threads)).toContain('old');
    expect(ids((await op('conversation.threads', { window_days: 7 })).threads)).not.toContain('old');
    // A thread whose only recent turn is tombstoned was last active when its last live turn was;
    // one with an old and a recent turn counts both.
    await storage.insert(storage.tables.conversations, [
      { namespace: ns, thread_id: 'old', agent: 'default', msg_id: 'gone', ts: formatMicros(Date.now() * 1000), role: 'user', content: 'erased', created_at: tenDaysAgo, deleted: true, version: 3 },
      { namespace: ns, thread_id: 'mixed', agent: 'default', msg_id: 'then', ts: tenDaysAgo, role: 'user', content: 'long ago', created_at: tenDaysAgo, version: 1 },
    ]);
    await append({ thread_id: 'mixed', role: 'assistant', content: 'and now' });
    const week = (await op('conversation.threads', { window_days: 7 })).threads as Array<{ thread_id: string; turn_count: number }>;
    expect(ids(week)).not.toContain('old');
    expect(week.find((t) => t.thread_id === 'mixed')?.turn_count).toBe(2);
  });

  it('CONV-READ-03: agent="*" includes every agent\'s threads; by default a caller sees its own agent\'s', async () => {
    await append({ thread_id: 'mine', role: 'user', content: 'from the default agent' });
    await append({ thread_id: 'theirs', role: 'user', content: 'from codex', agent: 'codex' });
    expect(ids((await op('conversation.threads')).threads)).toEqual(['mine']);
    expect(ids((await op('conversation.threads', { agent: 'codex' })).threads)).toEqual(['theirs']);
    expect(ids((await op('conversation.threads', { agent: '*' })).threads).sort()).toEqual(['mine', 'theirs']);
  });

  it('CONV-READ-04: get (viewer) returns a thread\'s metadata, title and run_id without turns unless asked', async () => {
    await op('conversation.create', { thread_id: 't', title: 'Ledger', metadata: { ticket: 'B-1' }, run_id: 'run-1' });
    await append({ thread_id: 't', role: 'user', content: 'hello' });
    const viewer = await loom.as(ns, 'viewer');
    const got = await viewer.ok('conversation.get', { thread_id: 't' });
    expect(got).toEqual({
      thread: expect.objectContaining({ namespace: ns, thread_id: 't', title: 'Ledger', metadata: { ticket: 'B-1' }, run_id: 'run-1', turn_count: 1 }),
    });
    expect((await viewer.call('conversation.get', { thread_id: 'nope' })).status).toBe(404);
  });

  it('CONV-READ-05: get with include_messages pages the turns, and order="desc" returns the tail first', async () => {
    for (let i = 1; i <= 5; i += 1) await append({ thread_id: 't', role: 'user', content: `turn ${i}` });
    const tail = await op('conversation.get', { thread_id: 't', include_messages: true, order: 'desc', limit: 2 });
    expect(tail.messages.map((m: { content: string }) => m.content)).toEqual(['turn 5', 'turn 4']);
    const next = await op('conversation.get', { thread_id: 't', include_messages: true, order: 'desc', limit: 2, cursor: tail.next_cursor });
    expect(next.messages.map((m: { content: string }) => m.content)).toEqual(['turn 3', 'turn 2']);
    // AMBIGUOUS(default order): oldest first.
    const head = await op('conversation.get', { thread_id: 't', include_messages: true, limit: 2 });
    expect(head.messages.map((m: { content: string }) => m.content)).toEqual(['turn 1', 'turn 2']);
  });

  it('CONV-READ-06: list (viewer) pages by cursor, filters by run_id, and refuses a cursor it did not issue', async () => {
    for (let i = 0; i < 5; i += 1) await append({ thread_id: 't', role: 'user', content: `turn ${i}`, run_id: i % 2 ? 'odd' : 'even' });
    const viewer = await loom.as(ns, 'viewer');
    const odd = await viewer.ok('conversation.list', { thread_id: 't', run_id: 'odd' });
    expect(odd.messages.map((m: { content: string }) => m.content)).toEqual(['turn 1', 'turn 3']);
    expect(odd.next_cursor).toBeNull();
    const bad = await viewer.call('conversation.list', { thread_id: 't', cursor: 'not-a-cursor' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.fields).toEqual([{ field: 'cursor', message: 'not a valid cursor' }]);
  });

  it('CONV-READ-07: update (writer) changes title, metadata and run_id; a viewer is refused', async () => {
    await append({ thread_id: 't', role: 'user', content: 'hello' });
    const viewer = await loom.as(ns, 'viewer');
    expect((await viewer.call('conversation.update', { thread_id: 't', title: 'nope' })).status).toBe(403);
    const writer = await loom.as(ns, 'writer');
    await writer.ok('conversation.update', { thread_id: 't', title: 'Ledger move', metadata: { a: 1 }, run_id: 'run-9' });
    await writer.ok('conversation.update', { thread_id: 't', metadata: { b: 2 } });
    const got = await viewer.ok('conversation.get', { thread_id: 't' });
    expect(got.thread).toMatchObject({ title: 'Ledger move', metadata: { b: 2 }, run_id: 'run-9' });
    expect((await writer.call('conversation.update', { thread_id: 'missing', title: 'x' })).status).toBe(404);
  });

  it('CONV-READ-08: tombstoned turns never appear in threads, get, list or search', async () => {
    await append({ thread_id: 't', role: 'user', content: 'the surviving turn about invoices', msg_id: 'keep' });
    await append({ thread_id: 't', role: 'assistant', content: 'the removed turn about invoices', msg_id: 'gone' });
    await append({ thread_id: 'solo', role: 'user', content: 'only turn', msg_id: 'solo' });
    await tombstoneTurn(loom.gateway.runtime.storage, { namespace: ns, thread_id: 't', msg_id: 'gone' }, loom.gateway.runtime.plane.fence);
    await tombstoneTurn(loom.gateway.runtime.storage, { namespace: ns, thread_id: 'solo', msg_id: 'solo' }, loom.gateway.runtime.plane.fence);
    const { threads } = await op('conversation.threads');
    expect(threads.map((t: { thread_id: string; excerpt: string; turn_count: number }) => [t.thread_id, t.excerpt, t.turn_count])).toEqual([
      ['t', 'the surviving turn about invoices', 1],
    ]);
    expect((await op('conversation.get', { thread_id: 't', include_messages: true })).messages.map((m: { msg_id: string }) => m.msg_id)).toEqual(['keep']);
    expect((await op('conversation.list', { thread_id: 't' })).messages.map((m: { msg_id: string }) => m.msg_id)).toEqual(['keep']);
    expect((await op('conversation.search', { query: 'removed turn about invoices' })).hits.map((h: { msg_id: string }) => h.msg_id)).toEqual(['keep']);
    await loom.stopEmbedder();
    try {
      expect((await op('conversation.search', { query: 'removed' })).hits).toEqual([]);
    } finally {
      await loom.startEmbedder();
    }
  });

  it('CONV-SEARCH-01: a viewer searches by vector over user and assistant turns only', async () => {
    await append({ thread_id: 't', role: 'user', content: 'invoice export job is failing' });
    await append({ thread_id: 't', role: 'assistant', content: 'the invoice export job needs the new ledger id' });
    await append({ thread_id: 't', role: 'tool', content: 'invoice export job log: failing' });
    const viewer = await loom.as(ns, 'viewer');
    const result = await viewer.ok('conversation.search', { query: 'invoice export job failing', search_mode: 'vector' });
    expect(result.mode).toBe('vector');
    expect(result.hits.map((h: { role: string }) => h.role).sort()).toEqual(['assistant', 'user']);
  });

  it('CONV-SEARCH-02: search filters by thread, run and role', async () => {
    await append({ thread_id: 'a', role: 'user', content: 'ledger migration plan', run_id: 'r1' });
    await append({ thread_id: 'a', role: 'assistant', content: 'ledger migration plan approved', run_id: 'r2' });
    await append({ thread_id: 'b', role: 'user', content: 'ledger migration plan for b', run_id: 'r1' });
    const search = async (filters: Record<string, unknown>) =>
      (await op('conversation.search', { query: 'ledger migration plan', ...filters })).hits.map((h: { thread_id: string; role: string; run_id: string }) => `${h.thread_id}/${h.role}/${h.run_id}`).sort();
    expect(await search({})).toEqual(['a/assistant/r2', 'a/user/r1', 'b/user/r1']);
    expect(await search({ thread_id: 'a' })).toEqual(['a/assistant/r2', 'a/user/r1']);
    expect(await search({ run_id: 'r1' })).toEqual(['a/user/r1', 'b/user/r1']);
    expect(await search({ role: 'assistant' })).toEqual(['a/assistant/r2']);
    expect(await search({ thread_id: 'a', role: 'user', run_id: 'r1' })).toEqual(['a/user/r1']);
  });

  it('CONV-SEARCH-03: over a few hundred turns, hits and scores are exactly those of a brute-force cosine ranking (the Int8 first stage drops no hit)', async () => {
    // Words no other test here searches for (admin searches span every namespace).
    const words = ['zephyr', 'quokka', 'saffron', 'tundra', 'obelisk', 'marimba', 'glacier', 'pylon', 'walnut', 'cobalt', 'lantern', 'meadow', 'falcon', 'ember', 'harbor', 'violet'];
    const pick = (i: number, k: number) => words[(i * 7 + k * 5 + ((i * k) % 11)) % words.length];
    await Promise.all(
      Array.from({ length: 300 }, (_, i) =>
        append({ thread_id: `t${i % 6}`, role: i % 2 ? 'assistant' : 'user', msg_id: `m${i}`, content: `turn ${i}: ${[0, 1, 2, 3, 4].map((k) => pick(i, k)).join(' ')}` }),
      ),
    );
    const storage = loom.gateway.runtime.storage;
    const stored = await storage.query<{ msg_id: string; embedding: number[] }>(
      `SELECT msg_id, embedding FROM ${storage.tables.conversationEmbeddings} FINAL WHERE namespace = {ns:String}`,
      { ns },
    );
    expect(stored).toHaveLength(300);
    const cosine = (a: number[], b: number[]) => {
      let dot = 0;
      let na = 0;
      let nb = 0;
      for (let i = 0; i < a.length; i += 1) {
        dot += a[i]! * b[i]!;
        na += a[i]! ** 2;
        nb += b[i]! ** 2;
      }
      return dot / Math.sqrt(na * nb);
    };
    for (const query of ['zephyr quokka tundra', 'cobalt lantern ember', 'falcon harbor violet meadow', 'glacier pylon']) {
      const [q] = await provider.inner.embed([query]);
      const exact = stored
        .map((r) => ({ msg_id: r.msg_id, score: cosine(r.embedding, q!) }))
        .filter((r) => r.score >= 0.3)
        .sort((a, b) => b.score - a.score)
        .slice(0, 10);
      expect(exact.length).toBeGreaterThan(3);
      const { hits } = await op('conversation.search', { query, limit: 10, search_mode: 'vector' });
      expect(hits.map((h: { msg_id: string }) => h.msg_id)).toEqual(exact.map((e) => e.msg_id));
      hits.forEach((h: { score: number }, i: number) => expect(h.score).toBeCloseTo(exact[i]!.score, 4));
    }
  });

  it('CONV-SEARCH-03: tombstoned turns never show and never crowd out live ones, however many rank above them', async () => {
    const storage = loom.gateway.runtime.storage;
    for (let i = 0; i < 60; i += 1) await append({ thread_id: 'gone', role: 'user', msg_id: `d${i}`, content: `kestrel nebula quartz variant ${i}` });
    for (let i = 0; i < 5; i += 1) await append({ thread_id: 'kept', role: 'user', msg_id: `k${i}`, content: `kestrel nebula quartz and the rest of a longer live turn number ${i} about other things` });
    for (let i = 0; i < 60; i += 1) await tombstoneTurn(storage, { namespace: ns, thread_id: 'gone', msg_id: `d${i}` }, loom.gateway.runtime.plane.fence);
    const { hits } = await op('conversation.search', { query: 'kestrel nebula quartz', limit: 10, search_mode: 'vector' });
    expect(hits.map((h: { msg_id: string }) => h.msg_id).sort()).toEqual(['k0', 'k1', 'k2', 'k3', 'k4']);
  });

  it('CONV-SEARCH-03: hits are ordered by cosine similarity and those under the live floor are dropped', async () => {
    await append({ thread_id: 't', role: 'user', content: 'rotate the database credentials' });
    await append({ thread_id: 't', role: 'user', content: 'rotate the database credentials before the audit on friday morning with the security team' });
    await append({ thread_id: 't', role: 'user', content: 'lunch menu for the offsite' });
    const result = await op('conversation.search', { query: 'rotate the database credentials', search_mode: 'vector' });
    const scores = result.hits.map((h: { score: number }) => h.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    expect(result.hits[0].excerpt).toBe('rotate the database credentials');
    expect(result.hits.every((h: { score: number }) => h.score >= 0.3)).toBe(true);
    expect(result.hits.map((h: { excerpt: string }) => h.excerpt)).not.toContain('lunch menu for the offsite');
    // The floor is live: raised, it drops the longer turn too.
    await loom.admin.ok('settings.set', { key: 'conversation_search_min_similarity', value: 0.9 });
    try {
      const strict = await op('conversation.search', { query: 'rotate the database credentials', search_mode: 'vector' });
      expect(strict.hits.map((h: { excerpt: string }) => h.excerpt)).toEqual(['rotate the database credentials']);
    } finally {
      await loom.admin.ok('settings.set', { key: 'conversation_search_min_similarity', value: 0.3 });
    }
  });

  it('CONV-SEARCH-04: by default search spans all the caller\'s namespaces; namespace_scope="namespace" keeps to one', async () => {
    const other = uniqueNamespace();
    // Words no other test of this file uses: admin searches span every namespace, and hybrid search matches words.
    await loom.record(other);
    await append({ thread_id: 't', role: 'user', content: 'quarterly marzipan tessellation' });
    await loom.admin.ok('conversation.append', { namespace: other, thread_id: 't', role: 'user', content: 'quarterly marzipan tessellation too' });
    const everywhere = await op('conversation.search', { query: 'quarterly marzipan tessellation' }, loom.admin);
    expect(everywhere.hits.map((h: { namespace: string }) => h.namespace).sort()).toEqual([ns, other].sort());
    const one = await op('conversation.search', { query: 'quarterly marzipan tessellation', namespace_scope: 'namespace' }, loom.admin);
    expect(one.hits.map((h: { namespace: string }) => h.namespace)).toEqual([ns]);
    // A token for one namespace never sees another's turns.
    const viewer = await loom.as(ns, 'viewer');
    const scoped = await viewer.ok('conversation.search', { query: 'quarterly marzipan tessellation' });
    expect(scoped.hits.map((h: { namespace: string }) => h.namespace)).toEqual([ns]);
    expect((await viewer.call('conversation.search', { namespace: other, query: 'x' })).status).toBe(403);
  });

  it('CONV-SEARCH-05 AMBIGUOUS(fallback filters): the substring fallback obeys thread, run and role filters', async () => {
    await append({ thread_id: 'a', role: 'user', content: 'Deploy ZEPHYR now', run_id: 'r1' });
    await append({ thread_id: 'a', role: 'assistant', content: 'ZEPHYR deployed', run_id: 'r2' });
    await append({ thread_id: 'b', role: 'user', content: 'zephyr in b', run_id: 'r1' });
    await loom.stopEmbedder();
    try {
      const search = async (filters: Record<string, unknown>) => {
        const result = await op('conversation.search', { query: 'zephyr', search_mode: 'vector', ...filters });
        expect(result.mode).toBe('substring');
        return result.hits.map((h: { excerpt: string }) => h.excerpt).sort();
      };
      expect(await search({})).toEqual(['Deploy ZEPHYR now', 'ZEPHYR deployed', 'zephyr in b']);
      expect(await search({ thread_id: 'a', role: 'user' })).toEqual(['Deploy ZEPHYR now']);
      expect(await search({ run_id: 'r1' })).toEqual(['Deploy ZEPHYR now', 'zephyr in b']);
    } finally {
      await loom.startEmbedder();
    }
  });

  it('CONV-SEARCH-06: a hit shows the first 240 characters; the full text comes from get or list', async () => {
    const content = 'invoice reconciliation notes: ' + 'the ledger totals match the export. '.repeat(20);
    await append({ thread_id: 't', role: 'user', content, msg_id: 'm' });
    const [hit] = (await op('conversation.search', { query: 'invoice reconciliation notes ledger totals', search_mode: 'vector' })).hits;
    expect(hit.excerpt).toBe(content.slice(0, 240));
    expect((await op('conversation.list', { thread_id: 't' })).messages[0].content).toBe(content);
  });

  it('CONV-SEARCH-07: changing the excerpt length takes effect without a restart', async () => {
    const content = 'invoice reconciliation notes: ' + 'the ledger totals match the export. '.repeat(20);
    await append({ thread_id: 't', role: 'user', content });
    await loom.admin.ok('settings.set', { key: 'conversation_search_excerpt_chars', value: 40 });
    try {
      const [hit] = (await op('conversation.search', { query: 'invoice reconciliation notes ledger totals', search_mode: 'vector' })).hits;
      expect(hit.excerpt).toBe(content.slice(0, 40));
      expect((await op('conversation.threads')).threads[0].excerpt).toBe(content.slice(0, 40));
      expect(await loom.admin.ok('settings.get', {})).toEqual({ conversation_search_excerpt_chars: 40, conversation_search_min_similarity: 0.3, session_brief_model_calls: 1, conversation_search_default_mode: 'hybrid', tracker_duplicate_threshold: TRACKER_DEFAULT_DUPLICATE_THRESHOLD });
    } finally {
      await loom.admin.ok('settings.set', { key: 'conversation_search_excerpt_chars', value: 240 });
    }
    const viewer = await loom.as(ns, 'viewer');
    expect((await viewer.call('settings.set', { key: 'conversation_search_excerpt_chars', value: 10 })).status).toBe(403);
    expect((await loom.admin.call('settings.set', { key: 'conversation_search_excerpt_chars', value: 5000 })).status).toBe(400);
  });

  it('CONV-SEARCH-09: vector search has no lexical leg (search_mode "vector"; issue 10 adds hybrid and lexical): an exact identifier past the first 2,048 characters is not found', async () => {
    const content = 'background notes on the billing system. '.repeat(60) + ' The failing ticket is BILL-77123.';
    await append({ thread_id: 't', role: 'assistant', content });
    const result = await op('conversation.search', { query: 'BILL-77123', search_mode: 'vector' });
    expect(result.mode).toBe('vector');
    expect(result.hits).toEqual([]);
  });
});
