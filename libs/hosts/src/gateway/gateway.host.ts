import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import type { LlmProvider } from '@loom/providers';
import { AllConfigSections, flushTracing, loadConfigSections, PinoNestLogger, type Logger, type LoomConfig, type LoomMetrics } from '@loom/platform';
import { GatewayModule } from './gateway.module';
import { createGatewayRuntime, type GatewayRuntime } from './gateway.runtime';

/** The variables the gateway reads: all but the embedder's (it embeds through the embedders). */
type EmbedderOnly = 'embeddings' | 'embedder';
export const GatewaySections = AllConfigSections.filter((s): s is Exclude<(typeof AllConfigSections)[number], EmbedderOnly> => s !== 'embeddings' && s !== 'embedder');
export type GatewayConfig = Pick<LoomConfig, Exclude<(typeof AllConfigSections)[number], EmbedderOnly>>;

export function loadGatewayConfig(env: Record<string, string | undefined> = process.env): GatewayConfig {
  return loadConfigSections(GatewaySections, env);
}

export interface RunningGateway {
  app: NestFastifyApplication;
  runtime: GatewayRuntime;
  url: string;
  close(): Promise<void>;
}

/** Starts the HTTP gateway on config.host:config.port (0 picks a free port). */
export async function startGateway(config: GatewayConfig, options: { logger?: Logger; metrics?: LoomMetrics; llm?: LlmProvider } = {}): Promise<RunningGateway> {
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
      // Open MCP event streams are requests in flight: the HTTP server would wait for them.
      await runtime.mcp.close();
      await app.close();
      await runtime.close();
      await flushTracing();
    },
  };
}

