import { startOpenAiCompatibleServer, startTestLoom, uniqueNamespace, type LoomApi, type OpenAiCompatibleServer, type TestLoom } from '../../testing/src';

const REVISION = JSON.stringify({
  goal: 'Move invoices to the new ledger',
  status: 'Export job updated; backfill pending',
  decisions: ['Use ledger_v2 for all new invoices'],
  dead_ends: ['Dual-writing both ledgers'],
  done: ['Migrated the schema'],
  next_steps: ['Run the PROJ-1234 backfill'],
  key_files: ['apps/billing/export.ts'],
});

describe('Session briefs', () => {
  let llm: OpenAiCompatibleServer;
  let answer: (prompt: string) => string | Promise<string>;
  let loom: TestLoom;
  let ns: string;
  let writer: LoomApi;

  beforeAll(async () => {
    llm = await startOpenAiCompatibleServer({ chat: (messages) => answer(messages.map((m) => m.content).join('\n')) });
    loom = await startTestLoom({ env: { LOOM_LLM_BASE_URL: llm.baseUrl, LOOM_LLM_MODEL: 'deploy-model', LOOM_CONVERSATION_TITLER_ENABLED: 'false', LOOM_SESSION_BRIEF_WINDOW_CHARS: '600', LOOM_SESSION_BRIEF_MAX_WINDOWS: '3' } });
  });
  beforeEach(async () => {
    answer = () => REVISION;
    ns = uniqueNamespace();
    writer = await loom.as(ns, 'writer');
  });
  afterAll(async () => {
    await loom.close();
    await llm.close();
  });

  const save = (body: Record<string, unknown>, api: LoomApi = writer) => api.call('session.brief_save', body);
  const ok = async (op: string, body: Record<string, unknown>, api: LoomApi = writer) => {
    const r = await api.call(op, body);
    if (r.status !== 200) throw new Error(`${op} ${r.status} ${JSON.stringify(r.body)}`);
    return r.body;
  };
  const events = (n: number, kind = 'assistant') => Array.from({ length: n }, (_, i) => ({ kind, text: `event ${i}: worked on the ledger export ${'.'.repeat(80)}` }));

  describe('operations', () => {
    it('BRIEF-OPS-01: brief_save needs the writer role; a viewer is refused', async () => {
      const viewer = await loom.as(ns, 'viewer');
      expect((await save({ project: 'p', branch: 'b', sections: { goal: 'x' } }, viewer)).status).toBe(403);
    });

    it('BRIEF-OPS-02, BRIEF-OPS-06: brief_get by key, else the newest by from_session, else the newest for project; any reader of the namespace can load it', async () => {
      await ok('session.brief_save', { project: 'billing', branch: 'a', session_id: 's1', sections: { goal: 'first' } });
      await ok('session.brief_save', { project: 'billing', branch: 'b', session_id: 's2', sections: { goal: 'second' } });
      const teammate = await loom.as(ns, 'viewer');
      expect((await ok('session.brief_get', { brief_key: 'auto/billing/a' }, teammate)).brief.sections.goal).toBe('first');
      expect((await ok('session.brief_get', { from_session: 's1' }, teammate)).brief.brief_key).toBe('auto/billing/a');
      expect((await ok('session.brief_get', { project: 'billing' }, teammate)).brief.brief_key).toBe('auto/billing/b');
      expect((await teammate.call('session.brief_get', { brief_key: 'auto/none/x' })).status).toBe(404);
    });

    it('BRIEF-OPS-03: brief_list is newest first, one line each; mine_only keeps the caller\'s own', async () => {
      await ok('session.brief_save', { agent: 'claude', brief_key: 'one', sections: { goal: 'Goal one\nmore' } });
      await ok('session.brief_save', { agent: 'codex', brief_key: 'two', sections: { status: 'Status two' } });
      const all = (await ok('session.brief_list', {})).briefs;
      expect(all.map((b: { brief_key: string; line: string }) => [b.brief_key, b.line])).toEqual([
        ['two', 'Status two'],
        ['one', 'Goal one'],
      ]);
      expect((await ok('session.brief_list', { agent: 'claude', mine_only: true })).briefs.map((b: { brief_key: string }) => b.brief_key)).toEqual(['one']);
    });

    it('BRIEF-OPS-04: brief_delete removes it from get and list', async () => {
      await ok('session.brief_save', { brief_key: 'gone', sections: { goal: 'x' } });
      expect(await ok('session.brief_delete', { brief_key: 'gone' })).toEqual({ brief_key: 'gone', deleted: true });
      expect((await writer.call('session.brief_get', { brief_key: 'gone' })).status).toBe(404);
      expect((await ok('session.brief_list', {})).briefs).toEqual([]);
      expect((await writer.call('session.brief_delete', { brief_key: 'gone' })).status).toBe(404);
    });

    it('BRIEF-OPS-05: briefs are never embedded and never returned by memory.search or memory.recall', async () => {
      await ok('session.brief_save', { brief_key: 'k', sections: { goal: 'Move invoices to the ledger_v2 table' } });
      expect((await ok('memory.search', { query: 'Move invoices to the ledger_v2 table' })).hits).toEqual([]);
      expect((await ok('memory.recall', { query: 'ledger_v2' })).hits).toEqual([]);
      const storage = loom.gateway.runtime.storage;
      const [rows] = await storage.query<{ n: string }>(`SELECT count() AS n FROM ${storage.tables.conversationEmbeddings} WHERE namespace = {ns:String}`, { ns });
      expect(Number(rows!.n)).toBe(0);
    });

    it('BRIEF-OPS-07, BRIEF-REV-06: a sections-only save writes every section and answers author "model"', async () => {
      const sections = { goal: 'g', status: 's', decisions: ['d'], dead_ends: ['x'], done: ['done'], open_questions: ['q'], next_steps: ['n'], key_files: ['f.ts'], constraints: ['c'], pointers: ['https://example.test/pr/1'] };
      expect(await ok('session.brief_save', { brief_key: 'all', sections })).toMatchObject({ changed: true, revision: 1, author: 'model' });
      const { brief } = await ok('session.brief_get', { brief_key: 'all' });
      expect(brief.sections).toEqual(sections);
      expect(brief.rendered).toContain('## Dead ends\n- x');
    });
  });

  describe('addressing', () => {
    it('BRIEF-ADDR-01, BRIEF-ADDR-02: an empty key is auto/<project>/<branch>, or session/<session_id> when either is unknown', async () => {
      expect((await ok('session.brief_save', { project: 'p', branch: 'b', session_id: 's', sections: { goal: 'x' } })).brief_key).toBe('auto/p/b');
      expect((await ok('session.brief_save', { project: 'p', branch: 'b', session_id: 'other', sections: { goal: 'y' } })).revision).toBe(2);
      expect((await ok('session.brief_save', { project: 'p', session_id: 's9', sections: { goal: 'x' } })).brief_key).toBe('session/s9');
      expect((await save({ sections: { goal: 'x' } })).status).toBe(400);
    });

    it('BRIEF-ADDR-03: keys match ^[A-Za-z0-9][A-Za-z0-9_.:/@+-]{0,159}$', async () => {
      for (const bad of ['-x', 'a b', 'k'.repeat(161)]) {
        const r = await save({ brief_key: bad, sections: { goal: 'x' } });
        expect([bad.slice(0, 5), r.status, r.body.error.fields?.[0]?.field]).toEqual([bad.slice(0, 5), 400, 'brief_key']);
      }
      expect((await ok('session.brief_save', { brief_key: 'auto/p/b@v1+x', sections: { goal: 'x' } })).brief_key).toBe('auto/p/b@v1+x');
    });

    it('BRIEF-ADDR-04, BRIEF-ADDR-06, BRIEF-ADDR-07: a user-bounded token stores ~<user>~<key> and sees <key>; a namespace-wide token sees the prefix; a bounded token cannot send "~"', async () => {
      const bounded = await loom.as(ns, 'writer', { read_scope: 'own_user', read_user_id: 'u1' });
      expect((await ok('session.brief_save', { brief_key: 'mine', sections: { goal: 'bounded' } }, bounded)).brief_key).toBe('mine');
      expect((await ok('session.brief_get', { brief_key: 'mine' }, bounded)).brief.brief_key).toBe('mine');
      expect((await ok('session.brief_list', {}, bounded)).briefs.map((b: { brief_key: string }) => b.brief_key)).toEqual(['mine']);
      await ok('session.brief_save', { brief_key: 'team', sections: { goal: 'namespace-wide' } });
      expect((await ok('session.brief_list', {}, bounded)).briefs.map((b: { brief_key: string }) => b.brief_key)).toEqual(['mine']);
      expect((await ok('session.brief_list', {})).briefs.map((b: { brief_key: string }) => b.brief_key).sort()).toEqual(['team', '~u1~mine']);
      expect((await ok('session.brief_get', { brief_key: '~u1~mine' })).brief.sections.goal).toBe('bounded');
      expect((await save({ brief_key: '~u2~theirs', sections: { goal: 'x' } }, bounded)).status).toBe(403);
      expect(await ok('session.brief_delete', { brief_key: '~u1~mine' })).toMatchObject({ deleted: true });
    });
  });

  it('BRIEF-ADDR-05: a session-bounded token stores ~<user>~<session>~<key> and sees <key>; another session of the user does not see it', async () => {
    const session = await loom.as(ns, 'writer', { read_scope: 'own_session', read_user_id: 'u1', read_session_id: 's1' });
    expect((await ok('session.brief_save', { brief_key: 'mine', sections: { goal: 'session-bound' } }, session)).brief_key).toBe('mine');
    expect((await ok('session.brief_get', { brief_key: 'mine' }, session)).brief.sections.goal).toBe('session-bound');
    expect((await ok('session.brief_list', {})).briefs.map((b: { brief_key: string }) => b.brief_key)).toEqual(['~u1~s1~mine']);
    const other = await loom.as(ns, 'writer', { read_scope: 'own_session', read_user_id: 'u1', read_session_id: 's2' });
    expect((await ok('session.brief_list', {}, other)).briefs).toEqual([]);
    expect((await other.call('session.brief_get', { brief_key: 'mine' })).status).toBe(404);
    const misuse = await loom.admin.call('token.create', { namespace: ns, role: 'writer', read_scope: 'own_user', read_user_id: 'u1', read_session_id: 's1' });
    expect(misuse.status).toBe(400);
    expect(misuse.body.error.fields[0].field).toBe('read_session_id');
  });

  it('BRIEF-ADDR-04, BRIEF-ADDR-05 [issue 9: principal key collision]: a user id holding "~" never reaches another principal\'s briefs', async () => {
    const alice = await loom.as(ns, 'writer', { read_scope: 'own_user', read_user_id: 'alice' });
    const aliceBob = await loom.as(ns, 'writer', { read_scope: 'own_user', read_user_id: 'alice~bob' });
    const aliceS1User = await loom.as(ns, 'writer', { read_scope: 'own_user', read_user_id: 'alice~s1' });
    const aliceSession = await loom.as(ns, 'writer', { read_scope: 'own_session', read_user_id: 'alice', read_session_id: 's1' });
    await ok('session.brief_save', { brief_key: 'plan', sections: { goal: 'session of alice' } }, aliceSession);
    await ok('session.brief_save', { brief_key: 'plan', sections: { goal: 'bob-ish user' } }, aliceBob);
    await ok('session.brief_save', { brief_key: 'plan', sections: { goal: 'the user alice~s1' } }, aliceS1User);
    // alice sees none of them: not alice~bob's, not her own session token's.
    expect((await ok('session.brief_list', {}, alice)).briefs).toEqual([]);
    expect((await alice.call('session.brief_get', { brief_key: 'plan' })).status).toBe(404);
    expect((await alice.call('session.brief_get', { project: 'x' })).status).toBe(404);
    // The session's brief survived the save of user alice~s1, and each reads back its own.
    expect((await ok('session.brief_get', { brief_key: 'plan' }, aliceSession)).brief.sections.goal).toBe('session of alice');
    expect((await ok('session.brief_get', { brief_key: 'plan' }, aliceS1User)).brief.sections.goal).toBe('the user alice~s1');
    expect((await ok('session.brief_list', {}, aliceBob)).briefs.map((b: { brief_key: string }) => b.brief_key)).toEqual(['plan']);
    expect((await ok('session.brief_list', {})).briefs.map((b: { brief_key: string }) => b.brief_key).sort()).toEqual(['~alice%7Ebob~plan', '~alice%7Es1~plan', '~alice~s1~plan']);
  });

  describe('revising', () => {
    it('BRIEF-REV-01, BRIEF-REV-03, BRIEF-LLM-01: events are condensed on the server by the model, once per window, at most MAX_WINDOWS per save (author "llm")', async () => {
      const calls = llm.requests.length;
      const r = await ok('session.brief_save', { brief_key: 'k', events: events(40) });
      // 40 events of ~120 characters in windows of 600: 8 windows, of which the newest 3 are revised.
      expect(r).toMatchObject({ changed: true, author: 'llm', windows: { revised: 3, failed: 0 } });
      expect(llm.requests.length - calls).toBe(3);
      expect(llm.requests.at(-1)!.body.model).toBe('deploy-model');
      expect((await ok('session.brief_get', { brief_key: 'k' })).brief.sections.goal).toBe('Move invoices to the new ledger');
    });

    it('events, model output and agent sections that read as high never reach the model or the brief, and the save says how many were held', async () => {
      const secret = 'the db password=Tr0ub4dor-staging-9';
      const calls = llm.requests.length;
      answer = () => JSON.stringify({ goal: 'Rotate the staging credentials', status: `set ${secret}`, next_steps: ['Deploy the rotation', `use ${secret}`] });
      const r = await ok('session.brief_save', {
        brief_key: 'secret',
        events: [
          { kind: 'user', text: 'Rotate the staging credentials' },
          { kind: 'command', text: `psql with ${secret}` },
          { kind: 'summary', text: `client summary: ${secret}` },
        ],
      });
      // Held: two events, then the model's status and one of its next steps.
      expect(r).toMatchObject({ changed: true, author: 'llm', skipped_high: 4 });
      const sent = llm.requests.slice(calls).map((q) => JSON.stringify(q.body));
      expect(sent.length).toBe(1);
      expect(sent.join('')).not.toContain('Tr0ub4dor');
      const { brief } = await ok('session.brief_get', { brief_key: 'secret', full: true });
      expect(JSON.stringify(brief)).not.toContain('Tr0ub4dor');
      expect(brief.sections).toMatchObject({ goal: 'Rotate the staging credentials', next_steps: ['Deploy the rotation'] });
      // The agent's own sections go through the same gate.
      const bySections = await ok('session.brief_save', { brief_key: 'secret', sections: { status: secret, constraints: ['staging only', `never print ${secret}`] } });
      expect(bySections).toMatchObject({ changed: true, skipped_high: 2 });
      const after = (await ok('session.brief_get', { brief_key: 'secret' })).brief.sections;
      expect(after.constraints).toEqual(['staging only']);
      expect(after.status).toBe(brief.sections.status);
      // Only high events: nothing is sent and nothing is written.
      const before = llm.requests.length;
      expect(await ok('session.brief_save', { brief_key: 'secret', events: [{ kind: 'user', text: secret }] })).toMatchObject({ changed: false, reason: 'not-revised', skipped_high: 1 });
      expect(llm.requests.length).toBe(before);
    });

    it('BRIEF-REV-02: the ten event kinds are accepted; an unknown kind or more than 4,000 events is a 400', async () => {
      const kinds = ['user', 'assistant', 'edit', 'command', 'error', 'read', 'search', 'tool', 'note', 'summary'];
      expect((await save({ brief_key: 'k', events: kinds.map((kind) => ({ kind, text: kind })) })).status).toBe(200);
      expect((await save({ brief_key: 'k', events: [{ kind: 'thought', text: 'x' }] })).status).toBe(400);
      const tooMany = await save({ brief_key: 'k', events: Array.from({ length: 4_001 }, () => ({ kind: 'note', text: 'x' })) });
      expect(tooMany.status).toBe(400);
      expect(tooMany.body.error.fields[0].field).toBe('events');
    });

    it('BRIEF-REV-04, BRIEF-REV-05: state sections are replaced, decisions, dead ends and done build up; every revision is kept and revision=N reads it', async () => {
      await ok('session.brief_save', { brief_key: 'k', sections: { goal: 'g1', decisions: ['d1'], next_steps: ['n1'] } });
      await ok('session.brief_save', { brief_key: 'k', sections: { goal: 'g2', decisions: ['d2'], next_steps: ['n2'] } });
      const { brief } = await ok('session.brief_get', { brief_key: 'k' });
      expect(brief.sections).toMatchObject({ goal: 'g2', decisions: ['d1', 'd2'], next_steps: ['n2'] });
      expect(brief.revision).toBe(2);
      const first = (await ok('session.brief_get', { brief_key: 'k', revision: 1 })).brief;
      expect(first.sections).toMatchObject({ goal: 'g1', decisions: ['d1'], next_steps: ['n1'] });
      expect((await writer.call('session.brief_get', { brief_key: 'k', revision: 9 })).status).toBe(404);
    });

    it('BRIEF-LLM-05: a window whose model call fails is skipped and the rest are applied', async () => {
      let n = 0;
      answer = () => (++n === 2 ? 'not json at all' : REVISION);
      expect(await ok('session.brief_save', { brief_key: 'k', events: events(15) })).toMatchObject({ changed: true, windows: { revised: 2, failed: 1 } });
    });

    it('BRIEF-LLM-08, BRIEF-LLM-09: an events-only save whose every call fails is a 503 that writes nothing; with sections, the sections are written and nothing is taken from the events', async () => {
      answer = () => 'no JSON here';
      const refused = await save({ brief_key: 'k', events: events(3) });
      expect(refused.status).toBe(503);
      expect((await writer.call('session.brief_get', { brief_key: 'k' })).status).toBe(404);
      const withSections = await ok('session.brief_save', { brief_key: 'k', events: events(3), sections: { goal: 'from the agent' } });
      expect(withSections).toMatchObject({ changed: true, author: 'model', revision: 1 });
      expect((await ok('session.brief_get', { brief_key: 'k' })).brief.sections).toMatchObject({ goal: 'from the agent', decisions: [] });
    });

    it('BRIEF-LLM-06: an events-only save with use_llm: false writes nothing and answers changed: false, reason "not-revised"', async () => {
      const calls = llm.requests.length;
      expect(await ok('session.brief_save', { brief_key: 'k', events: events(3), use_llm: false })).toEqual({ brief_key: 'k', changed: false, revision: 0, reason: 'not-revised' });
      expect(llm.requests.length).toBe(calls);
      expect((await ok('session.brief_save', { brief_key: 'k', events: events(3), use_llm: false, sections: { goal: 'g' } })).author).toBe('model');
    });
  });

  describe("the org's switch for brief model calls (settings: session_brief_model_calls)", () => {
    const setSwitch = (value: number) => loom.admin.ok('settings.set', { key: 'session_brief_model_calls', value });
    afterEach(async () => setSwitch(1));

    it('BRIEF-LLM-07: switched off after k windows were revised, the save keeps those k windows and revises no more', async () => {
      const calls = llm.requests.length;
      let n = 0;
      answer = async () => {
        // The org switches model calls off while the first window is being revised.
        if (++n === 1) await setSwitch(0);
        return REVISION;
      };
      const r = await ok('session.brief_save', { brief_key: 'k', events: events(15) });
      expect(r).toMatchObject({ changed: true, author: 'llm', revision: 1, windows: { revised: 1, failed: 0, switched_off: 2 } });
      expect(llm.requests.length - calls).toBe(1);
      expect((await ok('session.brief_get', { brief_key: 'k' })).brief.sections.goal).toBe('Move invoices to the new ledger');
    });

    it('BRIEF-LLM-06: switched off before the first window, an events-only save writes nothing (not-revised); with sections, the sections are written', async () => {
      await setSwitch(0);
      const calls = llm.requests.length;
      expect(await ok('session.brief_save', { brief_key: 'k', events: events(3) })).toEqual({ brief_key: 'k', changed: false, revision: 0, reason: 'not-revised' });
      expect(llm.requests.length).toBe(calls);
      const withSections = await ok('session.brief_save', { brief_key: 'k', events: events(3), sections: { goal: 'from the agent' } });
      expect(withSections).toMatchObject({ changed: true, author: 'model', revision: 1 });
      expect((await ok('session.brief_get', { brief_key: 'k' })).brief.sections).toMatchObject({ goal: 'from the agent', decisions: [] });
      expect((await loom.admin.call('settings.set', { key: 'session_brief_model_calls', value: 2 })).status).toBe(400);
    });
  });

  describe('retries and if_revision', () => {
    it('BRIEF-RETRY-01, BRIEF-RETRY-02: repeating the last (session, event_cursor) writes nothing; a new cursor is a new revision', async () => {
      const body = { brief_key: 'k', session_id: 's', event_cursor: 'c1', sections: { goal: 'x' } };
      expect((await ok('session.brief_save', body)).revision).toBe(1);
      expect(await ok('session.brief_save', body)).toEqual({ brief_key: 'k', changed: false, revision: 1, reason: 'retry' });
      expect((await ok('session.brief_save', { ...body, event_cursor: 'c2' })).revision).toBe(2);
    });

    it('BRIEF-CAS-01, BRIEF-CAS-02: if_revision equal to the current revision applies; a mismatch is a 409 that writes nothing (0 matches a new brief)', async () => {
      expect((await ok('session.brief_save', { brief_key: 'k', if_revision: 0, sections: { goal: 'a' } })).revision).toBe(1);
      expect((await ok('session.brief_save', { brief_key: 'k', if_revision: 1, sections: { goal: 'b' } })).revision).toBe(2);
      const stale = await save({ brief_key: 'k', if_revision: 1, sections: { goal: 'c' } });
      expect(stale.status).toBe(409);
      expect((await ok('session.brief_get', { brief_key: 'k' })).brief).toMatchObject({ revision: 2, sections: { goal: 'b' } });
    });

    it('BRIEF-CAS-03: without if_revision, two sessions saving at once both revise the brief, one after the other', async () => {
      const results = await Promise.all([
        ok('session.brief_save', { brief_key: 'k', session_id: 'a', sections: { decisions: ['from a'] } }),
        ok('session.brief_save', { brief_key: 'k', session_id: 'b', sections: { decisions: ['from b'] } }),
      ]);
      expect(results.map((r) => r.revision).sort()).toEqual([1, 2]);
      expect((await ok('session.brief_get', { brief_key: 'k' })).brief.sections.decisions.sort()).toEqual(['from a', 'from b']);
    });
  });

  describe('bounds and restoring', () => {
    it('BRIEF-BOUND-01, BRIEF-BOUND-02: lists are capped (20 decisions, 12 dead ends, 8 next steps), oldest first out, and the rendered brief stays under 12,000 characters', async () => {
      const many = (p: string, n: number) => Array.from({ length: n }, (_, i) => `${p} ${i} ${'x'.repeat(300)}`);
      await ok('session.brief_save', { brief_key: 'k', sections: { decisions: many('d', 25), dead_ends: many('e', 15), next_steps: many('n', 10), done: many('done', 30) } });
      const { brief } = await ok('session.brief_get', { brief_key: 'k' });
      expect(brief.sections.decisions.length).toBeLessThanOrEqual(20);
      expect(brief.sections.dead_ends.length).toBeLessThanOrEqual(12);
      expect(brief.sections.next_steps).toHaveLength(8);
      expect(brief.sections.next_steps[0]).toMatch(/^n 2 /);
      expect(brief.sections.decisions.at(-1)).toMatch(/^d 24 /);
      expect(brief.rendered.length).toBeLessThan(12_000);
    });

    it('BRIEF-RESTORE-02: brief_get(full=true) appends the client\'s own last compaction summary verbatim; without full it is absent', async () => {
      const summary = 'This session is being continued from a previous conversation. Analysis: the ledger move…';
      await ok('session.brief_save', { brief_key: 'k', events: [{ kind: 'summary', text: summary }, { kind: 'note', text: 'compacted' }] });
      expect((await ok('session.brief_get', { brief_key: 'k', full: true })).brief.client_summary).toBe(summary);
      expect((await ok('session.brief_get', { brief_key: 'k' })).brief).not.toHaveProperty('client_summary');
    });
  });
});

