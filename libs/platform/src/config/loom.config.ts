import { resolve } from 'node:path';
import { OtelVariables, withOtelVariables } from './otel.config';

export type EmbeddingProviderName = 'hashed' | 'openai' | 'use';
export type LlmProviderName = 'fake' | 'openai';

/** A model's price in US dollars per million tokens; absent cache prices fall back to the input price. */
export interface ModelPrice {
  input: number;
  output: number;
  cache_write?: number;
  cache_write_1h?: number;
  cache_read?: number;
}

/** Where finished spans go; `otlp` names an OTLP/HTTP traces endpoint and the headers it needs. */
export interface TracesConfig {
  mode: 'none' | 'console' | 'memory' | 'otlp';
  otlp?: { url: string; headers: Record<string, string>; flushMs: number } | undefined;
  /** OTEL_SERVICE_NAME: replaces the process's own service.name. */
  serviceName?: string;
  /** OTEL_RESOURCE_ATTRIBUTES. */
  resourceAttributes?: Record<string, string>;
}

/** Every LOOM_* variable, parsed once at boot. `process.env` is read nowhere else. */
export interface LoomConfig {
  host: string;
  port: number;
  dataDir: string;
  clickhouse: {
    /** Unset: the embedded chDB engine under dataDir. */
    url: string | undefined;
    username: string | undefined;
    password: string | undefined;
    database: string;
    cluster: string | undefined;
  };
  /** Unset: the in-process transport. */
  natsUrl: string | undefined;
  embeddings: {
    provider: EmbeddingProviderName;
    baseUrl: string | undefined;
    model: string | undefined;
    apiKey: string | undefined;
    dims: number | undefined;
    timeoutMs: number;
    /** hashed only: embed on a worker thread, off the serving thread (ThreadedHashedEmbeddingProvider). */
    thread: boolean;
  };
  embedder: { maxBatch: number; lingerMs: number; concurrency: number; metricsPort: number };
  /** How long a gateway waits for the embedder before failing open. */
  embedRequestTimeoutMs: number;
  conversation: { searchMinSimilarity: number; searchExcerptChars: number };
  /** Namespace-wide vector search (ADR 0038). */
  search: { keptVectors: number; keptExactVectors: number; keptFileVectors: number; keptFileDir: string | undefined; keptPostings: number };
  /** The model behind the titler (and later the summarizer and brief revisions). */
  llm: {
    provider: LlmProviderName;
    baseUrl: string | undefined;
    model: string | undefined;
    apiKey: string | undefined;
    timeoutMs: number;
  };
  retention: { days: number; warmDays: number };
  mcp: { sessionRunIdleSeconds: number };
  /** Deferred memory extractions: retries after a failed attempt. */
  memoryExtraction: { attempts: number; retryMs: number; pollMs: number };
  erasure: { attempts: number; retryMs: number; pollMs: number; runsIn: 'gateway' | 'service'; metricsPort: number };
  compaction: { runsIn: 'gateway' | 'service'; metricsPort: number };
  /** The code-history plane: off until LOOM_CODE_INGEST_ENABLED=true (PRHIST-04). */
  code: {
    ingestEnabled: boolean;
    /** LOOM_GITHUB_TOKEN: the GitHub source's token when code.github_sync gives none (sent to githubApiUrl only). */
    githubToken: string | undefined;
    /** LOOM_GITHUB_API_URL: GitHub's REST API, or a GitHub Enterprise Server's. */
    githubApiUrl: string;
    /** LOOM_GITHUB_API_URLS: the other APIs code.github_sync's api_url may name (GitHub Enterprise Servers); none else is called. */
    githubApiUrls: string[];
    /** LOOM_GITHUB_MAX_WAIT_SECONDS: the longest rate-limit wait a sync takes in process before it stops paused. */
    githubMaxWaitSeconds: number;
  };
  /** Where session.brief_save and deferred memory extractions run: the gateway, or the brief condenser. */
  briefCondenser: { runsIn: 'gateway' | 'service'; metricsPort: number };
  /** Prices added to (or replacing) Loom's list, by model name or name prefix. */
  modelPrices: Record<string, ModelPrice>;
  briefs: {
    llm: boolean;
    model: string | undefined;
    baseUrl: string | undefined;
    apiKey: string | undefined;
    windowChars: number;
    maxWindows: number;
    extractionPolicy: 'builder' | 'model-only';
  };
  titler: { enabled: boolean; windowHours: number; minTurns: number; maxThreadsPerPass: number; intervalSeconds: number; metricsPort: number };
  bootstrapAdminToken: string | undefined;
  logLevel: string;
  traces: TracesConfig;
  append: { batchLingerMs: number; batchMaxRows: number; writeBehindFlushMs: number };
  /** The tracker plane: off until `org` is set and a source is registered. */
  tracker: { org: string | undefined; duplicateThreshold: number | undefined; scanLimit: number; queryTimeoutMs: number };
}

