import { startTestLoom, uniqueNamespace, type TestLoom } from '../../testing/src';
import { McpEndpoint } from './mcp/mcp-endpoint';

describe('MCP endpoint (/mcp)', () => {
  let loom: TestLoom;
  let ns: string;
  let token: string;
  beforeAll(async () => {
    loom = await startTestLoom({ env: { LOOM_CONVERSATION_TITLER_ENABLED: 'false', LOOM_MCP_SESSION_RUN_IDLE_SECONDS: '60' } });
  });
  beforeEach(async () => {
    ns = uniqueNamespace();
    await loom.record(ns);
    token = (await loom.admin.ok('token.create', { namespace: ns, role: 'writer' })).token;
  });
  afterAll(async () => loom.close());

  let nextId = 1;
  const rpc = async (method: string, params: object = {}, session?: string, query = '') => {
    const response = await fetch(`${loom.url}/mcp${query}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}`, ...(session ? { 'mcp-session-id': session } : {}) },
      body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params }),
    });
    return { status: response.status, session: response.headers.get('mcp-session-id'), body: (await response.json()) as any };
  };
  const connect = async (query = '') => {
    const init = await rpc('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'test-client', version: '1' } }, undefined, query);
    expect(init.status).toBe(200);
    return init.session!;
  };
  const toolNames = async (session: string) => (await rpc('tools/list', {}, session)).body.result.tools.map((t: { name: string }) => t.name);

  it('MCP-01: conversation.search is no tool of its own; conversation hits come through the conversation section of loom_search', async () => {
    await loom.admin.ok('conversation.append', { namespace: ns, thread_id: 't', role: 'user', content: 'we rotate the billing credentials every quarter' });
    const session = await connect();
    const names = await toolNames(session);
    expect(names).toEqual(['loom_search']);
    expect(names.some((n: string) => /conversation.*search|search.*conversation/i.test(n))).toBe(false);
    const called = await rpc('tools/call', { name: 'loom_search', arguments: { query: 'rotate billing credentials' } }, session);
    expect(called.body.result.isError).toBe(false);
    expect(called.body.result.structuredContent.conversations[0]).toMatchObject({ thread_id: 't', excerpt: expect.stringContaining('rotate the billing credentials') });
  });

  it('[issue 10: MCP hybrid] loom_search finds conversation turns by words too (hybrid by default), and takes search_mode', async () => {
    const content = 'background notes. '.repeat(150) + 'The fix was in retryUploadChunk.';
    await loom.admin.ok('conversation.append', { namespace: ns, thread_id: 't', msg_id: 'deep', role: 'assistant', content });
    const session = await connect();
    for (const args of [{ query: 'retryUploadChunk' }, { query: 'retryUploadChunk', search_mode: 'lexical' }]) {
      const called = await rpc('tools/call', { name: 'loom_search', arguments: args }, session);
      expect(called.body.result.structuredContent.conversations[0]).toMatchObject({ msg_id: 'deep', excerpt: expect.stringContaining('retryUploadChunk') });
    }
    const vector = await rpc('tools/call', { name: 'loom_search', arguments: { query: 'retryUploadChunk', search_mode: 'vector' } }, session);
    expect(vector.body.result.structuredContent.conversations).toEqual([]);
  });

  it('MCP-02: the core listing has no conversation.append, and nothing in it prompts the model to log turns', async () => {
    const session = await connect();
    const { tools } = (await rpc('tools/list', {}, session)).body.result;
    expect(tools.map((t: { name: string }) => t.name)).not.toContain('loom_conversation_append');
    expect(JSON.stringify(tools)).not.toMatch(/\b(log|record|append|capture)\b/i);
    expect((await rpc('tools/call', { name: 'loom_conversation_append', arguments: {} }, session)).body.error.message).toMatch(/toolset=all/);
  });

  it('MCP-03: mounted with ?toolset=all, the listing has loom_conversation_append, which appends through the same op', async () => {
    const session = await connect('?toolset=all');
    expect(await toolNames(session)).toContain('loom_conversation_append');
    const called = await rpc('tools/call', { name: 'loom_conversation_append', arguments: { thread_id: 'mcp', role: 'user', content: 'appended over MCP' } }, session);
    expect(called.body.result.structuredContent).toMatchObject({ stored: true, thread_id: 'mcp' });
    expect((await loom.admin.ok('conversation.list', { namespace: ns, thread_id: 'mcp' })).messages[0].content).toBe('appended over MCP');
  });

  it('MCP-04, RUNS-04, SETTINGS-07: an MCP session gets an implicit run, kept open by calls and closed after LOOM_MCP_SESSION_RUN_IDLE_SECONDS without one', async () => {
    const init = await rpc('initialize', { protocolVersion: '2025-06-18', clientInfo: { name: 'idle-client' } });
    const runId = /Run (\S+)\./.exec(init.body.result.instructions as string)![1]!;
    const runs = loom.gateway.runtime.runs;
    expect((await runs.get(ns, runId)).run).toMatchObject({ source: 'mcp', status: 'running', goal: 'MCP session of idle-client' });
    // A call keeps it open: 30 s after that call is within the 60 s idle time.
    expect((await rpc('ping', {}, init.session!)).body.result).toEqual({});
    await loom.gateway.runtime.mcp.sweep(new Date(Date.now() + 30_000));
    expect((await runs.get(ns, runId)).run.status).toBe('running');
    // 61 s without a call: closed.
    await loom.gateway.runtime.mcp.sweep(new Date(Date.now() + 61_000));
    expect((await runs.get(ns, runId)).run).toMatchObject({ status: 'idle_closed', ended_at: expect.any(String) });
  });

  it('refuses without a valid token, and without a session', async () => {
    const bad = await fetch(`${loom.url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer nope' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: {} }) });
    expect(bad.status).toBe(401);
    expect((await rpc('tools/list')).status).toBe(404);
  });

  it('a session started on one gateway replica is served by another (sessions are stored, not kept in one process)', async () => {
    const session = await connect();
    const runtime = loom.gateway.runtime;
    // A second replica: its own endpoint and an empty session cache, over the same storage.
    const replica = new McpEndpoint(runtime.auth, runtime.dispatcher, runtime.runs, 60, runtime.storage);
    const call = (method: string, sessionId: string | undefined) =>
      replica.handle(JSON.stringify({ jsonrpc: '2.0', id: 7, method, params: {} }), { authorization: `Bearer ${token}`, sessionId, toolset: undefined, namespace: undefined });
    const listed = await call('tools/list', session);
    expect(listed.status).toBe(200);
    expect((listed.body as any).result.tools.map((t: { name: string }) => t.name)).toEqual(['loom_search']);
    const unknown = await call('tools/list', 'not-a-session');
    expect(unknown.status).toBe(404);
    expect((unknown.body as any).error.message).toMatch(/send initialize first/);
  });

  describe('[issue 9: MCP roles] initialize takes run.begin\'s role', () => {
    const runCount = async () => (await loom.admin.ok('run.list', { namespace: ns, agent: '*', limit: 100 })).runs.length;
    const asToken = async (extra: Record<string, unknown>) => {
      token = (await loom.admin.ok('token.create', { namespace: ns, ...extra })).token;
    };

    it('RUNS-04: a viewer\'s session begins no run, and its tools still answer', async () => {
      await asToken({ role: 'viewer' });
      const before = await runCount();
      const init = await rpc('initialize', { protocolVersion: '2025-06-18', clientInfo: { name: 'viewer-client' } });
      expect(init.status).toBe(200);
      expect(init.body.result.instructions).not.toMatch(/Run /);
      expect((await rpc('tools/call', { name: 'loom_search', arguments: { query: 'anything' } }, init.session!)).body.result.isError).toBe(false);
      expect(await runCount()).toBe(before);
    });

    it('an end-user (own_user) or own_session token is refused at initialize with 403 and begins no run', async () => {
      const before = await runCount();
      for (const bounded of [{ role: 'writer', read_scope: 'own_user', read_user_id: 'u1' }, { role: 'admin', read_scope: 'own_session', read_user_id: 'u1', read_session_id: 's1' }]) {
        await asToken(bounded);
        const init = await rpc('initialize', { clientInfo: { name: 'end-user' } });
        expect([bounded.read_scope, init.status, init.session]).toEqual([bounded.read_scope, 403, null]);
      }
      expect(await runCount()).toBe(before);
    });

    it('a viewer\'s ?toolset=all session cannot append through the tool (403 from the op, as over HTTP)', async () => {
      await asToken({ role: 'viewer' });
      const session = await connect('?toolset=all');
      const called = await rpc('tools/call', { name: 'loom_conversation_append', arguments: { thread_id: 'v', role: 'user', content: 'not mine to write' } }, session);
      expect(called.body.result).toMatchObject({ isError: true, content: [{ text: expect.stringMatching(/writer role/) }] });
    });

    it('a tool call cannot reach outside its session\'s namespace by naming another in its arguments', async () => {
      const other = uniqueNamespace();
      await loom.record(other);
      await asToken({ role: 'writer' });
      // Every-namespace admin's session on ns: the arguments name another namespace, the session's wins.
      token = loom.admin.token;
      const session = await connect(`?toolset=all&namespace=${ns}`);
      const called = await rpc('tools/call', { name: 'loom_conversation_append', arguments: { namespace: other, thread_id: 'pinned', role: 'user', content: 'stays in the session namespace' } }, session);
      expect(called.body.result.isError).toBe(false);
      expect((await loom.admin.ok('conversation.list', { namespace: ns, thread_id: 'pinned' })).messages).toHaveLength(1);
      expect((await loom.admin.call('conversation.get', { namespace: other, thread_id: 'pinned' })).status).toBe(404);
    });

    it('a session id is no credential: a token of another namespace is refused on it', async () => {
      const session = await connect();
      token = (await loom.admin.ok('token.create', { namespace: uniqueNamespace(), role: 'admin' })).token;
      expect((await rpc('ping', {}, session)).status).toBe(403);
    });

    it('the client name stored as the run\'s goal is well-formed, has no control characters and is at most 100 characters', async () => {
      const cases: Array<[unknown, string]> = [
        ['evil\u001b[31m\u0000\ud800 client\u202e\n\n', 'evil [31m client'],
        ['x'.repeat(5_000), 'x'.repeat(100)],
        ['😀'.repeat(150), '😀'.repeat(100)],
        [{ nested: true }, 'an MCP client'],
        ['\u0007\u0008', 'an MCP client'],
      ];
      for (const [name, expected] of cases) {
        const init = await rpc('initialize', { clientInfo: { name } });
        const runId = /Run (\S+)\./.exec(init.body.result.instructions as string)![1]!;
        expect((await loom.gateway.runtime.runs.get(ns, runId)).run.goal).toBe(`MCP session of ${expected}`);
      }
    });

    it('a namespace query parameter that is no namespace is a 400, and a JSON body that is no object is a 400', async () => {
      expect((await rpc('initialize', {}, undefined, '?namespace=' + encodeURIComponent('a b\u0000'))).status).toBe(400);
      const response = await fetch(`${loom.url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: 'null' });
      expect(response.status).toBe(400);
    });
  });
});
