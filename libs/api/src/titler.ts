import { Storage } from '@loom/clickhouse';
import { ConversationTitler, ThreadMetaRepository, TitlerWorker } from '@loom/conversations';
import { NatsKvLeaseManager, type LeaseManager } from '@loom/leases';
import { createLogger, flushTracing, installTracing, LoomMetrics, type Logger, type LoomConfig } from '@loom/platform';
import { createLlmProvider, MeteredLlm, ModelPrices, type LlmProvider } from '@loom/providers';
import { connect } from 'nats';
import { NATS_CONNECTION_POLICY } from '@loom/transport';
import { natsAnswers, serveWorkerMetrics } from './http/metrics-server';

/** The model the deployment configured for its own calls (titles; later summaries and briefs). */
export function configuredLlm(config: LoomConfig): LlmProvider {
  return createLlmProvider({
    provider: config.llm.provider,
    timeoutMs: config.llm.timeoutMs,
    ...(config.llm.baseUrl ? { baseUrl: config.llm.baseUrl } : {}),
    ...(config.llm.model ? { model: config.llm.model } : {}),
    ...(config.llm.apiKey ? { apiKey: config.llm.apiKey } : {}),
  });
}

/**
 * The model for brief revisions: LOOM_SESSION_BRIEF_LLM_MODEL with its key (at its own endpoint,
 * else the deployment's), else the deployment LLM itself.
 */
export function briefLlm(config: LoomConfig, deployment: LlmProvider): LlmProvider {
  const baseUrl = config.briefs.baseUrl ?? config.llm.baseUrl;
  if (!config.briefs.model || !config.briefs.apiKey || !baseUrl) return deployment;
  return createLlmProvider({ provider: 'openai', baseUrl, model: config.briefs.model, apiKey: config.briefs.apiKey, timeoutMs: config.llm.timeoutMs });
}

/**
 * The titler worker for this config, or undefined (with the reason logged) when it is switched
 * off or has only the fake LLM, which writes no titles.
 */
export function createTitlerWorker(
  config: LoomConfig,
  deps: { storage: Storage; leases: LeaseManager; logger: Logger; metrics?: LoomMetrics; llm?: LlmProvider },
): TitlerWorker | undefined {
  if (!config.titler.enabled) {
    deps.logger.info('the conversation titler is off (LOOM_CONVERSATION_TITLER_ENABLED=false): no thread gets a generated title');
    return undefined;
  }
  const llm = deps.llm ?? configuredLlm(config);
  if (llm.name === 'fake') {
    deps.logger.info('the conversation titler is idle: the fake LLM writes no titles (set LOOM_LLM_BASE_URL and LOOM_LLM_MODEL for one that does)');
    return undefined;
  }
  const metered = new MeteredLlm(llm, 'titler', { metrics: deps.metrics, prices: new ModelPrices(config.modelPrices) });
  const titler = new ConversationTitler(deps.storage, new ThreadMetaRepository(deps.storage), metered, config.titler, {
    metrics: deps.metrics,
    logger: deps.logger,
  });
  deps.logger.info({ llm: llm.name, model: llm.model, every_s: config.titler.intervalSeconds, per_pass: config.titler.maxThreadsPerPass }, 'conversation titler on');
  return new TitlerWorker(titler, deps.leases, config.titler.intervalSeconds * 1000, deps.logger);
}

export interface RunningTitler {
  worker: TitlerWorker | undefined;
  close(): Promise<void>;
}

/**
 * The titler as its own process (split topology): ClickHouse over HTTP, the pass lease on NATS
 * KV so one replica runs a pass at a time, and /metrics on its own port.
 */
export async function startTitlerService(config: LoomConfig, options: { logger?: Logger; llm?: LlmProvider; serveMetricsOnPort?: number } = {}): Promise<RunningTitler> {
  installTracing(config.traces, 'loom-titler');
  const logger = options.logger ?? createLogger('titler', config.logLevel);
  const metrics = new LoomMetrics('titler');
  if (!config.natsUrl) throw new Error('the titler service needs LOOM_NATS_URL for its lease (for one process with everything in it, run `loom up`)');
  const nc = await connect({ servers: config.natsUrl, name: 'loom-titler', ...NATS_CONNECTION_POLICY });
  const storage = Storage.open({ ...config.clickhouse, dataDir: config.dataDir });
  const leases = new NatsKvLeaseManager(nc);
  const worker = createTitlerWorker(config, { storage, leases, logger, metrics, ...(options.llm ? { llm: options.llm } : {}) });
  worker?.start();
  const metricsServer = await serveWorkerMetrics(metrics, options.serveMetricsOnPort, config.host, logger, 'LOOM_TITLER_METRICS_PORT', {
    nats: () => natsAnswers(nc),
    storage: () => storage.ping(),
  });
  logger.info({ metrics_port: options.serveMetricsOnPort ?? null, running: worker !== undefined }, 'titler service started');
  return {
    worker,
    close: async () => {
      await worker?.stop();
      await metricsServer?.close();
      await storage.close();
      await nc.close();
      await flushTracing();
    },
  };
}