/** The variables (name, meaning, default) — the README's table is generated from this list. */
export const ConfigVariables: ReadonlyArray<{ name: string; default: string; meaning: string }> = [
  { name: 'LOOM_PORT', default: '7777', meaning: 'HTTP port of the gateway (the API, /healthz, /readyz, /metrics)' },
  { name: 'LOOM_HOST', default: '127.0.0.1', meaning: 'address the gateway listens on (0.0.0.0 in containers)' },
  { name: 'LOOM_DATA_DIR', default: './.loom', meaning: 'embedded mode: where chDB keeps its data and its write-ahead log (wal/), and where `loom up` writes admin-token' },
  { name: 'LOOM_CLICKHOUSE_URL', default: '(unset: embedded chDB)', meaning: 'a ClickHouse server over HTTP, e.g. http://clickhouse:8123' },
  { name: 'LOOM_CLICKHOUSE_USER', default: 'default', meaning: 'ClickHouse user (server mode)' },
  { name: 'LOOM_CLICKHOUSE_PASSWORD', default: '(empty)', meaning: 'ClickHouse password (server mode; never logged)' },
  { name: 'LOOM_CLICKHOUSE_DATABASE', default: 'loom', meaning: 'the database holding every Loom table' },
  { name: 'LOOM_CLICKHOUSE_CLUSTER', default: '(unset)', meaning: 'cluster name: DDL runs ON CLUSTER with Replicated engines' },
  { name: 'LOOM_NATS_URL', default: '(unset: in-process transport)', meaning: 'NATS server, e.g. nats://127.0.0.1:4222 (split topology)' },
  { name: 'LOOM_EMBEDDINGS_PROVIDER', default: 'hashed (openai when LOOM_EMBEDDINGS_BASE_URL is set)', meaning: 'hashed | openai | use' },
  { name: 'LOOM_EMBEDDINGS_BASE_URL', default: '(unset)', meaning: 'an OpenAI-compatible endpoint, e.g. https://api.openai.com/v1' },
  { name: 'LOOM_EMBEDDINGS_MODEL', default: '(unset)', meaning: 'embedding model name at that endpoint (required with openai)' },
  { name: 'LOOM_EMBEDDINGS_API_KEY', default: '(unset)', meaning: 'API key of that endpoint (never logged)' },
  { name: 'LOOM_EMBEDDINGS_DIMS', default: '384 (hashed)', meaning: 'vector size of the hashed provider, or requested dimensions for openai' },
  { name: 'LOOM_EMBEDDINGS_TIMEOUT_MS', default: '10000', meaning: 'provider call timeout in the embedder' },
  { name: 'LOOM_EMBEDDINGS_THREAD', default: 'true', meaning: 'hashed only: embed on a worker thread of the embedder, so the serving thread (the gateway\'s, in `loom up`) does not; the vectors are the same either way' },
  { name: 'LOOM_EMBED_REQUEST_TIMEOUT_MS', default: '15000', meaning: 'how long an append or search waits for the embedder before failing open' },
  { name: 'LOOM_EMBEDDER_MAX_BATCH', default: '64', meaning: 'most texts the embedder sends to its provider in one call' },
  { name: 'LOOM_EMBEDDER_LINGER_MS', default: '0', meaning: 'extra wait to gather concurrent requests into one batch; 0 is group commit (idle: at once; busy: texts that arrive while calls run share the next call)' },
  { name: 'LOOM_EMBEDDER_CONCURRENCY', default: '4', meaning: 'provider calls one embedder replica runs at once' },
  { name: 'LOOM_EMBEDDER_METRICS_PORT', default: '9464', meaning: 'a standalone embedder serves /metrics and /healthz here (0 turns it off)' },
  { name: 'LOOM_CONVERSATION_SEARCH_MIN_SIMILARITY', default: '0.30', meaning: 'cosine floor of conversation.search (live: settings.set overrides it)' },
  { name: 'LOOM_CONVERSATION_SEARCH_EXCERPT_CHARS', default: '240', meaning: 'characters of a turn a search hit shows (live: settings.set overrides it)' },
  { name: 'LOOM_LLM_PROVIDER', default: 'fake (openai when LOOM_LLM_BASE_URL is set)', meaning: 'fake | openai: the model that writes thread titles; the fake one answers nothing, so no titles are written' },
  { name: 'LOOM_LLM_BASE_URL', default: '(unset)', meaning: 'an OpenAI-compatible chat endpoint, e.g. https://api.openai.com/v1' },
  { name: 'LOOM_LLM_MODEL', default: '(unset)', meaning: 'chat model name at that endpoint (required with openai)' },
  { name: 'LOOM_LLM_API_KEY', default: '(unset)', meaning: 'API key of that endpoint (never logged)' },
  { name: 'LOOM_LLM_TIMEOUT_MS', default: '30000', meaning: 'LLM call timeout' },
  { name: 'LOOM_CODE_INGEST_ENABLED', default: 'false', meaning: 'the code-history plane: `loom code add` indexes a repository and history.* ops answer; off, they answer 501 saying how to turn it on' },
  { name: 'LOOM_GITHUB_TOKEN', default: '(unset)', meaning: 'token of the GitHub source (`loom code github`) when the op gives none; sent only to LOOM_GITHUB_API_URL, never stored or logged' },
  { name: 'LOOM_GITHUB_MAX_WAIT_SECONDS', default: '3900', meaning: 'the longest GitHub rate-limit wait a sync takes in the gateway; a longer one stops it paused, with when to rerun' },
  { name: 'LOOM_GITHUB_API_URL', default: 'https://api.github.com', meaning: 'GitHub\'s REST API for the GitHub source, or a GitHub Enterprise Server\'s (https://host/api/v3)' },
  { name: 'LOOM_GITHUB_API_URLS', default: '(none)', meaning: 'more GitHub APIs code.github_sync\'s api_url may name, comma-separated (GitHub Enterprise Servers, https://host/api/v3); any other api_url is refused, so an admin cannot aim the gateway at other hosts' },
  { name: 'LOOM_CONVERSATION_TITLER_ENABLED', default: 'true', meaning: 'the titler worker gives untitled threads an LLM-written title; false stops every title write' },
  { name: 'LOOM_CONVERSATION_TITLER_WINDOW_HOURS', default: '168', meaning: 'only threads with a turn in this many past hours are titled' },
  { name: 'LOOM_CONVERSATION_TITLER_MIN_TURNS', default: '4', meaning: 'only threads with at least this many live turns (any role) are titled' },
  { name: 'LOOM_CONVERSATION_TITLER_MAX_THREADS_PER_PASS', default: '10', meaning: 'most threads one titler pass sends to the LLM' },
  { name: 'LOOM_CONVERSATION_TITLER_INTERVAL_SECONDS', default: '60', meaning: 'the titler cadence: seconds between the end of one pass and the start of the next' },
  { name: 'LOOM_TITLER_METRICS_PORT', default: '9465', meaning: 'a standalone titler (split topology) serves /metrics and /healthz here (0 turns it off)' },
  { name: 'LOOM_SESSION_BRIEF_LLM', default: 'true', meaning: 'session briefs are revised from events by a model when one is configured; off, or with no model, the deterministic builder writes goal, status, files, errors and pointers' },
  { name: 'LOOM_SESSION_BRIEF_LLM_MODEL', default: '(unset: the deployment LLM)', meaning: 'a model of its own for brief revisions; used only with LOOM_SESSION_BRIEF_LLM_API_KEY, else the deployment LLM writes them' },
  { name: 'LOOM_SESSION_BRIEF_LLM_BASE_URL', default: '(LOOM_LLM_BASE_URL)', meaning: 'the OpenAI-compatible endpoint of that model' },
  { name: 'LOOM_SESSION_BRIEF_LLM_API_KEY', default: '(unset)', meaning: 'the key of that model (never logged)' },
  { name: 'LOOM_SESSION_BRIEF_WINDOW_CHARS', default: '12000', meaning: 'characters of events one model call revises a brief from' },
  { name: 'LOOM_SESSION_BRIEF_MAX_WINDOWS', default: '4', meaning: 'most event windows revised per save (the newest)' },
  {
    name: 'LOOM_SESSION_BRIEF_EXTRACTION_POLICY',
    default: 'builder',
    meaning: "builder | model-only: model-only is an operator's extraction policy: the deterministic builder never runs (an events-only save with no model is not revised) and no client summary is taken from the events",
  },
  {
    name: 'LOOM_SEARCH_KEPT_VECTORS',
    default: '1000000',
    meaning:
      "embedding rows whose Int8 vectors the search process keeps in memory to rank a namespace-wide vector leg without scanning the engine (ADR 0038; about dimensions + 60 bytes each: 1,000,000 at 384 dimensions is about 450 MB); a namespace over it ranks in the engine; 0 keeps none",
  },
  {
    name: 'LOOM_SEARCH_KEPT_EXACT_VECTORS',
    default: '250000',
    meaning:
      "of the kept rows (LOOM_SEARCH_KEPT_VECTORS), how many also keep their Float32 vector and header, so that a namespace-wide vector leg is ranked and scored exactly in the search process with no engine statement (ADR 0040; about 4 x dimensions + 100 bytes each: 250,000 at 384 dimensions is about 400 MB); a namespace that does not fit keeps them in a file (LOOM_SEARCH_KEPT_FILE_VECTORS) or re-scores its candidates in the engine; 0 keeps none in memory",
  },
  {
    name: 'LOOM_SEARCH_KEPT_FILE_VECTORS',
    default: '1000000',
    meaning:
      "of the kept rows, how many that do not fit LOOM_SEARCH_KEPT_EXACT_VECTORS keep their Float32 vectors in a file instead, and their header in memory, so that a large namespace is also scored exactly in the search process (ADR 0043; 4 x dimensions bytes each on disk, mostly held in the page cache, and about 100 bytes each in memory: 1,000,000 at 384 dimensions is about 1.5 GB of file); a namespace that fits neither re-scores its candidates in the engine; 0 keeps none on file",
  },
  {
    name: 'LOOM_SEARCH_KEPT_FILE_DIR',
    default: '(the system temp directory)',
    meaning:
      "where the search process writes the files of LOOM_SEARCH_KEPT_FILE_VECTORS; each is unlinked as soon as it is opened, so nothing outlives the process; a directory it cannot write keeps none on file (logged)",
  },
  {
    name: 'LOOM_SEARCH_KEPT_POSTINGS',
    default: '64000000',
    meaning:
      "postings (one per turn, plus one per term of each turn) the search process keeps in memory to rank a namespace-wide lexical (BM25) leg without the engine, whatever words a search asks (ADR 0039, ADR 0041; about 16 bytes each plus about 300 bytes per turn: 100,000 turns of 700 characters hold about 4,700,000, some 100 MB, and 1,000,000 turns about 47,000,000, some 1 GB); the least recently used namespaces are dropped to fit, and a namespace whose postings alone exceed it ranks in the engine; 0 keeps none",
  },
  { name: 'LOOM_RETENTION_CONVERSATIONS_DAYS', default: '0', meaning: 'opt-in TTL: transcript rows older than this many days (message time) leave the disk; 0 keeps them forever. Embedding rows have no TTL' },
  { name: 'LOOM_TIERING_CONVERSATIONS_WARM_DAYS', default: '0', meaning: "opt-in: transcript rows older than this many days move to the storage policy's volume named 'warm' (a ClickHouse server set up for it); 0 never" },
  { name: 'LOOM_MCP_SESSION_RUN_IDLE_SECONDS', default: '1800', meaning: "an MCP session's implicit run is closed after this long without a call" },
  { name: 'LOOM_MEMORY_EXTRACTION_ATTEMPTS', default: '5', meaning: 'attempts a deferred memory extraction gets before it is marked failed (its evidence is kept)' },
  { name: 'LOOM_MEMORY_EXTRACTION_RETRY_MS', default: '30000', meaning: 'wait before a failed deferred extraction is tried again; it doubles with each attempt' },
  { name: 'LOOM_MEMORY_EXTRACTION_POLL_MS', default: '15000', meaning: 'how often each replica looks for deferred extractions due (retries, and work a crashed replica left)' },
  { name: 'LOOM_ERASURE_ATTEMPTS', default: '5', meaning: 'attempts an erasure request gets before it is marked failed (send it again once the cause is fixed)' },
  { name: 'LOOM_ERASURE_RETRY_MS', default: '30000', meaning: 'wait before an erasure that failed part-way is tried again; it doubles with each attempt' },
  { name: 'LOOM_ERASURE_POLL_MS', default: '15000', meaning: 'how often each replica looks for erasures due (wait:false requests, retries, and work a crashed replica left)' },
  {
    name: 'LOOM_ERASURE_RUNS_IN',
    default: 'gateway',
    meaning: 'gateway | service: where erasures run. service: the gateways only store requests (and wait for them), and the erasure service (apps/erasure, split topology) runs them',
  },
  {
    name: 'LOOM_COMPACTION_RUNS_IN',
    default: 'gateway',
    meaning: 'gateway | service: where conversation.compact runs. service: the gateways send it to the compactor (apps/compactor, split topology) over NATS and answer what it answers',
  },
  { name: 'LOOM_COMPACTOR_METRICS_PORT', default: '9467', meaning: 'a standalone compactor (split topology) serves /metrics and /healthz here (0 turns it off)' },
  {
    name: 'LOOM_BRIEFS_RUNS_IN',
    default: 'gateway',
    meaning:
      'gateway | service: where session.brief_save (model windows and the model-free builder) and deferred memory extractions run. service: the gateways send brief saves to the brief condenser (apps/brief-condenser, split topology) over NATS and answer what it answers, and hand deferred extractions to it as durable JetStream work',
  },
  { name: 'LOOM_BRIEF_CONDENSER_METRICS_PORT', default: '9468', meaning: 'a standalone brief condenser (split topology) serves /healthz, /readyz and /metrics here (0 turns it off)' },
  { name: 'LOOM_ERASURE_METRICS_PORT', default: '9466', meaning: 'a standalone erasure service (split topology) serves /metrics and /healthz here (0 turns it off)' },
  {
    name: 'LOOM_MODEL_PRICES',
    default: '(built-in list)',
    meaning: 'JSON of model prices in USD per million tokens, by model name or prefix, e.g. {"my-model":{"input":1,"output":4,"cache_read":0.1}}; adds to and overrides the built-in list used to price reported run usage and Loom\'s own model calls',
  },
  { name: 'LOOM_BOOTSTRAP_ADMIN_TOKEN', default: '(unset)', meaning: 'this value becomes an admin token for every namespace at start (automation)' },
  { name: 'LOOM_APPEND_BATCH_LINGER_MS', default: '0', meaning: 'extra wait for company before a transcript insert; 0 is pure group commit (idle: at once; busy: the next batch forms while one is written)' },
  { name: 'LOOM_APPEND_BATCH_MAX_ROWS', default: '500', meaning: 'most turns in one insert' },
  {
    name: 'LOOM_WRITE_BEHIND_FLUSH_MS',
    default: '200',
    meaning: 'embedded engine: longest an acknowledged write waits in the write-ahead log for company before it is inserted (a read flushes at once); longer means fewer, larger parts and less merging, and a read during heavy writes waits for a larger flush',
  },
  { name: 'LOOM_TRACKER_ORG', default: '(unset: the tracker plane is off)', meaning: "the organisation whose tracker Loom reads; with a source registered (tracker.source_register) the tracker ops turn on" },
  { name: 'LOOM_TRACKER_DUPLICATE_THRESHOLD', default: '0.5', meaning: 'score (0..1) from which tracker.duplicate_check calls an older issue a duplicate (live: settings.set tracker_duplicate_threshold overrides it)' },
  { name: 'LOOM_TRACKER_SCAN_LIMIT', default: '20000', meaning: 'newest issues of the source one duplicate check reads and ranks' },
  { name: 'LOOM_TRACKER_QUERY_TIMEOUT_MS', default: '15000', meaning: "how long a read of the team's ClickHouse may take before the op answers 503" },
  { name: 'LOOM_LOG_LEVEL', default: 'info', meaning: 'trace | debug | info | warn | error | fatal | silent' },
  {
    name: 'LOOM_TRACES',
    default: 'none (otlp when LOOM_TRACES_OTLP_URL is set)',
    meaning: 'none | console | otlp | memory (tests): where finished OpenTelemetry spans go; spans and propagation run either way, and nothing is sent unless a sink is set',
  },
  {
    name: 'LOOM_TRACES_OTLP_URL',
    default: '(unset)',
    meaning: 'an OTLP/HTTP traces endpoint: an OpenTelemetry collector or ClickStack (http://collector:4318/v1/traces), or Langfuse (https://cloud.langfuse.com/api/public/otel/v1/traces)',
  },
  { name: 'LOOM_TRACES_OTLP_HEADERS', default: '(unset)', meaning: 'headers for that endpoint as name=value pairs separated by commas, e.g. Authorization=Basic <base64 of public:secret key> for Langfuse (never logged)' },
  { name: 'LOOM_TRACES_OTLP_FLUSH_MS', default: '2000', meaning: 'how long finished spans wait to be sent together' },
  ...OtelVariables,
];

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

