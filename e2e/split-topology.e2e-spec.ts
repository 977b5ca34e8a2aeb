import { Storage } from '@loom/clickhouse';
import {
  countRows,
  describeApiChecks,
  LoomApi,
  startOpenAiCompatibleServer,
  startSplitTopology,
  uniqueNamespace,
  type OpenAiCompatibleServer,
  type SplitTopology,
} from '../libs/testing/src';

/**
 * The production shape as separate processes — a development ClickHouse endpoint over chDB,
 * a NATS server, two embedder replicas in queue group `embedder`, the gateway, two titler
 * replicas — running the same API checks as the embedded topology.
 */
describe('split topology (separate processes on NATS)', () => {
  let topology: SplitTopology;
  let storage: Storage;
  let llm: OpenAiCompatibleServer;
  beforeAll(async () => {
    llm = await startOpenAiCompatibleServer({
      chat: (messages) => {
        const text = messages.map((m) => m.content).join(' ');
        // A brief revision: JSON, unless the events ask the model to fail.
        if (text.includes('What happened since:')) return text.includes('unparseable') ? 'no JSON here' : JSON.stringify({ goal: 'Move invoices to the ledger', status: 'export job next' });
        return `Title ${/thread-(\d+)/.exec(text)?.[1] ?? 'x'}`;
      },
    });
    topology = await startSplitTopology({
      embedders: 2,
      titlers: 2,
      erasers: 1,
      compactors: 1,
      condensers: 1,
      gateways: 2,
      // Both gateways look for due deferred extractions every 100 ms, so their looks race. The
      // erasure service polls every 10 minutes: the erasures the test sees done were nudged over NATS.
      env: { LOOM_LLM_BASE_URL: llm.baseUrl, LOOM_LLM_MODEL: 'titles', LOOM_CONVERSATION_TITLER_INTERVAL_SECONDS: '1', LOOM_MEMORY_EXTRACTION_POLL_MS: '100', LOOM_ERASURE_POLL_MS: '600000', LOOM_ERASURE_RUNS_IN: 'service', LOOM_COMPACTION_RUNS_IN: 'service', LOOM_BRIEFS_RUNS_IN: 'service', LOOM_RETENTION_CONVERSATIONS_DAYS: '3650' },
    });
    storage = Storage.open({ url: topology.clickhouseUrl, database: topology.database, dataDir: '/nonexistent' });
  }, 120_000);
  afterAll(async () => {
    await storage?.close();
    await topology?.close();
    await llm?.close();
  });

  describeApiChecks('split', () => ({
    admin: topology.admin,
    storage,
    as: async (ns, role) => topology.admin.withToken((await topology.admin.ok('token.create', { namespace: ns, role })).token),
    stopEmbedder: () => topology.stopEmbedders(),
    startEmbedder: () => topology.startEmbedders(2),
  }));

  it('CONV-TITLE-01 (split): two titler replicas title untitled threads, one pass at a time, so each thread costs one LLM call', async () => {
    const ns = uniqueNamespace();
    await topology.admin.ok('conversation.set_logging', { namespace: ns, enabled: true });
    for (let t = 0; t < 3; t++) {
      for (let i = 0; i < 4; i++) {
        await topology.admin.ok('conversation.append', { namespace: ns, thread_id: `t${t}`, role: i % 2 ? 'assistant' : 'user', content: `thread-${t} ${ns} turn ${i}` });
      }
    }
    const titles = async () =>
      Promise.all([0, 1, 2].map(async (t) => (await topology.admin.ok('conversation.get', { namespace: ns, thread_id: `t${t}` })).thread.title as string | null));
    const deadline = Date.now() + 30_000;
    while ((await titles()).some((t) => t === null) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 250));
    expect(await titles()).toEqual(['Title 0', 'Title 1', 'Title 2']);
    // A few more passes by both replicas: nobody asks again.
    await new Promise((r) => setTimeout(r, 2_500));
    for (let t = 0; t < 3; t++) {
      const asked = llm.requests.filter((r) => JSON.stringify(r.body).includes(`thread-${t} ${ns}`));
      expect(asked).toHaveLength(1);
    }
  });

  it('CONV-APPEND-06 across two gateway replicas: each of 100 new turns sent to both at once is stored once, and exactly one of the two answers stored:true', async () => {
    const ns = uniqueNamespace();
    await topology.admin.ok('conversation.set_logging', { namespace: ns, enabled: true });
    const apis = topology.urls.map((u) => new LoomApi(u, topology.admin.token));
    const results = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        Promise.all(apis.map((api) => api.ok('conversation.append', { namespace: ns, thread_id: `race-${i % 10}`, msg_id: `m-${i}`, role: 'user', content: `turn ${i}, sent to both replicas at once` }))),
      ),
    );
    const storedTwice = results.filter((pair) => pair.every((r) => r.stored));
    expect(storedTwice).toEqual([]);
    expect(results.every((pair) => pair.filter((r) => r.stored).length === 1)).toBe(true);
    // Every row, not only the latest version: the loser wrote nothing.
    expect(await countRows(storage, 'conversations', { namespace: ns }, false)).toBe(100);
  });

  it('[issue 11: durable events] deferred extractions accepted by either gateway run once each in the brief condenser (LOOM_BRIEFS_RUNS_IN=service), handed over on JetStream and found by its poll as well (NATS KV leases)', async () => {
    const ns = uniqueNamespace();
    const apis = topology.urls.map((u) => new LoomApi(u, topology.admin.token));
    const accepted = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        apis[i % 2]!.ok('memory.set_from_messages', { namespace: ns, defer: true, messages: [{ role: 'user', content: `marker-${ns}-${i}: the ledger moved` }] }),
      ),
    );
    const status = (id: string) => topology.admin.ok('memory.extraction_status', { namespace: ns, extraction_id: id });
    const deadline = Date.now() + 30_000;
    while ((await Promise.all(accepted.map((a) => status(a.extraction_id)))).some((s) => s.status !== 'done') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect((await Promise.all(accepted.map((a) => status(a.extraction_id)))).map((s) => [s.status, s.attempts])).toEqual(accepted.map(() => ['done', 1]));
    for (let i = 0; i < 10; i++) expect(llm.requests.filter((r) => JSON.stringify(r.body).includes(`marker-${ns}-${i}:`))).toHaveLength(1);
  });

  it('CONV-RET-08 (split): erasures accepted by either gateway are stored and run by the erasure service (LOOM_ERASURE_RUNS_IN=service) as soon as the gateway nudges it over NATS, readable from the other gateway; a waiting request answers when the service is done; the tombstones are written over HTTP inside the server', async () => {
    const ns = uniqueNamespace();
    const [a, b] = topology.urls.map((u) => new LoomApi(u, topology.admin.token)) as [LoomApi, LoomApi];
    await a.ok('conversation.set_logging', { namespace: ns, enabled: true });
    for (let i = 0; i < 20; i++) await (i % 2 ? a : b).ok('conversation.append', { namespace: ns, thread_id: `t${i % 4}`, msg_id: `m${i}`, role: 'user', content: `turn ${i} about the ledger`, user_id: i < 10 ? 'gone' : 'stays' });
    const accepted = await a.ok('erasure.request', { namespace: ns, user_id: 'gone', wait: false });
    expect(accepted.status).toBe('pending');
    let status = accepted;
    for (const deadline = Date.now() + 30_000; status.status === 'pending' && Date.now() < deadline; ) {
      await new Promise((r) => setTimeout(r, 100));
      status = await b.ok('erasure.status', { namespace: ns, erasure_id: accepted.erasure_id });
    }
    expect(status).toMatchObject({ status: 'done', attempts: 1, erased: { turns: 10, embeddings: 10 } });
    const listed = await Promise.all(['t0', 't1', 't2', 't3'].map((t) => b.ok('conversation.list', { namespace: ns, thread_id: t })));
    expect(listed.flatMap((l) => l.messages.map((m: { user_id: string }) => m.user_id)).sort()).toEqual(Array(10).fill('stays'));
    // A waiting request answers done, with what it erased (nothing is left of that person).
    expect(await b.ok('erasure.request', { namespace: ns, user_id: 'gone' })).toMatchObject({ status: 'done', erased: { turns: 0 } });
    // The erasure service ran both; the gateways only stored them.
    const eraser = topology.processes().find((p) => p.name === 'erasure-1')!;
    // Its log line is written just after the record the gateway saw: give it a moment.
    const done = () => eraser.output().match(/"msg":"erasure done"/g)?.length ?? 0;
    for (const deadline = Date.now() + 5_000; done() < 2 && Date.now() < deadline; ) await new Promise((r) => setTimeout(r, 50));
    expect(done()).toBe(2);
    for (const url of topology.urls) expect(await (await fetch(`${url}/metrics`)).text()).not.toMatch(/loom_jobs_total\{[^}]*kind="erasure"/);
  });

  it('CONV-SEARCH-21 CONV-SEARCH-22 CONV-SEARCH-23 CONV-SEARCH-25 [issue 10: removal paths] (split): in every search mode, turns the compactor retired, the erasure service erased, a purge removed or the retention TTL expired are not found by their words', async () => {
    const ns = uniqueNamespace();
    const person = `u-${ns}`;
    const api = topology.admin;
    await api.ok('conversation.set_logging', { namespace: ns, enabled: true });
    const animals = ['zebu', 'yak', 'gnu', 'emu', 'kudu', 'ibex'];
    for (let i = 0; i < 6; i++) await api.ok('conversation.append', { namespace: ns, thread_id: 'c', msg_id: `c${i}`, role: 'user', content: `pelican rollout step ${i} ${animals[i]}` });
    await api.ok('conversation.append', { namespace: ns, thread_id: 'p', msg_id: 'p1', role: 'user', content: 'osprey notes of the person', user_id: person });
    await api.ok('conversation.append', { namespace: ns, thread_id: 'k', msg_id: 'k1', role: 'user', content: 'osprey notes kept' });
    // k1 as if logged eleven years ago: past the topology's retention (3,650 days), not yet merged away.
    const old = new Date(Date.now() - 11 * 365 * 86_400_000).toISOString().replace('T', ' ').replace('Z', '');
    for (const table of [storage.tables.conversations, storage.tables.conversationEmbeddings]) {
      const [row] = await storage.query<Record<string, unknown>>(`SELECT * EXCEPT (version) FROM ${table} FINAL WHERE namespace = {ns:String} AND msg_id = 'k1'`, { ns });
      await storage.insert(table, [{ ...row, msg_id: 'expired', ts: old, version: Date.now() * 1000 }]);
    }
    const found = async (query: string, mode: string) =>
      (await api.ok('conversation.search', { namespace: ns, namespace_scope: 'namespace', query, search_mode: mode, limit: 50 })).hits.map((h: { msg_id: string }) => h.msg_id) as string[];
    expect(await found('zebu osprey', 'lexical')).toEqual(expect.arrayContaining(['c0', 'p1', 'k1']));
    expect(await found('osprey', 'lexical')).not.toContain('expired');
    await api.ok('conversation.compact', { namespace: ns, thread_id: 'c', keep_recent: 2 });
    expect(await api.ok('erasure.request', { namespace: ns, user_id: person })).toMatchObject({ status: 'done' });
    for (const mode of ['hybrid', 'vector', 'lexical']) {
      const hits = [...(await found('pelican rollout step zebu yak', mode)), ...(await found('osprey notes of the person', mode))];
      expect([mode, hits.filter((m) => /^c[0-3]$/.test(m) || m === 'p1')]).toEqual([mode, []]);
      // The vector leg's floor decides what it finds; the words find the turns still there.
      if (mode !== 'vector') expect([mode, hits]).toEqual([mode, expect.arrayContaining(['c4', 'k1'])]);
    }
    // An expired turn keeps its embedding row (CONV-RET-04), but is not found by its words.
    expect(await found('osprey', 'lexical')).toEqual(['k1']);
    expect(await found('kudu', 'lexical')).toEqual(['c4']);
    await api.ok('erasure.request', { namespace: ns, namespace_list: [ns], purge: true });
    for (const mode of ['hybrid', 'vector', 'lexical']) expect([mode, await found('osprey notes pelican rollout', mode)]).toEqual([mode, []]);
  });

  it('CONV-COMPACT-01, CONV-COMPACT-02 (split): conversation.compact sent to a gateway runs in the compactor (LOOM_COMPACTION_RUNS_IN=service) and answers the same op; a bad request is a 400 at the gateway; with no compactor it is a 503 that says what to start', async () => {
    const ns = uniqueNamespace();
    const [a, b] = topology.urls.map((u) => new LoomApi(u, topology.admin.token)) as [LoomApi, LoomApi];
    await a.ok('conversation.set_logging', { namespace: ns, enabled: true });
    for (let i = 0; i < 12; i++) await a.ok('conversation.append', { namespace: ns, thread_id: 'long', msg_id: `m${String(i).padStart(2, '0')}`, role: i % 2 ? 'assistant' : 'user', content: `step ${i} of moving invoices to the ledger` });
    // The titlers share this LLM and may title the thread meanwhile: count the summarizer's calls.
    const summaries = () => llm.requests.filter((r) => JSON.stringify(r.body).includes('Transcript to summarise') && JSON.stringify(r.body).includes(`step 0 of moving invoices`)).length;
    const calls = summaries();
    const answer = await b.ok('conversation.compact', { namespace: ns, thread_id: 'long', keep_recent: 2 });
    expect(answer).toMatchObject({ thread_id: 'long', compacted: true, messages_summarized: 10, summary_msg_id: expect.any(String) });
    expect(summaries() - calls).toBe(1);
    const listed = (await a.ok('conversation.list', { namespace: ns, thread_id: 'long' })).messages as Array<{ msg_id: string; role: string }>;
    expect(listed.map((m) => m.msg_id)).toEqual([answer.summary_msg_id, 'm10', 'm11']);
    const compactor = topology.processes().find((p) => p.name === 'compactor-1')!;
    for (const deadline = Date.now() + 5_000; !compactor.output().includes('"msg":"compaction done"') && Date.now() < deadline; ) await new Promise((r) => setTimeout(r, 50));
    expect(compactor.output()).toContain('"msg":"compaction done"');
    expect((await b.call('conversation.compact', { namespace: ns, thread_id: 'long', keep_recent: -1 })).status).toBe(400);
    await compactor.stop();
    try {
      const none = await b.call('conversation.compact', { namespace: ns, thread_id: 'long' });
      expect(none.status).toBe(503);
      expect(none.body.error.message).toContain('start the compactor service');
    } finally {
      await topology.startWorkers('compactor', 1);
    }
  });

  it('[issue 11: brief condenser] session.brief_save sent to either gateway runs in the brief condenser (LOOM_BRIEFS_RUNS_IN=service) and answers the same op, errors included; a bad request is a 400 at the gateway; with no condenser it is a 503 that says what to start', async () => {
    const ns = uniqueNamespace();
    const [a, b] = topology.urls.map((u) => new LoomApi(u, topology.admin.token)) as [LoomApi, LoomApi];
    const condenser = topology.processes().find((p) => p.name === 'brief-condenser-1')!;
    const revisions = () => llm.requests.filter((r) => JSON.stringify(r.body).includes(`ledger work ${ns}`)).length;
    // Model windows, in the condenser.
    const saved = await a.ok('session.brief_save', { namespace: ns, brief_key: 'ledger', session_id: 's1', event_cursor: 'c1', events: [{ kind: 'user', text: `ledger work ${ns}: move the invoices` }] });
    expect(saved).toMatchObject({ brief_key: 'ledger', changed: true, revision: 1, author: 'llm', windows: { revised: 1, failed: 0, switched_off: 0 } });
    expect(revisions()).toBe(1);
    // A retry of the same (session, cursor) is answered as one, and calls no model.
    expect(await b.ok('session.brief_save', { namespace: ns, brief_key: 'ledger', session_id: 's1', event_cursor: 'c1', events: [{ kind: 'user', text: `ledger work ${ns}: move the invoices` }] })).toMatchObject({
      changed: false,
      reason: 'retry',
      revision: 1,
    });
    expect(revisions()).toBe(1);
    // The model-free builder, in the condenser too.
    expect(await b.ok('session.brief_save', { namespace: ns, brief_key: 'ledger', use_llm: false, sections: { next_steps: ['update the export job'] } })).toMatchObject({ changed: true, revision: 2, author: 'model' });
    const { brief } = await a.ok('session.brief_get', { namespace: ns, brief_key: 'ledger' });
    expect(brief).toMatchObject({ revision: 2, sections: { goal: 'Move invoices to the ledger', next_steps: ['update the export job'] } });
    for (const deadline = Date.now() + 5_000; (condenser.output().match(/"msg":"brief revised"/g)?.length ?? 0) < 3 && Date.now() < deadline; ) await new Promise((r) => setTimeout(r, 50));
    expect(condenser.output().match(/"msg":"brief revised"/g)).toHaveLength(3);
    // The op's own errors come back as the op's: a conflict, and every window failing.
    const conflict = await b.call('session.brief_save', { namespace: ns, brief_key: 'ledger', if_revision: 1, sections: { goal: 'x' } });
    expect(conflict.status).toBe(409);
    expect(conflict.body.error.message).toContain('is at revision 2, not 1');
    const failed = await a.call('session.brief_save', { namespace: ns, brief_key: 'ledger', events: [{ kind: 'user', text: `ledger work ${ns}: unparseable` }] });
    expect(failed.status).toBe(503);
    expect(failed.body.error.message).toContain('no event window of this save could be revised');
    // Bad input never leaves the gateway.
    expect((await a.call('session.brief_save', { namespace: ns, brief_key: 'ledger', events: 'nope' })).status).toBe(400);
    await condenser.stop();
    try {
      const none = await a.call('session.brief_save', { namespace: ns, brief_key: 'ledger', sections: { goal: 'y' } });
      expect(none.status).toBe(503);
      expect(none.body.error.message).toContain('start the brief-condenser service');
    } finally {
      await topology.startWorkers('brief-condenser', 1);
    }
  });

  it('[issue 11: one shape] every service serves /healthz, /readyz (ready, with its NATS check) and /metrics (loom_nats_connected 1)', async () => {
    const urls = Object.entries(topology.serviceUrls()).filter(([name]) => topology.processes().some((p) => p.name === name && p.child.exitCode === null));
    expect(urls.map(([name]) => name.replace(/-\d+$/, '')).sort()).toEqual(expect.arrayContaining(['brief-condenser', 'compactor', 'embedder', 'erasure', 'titler']));
    for (const [name, url] of urls) {
      expect([name, (await fetch(`${url}/healthz`)).status]).toEqual([name, 200]);
      const ready = await fetch(`${url}/readyz`);
      const body = (await ready.json()) as { checks: Record<string, boolean> };
      expect([name, ready.status, body.checks.nats]).toEqual([name, 200, true]);
      if (!name.startsWith('embedder')) expect([name, body.checks.storage]).toEqual([name, true]);
      expect([name, /^loom_nats_connected\{[^}]*\} 1$/m.test(await (await fetch(`${url}/metrics`)).text())]).toEqual([name, true]);
    }
    expect(await (await fetch(`${topology.url}/metrics`)).text()).toMatch(/^loom_nats_connected\{[^}]*\} 1$/m);
  });

  it('an MCP session started on one gateway replica is served by the other', async () => {
    const ns = uniqueNamespace();
    const token = (await topology.admin.ok('token.create', { namespace: ns, role: 'writer' })).token;
    const rpc = async (url: string, method: string, session?: string) => {
      const response = await fetch(`${url}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}`, ...(session ? { 'mcp-session-id': session } : {}) },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: method === 'initialize' ? { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'split-test', version: '1' } } : {} }),
      });
      return { status: response.status, session: response.headers.get('mcp-session-id'), body: (await response.json()) as { result?: { tools: Array<{ name: string }> } } };
    };
    const init = await rpc(topology.urls[0]!, 'initialize');
    const listed = await rpc(topology.urls[1]!, 'tools/list', init.session!);
    expect(listed.status).toBe(200);
    expect(listed.body.result!.tools.map((t) => t.name)).toEqual(['loom_search']);
  });

  it('observe.crystallize sent to both gateways at once hands a session\'s observations over once', async () => {
    const ns = uniqueNamespace();
    const apis = topology.urls.map((u) => new LoomApi(u, topology.admin.token));
    await apis[0]!.ok('observe.record', { namespace: ns, session_id: 's', observations: [{ obs_id: 'a1', tool: 'Bash', summary: 'Bash: npm test', outcome: 'error' }] });
    const both = await Promise.all(apis.map((api) => api.ok('observe.crystallize', { namespace: ns, session_id: 's', defer: true })));
    expect(both.map((r) => r.observations).sort()).toEqual([0, 1]);
  });

  it('run usage reported through both gateways at once is counted once per call', async () => {
    const ns = uniqueNamespace();
    const apis = topology.urls.map((u) => new LoomApi(u, topology.admin.token));
    const reports = Array.from({ length: 20 }, (_, i) => ({ usage_id: `call-${i}`, model: 'claude-sonnet-4-5', input_tokens: 1_000_000, output_tokens: 0 }));
    await Promise.all(apis.map((api) => api.ok('run.report_usage', { namespace: ns, run_id: 'r', goal: 'split session', reports })));
    const { run } = await topology.admin.ok('run.get', { namespace: ns, run_id: 'r' });
    expect(run.model_cost).toMatchObject({ reports: 20, input_tokens: 20_000_000, cost_usd: 60 });
  });

  it('CONV-APPEND-05 [issue 9: races] (split): creates of one thread and first usage reports of one run, sent to both gateways at once, create and begin once (NATS KV leases)', async () => {
    const ns = uniqueNamespace();
    await topology.admin.ok('conversation.set_logging', { namespace: ns, enabled: true });
    const apis = topology.urls.map((u) => new LoomApi(u, topology.admin.token));
    const creates = await Promise.all(Array.from({ length: 20 }, (_, i) => apis[i % 2]!.call('conversation.create', { namespace: ns, thread_id: 'race', title: `title ${i}` })));
    const winners = creates.map((c, i) => ({ c, i })).filter(({ c }) => c.status === 200 && c.body.created === true);
    expect(winners).toHaveLength(1);
    expect(creates.filter((c) => c.status === 409)).toHaveLength(19);
    expect((await apis[1]!.ok('conversation.get', { namespace: ns, thread_id: 'race' })).thread.title).toBe(`title ${winners[0]!.i}`);
    const reports = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        apis[i % 2]!.ok('run.report_usage', { namespace: ns, run_id: 'first', goal: 'g', reports: [{ usage_id: `c${i}`, model: 'claude-sonnet-4-5', input_tokens: 1, output_tokens: 0 }] }),
      ),
    );
    expect(reports.filter((r) => r.began === true)).toHaveLength(1);
  });

  it('each embedder serves its own /metrics, with batch sizes, queue depth, calls in flight and batch and provider latency histograms [issue 11: scale the embedder]', async () => {
    const ns = uniqueNamespace();
    await topology.admin.ok('conversation.set_logging', { namespace: ns, enabled: true });
    await Promise.all(Array.from({ length: 10 }, (_, i) => topology.admin.ok('conversation.append', { namespace: ns, thread_id: 't', role: 'user', content: `metrics ${i}` })));
    const texts = await Promise.all(topology.embedderMetricsUrls().map(async (url) => (await fetch(url)).text()));
    const batches = texts.map((t) => Number(/^loom_embed_batch_size_count\{[^}]*\} (\d+)/m.exec(t)?.[1] ?? 0));
    expect(batches.reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
    // [issue 11] What operators scale the embedder on: its queue, its calls in flight, and the latencies.
    const count = (name: string) => texts.reduce((sum, t) => sum + Number(new RegExp(`^${name}\\{[^}]*outcome="ok"[^}]*\\} (\\d+)`, 'm').exec(t)?.[1] ?? 0), 0);
    expect(count('loom_embed_batch_duration_seconds_count')).toBeGreaterThan(0);
    expect(count('loom_embed_provider_duration_seconds_count')).toBeGreaterThan(0);
    for (const t of texts) {
      expect(t).toMatch(/^loom_embedder_queue_depth\{[^}]*\} \d+$/m);
      expect(t).toMatch(/^loom_embedder_in_flight\{[^}]*\} \d+$/m);
      expect(t).toMatch(/^loom_embedder_concurrency\{[^}]*\} 4$/m);
    }
  });

  it('with one embedder replica gone, the other still serves every append', async () => {
    const ns = uniqueNamespace();
    await topology.admin.ok('conversation.set_logging', { namespace: ns, enabled: true });
    await topology.stopEmbedders();
    await topology.startEmbedders(1);
    try {
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) => topology.admin.ok('conversation.append', { namespace: ns, thread_id: 't', role: 'user', content: `replica test ${i}` })),
      );
      expect(results.every((r) => r.stored)).toBe(true);
      const failed = await storage.query<{ n: string }>(
        `SELECT count() AS n FROM ${storage.tables.conversationEmbeddings} FINAL WHERE namespace = {ns:String} AND embed_error != ''`,
        { ns },
      );
      expect(Number(failed[0]!.n)).toBe(0);
    } finally {
      await topology.stopEmbedders();
      await topology.startEmbedders(2);
    }
  });

  it('storage down: appends answer 503 "unavailable" (retry is safe), /readyz says not ready, and nothing is half-written', async () => {
    const ns = uniqueNamespace();
    await topology.admin.ok('conversation.set_logging', { namespace: ns, enabled: true });
    await topology.admin.ok('conversation.append', { namespace: ns, thread_id: 't', role: 'user', content: 'before the outage', msg_id: 'before' });
    await topology.stopClickHouse();
    try {
      const down = await topology.admin.call('conversation.append', { namespace: ns, thread_id: 't', role: 'user', content: 'during the outage', msg_id: 'during' });
      expect(down.status).toBe(503);
      expect(down.body.error.code).toBe('unavailable');
      const ready = await topology.admin.get('/readyz');
      expect(ready.status).toBe(503);
      expect(JSON.parse(ready.text).checks.storage).toBe(false);
    } finally {
      await topology.startClickHouse();
    }
    // The client retries the refused append: it lands once, whole, with its vector.
    const retried = await topology.admin.ok('conversation.append', { namespace: ns, thread_id: 't', role: 'user', content: 'during the outage', msg_id: 'during' });
    expect(retried).toMatchObject({ stored: true, msg_id: 'during' });
    expect(await countRows(storage, 'conversations', { namespace: ns }, false)).toBe(2);
    expect(await countRows(storage, 'conversationEmbeddings', { namespace: ns }, false)).toBe(2);
    const listed = await topology.admin.ok('conversation.list', { namespace: ns, thread_id: 't' });
    expect(listed.messages.map((m: { msg_id: string }) => m.msg_id)).toEqual(['before', 'during']);
  });
});
