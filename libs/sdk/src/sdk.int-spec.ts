import { startTestLoom, uniqueNamespace, type TestLoom } from '../../testing/src';
import { OpNames } from '@loom/contracts';
import { Agent, createLoomClient, LoomApiError, OP_NAMES, OP_ROLES } from './index';

describe('SDK: Agent and Session', () => {
  let loom: TestLoom;
  let ns: string;
  let token: string;
  beforeAll(async () => {
    loom = await startTestLoom({ env: { LOOM_CONVERSATION_TITLER_ENABLED: 'false' } });
  });
  beforeEach(async () => {
    ns = uniqueNamespace();
    token = (await loom.admin.ok('token.create', { namespace: ns, role: 'writer' })).token;
  });
  afterAll(async () => loom.close());

  const turns = async (thread: string, agent: string) => (await loom.admin.ok('conversation.list', { namespace: ns, thread_id: thread, agent })).messages;

  it('SDK-SESSION-01, SDK-SESSION-02: a Session is bound to one thread and user; append writes each message through conversation.append', async () => {
    await loom.record(ns);
    const bot = new Agent(ns, 'local', 'support-bot', { baseUrl: loom.url, token });
    const s = bot.session('thread-42', { user_id: 'u1' });
    const answers = await s.append(
      { role: 'user', content: 'We moved invoices to the new ledger.' },
      { role: 'assistant', content: "Noted; I'll update the export job." },
    );
    expect(answers.map((a) => a.stored)).toEqual([true, true]);
    const stored = await turns('thread-42', 'support-bot');
    expect(stored.map((t: { role: string; content: string; user_id: string; metadata: object }) => [t.role, t.content, t.user_id, t.metadata])).toEqual([
      ['user', 'We moved invoices to the new ledger.', 'u1', { environment: 'local' }],
      ['assistant', "Noted; I'll update the export job.", 'u1', { environment: 'local' }],
    ]);
    await bot.close();
    await expect(s.append({ role: 'user', content: 'after close' })).rejects.toThrow(/closed/);
  });

  it('SDK-SESSION-03, CONV-REC-11: after an append, transcript_stored is false when the namespace does not record and true when it does', async () => {
    const bot = new Agent(ns, 'local', 'support-bot', { baseUrl: loom.url, token });
    const s = bot.session('thread-42', { user_id: 'u1' });
    expect(s.transcript_stored).toBeUndefined();
    await s.append({ role: 'user', content: 'not recorded yet' });
    expect(s.transcript_stored).toBe(false);
    await loom.record(ns);
    await s.append({ role: 'user', content: 'recorded now' });
    expect(s.transcript_stored).toBe(true);
    // Sending the same turn again is a duplicate: it is stored (earlier), so still true.
    await s.append({ role: 'user', content: 'recorded now' });
    expect(s.transcript_stored).toBe(true);
    await bot.close();
  });

  it('[issue 12: typed SDK] createLoomClient has a method for every op of the contracts, each calling its op with the token (the token.* and run.* areas included)', async () => {
    expect([...OP_NAMES]).toEqual(OpNames);
    const loomClient = createLoomClient({ baseUrl: loom.url, token: loom.admin.token });
    const methods = OP_NAMES.map((op) => {
      const [area, method] = op.split('.') as [string, string];
      return typeof (loomClient as unknown as Record<string, Record<string, unknown>>)[area]?.[method];
    });
    expect(new Set(methods)).toEqual(new Set(['function']));
    expect(OP_ROLES['conversation.delete']).toBe('admin');
    const { tokens } = await loomClient.token.list({ namespace: ns });
    expect(tokens.map((t) => t.role)).toContain('writer');
    const { run } = await loomClient.run.begin({ namespace: ns, goal: 'typed client' });
    expect((await loomClient.call('run.get', { namespace: ns, run_id: run.run_id })).run.goal).toBe('typed client');
    expect(await loomClient.settings.get()).toHaveProperty('conversation_search_default_mode');
    const refused = await createLoomClient({ baseUrl: loom.url, token }).conversation.delete({ namespace: ns, thread_id: 't', confirm_thread_id: 't' }).catch((e: unknown) => e);
    expect(refused).toMatchObject({ status: 403, code: 'forbidden', correlationId: expect.any(String) });
  });

  it('errors carry the API code, status and fields', async () => {
    const bot = new Agent(ns, 'local', 'support-bot', { baseUrl: loom.url, token: 'loom_wrong' });
    const error = await bot.session('t').append({ role: 'user', content: 'x' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LoomApiError);
    expect(error).toMatchObject({ status: 401, code: 'unauthorized' });
    const good = new Agent(ns, 'local', 'support-bot', { baseUrl: loom.url, token });
    const bad = await good.session('t').append({ role: 'boss' as never, content: 'x' }).catch((e: unknown) => e);
    expect(bad).toMatchObject({ status: 400, code: 'invalid_input', fields: [expect.objectContaining({ field: 'role' })] });
  });

  it('closes its sessions when disposed (await using)', async () => {
    const bot = new Agent(ns, 'local', 'support-bot', { baseUrl: loom.url, token });
    const s = bot.session('t');
    await bot[Symbol.asyncDispose]();
    await expect(s.append({ role: 'user', content: 'x' })).rejects.toThrow(/closed/);
  });

  it('SDK-SESSION-04, SDK-SESSION-05, SDK-SESSION-06: every flush_every turns, and at close, the turns go to memory.set_from_messages whether or not the namespace records; with the fake LLM no facts, and recorded turns stay recorded', async () => {
    const bot = new Agent(ns, 'local', 'support-bot', { baseUrl: loom.url, token });
    const s = bot.session('thread-7', { user_id: 'u1', flush_every: 2 });
    // Recording off: nothing is kept in the transcript, but extraction still gets the turns.
    await s.append({ role: 'user', content: 'The export job reads ledger_v2.' }, { role: 'assistant', content: 'Noted.' }, { role: 'user', content: 'Backfill runs on Fridays.' });
    expect(s.transcript_stored).toBe(false);
    expect(s.extractions).toHaveLength(1);
    expect(s.extractions[0]).toMatchObject({ deferred: true, evidence: 2 });
    await loom.record(ns);
    await s.append({ role: 'assistant', content: 'Friday backfill it is.' });
    expect(s.transcript_stored).toBe(true);
    await s.close();
    expect(s.extractions).toHaveLength(2);
    expect(s.extractions[1]).toMatchObject({ evidence: 2 });
    await loom.gateway.runtime.memory.close();
    const recalled = await loom.admin.ok('memory.recall', { namespace: ns, query: 'backfill Friday' });
    expect(recalled.hits.map((h: { session_id: string }) => h.session_id)).toContain('thread-7');
    expect((await loom.admin.ok('memory.search', { namespace: ns, query: 'backfill Friday ledger_v2' })).hits).toEqual([]);
    expect((await turns('thread-7', 'support-bot')).map((t: { content: string }) => t.content)).toEqual(['Friday backfill it is.']);
    await bot.close();
  });

  it('SDK-SESSION-08: bot.briefs.save(project, branch, sections) saves auto/<project>/<branch> with author "model"', async () => {
    const bot = new Agent(ns, 'local', 'support-bot', { baseUrl: loom.url, token });
    const saved = await bot.briefs.save({ project: 'billing', branch: 'ledger-move', sections: { goal: 'Move invoices to the new ledger', next_steps: ['Update the export job'] } });
    expect(saved).toMatchObject({ brief_key: 'auto/billing/ledger-move', author: 'model', changed: true, revision: 1 });
    const { brief } = await loom.admin.ok('session.brief_get', { namespace: ns, brief_key: 'auto/billing/ledger-move' });
    expect(brief.sections).toMatchObject({ goal: 'Move invoices to the new ledger', next_steps: ['Update the export job'] });
    await bot.close();
  });

  it('SDK-SESSION-07: resume returns context.pack for the (user, session) scope with the transcript tail', async () => {
    await loom.record(ns);
    const bot = new Agent(ns, 'local', 'support-bot', { baseUrl: loom.url, token });
    const s = bot.session('thread-42', { user_id: 'u1', flush_every: 100 });
    await s.append(
      { role: 'user', content: 'We are moving invoices to the ledger_v2 table for the billing migration.' },
      { role: 'assistant', content: 'Understood: the billing migration moves invoices to ledger_v2.' },
      { role: 'user', content: 'Next, the export job.' },
    );
    await loom.admin.ok('memory.set', { namespace: ns, text: 'The billing migration moves invoices to ledger_v2.', user_id: 'u1' });
    await loom.admin.ok('memory.set', { namespace: ns, text: 'The billing migration of another user is secret to them.', user_id: 'u2' });
    const resumed = await s.resume({ query: 'resume the billing migration', tail: 2 });
    expect(resumed.tail.map((t) => t.content)).toEqual(['Understood: the billing migration moves invoices to ledger_v2.', 'Next, the export job.']);
    expect(resumed.context.scope).toEqual({ user_id: 'u1', session_id: 'thread-42' });
    expect(resumed.context.memories.map((m) => m.text)).toEqual(['The billing migration moves invoices to ledger_v2.']);
    expect(resumed.context.conversation.length).toBeGreaterThan(0);
    expect(resumed.context.conversation.every((h) => h.thread_id === 'thread-42')).toBe(true);
    expect(resumed.context.pack).toContain('# Context for: resume the billing migration');
    expect(resumed.context.pack).toContain('## Facts\n- The billing migration moves invoices to ledger_v2.');
    expect(resumed.context.pack).toContain('## Earlier in this session');
    expect(resumed.context.pack).not.toContain('secret to them');
    await bot.close();
  });

  it('resume of a session nothing was recorded in has an empty tail and a pack that says so', async () => {
    const bot = new Agent(ns, 'local', 'support-bot', { baseUrl: loom.url, token });
    const resumed = await bot.session('never-recorded', { user_id: 'u9' }).resume({ query: 'anything about ledgers' });
    expect(resumed.tail).toEqual([]);
    expect(resumed.context.pack).toBe('# Context for: anything about ledgers\n\nNothing recorded bears on this yet.');
    await bot.close();
  });

  it('RUNS-01, RUNS-03: bot.runs tracks a run around work, a Session links its turns to it, and reported usage gives it a cost', async () => {
    await loom.record(ns);
    const bot = new Agent(ns, 'local', 'support-bot', { baseUrl: loom.url, token });
    const result = await bot.runs.track(
      'Move invoices to the new ledger',
      async (run) => {
        const s = bot.session('thread-run', { run_id: run.run_id });
        await s.append({ role: 'user', content: 'inside the run' });
        await bot.runs.reportUsage(run.run_id, [{ usage_id: 'call-1', model: 'claude-sonnet-4-5', input_tokens: 1_000_000, output_tokens: 0 }]);
        return run.run_id;
      },
      () => 'export job moved',
    );
    const run = await bot.runs.get(result);
    expect(run).toMatchObject({ goal: 'Move invoices to the new ledger', status: 'succeeded', outcome: 'export job moved', agent: 'support-bot' });
    expect(run.model_cost).toMatchObject({ reports: 1, cost_usd: 3 });
    expect((await loom.admin.ok('conversation.list', { namespace: ns, thread_id: 'thread-run', agent: 'support-bot', run_id: result })).messages).toHaveLength(1);
    await expect(bot.runs.track('doomed', async () => Promise.reject(new Error('the export job crashed')))).rejects.toThrow('the export job crashed');
    const [failed] = (await bot.runs.list({ status: 'failed' })).runs;
    expect(failed).toMatchObject({ goal: 'doomed', outcome: 'the export job crashed' });
    await bot.close();
  });

  it('[issue 10: SDK search] Agent.search is hybrid by default, takes search_mode and lexical_weight, and refuses an unknown mode with the field named', async () => {
    await loom.record(ns);
    const bot = new Agent(ns, 'local', 'support-bot', { baseUrl: loom.url, token });
    await bot.session('t').append({ role: 'assistant', content: 'The export failed in parseLedgerRows at src/export/rows.ts.' }, { role: 'user', content: 'thanks' });
    const hybrid = await bot.search('ledger rows');
    expect(hybrid.mode).toBe('hybrid');
    expect(hybrid.hits[0]).toMatchObject({ agent: 'support-bot', excerpt: 'The export failed in parseLedgerRows at src/export/rows.ts.' });
    const lexical = await bot.search('rows.ts', { search_mode: 'lexical', limit: 5 });
    expect(lexical.mode).toBe('lexical');
    expect(lexical.hits).toHaveLength(1);
    expect((await bot.search('ledger rows', { lexical_weight: 1 })).hits[0]!.excerpt).toContain('parseLedgerRows');
    const refused = await bot.search('x', { search_mode: 'fuzzy' as never }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(LoomApiError);
    expect((refused as LoomApiError).fields.map((f) => f.field)).toEqual(['search_mode']);
    await bot.close();
  });
});