/** A part of the configuration, named as LoomConfig names it. */
export type ConfigSection = keyof LoomConfig;

/** Every section: what `loom up` and the gateway parse. */
export const AllConfigSections = [
  'host',
  'port',
  'dataDir',
  'clickhouse',
  'natsUrl',
  'embeddings',
  'embedder',
  'embedRequestTimeoutMs',
  'conversation',
  'search',
  'llm',
  'retention',
  'mcp',
  'memoryExtraction',
  'erasure',
  'compaction',
  'briefCondenser',
  'modelPrices',
  'briefs',
  'titler',
  'bootstrapAdminToken',
  'logLevel',
  'traces',
  'append',
  'tracker',
  'code',
] as const satisfies readonly ConfigSection[];

/**
 * Parses the environment, failing with the list of every bad variable. Secret values are never
 * echoed in the messages.
 */
export function loadConfig(env: Env = process.env): LoomConfig {
  return loadConfigSections(AllConfigSections, env);
}

/**
 * Parses only the variables of the given sections, and fails with the list of every bad one
 * among them: a service is never stopped by a variable it does not read.
 */
export function loadConfigSections<K extends ConfigSection>(
  wanted: readonly K[],
  env: Env = process.env,
  /** Variables this process cannot run without, each with the reason, listed with the other problems. */
  required: Record<string, string> = {},
): Pick<LoomConfig, K> {
  const problems: string[] = [];
  const str = (name: string): string | undefined => {
    const value = env[name]?.trim();
    return value === undefined || value === '' ? undefined : value;
  };
  const int = (name: string, fallback: number, min: number, max: number): number => {
    const raw = str(name);
    if (raw === undefined) return fallback;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < min || value > max) {
      problems.push(`${name} must be a whole number from ${min} to ${max} (got "${raw}")`);
      return fallback;
    }
    return value;
  };
  const num = (name: string, fallback: number, min: number, max: number): number => {
    const raw = str(name);
    if (raw === undefined) return fallback;
    const value = Number(raw);
    if (!Number.isFinite(value) || value < min || value > max) {
      problems.push(`${name} must be a number from ${min} to ${max} (got "${raw}")`);
      return fallback;
    }
    return value;
  };
  const url = (name: string, secret = false): string | undefined => {
    const raw = str(name);
    if (raw === undefined) return undefined;
    try {
      new URL(raw);
      return raw;
    } catch {
      problems.push(`${name} must be a URL${secret ? '' : ` (got "${raw}")`}`);
      return undefined;
    }
  };
  const bool = (name: string, fallback: boolean): boolean => {
    const raw = str(name)?.toLowerCase();
    if (raw === undefined) return fallback;
    if (['true', '1', 'yes', 'on'].includes(raw)) return true;
    if (['false', '0', 'no', 'off'].includes(raw)) return false;
    problems.push(`${name} must be true or false (got "${raw}")`);
    return fallback;
  };
  const oneOf = <T extends string>(name: string, allowed: readonly T[], fallback: T): T => {
    const raw = str(name);
    if (raw === undefined) return fallback;
    if (!(allowed as readonly string[]).includes(raw)) {
      problems.push(`${name} must be one of ${allowed.join(', ')} (got "${raw}")`);
      return fallback;
    }
    return raw as T;
  };

  const sections: { [S in ConfigSection]: () => LoomConfig[S] } = {
    host: () => str('LOOM_HOST') ?? '127.0.0.1',
    port: () => int('LOOM_PORT', 7777, 0, 65535),
    dataDir: () => resolve(str('LOOM_DATA_DIR') ?? './.loom'),
    clickhouse: () => {
      const database = str('LOOM_CLICKHOUSE_DATABASE') ?? 'loom';
      if (!/^[A-Za-z_][A-Za-z0-9_]{0,63}$/.test(database)) {
        problems.push(`LOOM_CLICKHOUSE_DATABASE must be a plain identifier (letters, digits, _) (got "${database}")`);
      }
      return {
        url: url('LOOM_CLICKHOUSE_URL'),
        username: str('LOOM_CLICKHOUSE_USER'),
        password: env['LOOM_CLICKHOUSE_PASSWORD'],
        database,
        cluster: str('LOOM_CLICKHOUSE_CLUSTER'),
      };
    },
    natsUrl: () => url('LOOM_NATS_URL'),
    embeddings: () => {
      const baseUrl = url('LOOM_EMBEDDINGS_BASE_URL');
      const provider = oneOf<EmbeddingProviderName>('LOOM_EMBEDDINGS_PROVIDER', ['hashed', 'openai', 'use'], baseUrl ? 'openai' : 'hashed');
      const model = str('LOOM_EMBEDDINGS_MODEL');
      if (provider === 'openai' && !baseUrl) problems.push('LOOM_EMBEDDINGS_BASE_URL is required when LOOM_EMBEDDINGS_PROVIDER=openai');
      if (provider === 'openai' && !model) problems.push('LOOM_EMBEDDINGS_MODEL is required when LOOM_EMBEDDINGS_PROVIDER=openai');
      const dimsRaw = str('LOOM_EMBEDDINGS_DIMS');
      const dims = dimsRaw === undefined ? undefined : int('LOOM_EMBEDDINGS_DIMS', 384, 8, 8192);
      return { provider, baseUrl, model, apiKey: str('LOOM_EMBEDDINGS_API_KEY'), dims, timeoutMs: int('LOOM_EMBEDDINGS_TIMEOUT_MS', 10_000, 100, 600_000), thread: bool('LOOM_EMBEDDINGS_THREAD', true) };
    },
    embedder: () => ({
      maxBatch: int('LOOM_EMBEDDER_MAX_BATCH', 64, 1, 2048),
      lingerMs: int('LOOM_EMBEDDER_LINGER_MS', 0, 0, 1000),
      concurrency: int('LOOM_EMBEDDER_CONCURRENCY', 4, 1, 256),
      metricsPort: int('LOOM_EMBEDDER_METRICS_PORT', 9464, 0, 65535),
    }),
    embedRequestTimeoutMs: () => int('LOOM_EMBED_REQUEST_TIMEOUT_MS', 15_000, 50, 600_000),
    search: () => ({
      keptVectors: int('LOOM_SEARCH_KEPT_VECTORS', 1_000_000, 0, 100_000_000),
      keptExactVectors: int('LOOM_SEARCH_KEPT_EXACT_VECTORS', 250_000, 0, 100_000_000),
      keptFileVectors: int('LOOM_SEARCH_KEPT_FILE_VECTORS', 1_000_000, 0, 100_000_000),
      keptFileDir: str('LOOM_SEARCH_KEPT_FILE_DIR'),
      keptPostings: int('LOOM_SEARCH_KEPT_POSTINGS', 64_000_000, 0, 1_000_000_000),
    }),
    conversation: () => ({
      searchMinSimilarity: num('LOOM_CONVERSATION_SEARCH_MIN_SIMILARITY', 0.3, 0, 1),
      searchExcerptChars: int('LOOM_CONVERSATION_SEARCH_EXCERPT_CHARS', 240, 0, 100_000),
    }),
    llm: () => {
      const llmBaseUrl = url('LOOM_LLM_BASE_URL');
      const llmProvider = oneOf<LlmProviderName>('LOOM_LLM_PROVIDER', ['fake', 'openai'], llmBaseUrl ? 'openai' : 'fake');
      const llmModel = str('LOOM_LLM_MODEL');
      if (llmProvider === 'openai' && !llmBaseUrl) problems.push('LOOM_LLM_BASE_URL is required when LOOM_LLM_PROVIDER=openai');
      if (llmProvider === 'openai' && !llmModel) problems.push('LOOM_LLM_MODEL is required when LOOM_LLM_PROVIDER=openai');
      return { provider: llmProvider, baseUrl: llmBaseUrl, model: llmModel, apiKey: str('LOOM_LLM_API_KEY'), timeoutMs: int('LOOM_LLM_TIMEOUT_MS', 30_000, 100, 600_000) };
    },
    mcp: () => ({ sessionRunIdleSeconds: int('LOOM_MCP_SESSION_RUN_IDLE_SECONDS', 1_800, 1, 604_800) }),
    memoryExtraction: () => ({
      attempts: int('LOOM_MEMORY_EXTRACTION_ATTEMPTS', 5, 1, 100),
      retryMs: int('LOOM_MEMORY_EXTRACTION_RETRY_MS', 30_000, 10, 86_400_000),
      pollMs: int('LOOM_MEMORY_EXTRACTION_POLL_MS', 15_000, 50, 3_600_000),
    }),
    erasure: () => ({
      attempts: int('LOOM_ERASURE_ATTEMPTS', 5, 1, 100),
      retryMs: int('LOOM_ERASURE_RETRY_MS', 30_000, 10, 86_400_000),
      pollMs: int('LOOM_ERASURE_POLL_MS', 15_000, 50, 3_600_000),
      runsIn: oneOf('LOOM_ERASURE_RUNS_IN', ['gateway', 'service'], 'gateway'),
      metricsPort: int('LOOM_ERASURE_METRICS_PORT', 9466, 0, 65_535),
    }),
    compaction: () => ({
      runsIn: oneOf('LOOM_COMPACTION_RUNS_IN', ['gateway', 'service'], 'gateway'),
      metricsPort: int('LOOM_COMPACTOR_METRICS_PORT', 9467, 0, 65_535),
    }),
    code: () => ({
      ingestEnabled: bool('LOOM_CODE_INGEST_ENABLED', false),
      githubToken: str('LOOM_GITHUB_TOKEN'),
      githubApiUrl: (url('LOOM_GITHUB_API_URL') ?? 'https://api.github.com').replace(/\/+$/, ''),
      githubApiUrls: apiUrls(str('LOOM_GITHUB_API_URLS'), problems),
      githubMaxWaitSeconds: int('LOOM_GITHUB_MAX_WAIT_SECONDS', 3_900, 0, 86_400),
    }),
    briefCondenser: () => ({
      runsIn: oneOf('LOOM_BRIEFS_RUNS_IN', ['gateway', 'service'], 'gateway'),
      metricsPort: int('LOOM_BRIEF_CONDENSER_METRICS_PORT', 9468, 0, 65_535),
    }),
    modelPrices: () => modelPrices(str('LOOM_MODEL_PRICES'), problems),
    retention: () => ({
      days: int('LOOM_RETENTION_CONVERSATIONS_DAYS', 0, 0, 36_500),
      warmDays: int('LOOM_TIERING_CONVERSATIONS_WARM_DAYS', 0, 0, 36_500),
    }),
    briefs: () => ({
      llm: bool('LOOM_SESSION_BRIEF_LLM', true),
      model: str('LOOM_SESSION_BRIEF_LLM_MODEL'),
      baseUrl: url('LOOM_SESSION_BRIEF_LLM_BASE_URL'),
      apiKey: str('LOOM_SESSION_BRIEF_LLM_API_KEY'),
      windowChars: int('LOOM_SESSION_BRIEF_WINDOW_CHARS', 12_000, 500, 1_000_000),
      maxWindows: int('LOOM_SESSION_BRIEF_MAX_WINDOWS', 4, 1, 100),
      extractionPolicy: oneOf('LOOM_SESSION_BRIEF_EXTRACTION_POLICY', ['builder', 'model-only'], 'builder'),
    }),
    titler: () => ({
      enabled: bool('LOOM_CONVERSATION_TITLER_ENABLED', true),
      windowHours: int('LOOM_CONVERSATION_TITLER_WINDOW_HOURS', 168, 1, 100_000),
      minTurns: int('LOOM_CONVERSATION_TITLER_MIN_TURNS', 4, 1, 100_000),
      maxThreadsPerPass: int('LOOM_CONVERSATION_TITLER_MAX_THREADS_PER_PASS', 10, 1, 10_000),
      intervalSeconds: int('LOOM_CONVERSATION_TITLER_INTERVAL_SECONDS', 60, 1, 86_400),
      metricsPort: int('LOOM_TITLER_METRICS_PORT', 9465, 0, 65535),
    }),
    bootstrapAdminToken: () => {
      const bootstrap = str('LOOM_BOOTSTRAP_ADMIN_TOKEN');
      if (bootstrap !== undefined && bootstrap.length < 16) {
        problems.push('LOOM_BOOTSTRAP_ADMIN_TOKEN must be at least 16 characters (value not shown)');
      }
      return bootstrap;
    },
    logLevel: () => oneOf('LOOM_LOG_LEVEL', ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'], 'info'),
    traces: () => {
      const otlpUrl = url('LOOM_TRACES_OTLP_URL');
      const mode = oneOf<TracesConfig['mode']>('LOOM_TRACES', ['none', 'console', 'memory', 'otlp'], otlpUrl ? 'otlp' : 'none');
      if (mode === 'otlp' && !otlpUrl && !str('OTEL_EXPORTER_OTLP_ENDPOINT') && !str('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT')) {
        problems.push('LOOM_TRACES_OTLP_URL (or OTEL_EXPORTER_OTLP_ENDPOINT) is required when LOOM_TRACES=otlp');
      }
      const headers = otlpHeaders(str('LOOM_TRACES_OTLP_HEADERS'), problems);
      const flushMs = int('LOOM_TRACES_OTLP_FLUSH_MS', 2_000, 10, 60_000);
      // The standard OTEL_* variables fill in what LOOM_TRACES_* leaves unset.
      return withOtelVariables({ mode, modeSet: str('LOOM_TRACES') !== undefined || otlpUrl !== undefined, url: otlpUrl, headers, flushMs, flushSet: str('LOOM_TRACES_OTLP_FLUSH_MS') !== undefined }, env, problems);
    },
    append: () => ({
      batchLingerMs: int('LOOM_APPEND_BATCH_LINGER_MS', 0, 0, 1000),
      batchMaxRows: int('LOOM_APPEND_BATCH_MAX_ROWS', 500, 1, 100_000),
      writeBehindFlushMs: int('LOOM_WRITE_BEHIND_FLUSH_MS', 200, 10, 10_000),
    }),
    tracker: () => ({
      org: str('LOOM_TRACKER_ORG'),
      duplicateThreshold: str('LOOM_TRACKER_DUPLICATE_THRESHOLD') === undefined ? undefined : num('LOOM_TRACKER_DUPLICATE_THRESHOLD', 0.5, 0, 1),
      scanLimit: int('LOOM_TRACKER_SCAN_LIMIT', 20_000, 1, 10_000_000),
      queryTimeoutMs: int('LOOM_TRACKER_QUERY_TIMEOUT_MS', 15_000, 100, 600_000),
    }),
  };
  const config = {} as Partial<LoomConfig>;
  for (const section of new Set<ConfigSection>(wanted)) (config as Record<string, unknown>)[section] = sections[section]();
  // Rules across sections, each checked when the process reads both.
  if (config.compaction?.runsIn === 'service' && 'natsUrl' in config && !config.natsUrl) {
    problems.push('LOOM_COMPACTION_RUNS_IN=service needs LOOM_NATS_URL: the gateway reaches the compactor over NATS; embedded, leave it unset and the gateway compacts');
  }
  if (config.briefCondenser?.runsIn === 'service' && 'natsUrl' in config && !config.natsUrl) {
    problems.push('LOOM_BRIEFS_RUNS_IN=service needs LOOM_NATS_URL: the gateway reaches the brief condenser over NATS; embedded, leave it unset and the gateway revises briefs');
  }
  if (config.erasure?.runsIn === 'service' && config.clickhouse && !config.clickhouse.url) {
    // Embedded, no other process can open the data directory: nothing would ever run an erasure.
    problems.push('LOOM_ERASURE_RUNS_IN=service needs the split topology (LOOM_CLICKHOUSE_URL and the erasure service); embedded, leave it unset and the gateway runs erasures');
  }
  for (const [name, why] of Object.entries(required)) if (str(name) === undefined) problems.push(`${name} is required: ${why}`);
  if (problems.length > 0) throw new ConfigError(problems);
  return config as Pick<LoomConfig, K>;
}

