import { Storage } from '@loom/clickhouse';
import { QueueGroups } from '@loom/contracts';
import { CompactionService, EmbeddingClient, StorageCheckedFence, ThreadLeases } from '@loom/conversations';
import { NatsKvLeaseManager } from '@loom/leases';
import { createLogger, installTracing, loadConfigSections, LoomMetrics, type Logger, type LoomConfig } from '@loom/platform';
import { MeteredLlm, ModelPrices, type LlmProvider } from '@loom/providers';
import { NatsLink, NatsRequestClient } from '@loom/transport';
import { requireSplit, ServiceSections, splitRequirements } from '../shared/host-config';
import { configuredLlm } from '../shared/llm';
import { reportQuarantined } from '../shared/quarantine-report';
import { serviceModule, serviceReadiness, startService, type RunningService } from '../shared/service-host';
import { COMPACTION, HOST_LOGGER } from '../shared/tokens';
import { CompactorController } from './compactor.controller';

/** The variables the compactor reads, and none other. */
export const CompactorSections = [...ServiceSections, 'llm', 'modelPrices', 'compaction', 'embedRequestTimeoutMs'] as const;
export type CompactorConfig = Pick<LoomConfig, (typeof CompactorSections)[number]>;

export function loadCompactorConfig(env: Record<string, string | undefined> = process.env): CompactorConfig {
  return loadConfigSections(CompactorSections, env, splitRequirements({ nats: 'the gateways send conversation.compact here over NATS', clickhouse: 'a separate compactor' }));
}

/**
 * The compactor as its own process (split topology, LOOM_COMPACTION_RUNS_IN=service): it serves
 * `loom.compact.run.v1` in queue group `compactor`, so replicas share the requests, and answers
 * what conversation.compact would have, errors included. Thread leases on NATS KV keep it from
 * racing appends and deletes on other processes.
 */
export async function startCompactorService(config: CompactorConfig, options: { logger?: Logger; llm?: LlmProvider } = {}): Promise<RunningService> {
  installTracing(config.traces, 'loom-compactor');
  const logger = options.logger ?? createLogger('compactor', config.logLevel);
  const metrics = new LoomMetrics('compactor');
  requireSplit(config, { nats: 'it serves loom.compact.run.v1' });
  const link = await NatsLink.connect(config.natsUrl!, 'loom-compactor');
  const requests = NatsRequestClient.over(link);
  // The summary's rows go through the append path's quarantine: count and log them here too.
  const storage = Storage.open({ ...config.clickhouse, dataDir: config.dataDir, onQuarantine: reportQuarantined(metrics, logger) });
  const llm = new MeteredLlm(options.llm ?? configuredLlm(config), 'summarizer', { metrics, prices: new ModelPrices(config.modelPrices) });
  const compaction = new CompactionService(
    storage,
    new EmbeddingClient(requests, config.embedRequestTimeoutMs, metrics),
    llm,
    new ThreadLeases(new NatsKvLeaseManager(link.connection)),
    // Other processes append to these threads: only storage knows whether a thread changed.
    new StorageCheckedFence(),
    { metrics, logger },
  );
  const service = await startService({
    module: serviceModule('Compactor', {
      controllers: [CompactorController],
      providers: [
        { provide: COMPACTION, useValue: compaction },
        { provide: HOST_LOGGER, useValue: logger },
      ],
      readiness: serviceReadiness(link, storage),
      metrics,
    }),
    logger,
    metrics,
    port: config.compaction.metricsPort,
    host: config.host,
    transport: { link, options: { queue: QueueGroups.compactor } },
    release: async () => {
      await storage.close();
      await link.close();
    },
  });
  if (llm.name === 'fake') logger.warn('the compactor has only the fake LLM: every conversation.compact answers not_configured (set LOOM_LLM_BASE_URL and LOOM_LLM_MODEL)');
  logger.info({ metrics_port: config.compaction.metricsPort || null, llm: llm.name, model: llm.model }, 'compactor serving');
  return service;
}
