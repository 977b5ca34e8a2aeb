import { startTestLoom, uniqueNamespace, type TestLoom } from '../../testing/src';
import { Agent, LoomApiError } from './index';

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
});
