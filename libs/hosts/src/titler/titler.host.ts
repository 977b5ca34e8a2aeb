import { Storage } from '@loom/clickhouse';
import { ConversationTitler, ThreadMetaRepository, TitlerWorker } from '@loom/conversations';
import { NatsKvLeaseManager, type LeaseManager } from '@loom/leases';
import { createLogger, installTracing, loadConfigSections, LoomMetrics, type Logger, type LoomConfig } from '@loom/platform';
import { MeteredLlm, ModelPrices, type LlmProvider } from '@loom/providers';
import { NatsLink } from '@loom/transport';
import { requireSplit, ServiceSections, splitRequirements } from '../shared/host-config';
import { configuredLlm } from '../shared/llm';
import { serviceModule, serviceReadiness, startService, type RunningService } from '../shared/service-host';

/** The variables the titler reads, and none other. */
export const TitlerSections = [...ServiceSections, 'llm', 'modelPrices', 'titler'] as const;
export type TitlerConfig = Pick<LoomConfig, (typeof TitlerSections)[number]>;

export function loadTitlerConfig(env: Record<string, string | undefined> = process.env): TitlerConfig {
  return loadConfigSections(TitlerSections, env, splitRequirements({ nats: 'replicas share the pass lease on NATS KV', clickhouse: 'a separate titler' }));
}

/**
 * The titler worker for this config, or undefined (with the reason logged) when it is switched
 * off or has only the fake LLM, which writes no titles.
 */
export function createTitlerWorker(
  config: Pick<LoomConfig, 'titler' | 'llm' | 'modelPrices'>,
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

export interface RunningTitler extends RunningService {
  worker: TitlerWorker | undefined;
}

/**
 * The titler as its own process (split topology): ClickHouse over HTTP, the pass lease on NATS
 * KV so one replica runs a pass at a time. It serves no subject: its passes run on a cadence
 * and read storage, so nothing it owes anyone travels on NATS.
 */
export async function startTitlerService(config: TitlerConfig, options: { logger?: Logger; llm?: LlmProvider } = {}): Promise<RunningTitler> {
  installTracing(config.traces, 'loom-titler');
  const logger = options.logger ?? createLogger('titler', config.logLevel);
  const metrics = new LoomMetrics('titler');
  requireSplit(config, { nats: 'replicas share the pass lease on NATS KV' });
  const link = await NatsLink.connect(config.natsUrl!, 'loom-titler');
  const storage = Storage.open({ ...config.clickhouse, dataDir: config.dataDir });
  const worker = createTitlerWorker(config, { storage, leases: new NatsKvLeaseManager(link.connection), logger, metrics, ...(options.llm ? { llm: options.llm } : {}) });
  const service = await startService({
    module: serviceModule('Titler', { readiness: serviceReadiness(link, storage), metrics }),
    logger,
    metrics,
    port: config.titler.metricsPort,
    host: config.host,
    transport: { link, options: { queue: 'titler' } },
    release: async () => {
      await worker?.stop();
      await storage.close();
      await link.close();
    },
  });
  worker?.start();
  logger.info({ metrics_port: config.titler.metricsPort || null, running: worker !== undefined }, 'titler service started');
  return { ...service, worker };
}
