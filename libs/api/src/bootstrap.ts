import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import type { INestMicroservice } from '@nestjs/common';
import { EmbedderModule } from '@loom/embedding';
import { createEmbeddingProvider, type EmbeddingProvider, type LlmProvider } from '@loom/providers';
import { createLogger, flushTracing, installTracing, LoomMetrics, PinoNestLogger, type LoomConfig, type Logger } from '@loom/platform';
import { serveMetrics } from './http/metrics-server';
import { InProcessServer, natsMicroserviceOptions, NatsRequestClient } from '@loom/transport';
import { QueueGroups } from '@loom/contracts';
import { GatewayModule } from './gateway.module';
import { createGatewayRuntime, type GatewayRuntime } from './runtime';

export interface RunningGateway {
  app: NestFastifyApplication;
  runtime: GatewayRuntime;
  url: string;
  close(): Promise<void>;
}

/** Starts the HTTP gateway on config.host:config.port (0 picks a free port). */
export async function startGateway(config: LoomConfig, options: { logger?: Logger; metrics?: LoomMetrics; llm?: LlmProvider } = {}): Promise<RunningGateway> {
  const runtime = await createGatewayRuntime(config, options);
  const adapter = new FastifyAdapter({ bodyLimit: 8 * 1024 * 1024 });
  // Bodies reach the dispatcher as text, so a malformed JSON body gets Loom's 400, not Fastify's.
  adapter.getInstance().addContentTypeParser('*', { parseAs: 'string' }, (_req: unknown, body: string | Buffer, done: (err: null, body: string) => void) =>
    done(null, body.toString()),
  );
  adapter.getInstance().removeContentTypeParser('application/json');
  adapter.getInstance().addContentTypeParser('application/json', { parseAs: 'string' }, (_req: unknown, body: string | Buffer, done: (err: null, body: string) => void) =>
    done(null, body.toString()),
  );
  const app = await NestFactory.create<NestFastifyApplication>(GatewayModule.forRoot(runtime), adapter, {
    logger: new PinoNestLogger(runtime.logger),
    bodyParser: false,
  });
  await app.listen({ port: config.port, host: config.host });
  const address = app.getHttpServer().address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const url = `http://${config.host === '0.0.0.0' ? '127.0.0.1' : config.host}:${port}`;
  runtime.logger.info({ url, storage: runtime.storage.mode, transport: config.natsUrl ? 'nats' : 'in-process' }, 'gateway listening');
  return {
    app,
    runtime,
    url,
    close: async () => {
      await app.close();
      await runtime.close();
      await flushTracing();
    },
  };
}

export interface RunningEmbedder {
  app: INestMicroservice;
  provider: EmbeddingProvider;
  close(): Promise<void>;
}

/** Starts an embedder: on NATS in queue group `embedder` when LOOM_NATS_URL is set, else on the process hub. */
export async function startEmbedder(
  config: LoomConfig,
  options: { provider?: EmbeddingProvider; logger?: Logger; metrics?: LoomMetrics; serveMetricsOnPort?: number } = {},
): Promise<RunningEmbedder> {
  installTracing(config.traces, config.natsUrl ? 'loom-embedder' : 'loom');
  const logger = options.logger ?? createLogger('embedder', config.logLevel);
  const metrics = options.metrics ?? new LoomMetrics('embedder');
  const provider =
    options.provider ??
    createEmbeddingProvider({
      provider: config.embeddings.provider,
      timeoutMs: config.embeddings.timeoutMs,
      ...(config.embeddings.baseUrl ? { baseUrl: config.embeddings.baseUrl } : {}),
      ...(config.embeddings.model ? { model: config.embeddings.model } : {}),
      ...(config.embeddings.apiKey ? { apiKey: config.embeddings.apiKey } : {}),
      ...(config.embeddings.dims ? { dims: config.embeddings.dims } : {}),
    });
  const transport = config.natsUrl ? natsMicroserviceOptions(config.natsUrl, QueueGroups.embedder, 'loom-embedder') : { strategy: new InProcessServer() };
  const app = await NestFactory.createMicroservice(EmbedderModule.forRoot({ provider, batching: config.embedder, metrics }), {
    ...transport,
    logger: new PinoNestLogger(logger),
  });
  await app.listen();
  // A standalone embedder has no HTTP API, so its metrics get a small server of their own.
  let metricsServer: { close(): Promise<void> } | undefined;
  // /readyz follows a NATS connection of its own: it goes down and comes back with the server's.
  const probe = options.serveMetricsOnPort && config.natsUrl ? await NatsRequestClient.connect(config.natsUrl, 'loom-embedder-readiness') : undefined;
  if (options.serveMetricsOnPort) {
    try {
      metricsServer = await serveMetrics(metrics, options.serveMetricsOnPort, config.host, probe ? { nats: () => probe.ping() } : {});
    } catch (error) {
      // Embedding is this process's job; missing metrics must not stop it.
      logger.error(
        { port: options.serveMetricsOnPort, err: (error as Error).message },
        'cannot serve /metrics on LOOM_EMBEDDER_METRICS_PORT; set it to a free port (or 0 for none). Embedding goes on without metrics.',
      );
    }
  }
  logger.info({ provider: provider.name, model: provider.model, transport: config.natsUrl ? 'nats' : 'in-process', metrics_port: options.serveMetricsOnPort ?? null }, 'embedder serving');
  return {
    app,
    provider,
    close: async () => {
      await app.close();
      await metricsServer?.close();
      await probe?.close();
      await flushTracing();
    },
  };
}
