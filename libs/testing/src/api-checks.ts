import type { Storage } from '@loom/clickhouse';
import { randomBytes } from 'node:crypto';
import type { LoomApi } from './api.client';

/** What the shared API checks need of a running Loom, whichever topology runs it. */
export interface ApiCheckTarget {
  admin: LoomApi;
  /** Direct storage access, to count rows the API would hide. */
  storage: Storage;
  /** Mints a token for one namespace and role. */
  as(namespace: string, role: 'viewer' | 'writer' | 'admin'): Promise<LoomApi>;
  /** Makes the embedder unreachable, and brings it back. */
  stopEmbedder(): Promise<void>;
  startEmbedder(): Promise<void>;
}

export function uniqueNamespace(prefix = 'ns'): string {
  return `${prefix}-${randomBytes(4).toString('hex')}`;
}

export async function countRows(storage: Storage, table: 'conversations' | 'conversationEmbeddings', where: Record<string, string>, final = true): Promise<number> {
  const conditions = Object.keys(where).map((k) => `${k} = {${k}:String}`);
  const rows = await storage.query<{ n: string }>(
    `SELECT count() AS n FROM ${storage.tables[table]} ${final ? 'FINAL' : ''} WHERE ${conditions.join(' AND ') || '1'}`,
    where,
  );
  return Number(rows[0]?.n ?? 0);
}

/**
 * The API checks both topologies must pass: the same calls, the same answers. `target` is
 * resolved lazily because suites start their topology in beforeAll.
 */
