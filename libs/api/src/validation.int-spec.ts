import { Limits, OpNames } from '@loom/contracts';
import { ControllableProvider, rowCounts, startTestLoom, uniqueNamespace, type TestLoom } from '../../testing/src';

/**
 * Issue 9, findings 4 and 5, through the HTTP API of an embedded Loom: every bad value is a 400
 * naming its field, nothing is written for it, and pages hold a byte budget as well as a count.
 */
describe('Hardened input and byte-bounded pages [issue 9]', () => {
  const provider = new ControllableProvider();
  let loom: TestLoom;
  let ns: string;
  beforeAll(async () => {
    loom = await startTestLoom({ provider });
  });
  beforeEach(async () => {
    ns = uniqueNamespace();
    await loom.record(ns);
  });
  afterAll(async () => loom.close());

  const storage = () => loom.gateway.runtime.storage;
  /** Calls `op` with `body` (raw JSON text when a string), expects a 400 naming `field`, and that no table gained a row. */
  async function refused(op: string, body: Record<string, unknown> | string, field: string | RegExp): Promise<void> {
    const before = await rowCounts(storage());
    const result = typeof body === 'string' ? await loom.admin.call(op, undefined, { rawBody: body }) : await loom.admin.call(op, { namespace: ns, ...body });
    expect([op, result.status]).toEqual([op, 400]);
    expect(result.body.error.code).toBe('invalid_input');
    const named = (result.body.error.fields as Array<{ field: string }>).map((f) => f.field);
    expect(named.some((f) => (typeof field === 'string' ? f === field : field.test(f)))).toBe(true);
    expect(await rowCounts(storage())).toEqual(before);
  }
  const turn = { thread_id: 'th', role: 'user', content: 'the invoices moved to ledger two' };

  describe('finding 5: these answered 500', () => {
    it.each(['constructor', '__proto__', 'prototype'])('CONV-APPEND-02 [issue 9: metadata key constructor] a metadata key %s is a 400 naming it, on append, create and update', async (key) => {
      const metadata = `{"${key}": {"a": 1}, "fine": true}`;
      await refused('conversation.append', `{"namespace":"${ns}","thread_id":"th","role":"user","content":"hello there","metadata":${metadata}}`, `metadata.${key}`);
      await refused('conversation.create', `{"namespace":"${ns}","thread_id":"th2","metadata":${metadata}}`, `metadata.${key}`);
      await loom.admin.ok('conversation.create', { namespace: ns, thread_id: 'th3', title: 'kept' });
      await refused('conversation.update', `{"namespace":"${ns}","thread_id":"th3","metadata":${metadata}}`, `metadata.${key}`);
      expect((await loom.admin.call('conversation.get', { namespace: ns, thread_id: 'th' })).status).toBe(404);
      expect((await loom.admin.ok('conversation.get', { namespace: ns, thread_id: 'th3' })).thread.metadata).toEqual({});
    });

    it('[issue 9: JSON nested 5,000 deep] every op answers a body nested 5,000 deep with a 400, and the MCP endpoint too', async () => {
      const deep = '['.repeat(5000) + ']'.repeat(5000);
      for (const op of OpNames) {
        const result = await loom.admin.call(op, undefined, { rawBody: `{"namespace":"${ns}","x":${deep}}` });
        expect([op, result.status]).toEqual([op, 400]);
        expect(result.body.error.fields[0].field).toMatch(/^x/);
      }
      const mcp = await fetch(`${loom.url}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${loom.admin.token}` },
        body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"conversation_search","arguments":{"query":${deep}}}}`,
      });
      expect(mcp.status).toBe(400);
    });

    it('CONV-APPEND-01, RUNS-01, CAPTURE-08 [issue 9: lone surrogate] a lone surrogate is a 400 naming the field on every op that writes, and nothing is written', async () => {
      await refused('conversation.append', { ...turn, content: 'a\ud800b' }, 'content');
      await refused('conversation.append', { ...turn, reasoning: '\udc00' }, 'reasoning');
      await refused('conversation.append', { ...turn, msg_id: 'm\ud800' }, 'msg_id');
      await refused('conversation.append', { ...turn, metadata: { note: ['\ud800'] } }, 'metadata.note.0');
      await refused('conversation.create', { thread_id: 'x', title: 'T\ud800' }, 'title');
      await refused('memory.set', { text: 'fact \ud800' }, 'text');
      await refused('memory.set_from_messages', { messages: [{ role: 'user', content: 'ok' }, { role: 'user', content: '\ud800' }] }, 'messages.1.content');
      await refused('run.begin', { goal: 'goal \ud800' }, 'goal');
      await refused('run.report_usage', { run_id: 'r1', reports: [{ usage_id: 'u\ud800', model: 'm', input_tokens: 1, output_tokens: 1 }] }, 'reports.0.usage_id');
      await refused('observe.record', { session_id: 's', observations: [{ obs_id: 'o', tool: 'Bash', summary: 'ran \ud800' }] }, 'observations.0.summary');
      await refused('session.brief_save', { user_id: 'u1', events: [{ kind: 'note', text: '\ud800' }] }, 'events.0.text');
      await refused('token.create', { role: 'viewer', label: 'laptop \ud800' }, 'label');
    });

    it('SAVE-SAVE-02 [issue 9: lone surrogate, recording off] save_message with a lone surrogate is a 400 with recording off too', async () => {
      const off = uniqueNamespace();
      await loom.admin.ok('conversation.set_logging', { namespace: off, enabled: false });
      const before = await rowCounts(storage());
      const result = await loom.admin.call('conversation.save_message', { namespace: off, user_id: 'u1', conversation_id: 'c', message_id: 'm', role: 'user', content: 'x\ud800' });
      expect(result.status).toBe(400);
      expect(result.body.error.fields.map((f: { field: string }) => f.field)).toEqual(['content']);
      expect(await rowCounts(storage())).toEqual(before);
    });

    it('CONV-SEARCH-10 [issue 9: since +275760] memory.recall with since "+275760-09-13T00:00:00Z" is a 400 naming since', async () => {
      await refused('memory.recall', { since: '+275760-09-13T00:00:00Z' }, 'since');
      await refused('memory.recall', { until: '+275760-09-13T00:00:00Z' }, 'until');
    });

    it('BRIEF-REV-05 [issue 9: revision 1e21] session.brief_get with revision 1e21 is a 400 naming revision', async () => {
      await refused('session.brief_get', `{"namespace":"${ns}","user_id":"u1","brief_key":"k","revision":1e21}`, 'revision');
      await refused('session.brief_get', { user_id: 'u1', brief_key: 'k', revision: 2 ** 32 }, 'revision');
    });
  });

  describe('finding 5: these were taken without complaint', () => {
    it('CONV-APPEND-02 [issue 9: tokens wrap modulo 2^32] tokens past UInt32, and 1e21, are a 400 naming tokens; UInt32 max is stored as sent', async () => {
      await refused('conversation.append', { ...turn, tokens: 2 ** 32 + 5 }, 'tokens');
      await refused('conversation.append', `{"namespace":"${ns}","thread_id":"th","role":"user","content":"hello there","tokens":1e21}`, 'tokens');
      await loom.admin.ok('conversation.append', { namespace: ns, ...turn, msg_id: 'max', tokens: Limits.maxUInt32 });
      const { messages } = await loom.admin.ok('conversation.list', { namespace: ns, thread_id: 'th' });
      expect(messages.map((m: { tokens: number }) => m.tokens)).toEqual([Limits.maxUInt32]);
    });

    it.each(['1', '2026-02-30', '+275760-09-13T00:00:00Z', '2026-11-29T10:00:00'])('RUNS-02, CAPTURE-08, CONV-SEARCH-10 [issue 9: lenient dates] %j is a 400 naming the date field wherever a date is taken', async (value) => {
      await refused('memory.recall', { since: value }, 'since');
      await refused('run.list', { since: value }, 'since');
      await refused('observe.list', { since: value }, 'since');
      await refused('observe.record', { session_id: 's', observations: [{ obs_id: 'o', tool: 'Bash', summary: 'x', ts: value }] }, 'observations.0.ts');
      await refused('run.report_usage', { run_id: 'r1', reports: [{ usage_id: 'u', model: 'm', ts: value, input_tokens: 1, output_tokens: 1 }] }, 'reports.0.ts');
    });

    it('SAVE-OWN-01 [issue 9: user_id null] user_id: null is a 400 naming user_id, not a user and not "every user"', async () => {
      await refused('conversation.save_message', { user_id: null, conversation_id: 'c', message_id: 'm', role: 'user', content: 'hi there' }, 'user_id');
      await refused('erasure.request', { user_id: null }, 'user_id');
      await refused('erasure.export', { user_id: null }, 'user_id');
      await refused('memory.set', { text: 'a fact', user_id: null }, 'user_id');
      await refused('conversation.append', { ...turn, user_id: null }, 'user_id');
    });

    it('SAVE-LIST-02 [issue 9: list_saved_messages limit 1000000] a limit over 200 is a 400 naming limit', async () => {
      await refused('conversation.list_saved_messages', { user_id: 'u1', limit: 1_000_000 }, 'limit');
    });

    it('CONV-APPEND-02 [issue 9: metadata nested 1,000 deep] metadata nested past 16 levels is refused and not stored; 16 levels are kept', async () => {
      const nest = (levels: number): unknown => {
        let value: unknown = 'leaf';
        for (let i = 0; i < levels; i++) value = { a: value };
        return value;
      };
      await refused('conversation.append', { ...turn, metadata: nest(1000) }, /^metadata/);
      await refused('conversation.create', { thread_id: 'deep', metadata: nest(Limits.maxMetadataDepth + 1) }, 'metadata');
      await loom.admin.ok('conversation.append', { namespace: ns, ...turn, metadata: nest(Limits.maxMetadataDepth) });
      const { messages } = await loom.admin.ok('conversation.list', { namespace: ns, thread_id: 'th' });
      expect(messages[0].metadata).toEqual(nest(Limits.maxMetadataDepth));
    });

    it('[issue 9: still answering] after all of the above, an append and a list round-trip', async () => {
      await loom.admin.ok('conversation.append', { namespace: ns, ...turn, msg_id: 'after' });
      expect((await loom.admin.ok('conversation.list', { namespace: ns, thread_id: 'th' })).messages.map((m: { msg_id: string }) => m.msg_id)).toEqual(['after']);
    });
  });

  describe('finding 4: pages with a byte budget', () => {
    const MiB = 1024 * 1024;
    /** Exactly 1 MiB of plain words, numbered so each turn is distinct. */
    const bigTurn = (i: number) => `turn ${String(i).padStart(3, '0')} ` + 'ledger invoices moved '.repeat(MiB / 22 + 1).slice(0, MiB - 9);
    const TURNS = 30;

    it('CONV-READ-05, CONV-READ-06, CONV-RET-02 [issue 9: 120 MiB page] 30 turns of 1 MiB page in pages of at most 4 MiB through list, get (asc and desc) and erasure.export, every turn exactly once', async () => {
      for (let i = 0; i < TURNS; i++) {
        await loom.admin.ok('conversation.append', { namespace: ns, thread_id: 'big', role: i % 2 ? 'assistant' : 'user', msg_id: `m${String(i).padStart(3, '0')}`, content: bigTurn(i), user_id: 'u-big' });
      }
      expect(Buffer.byteLength(bigTurn(0))).toBe(MiB);
      const expected = Array.from({ length: TURNS }, (_, i) => `m${String(i).padStart(3, '0')}`);
      const budget = Limits.pageBudgetBytes;

      type Page = { items: Array<{ msg_id: string; content: string }>; next: string | null };
      async function drain(fetchPage: (cursor: string | undefined) => Promise<Page>): Promise<{ ids: string[]; pages: number }> {
        const ids: string[] = [];
        let cursor: string | undefined;
        let pages = 0;
        do {
          const page = await fetchPage(cursor);
          pages++;
          expect(page.items.length).toBeGreaterThan(0);
          expect(page.items.reduce((sum, t) => sum + Buffer.byteLength(t.content), 0)).toBeLessThanOrEqual(budget);
          ids.push(...page.items.map((t) => t.msg_id));
          cursor = page.next ?? undefined;
        } while (cursor);
        return { ids, pages };
      }

      const list = await drain(async (cursor) => {
        const r = await loom.admin.ok('conversation.list', { namespace: ns, thread_id: 'big', limit: 200, ...(cursor ? { cursor } : {}) });
        return { items: r.messages, next: r.next_cursor };
      });
      expect(list.ids).toEqual(expected);
      expect(list.pages).toBe(Math.ceil(TURNS / Math.floor(budget / MiB)));

      const tail = await drain(async (cursor) => {
        const r = await loom.admin.ok('conversation.get', { namespace: ns, thread_id: 'big', include_messages: true, order: 'desc', limit: 200, ...(cursor ? { cursor } : {}) });
        return { items: r.messages, next: r.next_cursor };
      });
      expect(tail.ids).toEqual([...expected].reverse());

      const exported = await drain(async (cursor) => {
        const r = await loom.admin.ok('erasure.export', { namespace: ns, user_id: 'u-big', limit: 1000, ...(cursor ? { cursor } : {}) });
        return { items: r.turns, next: r.next_cursor };
      });
      expect(exported.ids).toEqual(expected);
      expect(exported.pages).toBeGreaterThan(1);

      // The count still bounds a page of small turns, and the last page says there is no more.
      const counted = await loom.admin.ok('conversation.list', { namespace: ns, thread_id: 'big', limit: 2 });
      expect(counted.messages).toHaveLength(2);
      expect(counted.next_cursor).not.toBeNull();
    }, 300_000);
  });
});
