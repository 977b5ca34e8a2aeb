import { loadConfig } from '@loom/platform';
import { FakeLlmProvider } from '@loom/providers';
import { startOpenAiCompatibleServer, startTestLoom, uniqueNamespace, type OpenAiCompatibleServer, type TestLoom } from '../../testing/src';
import { ThreadMetaRepository } from './threads/thread-meta.repository';
import { ConversationTitler, TITLE_REFUSED } from './titler/titler.service';
import { TitlerWorker } from './titler/titler.worker';
import { InMemoryLeaseManager } from '@loom/leases';

const HOUR = 3_600_000;
const HIGH = ['my PIN is 4821, keep it handy', 'the staging db password=Hunter2Staging!', 'my SSN is 123-45-6789', 'charge my card 4111 1111 1111 1111'];

describe('Titler (conversation_titler)', () => {
  let llm: OpenAiCompatibleServer;
  /** What the model answers next; a function of the prompt so tests can see what it was sent. */
  let answer: (prompt: string) => string | Promise<string>;
  let loom: TestLoom;
  let ns: string;

  beforeAll(async () => {
    llm = await startOpenAiCompatibleServer({ chat: (messages) => answer(messages.map((m) => m.content).join('\n')) });
    loom = await startTestLoom({ env: { LOOM_LLM_BASE_URL: llm.baseUrl, LOOM_LLM_MODEL: 'titles-test' } });
  });
  beforeEach(async () => {
    answer = () => 'Moving invoices to the new ledger';
    ns = uniqueNamespace();
    await loom.record(ns);
  });
  afterAll(async () => {
    await loom.close();
    await llm.close();
  });

  // Every turn carries its test's namespace, so the model's requests can be told apart by test.
  const append = (thread: string, content: string, role = 'user') =>
    loom.admin.ok('conversation.append', { namespace: ns, thread_id: thread, role, content: `${content} [${ns}]` });
  const appendTurns = async (thread: string, n: number, text = (i: number) => `turn ${i} about the invoice ledger export`) => {
    for (let i = 0; i < n; i++) await append(thread, text(i), i % 2 === 0 ? 'user' : 'assistant');
  };
  const thread = async (id: string) => (await loom.admin.ok('conversation.get', { namespace: ns, thread_id: id })).thread;
  const pass = (now = new Date()) => loom.gateway.runtime.titler!.runOnce(now);
  /** Chat requests the model received for this test's threads. */
  const calls = () => llm.requests.filter((r) => r.path === '/v1/chat/completions' && JSON.stringify(r.body).includes(ns)).length;
  /** Records this test's prompts, answering `title`. */
  const recordPrompts = (title: string): string[] => {
    const prompts: string[] = [];
    answer = (prompt) => {
      if (prompt.includes(ns)) prompts.push(prompt);
      return title;
    };
    return prompts;
  };

  it('CONV-TITLE-01: an untitled thread built by appends gets a short LLM-written title, shown by get and threads', async () => {
    await appendTurns('t1', 4);
    const report = await pass();
    expect(report!.threads).toContainEqual({ namespace: ns, thread_id: 't1', outcome: 'titled' });
    expect((await thread('t1')).title).toBe('Moving invoices to the new ledger');
    const { threads } = await loom.admin.ok('conversation.threads', { namespace: ns });
    expect(threads.find((t: { thread_id: string }) => t.thread_id === 't1').title).toBe('Moving invoices to the new ledger');
    const metrics = await (await fetch(`${loom.url}/metrics`)).text();
    expect(metrics).toMatch(/loom_titler_threads_total\{[^}]*outcome="titled"[^}]*\} [1-9]/);
    expect(metrics).toMatch(/loom_llm_tokens_total\{[^}]*purpose="titler"[^}]*\} [1-9]/);
  });

  it('CONV-TITLE-02: a thread titled by create or update is never re-titled, and costs no LLM call', async () => {
    await loom.admin.ok('conversation.create', { namespace: ns, thread_id: 'made', title: 'Chosen by a person' });
    await appendTurns('made', 4);
    await appendTurns('renamed', 4);
    await loom.admin.ok('conversation.update', { namespace: ns, thread_id: 'renamed', title: 'Renamed by a person' });
    const before = calls();
    const report = await pass();
    expect(report!.threads.filter((t) => t.namespace === ns)).toEqual([]);
    expect(calls()).toBe(before);
    expect((await thread('made')).title).toBe('Chosen by a person');
    expect((await thread('renamed')).title).toBe('Renamed by a person');
  });

  it('CONV-TITLE-03: threads of a namespace that does not record get no title', async () => {
    await appendTurns('quiet', 4);
    await loom.admin.ok('conversation.set_logging', { namespace: ns, enabled: false });
    const report = await pass();
    expect(report!.threads.filter((t) => t.namespace === ns)).toEqual([]);
    expect((await thread('quiet')).title).toBeNull();
  });

  it('CONV-TITLE-04: only threads active within LOOM_CONVERSATION_TITLER_WINDOW_HOURS (168) are titled: 169 hours idle is skipped', async () => {
    await appendTurns('old', 4);
    const idle169 = await pass(new Date(Date.now() + 169 * HOUR));
    expect(idle169!.threads.filter((t) => t.namespace === ns)).toEqual([]);
    expect((await thread('old')).title).toBeNull();
    const idle167 = await pass(new Date(Date.now() + 167 * HOUR));
    expect(idle167!.threads).toContainEqual({ namespace: ns, thread_id: 'old', outcome: 'titled' });
  });

  it('CONV-TITLE-05: a thread needs LOOM_CONVERSATION_TITLER_MIN_TURNS (4) turns: 3 are skipped, 4 are titled', async () => {
    await appendTurns('three', 3);
    await appendTurns('four', 4);
    const report = await pass();
    const mine = report!.threads.filter((t) => t.namespace === ns);
    expect(mine).toEqual([{ namespace: ns, thread_id: 'four', outcome: 'titled' }]);
    expect((await thread('three')).title).toBeNull();
  });

  it('CONV-TITLE-06: one pass titles at most LOOM_CONVERSATION_TITLER_MAX_THREADS_PER_PASS (10) threads: of 15 eligible, 10; the next pass the other 5', async () => {
    for (let t = 0; t < 15; t++) await appendTurns(`many-${t}`, 4);
    const first = await pass();
    expect(first!.threads.filter((t) => t.outcome === 'titled')).toHaveLength(10);
    const second = await pass();
    expect(second!.threads.filter((t) => t.namespace === ns && t.outcome === 'titled')).toHaveLength(5);
    for (let t = 0; t < 15; t++) expect((await thread(`many-${t}`)).title).toBe('Moving invoices to the new ledger');
  });

  it('CONV-TITLE-08: with the fake LLM provider the titler writes nothing and raises no error; `loom up` does not even start it', async () => {
    await appendTurns('fake', 4);
    const storage = loom.gateway.runtime.storage;
    const fake = new ConversationTitler(storage, new ThreadMetaRepository(storage), new FakeLlmProvider(), loadConfig({}).titler);
    const report = await fake.pass();
    expect(report.threads).toContainEqual({ namespace: ns, thread_id: 'fake', outcome: 'empty' });
    expect((await thread('fake')).title).toBeNull();
    expect((await thread('fake')).metadata).toEqual({});
    expect(loadConfig({}).llm.provider).toBe('fake');
  });

  it('CONV-TITLE-10, CONV-SENS-08: a high turn among the opening turns never reaches the LLM; the plain ones do', async () => {
    await append('mixed', 'we are moving the invoices to the new ledger');
    await append('mixed', HIGH[0]!, 'assistant');
    await append('mixed', 'and the export job needs the new table', 'user');
    await append('mixed', HIGH[1]!, 'assistant');
    const prompts = recordPrompts('Ledger move');
    await pass();
    expect(prompts).toHaveLength(1);
    expect(prompts[0]).toContain('we are moving the invoices to the new ledger');
    expect(prompts[0]).toContain('the export job needs the new table');
    for (const high of HIGH) expect(prompts[0]).not.toContain(high);
    expect(prompts[0]).not.toContain('4821');
    expect(prompts[0]).not.toContain('Hunter2Staging');
    expect((await thread('mixed')).title).toBe('Ledger move');
  });

  it('CONV-SENS-09: a thread whose first eight user/assistant turns are all high stays untitled, is marked title_refused, and later passes make no LLM call for it', async () => {
    for (let i = 0; i < 8; i++) await append('all-high', `${HIGH[i % 4]} (${i})`, i % 2 === 0 ? 'user' : 'assistant');
    await append('all-high', 'a plain ninth turn about the ledger');
    const before = calls();
    const report = await pass();
    expect(report!.threads).toContainEqual({ namespace: ns, thread_id: 'all-high', outcome: 'refused' });
    expect(calls()).toBe(before);
    const refused = await thread('all-high');
    expect(refused.title).toBeNull();
    expect(refused.metadata).toEqual({ [TITLE_REFUSED]: true });
    const again = await pass();
    expect(again!.threads.filter((t) => t.namespace === ns)).toEqual([]);
    expect(calls()).toBe(before);
  });

  it('CONV-SENS-10: a thread whose generated title reads as high stays untitled and is marked title_refused', async () => {
    await loom.admin.ok('conversation.create', { namespace: ns, thread_id: 'leaky', metadata: { team: 'billing' } });
    await appendTurns('leaky', 4);
    answer = () => 'Reset password=Hunter2Staging! on staging';
    const report = await pass();
    expect(report!.threads).toContainEqual({ namespace: ns, thread_id: 'leaky', outcome: 'refused' });
    const leaky = await thread('leaky');
    expect(leaky.title).toBeNull();
    // The mark joins the thread's own metadata.
    expect(leaky.metadata).toEqual({ team: 'billing', [TITLE_REFUSED]: true });
  });

  it('CONV-SENS-11: fewer than eight opening turns, all high: untitled and unmarked, no LLM call; a later pass titles it once a plain turn arrives', async () => {
    for (let i = 0; i < 4; i++) await append('waits', HIGH[i]!, i % 2 === 0 ? 'user' : 'assistant');
    const before = calls();
    const report = await pass();
    expect(report!.threads).toContainEqual({ namespace: ns, thread_id: 'waits', outcome: 'waiting' });
    expect(calls()).toBe(before);
    expect(await thread('waits')).toMatchObject({ title: null, metadata: {} });
    await append('waits', 'so the plan is to move invoices to the new ledger', 'assistant');
    const prompts = recordPrompts('Invoice ledger plan');
    await pass();
    expect((await thread('waits')).title).toBe('Invoice ledger plan');
    expect(prompts[0]).toContain('move invoices to the new ledger');
    for (const high of HIGH) expect(prompts[0]).not.toContain(high);
  });

  it('CONV-SENS-12: new metadata through conversation.update replaces title_refused; the titler tries exactly once more and marks the thread again', async () => {
    await appendTurns('retry', 4);
    answer = () => 'Card 4111 1111 1111 1111 refund';
    await pass();
    expect((await thread('retry')).metadata).toEqual({ [TITLE_REFUSED]: true });
    const afterFirst = calls();
    await loom.admin.ok('conversation.update', { namespace: ns, thread_id: 'retry', metadata: { owner: 'billing' } });
    expect((await thread('retry')).metadata).toEqual({ owner: 'billing' });
    await pass();
    expect(calls()).toBe(afterFirst + 1);
    expect(await thread('retry')).toMatchObject({ title: null, metadata: { owner: 'billing', [TITLE_REFUSED]: true } });
    await pass();
    expect(calls()).toBe(afterFirst + 1);
  });

  it("a person's update made while the LLM call runs wins over the titler's write, whichever lands first", async () => {
    await appendTurns('race', 4);
    answer = async () => {
      await loom.admin.ok('conversation.update', { namespace: ns, thread_id: 'race', title: 'Named during the call' });
      return 'Generated title';
    };
    const report = await pass();
    expect(report!.threads).toContainEqual({ namespace: ns, thread_id: 'race', outcome: 'superseded' });
    expect((await thread('race')).title).toBe('Named during the call');
  });

  it('a failed LLM call writes nothing and the thread waits before it is asked again (no call per pass)', async () => {
    await appendTurns('flaky', 4);
    llm.setFailure(503);
    try {
      const report = await pass();
      expect(report!.threads).toContainEqual({ namespace: ns, thread_id: 'flaky', outcome: 'failed' });
    } finally {
      llm.setFailure(undefined);
    }
    expect((await thread('flaky')).title).toBeNull();
    const soon = await pass();
    expect(soon!.threads.filter((t) => t.namespace === ns)).toEqual([]);
    const later = await pass(new Date(Date.now() + HOUR));
    expect(later!.threads).toContainEqual({ namespace: ns, thread_id: 'flaky', outcome: 'titled' });
  });

  it('one pass runs at a time: a second worker on the same lease skips its turn while the first holds it', async () => {
    await appendTurns('lease', 4);
    const storage = loom.gateway.runtime.storage;
    const leases = new InMemoryLeaseManager(10_000);
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const slow = new ConversationTitler(storage, new ThreadMetaRepository(storage), { name: 'slow', model: 'slow', complete: async () => (await held, { text: 'Slow title' }) }, loadConfig({}).titler);
    const first = new TitlerWorker(slow, leases, 86_400_000).runOnce();
    await new Promise((r) => setTimeout(r, 200));
    await expect(new TitlerWorker(slow, leases, 86_400_000).runOnce()).resolves.toBeUndefined();
    release();
    expect((await first)!.threads).toContainEqual({ namespace: ns, thread_id: 'lease', outcome: 'titled' });
  });
});