export function describeApiChecks(label: string, target: () => ApiCheckTarget): void {
  describe(`API checks (${label})`, () => {
    it('CONV-REC-01 CONV-REC-06 CONV-REC-12: a namespace that never turned recording on answers 200 stored:false "logging_disabled" and keeps nothing', async () => {
      const { admin, storage } = target();
      const ns = uniqueNamespace();
      const result = await admin.call('conversation.append', { namespace: ns, thread_id: 't', role: 'user', content: 'hello there' });
      expect(result.status).toBe(200);
      expect(result.body).toMatchObject({ stored: false, reason: 'logging_disabled', thread_id: 't' });
      expect(await countRows(storage, 'conversations', { namespace: ns }, false)).toBe(0);
    });

    it('CONV-REC-04: after conversation.set_logging(enabled=true) an append is stored and get/list return it', async () => {
      const { admin } = target();
      const ns = uniqueNamespace();
      expect(await admin.ok('conversation.set_logging', { namespace: ns, enabled: true })).toEqual({ namespace: ns, conversation_logging_enabled: true });
      const appended = await admin.ok('conversation.append', { namespace: ns, thread_id: 't', role: 'user', content: 'the ledger moved to v2' });
      expect(appended).toMatchObject({ stored: true, thread_id: 't' });
      const listed = await admin.ok('conversation.list', { namespace: ns, thread_id: 't' });
      expect(listed.messages.map((m: { content: string }) => m.content)).toEqual(['the ledger moved to v2']);
      const got = await admin.ok('conversation.get', { namespace: ns, thread_id: 't', include_messages: true });
      expect(got.thread.turn_count).toBe(1);
      expect(got.messages).toHaveLength(1);
    });

    it('CONV-APPEND-06: the same (thread_id, msg_id) twice leaves one row and the second answers stored:false "duplicate"', async () => {
      const { admin, storage } = target();
      const ns = uniqueNamespace();
      await admin.ok('conversation.set_logging', { namespace: ns, enabled: true });
      const turn = { namespace: ns, thread_id: 't', role: 'user', content: 'same turn', msg_id: 'm-1' };
      expect(await admin.ok('conversation.append', turn)).toMatchObject({ stored: true, msg_id: 'm-1' });
      expect(await admin.ok('conversation.append', turn)).toEqual({ stored: false, reason: 'duplicate', thread_id: 't', msg_id: 'm-1' });
      expect(await countRows(storage, 'conversations', { namespace: ns }, false)).toBe(1);
    });

    it('CONV-APPEND-06: 50 parallel identical appends leave exactly one transcript row and one embedding row', async () => {
      const { admin, storage } = target();
      const ns = uniqueNamespace();
      await admin.ok('conversation.set_logging', { namespace: ns, enabled: true });
      const turn = { namespace: ns, thread_id: 't', role: 'assistant', content: 'a retried turn', msg_id: 'retry-1' };
      const results = await Promise.all(Array.from({ length: 50 }, () => admin.call('conversation.append', turn)));
      expect(results.every((r) => r.status === 200)).toBe(true);
      expect(results.filter((r) => r.body.stored === true)).toHaveLength(1);
      expect(results.filter((r) => r.body.reason === 'duplicate')).toHaveLength(49);
      expect(await countRows(storage, 'conversations', { namespace: ns }, false)).toBe(1);
      expect(await countRows(storage, 'conversationEmbeddings', { namespace: ns }, false)).toBe(1);
    });

    it('CONV-APPEND-08: 50 parallel identical appends without msg_id also leave one row (derived id)', async () => {
      const { admin, storage } = target();
      const ns = uniqueNamespace();
      await admin.ok('conversation.set_logging', { namespace: ns, enabled: true });
      const turn = { namespace: ns, thread_id: 't', role: 'user', content: 'yes, go ahead' };
      const results = await Promise.all(Array.from({ length: 50 }, () => admin.call('conversation.append', turn)));
      expect(new Set(results.map((r) => r.body.msg_id)).size).toBe(1);
      expect(results.filter((r) => r.body.stored === true)).toHaveLength(1);
      expect(await countRows(storage, 'conversations', { namespace: ns }, false)).toBe(1);
    });

    it('CONV-SEARCH-01 CONV-SEARCH-03: search ranks embedded turns by cosine similarity and drops those under the floor', async () => {
      const { admin } = target();
      const ns = uniqueNamespace();
      await admin.ok('conversation.set_logging', { namespace: ns, enabled: true });
      await admin.ok('conversation.append', { namespace: ns, thread_id: 't', role: 'user', content: 'How do we rotate the database credentials for billing?' });
      await admin.ok('conversation.append', { namespace: ns, thread_id: 't', role: 'assistant', content: 'The cat sat on the warm windowsill all afternoon.' });
      const found = await admin.ok('conversation.search', { namespace: ns, query: 'rotate database credentials', namespace_scope: 'namespace', search_mode: 'vector' });
      expect(found.mode).toBe('vector');
      expect(found.hits).toHaveLength(1);
      expect(found.hits[0].excerpt).toContain('rotate the database credentials');
      expect(found.hits[0].score).toBeGreaterThanOrEqual(0.3);
      const none = await admin.ok('conversation.search', { namespace: ns, query: 'kubernetes ingress certificate renewal', namespace_scope: 'namespace', search_mode: 'vector' });
      expect(none.hits).toEqual([]);
    });

    it('CONV-SEARCH-05: with the embedder unavailable, search falls back to substring matching and still answers', async () => {
      const t = target();
      const ns = uniqueNamespace();
      await t.admin.ok('conversation.set_logging', { namespace: ns, enabled: true });
      await t.admin.ok('conversation.append', { namespace: ns, thread_id: 't', role: 'user', content: 'Deploy the LEDGER-4411 migration tonight' });
      await t.stopEmbedder();
      try {
        const result = await t.admin.call('conversation.search', { namespace: ns, query: 'ledger-4411', namespace_scope: 'namespace', search_mode: 'vector' });
        expect(result.status).toBe(200);
        expect(result.body.mode).toBe('substring');
        expect(result.body.hits.map((h: { excerpt: string }) => h.excerpt)).toEqual(['Deploy the LEDGER-4411 migration tonight']);
      } finally {
        await t.startEmbedder();
      }
    });

    it('CONV-SEARCH-10 CONV-SEARCH-11 CONV-SEARCH-20 [issue 10: hybrid]: hybrid is the default, finds a turn by an identifier past its first 2,048 characters, answers from words alone with the embedder down, and a thread delete takes the turn out', async () => {
      const t = target();
      const ns = uniqueNamespace();
      await t.admin.ok('conversation.set_logging', { namespace: ns, enabled: true });
      const content = 'background notes on the billing system. '.repeat(60) + ' The failing job is reconcileLedgerBatch in jobs/ledger.ts.';
      await t.admin.ok('conversation.append', { namespace: ns, thread_id: 'gone', msg_id: 'long', role: 'assistant', content });
      await t.admin.ok('conversation.append', { namespace: ns, thread_id: 'kept', msg_id: 'other', role: 'user', content: 'the ledger batch finished' });
      const search = (body: Record<string, unknown>) => t.admin.ok('conversation.search', { namespace: ns, namespace_scope: 'namespace', ...body });
      const hybrid = await search({ query: 'reconcile ledger batch ledger.ts' });
      expect(hybrid.mode).toBe('hybrid');
      // Found by its words past the embedding's 2,048 characters, shown around them.
      const long = hybrid.hits.find((h: { msg_id: string }) => h.msg_id === 'long');
      expect(long.excerpt).toContain('reconcileLedgerBatch');
      // The whole identifier ranks above a turn holding only its parts (ledger, batch).
      expect((await search({ query: 'reconcileLedgerBatch', search_mode: 'lexical' })).hits.map((h: { msg_id: string }) => h.msg_id)).toEqual(['long', 'other']);
      await t.stopEmbedder();
      try {
        const words = await search({ query: 'reconcileLedgerBatch' });
        expect(words.mode).toBe('lexical');
        expect(words.hits.map((h: { msg_id: string }) => h.msg_id)).toEqual(['long', 'other']);
      } finally {
        await t.startEmbedder();
      }
      await t.admin.ok('conversation.delete', { namespace: ns, thread_id: 'gone', confirm_thread_id: 'gone' });
      expect((await search({ query: 'reconcileLedgerBatch', search_mode: 'lexical' })).hits.map((h: { msg_id: string }) => h.msg_id)).toEqual(['other']);
      expect((await search({ query: 'reconcile ledger batch ledger.ts' })).hits.map((h: { msg_id: string }) => h.msg_id)).not.toContain('long');
    });

    it('CONV-READ-01 CONV-READ-06: threads lists newest first and list pages every turn exactly once by cursor', async () => {
      const { admin } = target();
      const ns = uniqueNamespace();
      await admin.ok('conversation.set_logging', { namespace: ns, enabled: true });
      for (let i = 0; i < 7; i += 1) await admin.ok('conversation.append', { namespace: ns, thread_id: 'older', role: 'user', content: `turn ${i}` });
      await admin.ok('conversation.append', { namespace: ns, thread_id: 'newer', role: 'user', content: 'latest' });
      const threads = await admin.ok('conversation.threads', { namespace: ns });
      expect(threads.threads.map((t: { thread_id: string }) => t.thread_id)).toEqual(['newer', 'older']);
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const page: { messages: Array<{ content: string }>; next_cursor: string | null } = await admin.ok('conversation.list', {
          namespace: ns,
          thread_id: 'older',
          limit: 3,
          ...(cursor ? { cursor } : {}),
        });
        seen.push(...page.messages.map((m) => m.content));
        cursor = page.next_cursor;
      } while (cursor);
      expect(seen).toEqual(['turn 0', 'turn 1', 'turn 2', 'turn 3', 'turn 4', 'turn 5', 'turn 6']);
    });

    it('errors: unknown op 404, no or bad token 401, role too low 403, bad field 400 naming it, all in one JSON shape', async () => {
      const t = target();
      const ns = uniqueNamespace();
      const viewer = await t.as(ns, 'viewer');
      const unknown = await t.admin.call('conversation.nope', {});
      expect(unknown.status).toBe(404);
      expect(unknown.body.error.code).toBe('unknown_op');
      expect((await t.admin.call('conversation.threads', { namespace: ns }, { token: null })).status).toBe(401);
      expect((await t.admin.call('conversation.threads', { namespace: ns }, { token: 'loom_not-a-real-token' })).status).toBe(401);
      const refused = await viewer.call('conversation.append', { thread_id: 't', role: 'user', content: 'x' });
      expect(refused.status).toBe(403);
      expect(refused.body.error.code).toBe('forbidden');
      const bad = await t.admin.call('conversation.append', { namespace: ns, thread_id: 5, role: 'narrator' });
      expect(bad.status).toBe(400);
      expect(bad.body.error.fields.map((f: { field: string }) => f.field).sort()).toEqual(['content', 'role', 'thread_id']);
    });

    it('oversized content (over 1 MiB) is refused with 413 and nothing is written', async () => {
      const { admin, storage } = target();
      const ns = uniqueNamespace();
      await admin.ok('conversation.set_logging', { namespace: ns, enabled: true });
      const result = await admin.call('conversation.append', { namespace: ns, thread_id: 't', role: 'user', content: 'x'.repeat(1024 * 1024 + 1) });
      expect(result.status).toBe(413);
      expect(result.body.error.code).toBe('payload_too_large');
      expect(await countRows(storage, 'conversations', { namespace: ns }, false)).toBe(0);
    });
  });
}
