import { AuthService, TokenRepository } from '@loom/auth';
import { Subjects, type ErasureRequestedEvent, type MemoryExtractionRequestedEvent } from '@loom/contracts';
import { runMigrations, Storage, type MigrationReport } from '@loom/clickhouse';
import { MemoryService, ObservationsService } from '@loom/memory';
import { createConversationPlane, DeferredEmbeddingsWorker, EmbeddingClient, InProcessThreadFence, LexicalBackfill, RemoteCompaction, StorageCheckedFence, StoredTurnKeys, type ConversationPlane, type TitlerWorker } from '@loom/conversations';
import { MeteredLlm, ModelPrices, type LlmProvider, type LlmPurpose } from '@loom/providers';
import { createLogger, installTracing, LoomMetrics, type Logger } from '@loom/platform';
import { InProcessRequestClient, NatsKvLock, NatsRequestClient, type RequestClient } from '@loom/transport';
import { createOpHandlers, McpEndpoint, OpDispatcher, Readiness } from '@loom/api';
import { reportQuarantined } from '../shared/quarantine-report';
import { durablePublisher } from '../shared/durable-publisher';
import { reportNatsState } from '../shared/nats-state';
import { briefLlm, configuredLlm } from '../shared/llm';
import { createTitlerWorker } from '../titler/titler.host';
import type { GatewayConfig } from './gateway.host';
import { planesStatus } from './planes-status';
import { BriefsService, RemoteBriefRevision } from '@loom/briefs';
import { applyRetention, ErasureService } from '@loom/erasure';
import { RunsService } from '@loom/runs';
import { TrackerService } from '@loom/tracker';
import { CodeHistory } from '@loom/history';
import { InMemoryLeaseManager, NatsKvLeaseManager } from '@loom/leases';

/** How often a gateway looks for turns whose embed waited for NATS to come back. */
const DEFERRED_EMBEDS_EVERY_MS = 5_000;

export interface GatewayRuntime {
  config: GatewayConfig;
  storage: Storage;
  requests: RequestClient;
  auth: AuthService;
  plane: ConversationPlane;
  dispatcher: OpDispatcher;
  readiness: Readiness;
  metrics: LoomMetrics;
  logger: Logger;
  migrations: MigrationReport;
  memory: MemoryService;
  erasure: ErasureService;
  runs: RunsService;
  tracker: TrackerService;
  mcp: McpEndpoint;
  /** Embedded only: the titler runs in this process. Split, the titler app runs it. */
  titler: TitlerWorker | undefined;
  close(): Promise<void>;
}

/**
 * Wires the gateway's adapters from config: embedded chDB or a ClickHouse server, the process
 * hub or NATS. Nothing past this function branches on the mode. Migrations run at start.
 */
