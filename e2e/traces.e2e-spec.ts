import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { freePort, httpOk, launch, LoomApi, startOpenAiCompatibleServer, waitFor, type ManagedProcess } from '../libs/testing/src';

const CLI = resolve(__dirname, '..', 'dist', 'apps', 'cli', 'src', 'main.js');
const ADMIN = 'traces-admin-token-0123456789';

/** A loopback OTLP/HTTP receiver: what a collector, ClickStack or Langfuse would be sent. */
async function startReceiver(port = 0): Promise<{ url: string; requests: Array<{ path: string; headers: IncomingHttpHeaders; body: string }>; close(): Promise<void> }> {
  const requests: Array<{ path: string; headers: IncomingHttpHeaders; body: string }> = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      requests.push({ path: req.url ?? '', headers: req.headers, body });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
  const address = server.address();
  const bound = typeof address === 'object' && address ? address.port : port;
  return { url: `http://127.0.0.1:${bound}`, requests, close: () => new Promise((r) => server.close(() => r())) };
}

interface ExportedSpan {
  name: string;
  attributes: Array<{ key: string; value: Record<string, unknown> }>;
}

/** The spans of OTLP/JSON export requests, with their resource's service.name. */
function spansIn(bodies: string[]): Array<ExportedSpan & { service: unknown }> {
  return bodies.flatMap((body) =>
    (JSON.parse(body) as { resourceSpans: Array<{ resource: { attributes: ExportedSpan['attributes'] }; scopeSpans: Array<{ spans: ExportedSpan[] }> }> }).resourceSpans.flatMap((rs) => {
      const service = rs.resource.attributes.find((a) => a.key === 'service.name')?.value['stringValue'];
      return rs.scopeSpans.flatMap((ss) => ss.spans.map((s) => ({ ...s, service })));
    }),
  );
}

const attribute = (span: ExportedSpan, key: string): unknown => {
  const value = span.attributes.find((a) => a.key === key)?.value;
  return value ? (value['stringValue'] ?? value['intValue'] ?? value['doubleValue']) : undefined;
};

