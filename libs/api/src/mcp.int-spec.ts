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
});
