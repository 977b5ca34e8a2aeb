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
});
