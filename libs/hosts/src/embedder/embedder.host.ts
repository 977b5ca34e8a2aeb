import { QueueGroups } from '@loom/contracts';
import { EmbedBatcher, EmbedController, EMBED_BATCHER, EMBEDDER_METRICS } from '@loom/embedding';
import { createLogger, installTracing, loadConfigSections, LoomMetrics, type Logger, type LoomConfig } from '@loom/platform';
import { createEmbeddingProvider, ThreadedHashedEmbeddingProvider, type EmbeddingProvider } from '@loom/providers';
import { InProcessServer, NatsLink } from '@loom/transport';
import { serviceModule, serviceReadiness, startService, type RunningService } from '../shared/service-host';

/** The variables the embedder reads, and none other: it keeps no data, so no ClickHouse. */
export const EmbedderSections = ['host', 'logLevel', 'traces', 'natsUrl', 'embeddings', 'embedder'] as const;
export type EmbedderConfig = Pick<LoomConfig, (typeof EmbedderSections)[number]>;

export function loadEmbedderConfig(env: Record<string, string | undefined> = process.env): EmbedderConfig {
  return loadConfigSections(EmbedderSections, env, { LOOM_NATS_URL: 'the embedder app serves NATS (for one process with everything in it, run `loom up`)' });
}

export interface RunningEmbedder extends RunningService {
  provider: EmbeddingProvider;
}

export function embeddingProviderFor(config: Pick<LoomConfig, 'embeddings'>): EmbeddingProvider {
  return createEmbeddingProvider({
    provider: config.embeddings.provider,
    timeoutMs: config.embeddings.timeoutMs,
    thread: config.embeddings.thread,
    ...(config.embeddings.baseUrl ? { baseUrl: config.embeddings.baseUrl } : {}),
    ...(config.embeddings.model ? { model: config.embeddings.model } : {}),
    ...(config.embeddings.apiKey ? { apiKey: config.embeddings.apiKey } : {}),
    ...(config.embeddings.dims ? { dims: config.embeddings.dims } : {}),
  });
}

/**
 * Starts an embedder: on NATS in queue group `embedder` when LOOM_NATS_URL is set, else on the
 * process hub (`loom up`). Split, it serves /healthz, /readyz and /metrics on
 * `serveMetricsOnPort`; a stopping replica stops taking requests and answers what it holds.
 */
export async function startEmbedder(
  config: EmbedderConfig,
  options: { provider?: EmbeddingProvider; logger?: Logger; metrics?: LoomMetrics; serveMetricsOnPort?: number } = {},
): Promise<RunningEmbedder> {
  installTracing(config.traces, config.natsUrl ? 'loom-embedder' : 'loom');
  const logger = options.logger ?? createLogger('embedder', config.logLevel);
  const metrics = options.metrics ?? new LoomMetrics('embedder');
  const provider = options.provider ?? embeddingProviderFor(config);
  const link = config.natsUrl ? await NatsLink.connect(config.natsUrl, 'loom-embedder') : undefined;
  const service = await startService({
    module: serviceModule('Embedder', {
      controllers: [EmbedController],
      providers: [
        { provide: EMBEDDER_METRICS, useValue: metrics },
        { provide: EMBED_BATCHER, useValue: new EmbedBatcher(provider, config.embedder, metrics) },
      ],
      readiness: serviceReadiness(link),
      metrics,
    }),
    logger,
    metrics,
    port: link ? (options.serveMetricsOnPort ?? 0) : 0,
    host: config.host,
    transport: link ? { link, options: { queue: QueueGroups.embedder } } : { strategy: new InProcessServer() },
    release: async () => {
      await link?.close();
      // A provider made here is this embedder's to stop (the hashed one may hold a thread).
      if (!options.provider) await (provider as { close?: () => Promise<void> }).close?.();
    },
  });
  const threaded = provider instanceof ThreadedHashedEmbeddingProvider && provider.threaded;
  logger.info({ provider: provider.name, model: provider.model, thread: threaded, transport: link ? 'nats' : 'in-process', metrics_port: options.serveMetricsOnPort ?? null }, 'embedder serving');
  return { ...service, provider };
}