const PRICE_FIELDS = ['input', 'output', 'cache_write', 'cache_write_1h', 'cache_read'] as const;

/** LOOM_MODEL_PRICES: a JSON object of model (or prefix) to prices; every bad entry is named. */
function modelPrices(raw: string | undefined, problems: string[]): Record<string, ModelPrice> {
  if (raw === undefined) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    problems.push('LOOM_MODEL_PRICES must be a JSON object such as {"my-model":{"input":1,"output":4}}');
    return {};
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    problems.push('LOOM_MODEL_PRICES must be a JSON object of model name to prices');
    return {};
  }
  const prices: Record<string, ModelPrice> = {};
  for (const [model, value] of Object.entries(parsed as Record<string, unknown>)) {
    const entry = (typeof value === 'object' && value !== null ? value : {}) as Record<string, unknown>;
    const bad = PRICE_FIELDS.filter((f) => entry[f] !== undefined && !(typeof entry[f] === 'number' && Number.isFinite(entry[f]) && (entry[f] as number) >= 0));
    const unknown = Object.keys(entry).filter((k) => !(PRICE_FIELDS as readonly string[]).includes(k));
    if (typeof entry['input'] !== 'number' || typeof entry['output'] !== 'number') bad.push(...(['input', 'output'] as const).filter((f) => typeof entry[f] !== 'number' && !bad.includes(f)));
    if (bad.length > 0 || unknown.length > 0 || model.trim() === '') {
      problems.push(
        `LOOM_MODEL_PRICES["${model}"] must be {"input": n, "output": n} with optional cache_write, cache_write_1h, cache_read, each a number >= 0 (USD per million tokens)` +
          `${bad.length ? `; bad: ${bad.join(', ')}` : ''}${unknown.length ? `; unknown: ${unknown.join(', ')}` : ''}`,
      );
      continue;
    }
    prices[model] = entry as unknown as ModelPrice;
  }
  return prices;
}

