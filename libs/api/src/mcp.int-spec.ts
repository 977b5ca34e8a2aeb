import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { startTestLoom, uniqueNamespace, type TestLoom } from '../../testing/src';
import { McpEndpoint } from './mcp/mcp-endpoint';

/** Tested with the official client (`Client` + `StreamableHTTPClientTransport`) against a live gateway. */
describe('MCP endpoint (/mcp)', () => {
  let loom: TestLoom;
  let ns: string;
  let token: string;
  let open: Client[] = [];
  let transportErrors: Error[] = [];
  beforeAll(async () => {
    loom = await startTestLoom({ env: { LOOM_CONVERSATION_TITLER_ENABLED: 'false', LOOM_MCP_SESSION_RUN_IDLE_SECONDS: '60' } });
  });
  beforeEach(async () => {
    ns = uniqueNamespace();
    await loom.record(ns);
    token = (await loom.admin.ok('token.create', { namespace: ns, role: 'writer' })).token;
    transportErrors = [];
  });
  afterEach(async () => {
    await Promise.all(open.map((c) => c.close()));
    open = [];
  });
  afterAll(async () => loom.close());

  const transportTo = (base: string, query = '', options: { token?: string; sessionId?: string } = {}) => {
    const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp${query}`), {
      requestInit: { headers: { authorization: `Bearer ${options.token ?? token}` } },
      ...(options.sessionId ? { sessionId: options.sessionId } : {}),
    });
    transport.onerror = (error) => transportErrors.push(error);
    return transport;
  };
  const connect = async (query = '', options: { token?: string; name?: string; base?: string; sessionId?: string } = {}) => {
    const client = new Client({ name: options.name ?? 'test-client', version: '1' });
    const transport = transportTo(options.base ?? loom.url, query, options);
    await client.connect(transport);
    open.push(client);
    return { client, transport, runId: /Run (\S+)\./.exec(client.getInstructions() ?? '')?.[1] };
  };
  const toolNames = async (client: Client) => (await client.listTools()).tools.map((t) => t.name);
  const call = async (client: Client, name: string, args: Record<string, unknown> = {}) => (await client.callTool({ name, arguments: args })) as CallToolResult & { structuredContent?: any };
  const ok = async (client: Client, name: string, args: Record<string, unknown> = {}) => {
    const result = await call(client, name, args);
    expect([name, result.isError ?? false, result.content]).toEqual([name, false, expect.anything()]);
    return result.structuredContent;
  };

  /** A hand-made request, for what the official client never sends. */
  let nextId = 1;
  const raw = async (init: { method?: string; body?: unknown; session?: string; query?: string; token?: string; accept?: string }) => {
    const response = await fetch(`${loom.url}/mcp${init.query ?? ''}`, {
      method: init.method ?? 'POST',
      headers: {
        'content-type': 'application/json',
        accept: init.accept ?? 'application/json, text/event-stream',
        authorization: `Bearer ${init.token ?? token}`,
        ...(init.session ? { 'mcp-session-id': init.session } : {}),
      },
      ...(init.body !== undefined ? { body: typeof init.body === 'string' ? init.body : JSON.stringify(init.body) } : {}),
    });
    const text = await response.text();
    return { status: response.status, session: response.headers.get('mcp-session-id'), body: text === '' ? undefined : (JSON.parse(text) as any) };
  };
  const rawInitialize = (clientInfo: { name: unknown }, query = '') =>
    raw({ query, body: { jsonrpc: '2.0', id: nextId++, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { version: '1', ...clientInfo } } } });

  it('MCP-01: conversation.search is no tool of its own; conversation hits come through the conversation section of loom_search', async () => {
    await loom.admin.ok('conversation.append', { namespace: ns, thread_id: 't', role: 'user', content: 'we rotate the billing credentials every quarter' });
    const { client } = await connect();
    const names = await toolNames(client);
    expect(names).toEqual(['loom_search']);
    expect(names.some((n: string) => /conversation.*search|search.*conversation/i.test(n))).toBe(false);
    const found = await ok(client, 'loom_search', { query: 'rotate billing credentials' });
    expect(found.conversations[0]).toMatchObject({ thread_id: 't', excerpt: expect.stringContaining('rotate the billing credentials') });
  });

  it('[issue 10: MCP hybrid] loom_search finds conversation turns by words too (hybrid by default), and takes search_mode', async () => {
    const content = 'background notes. '.repeat(150) + 'The fix was in retryUploadChunk.';
    await loom.admin.ok('conversation.append', { namespace: ns, thread_id: 't', msg_id: 'deep', role: 'assistant', content });
    const { client } = await connect();
    for (const args of [{ query: 'retryUploadChunk' }, { query: 'retryUploadChunk', search_mode: 'lexical' }]) {
      expect((await ok(client, 'loom_search', args)).conversations[0]).toMatchObject({ msg_id: 'deep', excerpt: expect.stringContaining('retryUploadChunk') });
    }
    expect((await ok(client, 'loom_search', { query: 'retryUploadChunk', search_mode: 'vector' })).conversations).toEqual([]);
    const unknown = await call(client, 'loom_search', { query: 'x', search_mode: 'fuzzy' });
    expect(unknown).toMatchObject({ isError: true, content: [{ text: expect.stringContaining('search_mode') }] });
  });

  it('MCP-02: the core listing has no conversation.append, and nothing in it prompts the model to log turns', async () => {
    const { client } = await connect();
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).not.toContain('loom_conversation_append');
    expect(JSON.stringify(tools)).not.toMatch(/\b(log|record|append|capture)\b/i);
    expect(await call(client, 'loom_conversation_append', { thread_id: 't', role: 'user', content: 'x' })).toMatchObject({ isError: true, content: [{ text: expect.stringMatching(/not found/) }] });
    // Where the rest is: the session's instructions name the full listing.
    expect(client.getInstructions()).toMatch(/toolset=all/);
  });

  it('MCP-03 [issue 12: MCP run id]: with ?toolset=all the listing has loom_conversation_append, and the turns it appends carry the session\'s implicit run', async () => {
    const { client, runId } = await connect('?toolset=all');
    expect(await toolNames(client)).toContain('loom_conversation_append');
    expect(await ok(client, 'loom_conversation_append', { thread_id: 'mcp', role: 'user', content: 'appended over MCP' })).toMatchObject({ stored: true, thread_id: 'mcp' });
    const [turn] = (await loom.admin.ok('conversation.list', { namespace: ns, thread_id: 'mcp' })).messages;
    expect(turn).toMatchObject({ content: 'appended over MCP', run_id: runId });
    expect(runId).toMatch(/^run_/);
  });

  it('[issue 12: MCP tools] ?toolset=all: briefs, saved messages, context pack and runs, each through its op', async () => {
    const { client, runId } = await connect('?toolset=all');
    expect((await toolNames(client)).sort()).toEqual(
      [
        'loom_brief_get',
        'loom_brief_list',
        'loom_brief_save',
        'loom_context_pack',
        'loom_conversation_append',
        'loom_history_bisect',
        'loom_history_duplicate_check',
        'loom_history_line',
        'loom_history_path',
        'loom_history_review_brief',
        'loom_history_symbol',
        'loom_run_begin',
        'loom_run_complete',
        'loom_saved_save',
        'loom_saved_search',
        'loom_search',
      ].sort(),
    );
    // Briefs.
    const saved = await ok(client, 'loom_brief_save', { brief_key: 'ledger', sections: { goal: 'Move invoices to the new ledger', next_steps: ['Update the export job'] }, use_llm: false });
    expect(saved).toMatchObject({ brief_key: 'ledger', revision: 1 });
    expect((await ok(client, 'loom_brief_list')).briefs.map((b: { brief_key: string }) => b.brief_key)).toEqual(['ledger']);
    expect((await ok(client, 'loom_brief_get', { brief_key: 'ledger' })).brief).toMatchObject({ sections: { goal: 'Move invoices to the new ledger', next_steps: ['Update the export job'] } });
    // Saved messages: a turn appended over MCP, saved for a user, found again.
    await ok(client, 'loom_conversation_append', { thread_id: 'th', msg_id: 'a-7', role: 'assistant', content: 'Run the PROJ-1234 backfill against ledger_v2 after the export.' });
    expect(await ok(client, 'loom_saved_save', { user_id: 'u1', conversation_id: 'th', message_id: 'a-7' })).toMatchObject({ saved: true, message_id: 'a-7' });
    const hits = (await ok(client, 'loom_saved_search', { user_id: 'u1', query: 'PROJ-1234 backfill' })).hits;
    expect(hits[0]).toMatchObject({ conversation_id: 'th', message_id: 'a-7' });
    expect(await call(client, 'loom_saved_search', { query: 'PROJ-1234' })).toMatchObject({ isError: true, content: [{ text: expect.stringContaining('user_id') }] });
    // Context pack.
    const pack = await ok(client, 'loom_context_pack', { query: 'PROJ-1234 backfill', session_id: 'th' });
    expect(pack.conversation[0]).toMatchObject({ msg_id: 'a-7' });
    expect(pack.pack).toContain('PROJ-1234');
    // Runs: one of its own, then the session's.
    const begun = (await ok(client, 'loom_run_begin', { goal: 'backfill PROJ-1234' })).run;
    expect(begun).toMatchObject({ status: 'running', agent: 'mcp', source: 'api' });
    expect((await ok(client, 'loom_run_complete', { run_id: begun.run_id, status: 'succeeded', outcome: 'done' })).run).toMatchObject({ run_id: begun.run_id, status: 'succeeded' });
    expect((await ok(client, 'loom_run_complete', { status: 'ended' })).run).toMatchObject({ run_id: runId, status: 'ended' });
  });

  it('MCP-04, RUNS-04, SETTINGS-07: an MCP session gets an implicit run, kept open by calls and closed after LOOM_MCP_SESSION_RUN_IDLE_SECONDS without one', async () => {
    const { client, runId } = await connect('', { name: 'idle-client' });
    const runs = loom.gateway.runtime.runs;
    expect((await runs.get(ns, runId!)).run).toMatchObject({ source: 'mcp', status: 'running', goal: 'MCP session of idle-client' });
    // A call keeps it open: 30 s after that call is within the 60 s idle time.
    expect(await client.ping()).toEqual({});
    await loom.gateway.runtime.mcp.sweep(new Date(Date.now() + 30_000));
    expect((await runs.get(ns, runId!)).run.status).toBe('running');
    // 61 s without a call: closed.
    await loom.gateway.runtime.mcp.sweep(new Date(Date.now() + 61_000));
    expect((await runs.get(ns, runId!)).run).toMatchObject({ status: 'idle_closed', ended_at: expect.any(String) });
  });

  it('[issue 12: MCP GET and DELETE] the GET event stream opens, and terminateSession() ends the session (DELETE) and its run', async () => {
    const { client, transport, runId } = await connect();
    const session = transport.sessionId!;
    // The client opened its GET stream after initialize: a second one on the session is refused as the protocol says.
    const stream = async () => {
      const abort = new AbortController();
      const response = await fetch(`${loom.url}/mcp`, { headers: { accept: 'text/event-stream', authorization: `Bearer ${token}`, 'mcp-session-id': session }, signal: abort.signal });
      abort.abort();
      return [response.status, response.headers.get('content-type')];
    };
    for (let i = 0; i < 100 && (await stream())[0] !== 409; i++) await new Promise((r) => setTimeout(r, 20));
    expect((await stream())[0]).toBe(409);
    expect(await client.ping()).toEqual({});
    await transport.terminateSession();
    expect(transport.sessionId).toBeUndefined();
    expect((await loom.gateway.runtime.runs.get(ns, runId!)).run).toMatchObject({ status: 'ended', ended_at: expect.any(String) });
    expect((await raw({ session, body: { jsonrpc: '2.0', id: 1, method: 'ping' } })).status).toBe(404);
    expect(transportErrors).toEqual([]);

    // A fresh session's GET answers an event stream.
    const other = await rawInitialize({ name: 'raw' });
    expect(other.status).toBe(200);
    const abort = new AbortController();
    const response = await fetch(`${loom.url}/mcp`, { headers: { accept: 'text/event-stream', authorization: `Bearer ${token}`, 'mcp-session-id': other.session! }, signal: abort.signal });
    expect([response.status, response.headers.get('content-type')]).toEqual([200, 'text/event-stream']);
    abort.abort();
  });

  it('[issue 12: MCP namespace] a token for every namespace must name one with ?namespace=, and works when it does', async () => {
    const everywhere = (await loom.admin.ok('token.create', { namespace: '*', role: 'writer' })).token;
    const refused = connect('', { token: everywhere });
    await expect(refused).rejects.toMatchObject({ code: 400, message: expect.stringMatching(/covers every namespace: name the session's namespace in the MCP URL, e.g. \/mcp\?namespace=/) });
    const { client } = await connect(`?toolset=all&namespace=${ns}`, { token: everywhere });
    expect(client.getInstructions()).toMatch(new RegExp(`^Namespace ${ns}\\.`));
    await ok(client, 'loom_conversation_append', { thread_id: 'everywhere', role: 'user', content: 'landed in the named namespace' });
    expect((await loom.admin.ok('conversation.list', { namespace: ns, thread_id: 'everywhere' })).messages).toHaveLength(1);
  });

  it('refuses without a valid token, and without a session', async () => {
    const bad = await raw({ token: 'nope', body: { jsonrpc: '2.0', id: 1, method: 'initialize', params: {} } });
    expect(bad.status).toBe(401);
    await expect(connect('', { token: 'nope' })).rejects.toMatchObject({ code: 401 });
    // No Mcp-Session-Id on a call that is not initialize: 400, as the protocol says; an unknown one: 404.
    expect((await raw({ body: { jsonrpc: '2.0', id: 1, method: 'tools/list' } })).status).toBe(400);
    expect((await raw({ session: 'not-a-session', body: { jsonrpc: '2.0', id: 1, method: 'tools/list' } })).status).toBe(404);
    expect((await raw({ method: 'GET', accept: 'text/event-stream', session: 'not-a-session' })).status).toBe(404);
    expect((await raw({ method: 'DELETE', session: 'not-a-session' })).status).toBe(404);
  });

  it('a session started on one gateway replica is served by another (sessions are stored, not kept in one process)', async () => {
    const { transport } = await connect();
    const session = transport.sessionId!;
    const runtime = loom.gateway.runtime;
    // Other replicas: their own endpoint and no sessions in memory, over the same storage.
    const replicas: Array<{ endpoint: McpEndpoint; server: Server; url: string }> = [];
    const replica = async () => {
      const endpoint = new McpEndpoint(runtime.auth, runtime.dispatcher, runtime.runs, 60, runtime.storage);
      const server = createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => void endpoint.handle(req, res, { body: Buffer.concat(chunks).toString(), toolset: undefined, namespace: undefined }));
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const r = { endpoint, server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
      replicas.push(r);
      return r;
    };
    try {
      const second = await replica();
      const resumed = await connect('', { base: second.url, sessionId: session });
      expect(await toolNames(resumed.client)).toEqual(['loom_search']);
      expect((await call(resumed.client, 'loom_search', { query: 'anything' })).isError).toBeFalsy();
      const unknown = await fetch(`${second.url}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}`, 'mcp-session-id': 'not-a-session' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list' }),
      });
      expect(unknown.status).toBe(404);
      expect(((await unknown.json()) as any).error.message).toMatch(/send initialize first/);
      // Ended on the second replica: a third one that never saw it does not serve it.
      await resumed.transport.terminateSession();
      const third = await replica();
      await expect(connect('', { base: third.url, sessionId: session }).then(({ client }) => client.ping())).rejects.toMatchObject({ code: 404 });
    } finally {
      for (const r of replicas) {
        await r.endpoint.close();
        await new Promise((resolve) => r.server.close(resolve));
      }
    }
  });

  describe('[issue 9: MCP roles] initialize takes run.begin\'s role', () => {
    const runCount = async () => (await loom.admin.ok('run.list', { namespace: ns, agent: '*', limit: 100 })).runs.length;
    const asToken = async (extra: Record<string, unknown>) => {
      token = (await loom.admin.ok('token.create', { namespace: ns, ...extra })).token;
    };

    it('RUNS-04: a viewer\'s session begins no run, lists no run tools, and its tools still answer', async () => {
      await asToken({ role: 'viewer' });
      const before = await runCount();
      const { client } = await connect('', { name: 'viewer-client' });
      expect(client.getInstructions()).not.toMatch(/Run /);
      expect((await call(client, 'loom_search', { query: 'anything' })).isError).toBeFalsy();
      expect(await runCount()).toBe(before);
      const all = await connect('?toolset=all', { name: 'viewer-client' });
      expect(await toolNames(all.client)).not.toEqual(expect.arrayContaining([expect.stringMatching(/^loom_run_/)]));
      expect(await runCount()).toBe(before);
    });

    it('an end-user (own_user) or own_session token is refused at initialize with 403 and begins no run', async () => {
      const before = await runCount();
      for (const bounded of [{ role: 'writer', read_scope: 'own_user', read_user_id: 'u1' }, { role: 'admin', read_scope: 'own_session', read_user_id: 'u1', read_session_id: 's1' }]) {
        await asToken(bounded);
        await expect(connect('', { name: 'end-user' })).rejects.toMatchObject({ code: 403 });
        const init = await rawInitialize({ name: 'end-user' });
        expect([bounded.read_scope, init.status, init.session]).toEqual([bounded.read_scope, 403, null]);
      }
      expect(await runCount()).toBe(before);
    });

    it('a viewer\'s ?toolset=all session cannot append through the tool (403 from the op, as over HTTP)', async () => {
      await asToken({ role: 'viewer' });
      const { client } = await connect('?toolset=all');
      expect(await call(client, 'loom_conversation_append', { thread_id: 'v', role: 'user', content: 'not mine to write' })).toMatchObject({ isError: true, content: [{ text: expect.stringMatching(/writer role/) }] });
    });

    it('a tool call cannot reach outside its session\'s namespace by naming another in its arguments: namespace is no tool argument, refused by name, and nothing is written', async () => {
      const other = uniqueNamespace();
      await loom.record(other);
      // Every-namespace admin's session on ns: the arguments name another namespace. No tool takes
      // one (the session's is the URL's), so the call is refused as any unknown argument is.
      const { client } = await connect(`?toolset=all&namespace=${ns}`, { token: loom.admin.token });
      const refused = await call(client, 'loom_conversation_append', { namespace: other, thread_id: 'pinned', role: 'user', content: 'stays in the session namespace' });
      expect([refused.isError, refused.content]).toEqual([true, [expect.objectContaining({ text: expect.stringMatching(/unknown argument: namespace \(the session's namespace is the one the MCP URL names/) })]]);
      expect((await loom.admin.call('conversation.get', { namespace: ns, thread_id: 'pinned' })).status).toBe(404);
      expect((await loom.admin.call('conversation.get', { namespace: other, thread_id: 'pinned' })).status).toBe(404);
      // Without it the turn lands in the session's namespace.
      await ok(client, 'loom_conversation_append', { thread_id: 'pinned', role: 'user', content: 'stays in the session namespace' });
      expect((await loom.admin.ok('conversation.list', { namespace: ns, thread_id: 'pinned' })).messages).toHaveLength(1);
      expect((await loom.admin.call('conversation.get', { namespace: other, thread_id: 'pinned' })).status).toBe(404);
    });

    it('a session id is no credential: a token of another namespace is refused on it', async () => {
      const { transport } = await connect();
      const stranger = (await loom.admin.ok('token.create', { namespace: uniqueNamespace(), role: 'admin' })).token;
      expect((await raw({ token: stranger, session: transport.sessionId!, body: { jsonrpc: '2.0', id: 1, method: 'ping' } })).status).toBe(403);
      await expect(connect('', { token: stranger, sessionId: transport.sessionId! }).then(({ client }) => client.ping())).rejects.toMatchObject({ code: 403 });
      expect((await raw({ token: stranger, method: 'DELETE', session: transport.sessionId! })).status).toBe(403);
    });

    it('the client name stored as the run\'s goal is well-formed, has no control characters and is at most 100 characters', async () => {
      const cases: Array<[string, string]> = [
        ['evil\u001b[31m\u0000\ud800 client\u202e\n\n', 'evil [31m client'],
        ['x'.repeat(5_000), 'x'.repeat(100)],
        ['😀'.repeat(150), '😀'.repeat(100)],
        ['\u0007\u0008', 'an MCP client'],
      ];
      for (const [name, expected] of cases) {
        const { runId } = await connect('', { name });
        expect((await loom.gateway.runtime.runs.get(ns, runId!)).run.goal).toBe(`MCP session of ${expected}`);
      }
      // A name that is no string makes no initialize request at all (the SDK's schema): refused, and no run.
      const before = await runCount();
      const invalid = await rawInitialize({ name: { nested: true } });
      expect([invalid.status, invalid.body.error.message]).toEqual([400, expect.stringMatching(/^invalid initialize request: params\.clientInfo\.name: /)]);
      expect(await runCount()).toBe(before);
    });

    it('a namespace query parameter that is no namespace is a 400, and a JSON body that is no object is a 400', async () => {
      expect((await rawInitialize({ name: 'x' }, '?namespace=' + encodeURIComponent('a b\u0000'))).status).toBe(400);
      expect((await raw({ body: 'null' })).status).toBe(400);
      expect((await raw({ body: '{"jsonrpc":' })).status).toBe(400);
    });
  });
});