describe('Titler switch', () => {
  it('CONV-TITLE-07: LOOM_CONVERSATION_TITLER_ENABLED=false stops every title write, even with a real LLM configured', async () => {
    const llm = await startOpenAiCompatibleServer({ chat: () => 'Should never be written' });
    const loom = await startTestLoom({
      env: { LOOM_LLM_BASE_URL: llm.baseUrl, LOOM_LLM_MODEL: 'm', LOOM_CONVERSATION_TITLER_ENABLED: 'false', LOOM_CONVERSATION_TITLER_INTERVAL_SECONDS: '1' },
    });
    try {
      expect(loadConfig({}).titler.enabled).toBe(true);
      const ns = uniqueNamespace();
      await loom.record(ns);
      for (let i = 0; i < 4; i++) await loom.admin.ok('conversation.append', { namespace: ns, thread_id: 'off', role: 'user', content: `turn ${i}` });
      expect(loom.gateway.runtime.titler).toBeUndefined();
      await new Promise((r) => setTimeout(r, 2_500));
      expect((await loom.admin.ok('conversation.get', { namespace: ns, thread_id: 'off' })).thread.title).toBeNull();
      expect(llm.requests).toHaveLength(0);
    } finally {
      await loom.close();
      await llm.close();
    }
  });
});

