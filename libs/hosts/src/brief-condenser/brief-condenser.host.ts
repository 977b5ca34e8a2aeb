import { BriefsService } from '@loom/briefs';
import { Storage } from '@loom/clickhouse';
import { Defaults, MemoryExtractionRequestedEvent, QueueGroups, Subjects } from '@loom/contracts';
import { EmbeddingClient, LiveSettingsService } from '@loom/conversations';
import { NatsKvLeaseManager } from '@loom/leases';
import { MemoryService } from '@loom/memory';
import { createLogger, installTracing, loadConfigSections, LoomMetrics, type Logger, type LoomConfig } from '@loom/platform';
import { MeteredLlm, ModelPrices, type LlmProvider } from '@loom/providers';
import { NatsLink, NatsRequestClient } from '@loom/transport';
import { requireSplit, ServiceSections, splitRequirements } from '../shared/host-config';
import { briefLlm, configuredLlm } from '../shared/llm';
import { serviceModule, serviceReadiness, startService, type RunningService } from '../shared/service-host';
import { BRIEFS, HOST_LOGGER, MEMORY } from '../shared/tokens';
import { BriefCondenserController } from './brief-condenser.controller';

/** The variables the brief condenser reads, and none other. */
export const BriefCondenserSections = [...ServiceSections, 'llm', 'modelPrices', 'briefs', 'memoryExtraction', 'briefCondenser', 'embedRequestTimeoutMs'] as const;
export type BriefCondenserConfig = Pick<LoomConfig, (typeof BriefCondenserSections)[number]>;

export function loadBriefCondenserConfig(env: Record<string, string | undefined> = process.env): BriefCondenserConfig {
  return loadConfigSections(BriefCondenserSections, env, splitRequirements({ nats: 'the gateways send brief saves and deferred extractions here over NATS', clickhouse: 'a separate brief condenser' }));
}

export interface RunningBriefCondenser extends RunningService {
  briefs: BriefsService;
  memory: MemoryService;
}

/**
 * The brief condenser as its own process (split topology, LOOM_BRIEFS_RUNS_IN=service), after
 * the compactor's pattern (ADR 0012):
 * - it serves `loom.brief.revise.v1` in queue group `brief-condenser` with the same
 *   BriefsService the gateway would run (model windows, the model-free builder), answering
 *   what session.brief_save would have, errors included;
 * - it runs deferred memory extractions delivered durably on `loom.memory.extraction-requested.v1`,
 *   under their NATS KV leases, and polls storage for any whose hand-over was lost.
 */
export async function startBriefCondenserService(config: BriefCondenserConfig, options: { logger?: Logger; llm?: LlmProvider } = {}): Promise<RunningBriefCondenser> {
  installTracing(config.traces, 'loom-brief-condenser');
  const logger = options.logger ?? createLogger('brief-condenser', config.logLevel);
  const metrics = new LoomMetrics('brief-condenser');
  requireSplit(config, { nats: 'it serves loom.brief.revise.v1' });
  const link = await NatsLink.connect(config.natsUrl!, 'loom-brief-condenser');
  const requests = NatsRequestClient.over(link);
  const storage = Storage.open({ ...config.clickhouse, dataDir: config.dataDir });
  const leases = new NatsKvLeaseManager(link.connection);
  const llm = options.llm ?? configuredLlm(config);
  const prices = new ModelPrices(config.modelPrices);
  // The org's switch for brief model calls is a live setting, read before each window; the
  // other settings are the search's and are not read here.
  const settings = new LiveSettingsService(storage, {
    conversation_search_excerpt_chars: 240,
    conversation_search_min_similarity: 0.3,
    session_brief_model_calls: 1,
    conversation_search_default_mode: Defaults.searchMode,
    tracker_duplicate_threshold: 0.5,
  });
  const briefs = new BriefsService(storage, leases, new MeteredLlm(briefLlm(config, llm), 'brief', { metrics, prices }), config.briefs, { metrics, logger }, async () => (await settings.get('session_brief_model_calls')) !== 0);
  const memory = new MemoryService(storage, new EmbeddingClient(requests, config.embedRequestTimeoutMs, metrics), new MeteredLlm(llm, 'extraction', { metrics, prices }), { metrics, logger }, {
    leases,
    options: { maxAttempts: config.memoryExtraction.attempts, retryBaseMs: config.memoryExtraction.retryMs, pollMs: config.memoryExtraction.pollMs },
  });
  const service = await startService({
    module: serviceModule('BriefCondenser', {
      controllers: [BriefCondenserController],
      providers: [
        { provide: BRIEFS, useValue: briefs },
        { provide: MEMORY, useValue: memory },
        { provide: HOST_LOGGER, useValue: logger },
      ],
      readiness: serviceReadiness(link, storage),
      metrics,
    }),
    logger,
    metrics,
    port: config.briefCondenser.metricsPort,
    host: config.host,
    transport: { link, options: { queue: QueueGroups.briefCondenser, durable: { [Subjects.memoryExtractionRequested]: MemoryExtractionRequestedEvent }, durableConcurrency: 2 } },
    release: async () => {
      await memory.close();
      await storage.close();
      await link.close();
    },
  });
  memory.start();
  if (config.briefCondenser.runsIn !== 'service') {
    logger.warn('LOOM_BRIEFS_RUNS_IN is not "service": the gateways revise briefs and run extractions themselves, so this condenser gets no saves (it still runs deferred extractions it finds)');
  }
  logger.info({ metrics_port: config.briefCondenser.metricsPort || null, llm: llm.name, model: llm.model }, 'brief condenser serving');
  return { ...service, briefs, memory };
}
