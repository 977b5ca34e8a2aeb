import {
  ControllableProvider,
  startOpenAiCompatibleServer,
  startTestLoom,
  tombstoneTurn,
  uniqueNamespace,
  type OpenAiCompatibleServer,
  type TestLoom,
} from '../../testing/src';
import { threadRefKey } from './leases/thread-leases';

const SUMMARY = 'The team moved invoices to ledger v2 and scheduled the nightly reconciliation export.';
const TOPICS = ['zebrafish', 'kangaroo', 'pelican', 'walrus', 'lemur', 'ocelot', 'tapir', 'marmot', 'narwhal', 'quokka', 'axolotl', 'okapi', 'gecko', 'ibis', 'jackal', 'koala'];

describe('Compaction (conversation.compact)', () => {
  const provider = new ControllableProvider();
  let llm: OpenAiCompatibleServer;
  let answer: (prompt: string) => string | Promise<string>;
  let loom: TestLoom;
  let ns: string;

  beforeAll(async () => {
    llm = await startOpenAiCompatibleServer({ chat: (messages) => answer(messages.map((m) => m.content).join('\n')) });
    loom = await startTestLoom({ provider, env: { LOOM_LLM_BASE_URL: llm.baseUrl, LOOM_LLM_MODEL: 'summaries', LOOM_CONVERSATION_TITLER_ENABLED: 'false' } });
  });
  beforeEach(async () => {
    answer = () => SUMMARY;
    provider.failing = false;
    ns = uniqueNamespace();
    await loom.record(ns);
  });
  afterAll(async () => {
    await loom.close();
    await llm.close();
  });

  const storage = () => loom.gateway.runtime.storage;
  const append = (thread: string, i: number, extra: Record<string, unknown> = {}) =>
    loom.admin.ok('conversation.append', {
      namespace: ns,
      thread_id: thread,
      msg_id: `m${String(i).padStart(2, '0')}`,
      role: i % 2 ? 'assistant' : 'user',
      content: `turn ${i}: a note about the ${TOPICS[i % TOPICS.length]} enclosure`,
      ...extra,
    });
  const build = async (thread: string, n: number) => {
    for (let i = 0; i < n; i++) await append(thread, i);
  };
  const compact = (body: Record<string, unknown>) => loom.admin.call('conversation.compact', { namespace: ns, ...body });
  const list = async (thread: string, agent = 'default') =>
    (await loom.admin.ok('conversation.list', { namespace: ns, thread_id: thread, agent, limit: 200 })).messages as Array<{ msg_id: string; role: string; content: string; ts: string; metadata: Record<string, unknown> }>;
  const liveEmbeddings = (thread: string) =>
    storage().query<{ msg_id: string; role: string; agent: string; is_summary: boolean; text: string }>(
      `SELECT msg_id, role, agent, is_summary, text FROM ${storage().tables.conversationEmbeddings} FINAL
       WHERE namespace = {ns:String} AND thread_id = {thread:String} AND deleted = 0 ORDER BY ts, msg_id`,
      { ns, thread },
    );

  it('CONV-COMPACT-01: conversation.compact needs the writer role', async () => {
    await build('t', 16);
    const viewer = await loom.as(ns, 'viewer');
    const refused = await viewer.call('conversation.compact', { thread_id: 't' });
    expect(refused.status).toBe(403);
    expect((await list('t')).map((m) => m.msg_id)).toHaveLength(16);
    const writer = await loom.as(ns, 'writer');
    expect((await writer.call('conversation.compact', { thread_id: 't' })).status).toBe(200);
  });

  it('CONV-COMPACT-01: with no LLM provider configured (the fake one) compact is refused (501) before any change', async () => {
    const bare = await startTestLoom({ provider, env: { LOOM_CONVERSATION_TITLER_ENABLED: 'false' } });
    try {
      await bare.record(ns);
      for (let i = 0; i < 16; i++) await bare.admin.ok('conversation.append', { namespace: ns, thread_id: 't', role: 'user', content: `turn ${i}` });
      const refused = await bare.admin.call('conversation.compact', { namespace: ns, thread_id: 't' });
      expect(refused.status).toBe(501);
      expect(refused.body.error.code).toBe('not_configured');
      expect(refused.body.error.message).toMatch(/LOOM_LLM_BASE_URL/);
      expect((await bare.admin.ok('conversation.list', { namespace: ns, thread_id: 't', limit: 200 })).messages).toHaveLength(16);
    } finally {
      await bare.close();
    }
  });

  it('CONV-COMPACT-04, CONV-COMPACT-05, CONV-COMPACT-06: one embedded system summary turn at the first turn\'s time, compacted_from listing the summarised turns, originals and their embeddings tombstoned', async () => {
    await build('t', 16);
    const before = await list('t');
    const { status, body } = await compact({ thread_id: 't' });
    expect(status).toBe(200);
    expect(body).toMatchObject({ thread_id: 't', compacted: true, messages_summarized: 6 });
    const after = await list('t');
    const summaries = after.filter((m) => m.role === 'system');
    expect(summaries).toHaveLength(1);
    const [summary] = summaries;
    expect(summary!.msg_id).toBe(body.summary_msg_id);
    expect(summary!.content).toBe(SUMMARY);
    expect(summary!.metadata['compacted_from']).toEqual(before.slice(0, 6).map((m) => m.msg_id));
    expect(summary!.ts).toBe(before[0]!.ts);
    // The kept tail is verbatim, after the summary.
    expect(after.map((m) => m.msg_id)).toEqual([summary!.msg_id, ...before.slice(6).map((m) => m.msg_id)]);
    const embedded = await liveEmbeddings('t');
    expect(embedded.map((e) => e.msg_id)).toEqual([summary!.msg_id, ...before.slice(6).map((m) => m.msg_id)]);
    expect(embedded[0]).toMatchObject({ role: 'system', is_summary: true, text: SUMMARY });
  });

  it('CONV-EMBED-06, CONV-SEARCH-08: the summary is embedded and found by search; the tombstoned originals never are', async () => {
    await build('t', 16);
    const { body } = await compact({ thread_id: 't' });
    const hits = (await loom.admin.ok('conversation.search', { namespace: ns, query: 'invoices moved to ledger v2 nightly reconciliation export', namespace_scope: 'namespace' })).hits;
    expect(hits[0]).toMatchObject({ msg_id: body.summary_msg_id, role: 'system' });
    for (const gone of ['zebrafish', 'kangaroo', 'pelican']) {
      const found = await loom.admin.ok('conversation.search', { namespace: ns, query: `turn: a note about the ${gone} enclosure`, namespace_scope: 'namespace' });
      expect(found.hits.map((h: { msg_id: string }) => h.msg_id)).not.toContain(`m0${TOPICS.indexOf(gone)}`);
    }
    await loom.stopEmbedder();
    try {
      const fallback = await loom.admin.ok('conversation.search', { namespace: ns, query: 'zebrafish', namespace_scope: 'namespace', search_mode: 'vector' });
      expect(fallback).toEqual({ hits: [], mode: 'substring' });
      const summaryByWords = await loom.admin.ok('conversation.search', { namespace: ns, query: 'ledger v2', namespace_scope: 'namespace', search_mode: 'vector' });
      expect(summaryByWords.hits.map((h: { msg_id: string }) => h.msg_id)).toEqual([body.summary_msg_id]);
      // Hybrid answers from its BM25 leg [issue 10]: the same turns, retired ones out, the summary in.
      expect(await loom.admin.ok('conversation.search', { namespace: ns, query: 'zebrafish', namespace_scope: 'namespace' })).toEqual({ hits: [], mode: 'lexical' });
      const hybridByWords = await loom.admin.ok('conversation.search', { namespace: ns, query: 'ledger v2', namespace_scope: 'namespace' });
      expect(hybridByWords.mode).toBe('lexical');
      expect(hybridByWords.hits.map((h: { msg_id: string }) => h.msg_id)).toEqual([body.summary_msg_id]);
    } finally {
      await loom.startEmbedder();
    }
  });

  it('CONV-COMPACT-07: a window of fewer than min_to_compact new turns is left alone: no LLM call, nothing tombstoned', async () => {
    await build('t', 13);
    const calls = llm.requests.length;
    const { body } = await compact({ thread_id: 't' });
    expect(body).toEqual({ thread_id: 't', compacted: false, messages_summarized: 0 });
    expect(llm.requests.length).toBe(calls);
    expect(await list('t')).toHaveLength(13);
    const custom = await compact({ thread_id: 't', min_to_compact: 3 });
    expect(custom.body).toMatchObject({ compacted: true, messages_summarized: 3 });
  });

  it('CONV-COMPACT-08: a second compaction folds the first summary in and does not count it', async () => {
    await build('t', 16);
    const first = (await compact({ thread_id: 't' })).body;
    for (let i = 16; i < 20; i++) await append('t', i);
    const prompts: string[] = [];
    answer = (prompt) => {
      prompts.push(prompt);
      return 'Second summary: ledger v2 plus the koala and axolotl notes.';
    };
    const second = (await compact({ thread_id: 't' })).body;
    expect(second).toMatchObject({ compacted: true, messages_summarized: 4 });
    expect(prompts[0]).toContain(SUMMARY);
    const after = await list('t');
    expect(after.map((m) => m.msg_id)).not.toContain(first.summary_msg_id);
    expect(after.filter((m) => m.role === 'system')).toHaveLength(1);
  });

  it('CONV-COMPACT-12, CONV-SENS-16: a high turn stays live out of the window, its text never reaches the summarizer, and it may sit after the summary', async () => {
    for (let i = 0; i < 16; i++) {
      await append('t', i, i === 2 ? { content: 'turn 2: my PIN is 4821, keep it handy' } : {});
    }
    const prompts: string[] = [];
    answer = (prompt) => {
      prompts.push(prompt);
      return SUMMARY;
    };
    const { body } = await compact({ thread_id: 't' });
    expect(body).toMatchObject({ compacted: true, messages_summarized: 5 });
    expect(prompts.join('\n')).not.toContain('4821');
    const after = await list('t');
    expect(after.map((m) => m.msg_id).slice(0, 2)).toEqual([body.summary_msg_id, 'm02']);
    expect(after.find((m) => m.msg_id === 'm02')!.content).toContain('4821');
  });

  it('CONV-COMPACT-15, CONV-SENS-16: a summary that reads as high is never embedded and compacts nothing ("summary-high-sensitivity")', async () => {
    await build('t', 16);
    answer = () => 'They shared the staging password=Hunter2Staging! and moved invoices.';
    const sent = provider.received.length;
    const { status, body } = await compact({ thread_id: 't' });
    expect(status).toBe(200);
    expect(body).toEqual({ thread_id: 't', compacted: false, messages_summarized: 0, reason: 'summary-high-sensitivity' });
    expect(provider.received.slice(sent).join('\n')).not.toContain('Hunter2Staging');
    expect(await list('t')).toHaveLength(16);
    expect((await liveEmbeddings('t')).some((e) => e.is_summary)).toBe(false);
  });

  it('CONV-COMPACT-14: a summary that cannot be embedded compacts nothing ("embed-failed"); a retry with a healthy embedder succeeds', async () => {
    await build('t', 16);
    provider.failing = true;
    const failed = await compact({ thread_id: 't' });
    provider.failing = false;
    expect(failed.body).toEqual({ thread_id: 't', compacted: false, messages_summarized: 0, reason: 'embed-failed' });
    expect(await list('t')).toHaveLength(16);
    expect((await liveEmbeddings('t')).some((e) => e.is_summary)).toBe(false);
    const retried = await compact({ thread_id: 't' });
    expect(retried.body).toMatchObject({ compacted: true, messages_summarized: 6 });
  });

  it('CONV-COMPACT-16: a window of only high turns answers "nothing-to-compact" and writes no summary', async () => {
    for (let i = 0; i < 14; i++) await append('t', i, i < 4 ? { content: `turn ${i}: my SSN is 123-45-678${i}` } : {});
    const calls = llm.requests.length;
    const { body } = await compact({ thread_id: 't' });
    expect(body).toEqual({ thread_id: 't', compacted: false, messages_summarized: 0, reason: 'nothing-to-compact' });
    expect(llm.requests.length).toBe(calls);
    expect((await list('t')).some((m) => m.role === 'system')).toBe(false);
  });

  it('CONV-COMPACT-17, CONV-DELETE-10: a shared embedding row passes to another agent\'s live copy of the turn; the compacting agent\'s search drops it', async () => {
    for (let i = 0; i < 16; i++) await append('t', i);
    // Agent "reviewer" logs the first two turns too (same ids, same text).
    for (let i = 0; i < 2; i++) await append('t', i, { agent: 'reviewer' });
    const { body } = await compact({ thread_id: 't' });
    expect(body).toMatchObject({ compacted: true, messages_summarized: 6 });
    const rows = await liveEmbeddings('t');
    expect(rows.filter((r) => ['m00', 'm01'].includes(r.msg_id))).toEqual([
      expect.objectContaining({ msg_id: 'm00', agent: 'reviewer', role: 'user' }),
      expect.objectContaining({ msg_id: 'm01', agent: 'reviewer', role: 'assistant' }),
    ]);
    expect(rows.map((r) => r.msg_id)).not.toContain('m02');
    const query = 'turn 0: a note about the zebrafish enclosure';
    const asReviewer = await loom.admin.ok('conversation.search', { namespace: ns, agent: 'reviewer', query, namespace_scope: 'namespace' });
    expect(asReviewer.hits[0]).toMatchObject({ msg_id: 'm00', agent: 'reviewer' });
    const asDefault = await loom.admin.ok('conversation.search', { namespace: ns, query, namespace_scope: 'namespace' });
    expect(asDefault.hits.map((h: { msg_id: string }) => h.msg_id)).not.toContain('m00');
  });

  it('a turn removed while the summary was written: nothing is compacted (409) and the summary is not written', async () => {
    await build('t', 16);
    answer = async () => {
      await tombstoneTurn(storage(), { namespace: ns, thread_id: 't', msg_id: 'm01' }, loom.gateway.runtime.plane.fence);
      return SUMMARY;
    };
    const { status, body } = await compact({ thread_id: 't' });
    expect(status).toBe(409);
    expect(body.error.message).toMatch(/run conversation.compact again/);
    const after = await list('t');
    expect(after).toHaveLength(15);
    expect(after.some((m) => m.role === 'system')).toBe(false);
  });

  it('SAVE-LEASE-02: compaction calls the summarizer before it takes the thread lease, and writes only once the lease is free', async () => {
    await build('t', 16);
    const leases = loom.gateway.runtime.plane.threadLeases;
    let release!: () => void;
    const holding = leases.withThread({ namespace: ns, thread_id: 't' }, () => new Promise<void>((r) => (release = r)));
    const calls = llm.requests.length;
    const pending = compact({ thread_id: 't' });
    const deadline = Date.now() + 10_000;
    while (llm.requests.length === calls && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    // The LLM was called while another writer held the thread.
    expect(llm.requests.length).toBe(calls + 1);
    await new Promise((r) => setTimeout(r, 300));
    expect(await list('t')).toHaveLength(16);
    release();
    await holding;
    expect((await pending).body).toMatchObject({ compacted: true });
    expect(threadRefKey({ namespace: ns, thread_id: 't' })).toContain('thread/');
  });

  it('SAVE-LEASE-02: an append embeds before it takes the thread lease; its vector lands once the lease is free', async () => {
    const leases = loom.gateway.runtime.plane.threadLeases;
    let release!: () => void;
    const holding = leases.withThread({ namespace: ns, thread_id: 'held' }, () => new Promise<void>((r) => (release = r)));
    const sent = provider.received.length;
    const pending = loom.admin.ok('conversation.append', { namespace: ns, thread_id: 'held', role: 'user', content: 'embedded while the thread was held' });
    const deadline = Date.now() + 10_000;
    while (provider.received.length === sent && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(provider.received.slice(sent)).toContain('embedded while the thread was held');
    let settled = false;
    void pending.then(() => (settled = true));
    await new Promise((r) => setTimeout(r, 300));
    expect(settled).toBe(false);
    release();
    await holding;
    expect(await pending).toMatchObject({ stored: true });
    expect((await liveEmbeddings('held')).map((e) => e.text)).toEqual(['embedded while the thread was held']);
  });
});