describe("Loom's own model spend", () => {
  it('TRACE-02: every LLM call Loom makes is counted per operation (titler, summarizer, brief, extraction) with its tokens and its cost', async () => {
    const llm = await startOpenAiCompatibleServer({
      chat: (messages) => (messages.some((m) => m.content.includes('JSON:')) ? '{"goal":"g"}' : messages.some((m) => m.content.includes('Facts:')) ? '- a fact about ledgers' : 'A short answer'),
    });
    // $1 per million input tokens and $2 per million output tokens.
    const loom = await startTestLoom({ env: { LOOM_LLM_BASE_URL: llm.baseUrl, LOOM_LLM_MODEL: 'm', LOOM_MODEL_PRICES: '{"m":{"input":1,"output":2}}' } });
    try {
      const ns = uniqueNamespace();
      await loom.record(ns);
      for (let i = 0; i < 16; i++) await loom.admin.ok('conversation.append', { namespace: ns, thread_id: 't', role: i % 2 ? 'assistant' : 'user', content: `turn ${i} about the ledger` });
      await loom.gateway.runtime.titler!.runOnce();
      await loom.admin.ok('conversation.compact', { namespace: ns, thread_id: 't' });
      await loom.admin.ok('session.brief_save', { namespace: ns, brief_key: 'k', events: [{ kind: 'note', text: 'x' }] });
      await loom.admin.ok('memory.set_from_messages', { namespace: ns, messages: [{ role: 'user', content: 'ledgers' }] });
      const metrics = await (await fetch(`${loom.url}/metrics`)).text();
      for (const purpose of ['titler', 'summarizer', 'brief', 'extraction']) {
        expect(metrics).toMatch(new RegExp(`loom_llm_calls_total\\{[^}]*purpose="${purpose}"[^}]*outcome="ok"[^}]*\\} [1-9]`));
        expect(metrics).toMatch(new RegExp(`loom_llm_tokens_total\\{[^}]*purpose="${purpose}"[^}]*direction="input"[^}]*\\} [1-9]`));
        const tokens = (direction: string) => Number(new RegExp(`loom_llm_tokens_total\\{[^}]*purpose="${purpose}"[^}]*direction="${direction}"[^}]*\\} (\\S+)`).exec(metrics)![1]);
        const cost = Number(new RegExp(`loom_llm_cost_usd_total\\{[^}]*purpose="${purpose}"[^}]*model="m"[^}]*\\} (\\S+)`).exec(metrics)![1]);
        expect(cost).toBeCloseTo((tokens('input') * 1 + tokens('output') * 2) / 1e6, 12);
      }
    } finally {
      await loom.close();
      await llm.close();
    }
  });
});