/** name=value pairs separated by commas; values may hold '=' (base64). The values are secrets: never echoed. */
function otlpHeaders(raw: string | undefined, problems: string[]): Record<string, string> {
  if (raw === undefined) return {};
  const headers: Record<string, string> = {};
  for (const [i, pair] of raw.split(',').entries()) {
    const at = pair.indexOf('=');
    const name = at > 0 ? pair.slice(0, at).trim() : '';
    if (!/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/.test(name)) {
      problems.push(`LOOM_TRACES_OTLP_HEADERS entry ${i + 1} must be name=value with a valid header name (value not shown)`);
      continue;
    }
    const value = pair.slice(at + 1).trim();
    try {
      headers[name] = decodeURIComponent(value);
    } catch {
      headers[name] = value;
    }
  }
  return headers;
}

/** LOOM_GITHUB_API_URLS: comma-separated http(s) URLs without credentials, query or fragment. */
function apiUrls(raw: string | undefined, problems: string[]): string[] {
  const urls: string[] = [];
  for (const entry of (raw ?? '').split(',').map((e) => e.trim()).filter(Boolean)) {
    let url: URL | undefined;
    try {
      url = new URL(entry);
    } catch {
      url = undefined;
    }
    if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:') || url.username || url.password || url.search || url.hash) {
      // An entry with credentials in it is not echoed.
      const shown = url && (url.username || url.password) ? 'a URL with credentials' : `"${entry.slice(0, 200)}"`;
      problems.push(`LOOM_GITHUB_API_URLS must be comma-separated http(s) URLs without credentials, query or fragment (got ${shown})`);
      continue;
    }
    urls.push(`${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, '')}`);
  }
  return urls;
}