describe('Session briefs without a model', () => {
  it('BRIEF-LLM-03: with no LLM the deterministic builder writes goal, status, files, errors and pointers, never decisions or dead ends (author "deterministic")', async () => {
    const loom = await startTestLoom({ env: { LOOM_CONVERSATION_TITLER_ENABLED: 'false' } });
    try {
      const ns = uniqueNamespace();
      const r = await loom.admin.ok('session.brief_save', {
        namespace: ns,
        brief_key: 'k',
        events: [
          { kind: 'user', text: 'Move invoices to the new ledger\nplease' },
          { kind: 'edit', text: 'edited apps/billing/export.ts', path: 'apps/billing/export.ts' },
          { kind: 'error', text: 'TypeError: ledger is undefined' },
          { kind: 'assistant', text: 'Export job updated; see https://example.test/pr/42' },
        ],
      });
      expect(r).toMatchObject({ changed: true, author: 'deterministic' });
      const { brief } = await loom.admin.ok('session.brief_get', { namespace: ns, brief_key: 'k' });
      expect(brief.sections).toMatchObject({
        goal: 'Move invoices to the new ledger',
        status: 'Export job updated; see https://example.test/pr/42 · Last error: TypeError: ledger is undefined',
        key_files: ['apps/billing/export.ts'],
        pointers: ['https://example.test/pr/42'],
        decisions: [],
        dead_ends: [],
      });
    } finally {
      await loom.close();
    }
  });

  it('BRIEF-LLM-02: LOOM_SESSION_BRIEF_LLM_MODEL with its key revises briefs; without the key the deployment LLM does', async () => {
    const server = await startOpenAiCompatibleServer({ chat: () => REVISION });
    const withKey = await startTestLoom({ env: { LOOM_CONVERSATION_TITLER_ENABLED: 'false', LOOM_LLM_BASE_URL: server.baseUrl, LOOM_LLM_MODEL: 'deploy-model', LOOM_SESSION_BRIEF_LLM_MODEL: 'brief-model', LOOM_SESSION_BRIEF_LLM_API_KEY: 'k-brief' } });
    try {
      await withKey.admin.ok('session.brief_save', { namespace: uniqueNamespace(), brief_key: 'k', events: [{ kind: 'note', text: 'x' }] });
      expect(server.requests.at(-1)!.body.model).toBe('brief-model');
    } finally {
      await withKey.close();
    }
    const noKey = await startTestLoom({ env: { LOOM_CONVERSATION_TITLER_ENABLED: 'false', LOOM_LLM_BASE_URL: server.baseUrl, LOOM_LLM_MODEL: 'deploy-model', LOOM_SESSION_BRIEF_LLM_MODEL: 'brief-model' } });
    try {
      const r = await noKey.admin.ok('session.brief_save', { namespace: uniqueNamespace(), brief_key: 'k', events: [{ kind: 'note', text: 'x' }] });
      expect(r.author).toBe('llm');
      expect(server.requests.at(-1)!.body.model).toBe('deploy-model');
    } finally {
      await noKey.close();
      await server.close();
    }
  });

  describe("an operator's extraction policy (LOOM_SESSION_BRIEF_EXTRACTION_POLICY=model-only)", () => {
    it('BRIEF-LLM-04: the deterministic builder never runs, and no client summary is taken from the events', async () => {
      const policy = await startTestLoom({ env: { LOOM_SESSION_BRIEF_EXTRACTION_POLICY: 'model-only', LOOM_CONVERSATION_TITLER_ENABLED: 'false' } });
      try {
        const api = await policy.as(uniqueNamespace(), 'writer');
        const events = (n: number) => Array.from({ length: n }, (_, i) => ({ kind: 'assistant', text: `event ${i}: worked on the ledger export` }));
        const summaryEvent = { kind: 'summary', text: 'The client\'s own summary of the session.' };
        // No model and no builder: the events give nothing.
        const r = await api.call('session.brief_save', { brief_key: 'k', events: [...events(3), summaryEvent] });
        expect(r.body).toEqual({ brief_key: 'k', changed: false, revision: 0, reason: 'not-revised' });
        const withSections = await api.call('session.brief_save', { brief_key: 'k', events: [...events(3), summaryEvent], sections: { goal: 'from the agent' } });
        expect(withSections.body).toMatchObject({ changed: true, author: 'model' });
        const { brief } = (await api.call('session.brief_get', { brief_key: 'k', full: true })).body;
        expect(brief.client_summary).toBeNull();
        expect(brief.sections.status).toBe('');
      } finally {
        await policy.close();
      }
    });
  });
});
