import { createLogger, installTracing } from '@loom/platform';
import { ControllableProvider, startTestLoom, uniqueNamespace, type TestLoom } from '../../testing/src';

describe('Gateway: tokens, health, metrics, logs and traces', () => {
  const tracing = installTracing({ mode: 'memory' });
  const logLines: string[] = [];
  const provider = new ControllableProvider();
  let loom: TestLoom;
  beforeAll(async () => {
    loom = await startTestLoom({ provider, logger: createLogger('gateway', 'debug', { write: (line: string) => void logLines.push(line) }) });
  });
  afterAll(async () => loom.close());

  it('token.create (admin) answers { token } once; only its hash is stored; the token works for its namespace and role', async () => {
    const ns = uniqueNamespace();
    const created = await loom.admin.ok('token.create', { namespace: ns, role: 'writer', label: 'ci' });
    expect(created).toEqual({ token: expect.stringMatching(/^loom_[A-Za-z0-9_-]{43}$/), token_id: expect.stringMatching(/^tok_/), namespace: ns, role: 'writer' });
    const storage = loom.gateway.runtime.storage;
    const stored = await storage.query<{ token_hash: string }>(`SELECT token_hash FROM ${storage.tables.apiTokens} WHERE token_id = {id:String}`, { id: created.token_id });
    expect(stored).toHaveLength(1);
    expect(stored[0]!.token_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(await storage.query(`SELECT * FROM ${storage.tables.apiTokens}`))).not.toContain(created.token);
    const writer = loom.admin.withToken(created.token);
    expect((await writer.call('conversation.threads', {})).status).toBe(200);
    expect((await writer.call('conversation.threads', { namespace: uniqueNamespace() })).status).toBe(403);
    expect((await writer.call('conversation.set_logging', { enabled: true })).status).toBe(403);
    expect((await writer.call('token.create', { role: 'admin' })).status).toBe(403);
  });

  it('token.revoke makes a token unknown at once (401) and a namespace admin cannot mint beyond its namespace', async () => {
    const ns = uniqueNamespace();
    const nsAdmin = await loom.as(ns, 'admin');
    const minted = await nsAdmin.ok('token.create', { role: 'viewer' });
    expect(minted.namespace).toBe(ns);
    expect((await nsAdmin.call('token.create', { namespace: uniqueNamespace(), role: 'viewer' })).status).toBe(403);
    const viewer = loom.admin.withToken(minted.token);
    expect((await viewer.call('conversation.threads', {})).status).toBe(200);
    expect(await nsAdmin.ok('token.revoke', { token_id: minted.token_id })).toEqual({ token_id: minted.token_id, revoked: true });
    const after = await viewer.call('conversation.threads', {});
    expect(after.status).toBe(401);
    expect(after.body.error.code).toBe('unauthorized');
    expect((await nsAdmin.call('token.revoke', { token_id: 'tok_unknown' })).status).toBe(404);
  });

  it('[issue 12: token.list] a namespace admin lists the tokens of its namespaces only, with label, role, scope and times, never a secret or hash', async () => {
    const ns = uniqueNamespace();
    const other = uniqueNamespace();
    const nsAdmin = await loom.as(ns, 'admin');
    const minted = await nsAdmin.ok('token.create', { role: 'viewer', read_scope: 'own_user', read_user_id: 'ada', label: 'dashboard for ada' });
    const elsewhere = await loom.admin.ok('token.create', { namespace: other, role: 'writer', label: 'elsewhere' });
    const { tokens } = await nsAdmin.ok('token.list', {});
    const ids = tokens.map((t: { token_id: string }) => t.token_id);
    expect(ids).toContain(minted.token_id);
    expect(ids).not.toContain(elsewhere.token_id);
    expect(tokens.find((t: { token_id: string }) => t.token_id === minted.token_id)).toEqual({
      token_id: minted.token_id, label: 'dashboard for ada', role: 'viewer', namespaces: [ns], read_scope: 'own_user', read_user_id: 'ada', read_session_id: null,
      created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/), last_used_at: null, revoked: false, revoked_at: null,
    });
    // The every-namespace admin sees both; a namespace in the body narrows the list to it.
    const all = (await loom.admin.ok('token.list', {})).tokens.map((t: { token_id: string }) => t.token_id);
    expect(all).toEqual(expect.arrayContaining([minted.token_id, elsewhere.token_id]));
    expect((await loom.admin.ok('token.list', { namespace: other })).tokens.map((t: { token_id: string }) => t.token_id)).toEqual([elsewhere.token_id]);
    expect(JSON.stringify(tokens)).not.toMatch(/loom_|token_hash/);
    // Revoked tokens only on request; below admin, a 403.
    await nsAdmin.ok('token.revoke', { token_id: minted.token_id });
    expect((await nsAdmin.ok('token.list', {})).tokens.map((t: { token_id: string }) => t.token_id)).not.toContain(minted.token_id);
    expect((await nsAdmin.ok('token.list', { include_revoked: true })).tokens.find((t: { token_id: string }) => t.token_id === minted.token_id)).toMatchObject({ revoked: true });
    expect((await nsAdmin.call('token.list', { include_revoked: 'yes' })).body.error.fields.map((f: { field: string }) => f.field)).toEqual(['include_revoked']);
    expect((await (await loom.as(ns, 'writer')).call('token.list', {})).status).toBe(403);
  });

  it('a token bounded to one user (read_scope own_user) is refused by every conversation op with 403', async () => {
    const ns = uniqueNamespace();
    const bounded = await loom.as(ns, 'writer', { read_scope: 'own_user', read_user_id: 'u1' });
    for (const op of ['conversation.append', 'conversation.get', 'conversation.list', 'conversation.search', 'conversation.threads', 'conversation.create', 'conversation.update']) {
      const result = await bounded.call(op, { thread_id: 't', role: 'user', content: 'x', query: 'x' });
      expect([op, result.status]).toEqual([op, 403]);
    }
  });

  it('malformed JSON is a 400 naming the body; an unknown route is a 404 in the same error shape', async () => {
    const bad = await loom.admin.call('conversation.threads', undefined, { rawBody: '{"namespace": ' });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: 'invalid_input', fields: [{ field: '(body)', message: 'not valid JSON' }] });
    const response = await fetch(`${loom.url}/v2/nothing`);
    expect(response.status).toBe(404);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('not_found');
  });

  it('/healthz answers, /readyz checks storage and transport, /metrics serves op latency, embed batch sizes and failures, write-behind flushes, and storage parts and merges', async () => {
    expect(JSON.parse((await loom.admin.get('/healthz')).text)).toEqual({ status: 'ok' });
    const ready = await loom.admin.get('/readyz');
    expect(ready.status).toBe(200);
    // The planes that are off by default say so, and how to turn them on (SETTINGS-09).
    expect(JSON.parse(ready.text)).toEqual({
      status: 'ready',
      checks: { storage: true, transport: true, writes: true },
      planes: {
        code_history: expect.objectContaining({ enabled: false, how_to_enable: expect.stringContaining('LOOM_CODE_INGEST_ENABLED=true') }),
        tracker: expect.objectContaining({ enabled: false, how_to_enable: expect.stringContaining('LOOM_TRACKER_ORG') }),
      },
    });
    const ns = uniqueNamespace();
    await loom.record(ns);
    await loom.admin.ok('conversation.append', { namespace: ns, thread_id: 't', role: 'user', content: 'metrics please' });
    // A read waits for the flush of the embedded write-behind queue.
    await loom.admin.ok('conversation.list', { namespace: ns, thread_id: 't' });
    const metrics = (await loom.admin.get('/metrics')).text;
    expect(metrics).toMatch(/loom_write_behind_flush_rows_count\{[^}]*\} [1-9]/);
    expect(metrics).toMatch(/loom_storage_active_parts\{[^}]*table="conversations"[^}]*\} [1-9]/);
    expect(metrics).toMatch(/loom_storage_merges_running\{[^}]*\} \d+/);
    expect(metrics).toMatch(/loom_op_duration_seconds_count\{[^}]*op="conversation\.append"[^}]*status="200"[^}]*\} [1-9]/);
    expect(metrics).toContain('loom_append_total{outcome="stored"');
    expect(metrics).toContain('loom_embed_failures_total');
  });

  it('logs are structured JSON with op, namespace and correlation id, and never hold a turn\'s text', async () => {
    const ns = uniqueNamespace();
    await loom.record(ns);
    const marker = 'PURPLE-ELEPHANT-' + Date.now();
    await loom.admin.call('conversation.append', { namespace: ns, thread_id: 't', role: 'user', content: `the secret plan is ${marker}` }, { headers: { 'loom-correlation-id': 'corr-123' } });
    provider.failing = true;
    try {
      await loom.admin.ok('conversation.append', { namespace: ns, thread_id: 't', role: 'user', content: `failing embed of ${marker}` });
      await loom.admin.ok('conversation.search', { namespace: ns, query: marker });
    } finally {
      provider.failing = false;
    }
    const lines = logLines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.find((l) => l['correlation_id'] === 'corr-123')).toMatchObject({ service: 'gateway', op: 'conversation.append', namespace: ns, status: 200 });
    expect(logLines.join('\n')).not.toContain(marker);
  });

  it('TRACE-01: each op is one span, and the embedder\'s span joins the same trace through the transport headers', async () => {
    const ns = uniqueNamespace();
    await loom.record(ns);
    tracing.exporter!.reset();
    await loom.admin.ok('conversation.append', { namespace: ns, thread_id: 't', role: 'user', content: 'trace me' });
    const spans = tracing.exporter!.getFinishedSpans();
    const op = spans.find((s) => s.name === 'op conversation.append');
    const embed = spans.find((s) => s.name === 'embed.batch');
    expect(op).toBeDefined();
    expect(embed).toBeDefined();
    expect(embed!.spanContext().traceId).toBe(op!.spanContext().traceId);
    expect(op!.attributes['loom.namespace']).toBe(ns);
  });
});