export async function createGatewayRuntime(config: GatewayConfig, options: { logger?: Logger; metrics?: LoomMetrics; llm?: LlmProvider } = {}): Promise<GatewayRuntime> {
  installTracing(config.traces, config.natsUrl ? 'loom-gateway' : 'loom');
  const logger = options.logger ?? createLogger('gateway', config.logLevel);
  const metrics = options.metrics ?? new LoomMetrics('gateway');
  const storage = Storage.open({
    ...config.clickhouse,
    dataDir: config.dataDir,
    writeBehind: {
      flushIntervalMs: config.append.writeBehindFlushMs,
      onFlush: (e) => {
        metrics.writeBehindFlushRows.observe(e.rows);
        metrics.writeBehindFlushDuration.observe(e.ms / 1000);
      },
      onReplay: (e) =>
        e.absentTables
          ? logger.error(e, 'the write-ahead log holds rows for tables that no longer exist; its segments were set aside (*.set-aside) and nothing else was lost')
          : logger.warn(e, 'replayed the write-ahead log: acknowledged writes a stop kept from storage are stored now'),
      onFailure: (error) => logger.error({ err: error }, 'storage did not take a flush of acknowledged writes; they stay in the write-ahead log and are retried'),
    },
    onQuarantine: reportQuarantined(metrics, logger),
  });
  let requests: RequestClient | undefined;
  try {
    const nats = config.natsUrl ? await NatsRequestClient.connect(config.natsUrl, 'loom-gateway') : undefined;
    requests = nats ?? new InProcessRequestClient();
    // Replicas that start together take turns: the schema is migrated once.
    const migrations = await runMigrations(storage, {
      ...(nats ? { lock: new NatsKvLock(nats.connection) } : {}),
      onProgress: (p) =>
        p.elapsedMs === undefined
          ? logger.info({ migration: p.migration, step: `${p.index}/${p.total}` }, 'applying migration')
          : logger.info({ migration: p.migration, step: `${p.index}/${p.total}`, elapsed_s: Math.round(p.elapsedMs / 1000) }, 'migration still running (a table copy takes a while; do not stop the process)'),
    });
    const retention = await applyRetention(storage, config.retention);
    if (retention !== 'unchanged') logger.info({ retention_days: config.retention.days, warm_days: config.retention.warmDays, ttl: retention }, 'transcript retention applied');
    metrics.reportStorage(() => storage.health());
    const keysStarted = Date.now();
    const storedKeys = await StoredTurnKeys.load(storage);
    if (storedKeys) logger.info({ keys: storedKeys.size, ms: Date.now() - keysStarted }, 'loaded stored turn keys');
    const auth = new AuthService(new TokenRepository(storage));
    if (config.bootstrapAdminToken) auth.setBootstrapAdminToken(config.bootstrapAdminToken);
    // Embedded, this process is the only writer, so in-memory leases are exact; split, NATS KV.
    const leases = nats ? new NatsKvLeaseManager(nats.connection, undefined, undefined, () => nats.connected) : new InMemoryLeaseManager();
    const llm = options.llm ?? configuredLlm(config);
    const prices = new ModelPrices(config.modelPrices);
    // Every model call Loom makes is metered and traced by purpose (TRACE-02).
    const metered = (purpose: LlmPurpose, provider: LlmProvider = llm) => new MeteredLlm(provider, purpose, { metrics, prices });
    const plane = createConversationPlane({
      leases,
      llm: metered('summarizer'),
      logger,
      storage,
      requests,
      embedTimeoutMs: config.embedRequestTimeoutMs,
      defaults: { ...config.conversation, ...(config.tracker.duplicateThreshold !== undefined ? { trackerDuplicateThreshold: config.tracker.duplicateThreshold } : {}) },
      batching: { lingerMs: config.append.batchLingerMs, maxRows: config.append.batchMaxRows },
      // Embedded, this process is storage's only writer, so an in-memory fence is exact.
      fence: storage.mode === 'embedded' ? new InProcessThreadFence() : new StorageCheckedFence(),
      storedKeys,
      metrics,
      retentionDays: config.retention.days,
      keptVectors: config.search.keptVectors,
      keptExactVectors: config.search.keptExactVectors,
      keptFileVectors: config.search.keptFileVectors,
      keptFileDir: config.search.keptFileDir,
      keptPostings: config.search.keptPostings,
    });
    metrics.reportKeptVectors(() => ({ rows: plane.keptVectors.held().rows, loading: plane.keptVectors.loading() + plane.keptPostings.loading() }));
    metrics.reportKeptPostings(() => plane.keptPostings.held());
    metrics.reportSavedSearch(() => ({ loading: plane.savedSearch.loading() }));
    if (config.compaction.runsIn === 'service') {
      // The summarizer's call, then the summary's embed: the compactor's answer waits for both.
      plane.compaction = new RemoteCompaction(requests, config.llm.timeoutMs + config.embedRequestTimeoutMs + 5_000);
      logger.info('conversation.compact runs in the compactor (LOOM_COMPACTION_RUNS_IN=service): this gateway sends it over NATS');
    }
    const transport = requests;
    const readiness = new Readiness({
      storage: () => storage.ping(),
      transport: async () => (transport instanceof NatsRequestClient ? transport.ping() : true),
      // Writes that fail (the engine not taking acknowledged writes, or a full disk refusing the
      // write-ahead log): not ready, with the error.
      writes: async () => {
        const failure = storage.writeFailure();
        return failure === undefined ? true : { ready: false, reason: `writes are failing: ${failure}` };
      },
    }, () => planesStatus({ codeIngestEnabled: config.code.ingestEnabled, trackerOrg: config.tracker.org }));
    if (nats) reportNatsState(nats.link, metrics, logger);
    // Work handed to a service durably (JetStream), after it was stored.
    const handOver = nats ? durablePublisher(nats.link, logger) : undefined;
    const condenser = config.briefCondenser.runsIn === 'service' && handOver !== undefined;
    const memory = new MemoryService(storage, new EmbeddingClient(requests, config.embedRequestTimeoutMs, metrics), metered('extraction'), { metrics, logger }, {
      leases,
      options: { maxAttempts: config.memoryExtraction.attempts, retryBaseMs: config.memoryExtraction.retryMs, pollMs: config.memoryExtraction.pollMs },
      ...(condenser ? { runs: 'elsewhere' as const, notify: (event: MemoryExtractionRequestedEvent) => handOver(Subjects.memoryExtractionRequested, event, event.extraction_id) } : {}),
    });
    memory.start();
    const backfill = startLexicalBackfill(storage, plane, logger);
    // The org's switch for brief model calls is a live setting, read before each window.
    const briefModelCalls = async () => (await plane.settings.get('session_brief_model_calls')) !== 0;
    const briefs = new BriefsService(storage, leases, metered('brief', briefLlm(config, llm)), config.briefs, { metrics, logger }, briefModelCalls);
    const erasure = new ErasureService(storage, plane.fence, logger, {
      leases,
      metrics,
      options: { maxAttempts: config.erasure.attempts, retryBaseMs: config.erasure.retryMs, pollMs: config.erasure.pollMs, runs: config.erasure.runsIn === 'gateway' ? 'here' : 'elsewhere' },
      // The erasure service takes it from JetStream at once instead of at its next poll.
      ...(handOver ? { notify: (event: ErasureRequestedEvent) => handOver(Subjects.erasureRequested, event, event.erasure_id) } : {}),
    });
    erasure.start();
    if (config.erasure.runsIn === 'service') logger.info('erasures run in the erasure service (LOOM_ERASURE_RUNS_IN=service): this gateway stores requests and waits for their records');
    const runs = new RunsService(storage, leases, prices);
    const observations = new ObservationsService(storage, memory, leases);
    const tracker = new TrackerService(storage, {
      org: config.tracker.org,
      scanLimit: config.tracker.scanLimit,
      queryTimeoutMs: config.tracker.queryTimeoutMs,
      threshold: () => plane.settings.get('tracker_duplicate_threshold'),
    });
    const code = new CodeHistory(storage, leases, {
      enabled: config.code.ingestEnabled,
      logger,
      llm: metered('review'),
      githubToken: config.code.githubToken,
      githubApiUrl: config.code.githubApiUrl,
      githubApiUrls: config.code.githubApiUrls,
      githubMaxWaitMs: config.code.githubMaxWaitSeconds * 1000,
      runsNamingPullRequests: (namespace, repository, numbers) => runs.runsNamingPullRequests(namespace, repository, numbers),
      // Incidents come from the tracker plane's source, read live (PRHIST-02).
      incidents: (namespace, query) => tracker.incidentsFor(namespace, query),
    });
    // A save waits for the brief's lease (up to 60 s), then for each of its model windows.
    const briefSaver = condenser ? new RemoteBriefRevision(requests, 60_000 + config.llm.timeoutMs * config.briefs.maxWindows + 5_000) : briefs;
    if (condenser) logger.info('session.brief_save and deferred memory extractions run in the brief condenser (LOOM_BRIEFS_RUNS_IN=service): this gateway sends saves over NATS and hands extractions over JetStream');
    const dispatcher = new OpDispatcher(createOpHandlers({ plane, memory, observations, briefs, briefSaver, erasure, runs, auth, quarantine: storage.quarantine, tracker, code }), auth, metrics, logger);
    const mcp = new McpEndpoint(auth, dispatcher, runs, config.mcp.sessionRunIdleSeconds, storage, logger);
    // Idle MCP runs are closed on a cadence well inside the idle time.
    const sweeper = setInterval(() => void mcp.sweep().catch((error: unknown) => logger.warn({ err: error }, 'closing idle MCP runs failed; next sweep retries')), Math.min(30, Math.max(1, config.mcp.sessionRunIdleSeconds / 2)) * 1000);
    sweeper.unref();
    const titler = nats ? undefined : createTitlerWorker(config, { storage, leases, logger, metrics, llm });
    titler?.start();
    // Turns appended while NATS was down get their rows and vectors once it is back (ADRs 0020, 0024).
    const deferredEmbeds = nats
      ? new DeferredEmbeddingsWorker([() => plane.unindexed.index(), () => plane.reembed.embedDeferred()], leases, () => nats.connected, DEFERRED_EMBEDS_EVERY_MS, logger)
      : undefined;
    deferredEmbeds?.start();
    return {
      config,
      storage,
      requests,
      auth,
      plane,
      dispatcher,
      readiness,
      metrics,
      logger,
      migrations,
      memory,
      erasure,
      runs,
      tracker,
      mcp,
      titler,
      close: async () => {
        clearInterval(sweeper);
        await backfill.stop();
        await titler?.stop();
        await deferredEmbeds?.stop();
        await plane.keptVectors.close();
        await plane.keptPostings.close();
        await memory.close();
        await erasure.close();
        await tracker.close();
        await code.close();
        await transport.close();
        await storage.close();
      },
    };
  } catch (error) {
    await requests?.close();
    await storage.close();
    throw error;
  }
}

