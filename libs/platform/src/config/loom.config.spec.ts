import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, ConfigVariables, loadConfig } from './loom.config';

describe('loadConfig', () => {
  it('gives the embedded defaults with an empty environment', () => {
    const config = loadConfig({});
    expect(config.port).toBe(7777);
    expect(config.clickhouse.url).toBeUndefined();
    expect(config.natsUrl).toBeUndefined();
    expect(config.embeddings.provider).toBe('hashed');
    expect(config.conversation).toEqual({ searchMinSimilarity: 0.3, searchExcerptChars: 240 });
  });

  it('chooses the OpenAI-compatible provider when a base URL is set', () => {
    const config = loadConfig({ LOOM_EMBEDDINGS_BASE_URL: 'http://127.0.0.1:9/v1', LOOM_EMBEDDINGS_MODEL: 'm' });
    expect(config.embeddings.provider).toBe('openai');
  });

  it('erasures run in the gateway by default; LOOM_ERASURE_RUNS_IN=service needs a ClickHouse server, since embedded no other process could run them', () => {
    expect(loadConfig({}).erasure).toMatchObject({ runsIn: 'gateway', metricsPort: 9466, attempts: 5, retryMs: 30_000, pollMs: 15_000 });
    expect(() => loadConfig({ LOOM_ERASURE_RUNS_IN: 'service' })).toThrow(/LOOM_ERASURE_RUNS_IN=service needs the split topology/);
    expect(loadConfig({ LOOM_ERASURE_RUNS_IN: 'service', LOOM_CLICKHOUSE_URL: 'http://127.0.0.1:8123' }).erasure.runsIn).toBe('service');
    expect(() => loadConfig({ LOOM_ERASURE_RUNS_IN: 'elsewhere' })).toThrow(/LOOM_ERASURE_RUNS_IN must be one of gateway, service/);
  });

  it('compaction runs in the gateway by default; LOOM_COMPACTION_RUNS_IN=service needs NATS to reach the compactor', () => {
    expect(loadConfig({}).compaction).toEqual({ runsIn: 'gateway', metricsPort: 9467 });
    expect(() => loadConfig({ LOOM_COMPACTION_RUNS_IN: 'service' })).toThrow(/LOOM_COMPACTION_RUNS_IN=service needs LOOM_NATS_URL/);
    expect(loadConfig({ LOOM_COMPACTION_RUNS_IN: 'service', LOOM_NATS_URL: 'nats://127.0.0.1:4222' }).compaction.runsIn).toBe('service');
  });

  it('lists every bad variable at once and never echoes a secret', () => {
    let error: unknown;
    try {
      loadConfig({ LOOM_PORT: 'x', LOOM_CONVERSATION_SEARCH_MIN_SIMILARITY: '3', LOOM_BOOTSTRAP_ADMIN_TOKEN: 'short-secret', LOOM_EMBEDDINGS_PROVIDER: 'openai' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems.join('\n');
    expect(problems).toContain('LOOM_PORT');
    expect(problems).toContain('LOOM_CONVERSATION_SEARCH_MIN_SIMILARITY');
    expect(problems).toContain('LOOM_BOOTSTRAP_ADMIN_TOKEN');
    expect(problems).toContain('LOOM_EMBEDDINGS_BASE_URL is required');
    expect(problems).not.toContain('short-secret');
  });

  it('SETTINGS-04: the titler settings default to on, 168 hours, 4 turns and 10 threads per pass, with a 60 s cadence', () => {
    expect(loadConfig({}).titler).toEqual({ enabled: true, windowHours: 168, minTurns: 4, maxThreadsPerPass: 10, intervalSeconds: 60, metricsPort: 9465 });
    expect(loadConfig({ LOOM_CONVERSATION_TITLER_ENABLED: 'false' }).titler.enabled).toBe(false);
    expect(() => loadConfig({ LOOM_CONVERSATION_TITLER_ENABLED: 'maybe' })).toThrow(/LOOM_CONVERSATION_TITLER_ENABLED must be true or false/);
  });

  it('the LLM is the fake one by default, and openai once a base URL is set (which then needs a model)', () => {
    expect(loadConfig({}).llm.provider).toBe('fake');
    expect(loadConfig({ LOOM_LLM_BASE_URL: 'http://127.0.0.1:9/v1', LOOM_LLM_MODEL: 'm' }).llm).toMatchObject({ provider: 'openai', model: 'm' });
    expect(() => loadConfig({ LOOM_LLM_BASE_URL: 'http://127.0.0.1:9/v1', LOOM_LLM_API_KEY: 'sk-secret-value' })).toThrow(/LOOM_LLM_MODEL is required/);
  });

  it('LOOM_MODEL_PRICES: JSON of model prices; every bad entry is named, and a bad value fails the start', () => {
    expect(loadConfig({}).modelPrices).toEqual({});
    expect(loadConfig({ LOOM_MODEL_PRICES: '{"acme-*":{"input":1,"output":4,"cache_read":0.1}}' }).modelPrices).toEqual({ 'acme-*': { input: 1, output: 4, cache_read: 0.1 } });
    expect(() => loadConfig({ LOOM_MODEL_PRICES: 'not json' })).toThrow(/LOOM_MODEL_PRICES must be a JSON object/);
    expect(() => loadConfig({ LOOM_MODEL_PRICES: '[1]' })).toThrow(/LOOM_MODEL_PRICES must be a JSON object of model name to prices/);
    expect(() => loadConfig({ LOOM_MODEL_PRICES: '{"a":{"input":-1,"output":2},"b":{"input":1},"c":{"input":1,"output":1,"cached":2}}' })).toThrow(
      /LOOM_MODEL_PRICES\["a"\].*bad: input[\s\S]*LOOM_MODEL_PRICES\["b"\].*bad: output[\s\S]*LOOM_MODEL_PRICES\["c"\].*unknown: cached/,
    );
  });

  it('[issue 13: api_url SSRF] LOOM_GITHUB_API_URLS: none by default; comma-separated http(s) URLs, normalised; credentials, a query or another scheme fail the start', () => {
    expect(loadConfig({}).code).toMatchObject({ githubApiUrl: 'https://api.github.com', githubApiUrls: [] });
    expect(loadConfig({ LOOM_GITHUB_API_URLS: ' https://GitHub.Example.com/api/v3/ ,http://127.0.0.1:8080' }).code.githubApiUrls).toEqual(['https://github.example.com/api/v3', 'http://127.0.0.1:8080']);
    expect(() => loadConfig({ LOOM_GITHUB_API_URLS: 'https://ok.example.com/api/v3,ftp://x.example.com' })).toThrow(/LOOM_GITHUB_API_URLS must be comma-separated http\(s\) URLs.*ftp:\/\/x\.example\.com/);
    expect(() => loadConfig({ LOOM_GITHUB_API_URLS: 'https://u:s3cretpw@x.example.com' })).toThrow(/LOOM_GITHUB_API_URLS .*\(got a URL with credentials\)/);
    expect(() => loadConfig({ LOOM_GITHUB_API_URLS: 'https://u:s3cretpw@x.example.com' })).not.toThrow(/s3cretpw/);
    expect(() => loadConfig({ LOOM_GITHUB_API_URLS: 'https://x.example.com/api?x=1' })).toThrow(/LOOM_GITHUB_API_URLS/);
  });

  it('TRACE-03: no trace sink unless one is set; an OTLP URL turns otlp on, with its headers (values never echoed)', () => {
    expect(loadConfig({}).traces).toEqual({ mode: 'none' });
    expect(loadConfig({ LOOM_TRACES_OTLP_URL: 'http://collector:4318/v1/traces', LOOM_TRACES_OTLP_HEADERS: 'Authorization=Basic cGs6c2s=, x-scope=a%2Cb' }).traces).toEqual({
      mode: 'otlp',
      otlp: { url: 'http://collector:4318/v1/traces', headers: { Authorization: 'Basic cGs6c2s=', 'x-scope': 'a,b' }, flushMs: 2000 },
    });
    expect(() => loadConfig({ LOOM_TRACES: 'otlp' })).toThrow(/LOOM_TRACES_OTLP_URL \(or OTEL_EXPORTER_OTLP_ENDPOINT\) is required when LOOM_TRACES=otlp/);
    const bad = (() => {
      try {
        loadConfig({ LOOM_TRACES_OTLP_URL: 'http://c/v1/traces', LOOM_TRACES_OTLP_HEADERS: 'secretvalue-no-name' });
        return '';
      } catch (error) {
        return (error as Error).message;
      }
    })();
    expect(bad).toContain('LOOM_TRACES_OTLP_HEADERS entry 1 must be name=value');
    expect(bad).not.toContain('secretvalue');
  });

  it('TRACE-01, TRACE-03 [issue 11: OTEL_* variables]: the standard OpenTelemetry variables configure the export; LOOM_TRACES_* wins; nothing is sent with neither', () => {
    expect(loadConfig({ OTEL_SERVICE_NAME: 'x' }).traces).toEqual({ mode: 'none', serviceName: 'x' });
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/', OTEL_EXPORTER_OTLP_HEADERS: 'Authorization=Basic%20cGs6c2s=,x-a=1', OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment=prod,k8s.pod.name=gw-1' }).traces).toEqual({
      mode: 'otlp',
      otlp: { url: 'http://collector:4318/v1/traces', headers: { Authorization: 'Basic cGs6c2s=', 'x-a': '1' }, flushMs: 2000 },
      resourceAttributes: { 'deployment.environment': 'prod', 'k8s.pod.name': 'gw-1' },
    });
    // The traces endpoint is used as given, and beats the base endpoint; LOOM_TRACES_OTLP_URL beats both.
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://b:4318/custom' }).traces.otlp?.url).toBe('http://b:4318/custom');
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318', LOOM_TRACES_OTLP_URL: 'http://loom:4318/v1/traces' }).traces.otlp?.url).toBe('http://loom:4318/v1/traces');
    // LOOM_TRACES_OTLP_HEADERS wins per header name.
    expect(loadConfig({ OTEL_EXPORTER_OTLP_HEADERS: 'a=otel,b=otel', LOOM_TRACES_OTLP_HEADERS: 'a=loom', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' }).traces.otlp?.headers).toEqual({ a: 'loom', b: 'otel' });
    expect(loadConfig({ OTEL_TRACES_EXPORTER: 'otlp' }).traces.otlp?.url).toBe('http://localhost:4318/v1/traces');
    expect(loadConfig({ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' }).traces.mode).toBe('none');
    expect(loadConfig({ OTEL_TRACES_EXPORTER: 'console' }).traces.mode).toBe('console');
    expect(loadConfig({ LOOM_TRACES: 'none', OTEL_TRACES_EXPORTER: 'otlp' }).traces.mode).toBe('none');
    expect(loadConfig({ OTEL_SDK_DISABLED: 'true', LOOM_TRACES_OTLP_URL: 'http://c/v1/traces' }).traces.mode).toBe('none');
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_BSP_SCHEDULE_DELAY: '250' }).traces.otlp?.flushMs).toBe(250);
    expect(loadConfig({ LOOM_TRACES: 'otlp', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' }).traces.otlp?.url).toBe('http://c:4318/v1/traces');
    const problems = (() => {
      try {
        loadConfig({ OTEL_TRACES_EXPORTER: 'jaeger', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc', OTEL_EXPORTER_OTLP_ENDPOINT: 'not a url', OTEL_EXPORTER_OTLP_HEADERS: 'secretvalue-no-name' });
        return '';
      } catch (error) {
        return (error as Error).message;
      }
    })();
    for (const problem of ['OTEL_TRACES_EXPORTER must be otlp, console or none', 'OTEL_EXPORTER_OTLP_PROTOCOL must be http/protobuf or http/json', 'OTEL_EXPORTER_OTLP_ENDPOINT must be a URL']) {
      expect(problems).toContain(problem);
    }
    expect(() => loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_EXPORTER_OTLP_HEADERS: 'secretvalue-no-name' })).toThrow(/OTEL_EXPORTER_OTLP_HEADERS entry 1 must be name=value \(value not shown\)/);
    expect(problems).not.toContain('secretvalue');
  });

  it('CONV-APPEND-06 [LOOM_WRITE_BEHIND_FLUSH_MS]: the write-behind flush interval is 200 ms by default, set in ms, and a value out of range fails the start naming it', () => {
    expect(loadConfig({}).append.writeBehindFlushMs).toBe(200);
    expect(loadConfig({ LOOM_WRITE_BEHIND_FLUSH_MS: '1000' }).append.writeBehindFlushMs).toBe(1000);
    for (const bad of ['5', '20000', 'soon']) expect(() => loadConfig({ LOOM_WRITE_BEHIND_FLUSH_MS: bad })).toThrow(/LOOM_WRITE_BEHIND_FLUSH_MS/);
    expect(ConfigVariables.find((v) => v.name === 'LOOM_WRITE_BEHIND_FLUSH_MS')?.default).toBe('200');
  });

  it('CONV-EMBED-01 [LOOM_EMBEDDINGS_THREAD]: the hashed embedder runs on a worker thread by default; false turns it off, and a non-boolean fails the start naming it', () => {
    expect(loadConfig({}).embeddings.thread).toBe(true);
    expect(loadConfig({ LOOM_EMBEDDINGS_THREAD: 'false' }).embeddings.thread).toBe(false);
    expect(() => loadConfig({ LOOM_EMBEDDINGS_THREAD: 'sometimes' })).toThrow(/LOOM_EMBEDDINGS_THREAD must be true or false/);
    expect(ConfigVariables.find((v) => v.name === 'LOOM_EMBEDDINGS_THREAD')?.default).toBe('true');
  });

  it('SETTINGS-05: retention and warm tiering of transcripts are opt-in: both default to 0 (keep forever, never move)', () => {
    expect(loadConfig({}).retention).toEqual({ days: 0, warmDays: 0 });
    expect(loadConfig({ LOOM_RETENTION_CONVERSATIONS_DAYS: '90', LOOM_TIERING_CONVERSATIONS_WARM_DAYS: '30' }).retention).toEqual({ days: 90, warmDays: 30 });
  });

  it('SETTINGS-06: brief condensing is on by default, with the deployment LLM unless a model and its key are given, 12,000-character windows, at most 4 per save', () => {
    expect(loadConfig({}).briefs).toEqual({ llm: true, model: undefined, baseUrl: undefined, apiKey: undefined, windowChars: 12_000, maxWindows: 4, extractionPolicy: 'builder' });
    expect(loadConfig({ LOOM_SESSION_BRIEF_EXTRACTION_POLICY: 'model-only' }).briefs.extractionPolicy).toBe('model-only');
    expect(() => loadConfig({ LOOM_SESSION_BRIEF_EXTRACTION_POLICY: 'strict' })).toThrow(/LOOM_SESSION_BRIEF_EXTRACTION_POLICY must be one of builder, model-only/);
    expect(loadConfig({ LOOM_SESSION_BRIEF_LLM: 'false' }).briefs.llm).toBe(false);
  });

  it('SETTINGS-09, TRACKER-01: the tracker plane is off (no org) by default; LOOM_TRACKER_ORG, the threshold, scan limit and timeout are read and checked', () => {
    expect(loadConfig({}).tracker).toEqual({ org: undefined, duplicateThreshold: undefined, scanLimit: 20_000, queryTimeoutMs: 15_000 });
    expect(loadConfig({ LOOM_TRACKER_ORG: 'acme', LOOM_TRACKER_DUPLICATE_THRESHOLD: '0.7' }).tracker).toMatchObject({ org: 'acme', duplicateThreshold: 0.7 });
    expect(() => loadConfig({ LOOM_TRACKER_DUPLICATE_THRESHOLD: '2' })).toThrow(/LOOM_TRACKER_DUPLICATE_THRESHOLD must be a number from 0 to 1/);
  });

  it('the README configuration table names every LOOM_* variable', () => {
    const readme = readFileSync(join(__dirname, '..', '..', '..', '..', 'README.md'), 'utf8');
    // Regenerate with: npm run build && node tools/readme-config-table.js
    const missing = ConfigVariables.filter((v) => !readme.includes(`| \`${v.name}\` |`)).map((v) => v.name);
    expect(missing).toEqual([]);
  });
});
