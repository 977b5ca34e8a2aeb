import { Module, type DynamicModule, type Provider, type Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import type { CustomStrategy } from '@nestjs/microservices';
import type { Storage } from '@loom/clickhouse';
import { LOOM_METRICS, READINESS, Readiness } from '@loom/api';
import { flushTracing, PinoNestLogger, type Logger, type LoomMetrics } from '@loom/platform';
import { LoomNatsServer, type LoomNatsServerOptions, type NatsLink } from '@loom/transport';
import { HealthController } from './health.controller';
import { reportNatsState } from './nats-state';

/** The readiness of a service: its NATS connection, and storage when it has some. */
export function serviceReadiness(link: NatsLink | undefined, storage?: Storage): Readiness {
  return new Readiness({
    ...(link ? { nats: async () => ((await link.ping()) ? true : { ready: false, reason: `NATS connection ${link.state}` }) } : {}),
    ...(storage ? { storage: () => storage.ping() } : {}),
  });
}

/**
 * A service's composition root: its controllers and providers, plus /healthz, /readyz and
 * /metrics. Each host folder builds one with what it composed.
 */
export function serviceModule(
  name: string,
  parts: { controllers?: Type[]; providers?: Provider[]; readiness: Readiness; metrics: LoomMetrics },
): DynamicModule {
  @Module({})
  class ServiceModule {}
  Object.defineProperty(ServiceModule, 'name', { value: `${name}Module` });
  return {
    module: ServiceModule,
    controllers: [...(parts.controllers ?? []), HealthController],
    providers: [...(parts.providers ?? []), { provide: READINESS, useValue: parts.readiness }, { provide: LOOM_METRICS, useValue: parts.metrics }],
  };
}

export interface RunningService {
  app: NestFastifyApplication;
  /** Where /healthz, /readyz and /metrics are served, when the service has a port. */
  url: string | undefined;
  close(): Promise<void>;
}

/**
 * Starts a service: a Nest application whose HTTP side serves health and metrics (on `port`;
 * 0 serves none) and whose microservice side serves its subjects through the one NATS strategy
 * (`LoomNatsServer`) on the process's connection, or another strategy (the in-process hub).
 * `close` stops taking work, answers what is in hand, then runs `release` (storage, the link).
 */
export async function startService(options: {
  module: DynamicModule;
  logger: Logger;
  metrics: LoomMetrics;
  port: number;
  host: string;
  /** The NATS side: the link and the strategy options, or another strategy. */
  transport: { link: NatsLink; options: LoomNatsServerOptions } | { strategy: CustomStrategy['strategy'] } | undefined;
  release?: () => Promise<void>;
}): Promise<RunningService> {
  const app = await NestFactory.create<NestFastifyApplication>(options.module, new FastifyAdapter(), { logger: new PinoNestLogger(options.logger) });
  if (options.transport) {
    if ('link' in options.transport) reportNatsState(options.transport.link, options.metrics, options.logger);
    const strategy = 'link' in options.transport ? new LoomNatsServer(options.transport.link, { ...options.transport.options, log: options.logger }) : options.transport.strategy;
    app.connectMicroservice<CustomStrategy>({ strategy });
  }
  await app.startAllMicroservices();
  let url: string | undefined;
  if (options.port) {
    await app.listen({ port: options.port, host: options.host });
    const address = app.getHttpServer().address();
    const port = typeof address === 'object' && address ? address.port : options.port;
    url = `http://${options.host === '0.0.0.0' ? '127.0.0.1' : options.host}:${port}`;
  } else {
    await app.init();
  }
  return {
    app,
    url,
    close: async () => {
      // Nest closes the microservice first (stop taking work, finish what is in hand), then HTTP.
      await app.close();
      await options.release?.();
      await flushTracing();
    },
  };
}