/**
 * Turns stored before the lexical index (migrations 0032-0034) or before Porter stemming get
 * their terms, then saved messages stored before saved search's index (0037, 0045) get their
 * rows there, in the background: search serves meanwhile, and finds them as each page lands.
 * Progress goes to the log; a stop ends it after a page, and the next start resumes it.
 */
function startLexicalBackfill(storage: Storage, plane: ConversationPlane, logger: Logger): { stop: () => Promise<void> } {
  const runs = [
    { backfill: new LexicalBackfill(storage, plane.fence, 'terms'), name: 'lexical backfill', what: 'giving terms to turns stored before the lexical index or before stemming' },
    { backfill: new LexicalBackfill(storage, plane.fence, 'saved'), name: 'saved-index backfill', what: 'indexing saved messages stored before the saved-search index' },
  ];
  let stopped = false;
  const runOne = async ({ backfill, name, what }: (typeof runs)[number]): Promise<void> => {
    let lastLog = 0;
    const p = await backfill.run({
      onProgress: (p) => {
        if (p.done === 0) logger.info({ rows: p.total }, `${name}: ${what}`);
        else if (Date.now() - lastLog >= 10_000) logger.info({ ...p }, `${name}: progress`);
        else return;
        lastLog = Date.now();
      },
    });
    if (p.total > 0) logger.info({ ...p }, `${name}: run ended (a stopped run is resumed at the next start)`);
  };
  void (async () => {
    for (const run of runs) {
      if (stopped) return;
      await runOne(run).catch((error: unknown) => logger.warn({ err: error }, `${run.name} failed; the next start resumes it`));
    }
  })();
  return {
    stop: async () => {
      stopped = true;
      await Promise.all(runs.map((r) => r.backfill.stop()));
    },
  };
}