describe('trace sinks (OTLP/HTTP: an OpenTelemetry collector, ClickStack, Langfuse)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'loom-traces-'));
  let up: ManagedProcess | undefined;
  afterEach(async () => {
    await up?.stop();
    up = undefined;
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  const startUp = async (env: Record<string, string>): Promise<LoomApi> => {
    const port = await freePort();
    up = launch('loom up', process.execPath, [CLI, 'up'], {
      LOOM_DATA_DIR: join(dataDir, String(port)),
      LOOM_PORT: String(port),
      LOOM_BOOTSTRAP_ADMIN_TOKEN: ADMIN,
      LOOM_LOG_LEVEL: 'warn',
      ...env,
    });
    await waitFor('loom up', () => httpOk(`http://127.0.0.1:${port}/readyz`), { processes: [up] });
    return new LoomApi(`http://127.0.0.1:${port}`, ADMIN);
  };

  it('TRACE-03, TRACE-01: with an OTLP endpoint set, op spans and model-call spans (GenAI tokens and cost) reach it with its headers, and no turn text does', async () => {
    const receiver = await startReceiver();
    const llm = await startOpenAiCompatibleServer({ chat: () => '- the ledger moved to ledger_v2' });
    try {
      const api = await startUp({
        // Langfuse's path and its Basic auth header (public:secret key); a collector or ClickStack takes /v1/traces.
        LOOM_TRACES_OTLP_URL: `${receiver.url}/api/public/otel/v1/traces`,
        LOOM_TRACES_OTLP_HEADERS: 'Authorization=Basic cGstbGYtMTpzay1sZi0x,x-tenant=team-a',
        LOOM_TRACES_OTLP_FLUSH_MS: '100',
        LOOM_LLM_BASE_URL: llm.baseUrl,
        LOOM_LLM_MODEL: 'claude-haiku-4-5',
      });
      await api.ok('conversation.set_logging', { namespace: 'acme', enabled: true });
      await api.ok('conversation.append', { namespace: 'acme', thread_id: 't', role: 'user', content: 'marker-turn-text-7f3a about the ledger' });
      await api.ok('memory.set_from_messages', { namespace: 'acme', messages: [{ role: 'user', content: 'marker-memory-text-9c1d: the ledger moved' }] });
      await waitFor('spans at the receiver', async () => spansIn(receiver.requests.map((r) => r.body)).some((s) => s.name === 'llm extraction'), { processes: [up!] });

      const request = receiver.requests[0]!;
      expect(request.path).toBe('/api/public/otel/v1/traces');
      expect(request.headers['authorization']).toBe('Basic cGstbGYtMTpzay1sZi0x');
      expect(request.headers['x-tenant']).toBe('team-a');
      const spans = spansIn(receiver.requests.map((r) => r.body));
      const append = spans.find((s) => s.name === 'op conversation.append')!;
      expect(append.service).toBe('loom');
      expect(attribute(append, 'loom.namespace')).toBe('acme');
      const generation = spans.find((s) => s.name === 'llm extraction')!;
      expect(attribute(generation, 'gen_ai.request.model')).toBe('claude-haiku-4-5');
      expect(Number(attribute(generation, 'gen_ai.usage.input_tokens'))).toBeGreaterThan(0);
      expect(Number(attribute(generation, 'loom.llm.cost_usd'))).toBeGreaterThan(0);
      const everything = receiver.requests.map((r) => r.body).join('\n');
      expect(everything).not.toContain('marker-turn-text-7f3a');
      expect(everything).not.toContain('marker-memory-text-9c1d');
    } finally {
      await receiver.close();
      await llm.close();
    }
  });

  it('TRACE-03: with no sink configured Loom works, and nothing is sent to the default OTLP port', async () => {
    // An SDK left to its defaults would post to localhost:4318.
    const receiver = await startReceiver(4318);
    try {
      // The harness's OTEL_TRACES_EXPORTER=none is cleared: with no OTEL_* endpoint or exporter and
      // no LOOM_TRACES_*, Loom sends nothing (an SDK left to the OpenTelemetry defaults would).
      const api = await startUp({ OTEL_TRACES_EXPORTER: '' });
      await api.ok('conversation.set_logging', { namespace: 'acme', enabled: true });
      expect((await api.ok('conversation.append', { namespace: 'acme', thread_id: 't', role: 'user', content: 'no sink here' })).stored).toBe(true);
      expect((await api.ok('conversation.search', { namespace: 'acme', query: 'sink' })).hits).toHaveLength(1);
      await up!.stop();
      expect(await up!.exited).toBe(0);
      expect(receiver.requests).toEqual([]);
    } finally {
      await receiver.close();
    }
  });

  it('TRACE-01 [issue 11: standard OTEL_* variables, incoming traceparent, trace ids in log lines]: OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_EXPORTER_OTLP_HEADERS, OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES configure the export; an op sent with a W3C traceparent is a child span in that trace; its log line names the trace', async () => {
    const receiver = await startReceiver();
    try {
      const api = await startUp({
        OTEL_TRACES_EXPORTER: '',
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_EXPORTER_OTLP_HEADERS: 'x-tenant=team-b,authorization=Bearer%20otel-token',
        OTEL_SERVICE_NAME: 'loom-e2e',
        OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment=e2e,service.namespace=loom',
        OTEL_BSP_SCHEDULE_DELAY: '100',
        LOOM_LOG_LEVEL: 'info',
      });
      await api.ok('conversation.set_logging', { namespace: 'acme', enabled: true });
      const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
      const parentId = '00f067aa0ba902b7';
      const answer = await api.call(
        'conversation.append',
        { namespace: 'acme', thread_id: 't', role: 'user', content: 'traced from outside' },
        { headers: { traceparent: `00-${traceId}-${parentId}-01`, tracestate: 'vendor=abc' } },
      );
      expect(answer.status).toBe(200);
      // Another op with no traceparent starts a trace of its own.
      await api.ok('conversation.get_logging', { namespace: 'acme' });

      const traced = () => spansIn(receiver.requests.map((r) => r.body)) as Array<ExportedSpan & { service: unknown; traceId?: string; parentSpanId?: string; spanId?: string }>;
      await waitFor('the appended op span at the receiver', async () => traced().some((s) => s.name === 'op conversation.append') && traced().some((s) => s.name === 'op conversation.get_logging'), { processes: [up!] });
      expect(receiver.requests[0]!.path).toBe('/v1/traces');
      expect(receiver.requests[0]!.headers['x-tenant']).toBe('team-b');
      expect(receiver.requests[0]!.headers['authorization']).toBe('Bearer otel-token');
      const append = traced().find((s) => s.name === 'op conversation.append')!;
      expect(append.service).toBe('loom-e2e');
      expect({ traceId: append.traceId, parentSpanId: append.parentSpanId }).toEqual({ traceId, parentSpanId: parentId });
      const own = traced().find((s) => s.name === 'op conversation.get_logging')!;
      expect(own.traceId).not.toBe(traceId);
      const resource = JSON.parse(receiver.requests[0]!.body) as { resourceSpans: Array<{ resource: { attributes: ExportedSpan['attributes'] } }> };
      const attributes = Object.fromEntries(resource.resourceSpans[0]!.resource.attributes.map((a) => [a.key, a.value['stringValue']]));
      expect(attributes).toMatchObject({ 'service.name': 'loom-e2e', 'deployment.environment': 'e2e', 'service.namespace': 'loom' });

      // The op's log line names its trace: the caller's for the append, its own for the other.
      const lines = up!
        .output()
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .filter((l) => l['msg'] === 'op');
      expect(lines.find((l) => l['op'] === 'conversation.append')).toMatchObject({ trace_id: traceId });
      expect(lines.find((l) => l['op'] === 'conversation.get_logging')).toMatchObject({ trace_id: own.traceId });
    } finally {
      await receiver.close();
    }
  });
});
