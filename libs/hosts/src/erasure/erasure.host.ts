import { Storage } from '@loom/clickhouse';
import { ErasureRequestedEvent, QueueGroups, Subjects } from '@loom/contracts';
import { StorageCheckedFence } from '@loom/conversations';
import { ErasureService } from '@loom/erasure';
import { NatsKvLeaseManager } from '@loom/leases';
import { createLogger, installTracing, loadConfigSections, LoomMetrics, type Logger, type LoomConfig } from '@loom/platform';
import { NatsLink } from '@loom/transport';
import { requireSplit, ServiceSections, splitRequirements } from '../shared/host-config';
import { serviceModule, serviceReadiness, startService, type RunningService } from '../shared/service-host';
import { ERASURE } from '../shared/tokens';
import { ErasureController } from './erasure.controller';

/** The variables the erasure service reads, and none other. */
export const ErasureSections = [...ServiceSections, 'erasure'] as const;
export type ErasureConfig = Pick<LoomConfig, (typeof ErasureSections)[number]>;

export function loadErasureConfig(env: Record<string, string | undefined> = process.env): ErasureConfig {
  return loadConfigSections(ErasureSections, env, splitRequirements({ nats: "it takes the gateways' erasure requests from JetStream, and replicas share each request's lease on NATS KV", clickhouse: 'a separate erasure service' }));
}

export interface RunningErasureService extends RunningService {
  erasure: ErasureService;
}

/**
 * The erasure service as its own process (split topology, LOOM_ERASURE_RUNS_IN=service): it
 * takes each stored request from the durable `loom.erasure.requested.v1` and runs it under its
 * NATS KV lease, so replicas share the work and one that dies leaves its request to another.
 * Its poll of storage stays as the net under JetStream (a request whose publish failed).
 */
export async function startErasureService(config: ErasureConfig, options: { logger?: Logger } = {}): Promise<RunningErasureService> {
  installTracing(config.traces, 'loom-erasure');
  const logger = options.logger ?? createLogger('erasure', config.logLevel);
  const metrics = new LoomMetrics('erasure');
  requireSplit(config, { nats: 'it consumes loom.erasure.requested.v1' });
  const link = await NatsLink.connect(config.natsUrl!, 'loom-erasure');
  const storage = Storage.open({ ...config.clickhouse, dataDir: config.dataDir });
  // Other processes append to these threads: only storage knows whether a thread changed.
  const erasure = new ErasureService(storage, new StorageCheckedFence(), logger, {
    leases: new NatsKvLeaseManager(link.connection),
    metrics,
    options: { maxAttempts: config.erasure.attempts, retryBaseMs: config.erasure.retryMs, pollMs: config.erasure.pollMs, runs: 'here' },
  });
  const service = await startService({
    module: serviceModule('Erasure', { controllers: [ErasureController], providers: [{ provide: ERASURE, useValue: erasure }], readiness: serviceReadiness(link, storage), metrics }),
    logger,
    metrics,
    port: config.erasure.metricsPort,
    host: config.host,
    transport: { link, options: { queue: QueueGroups.erasure, durable: { [Subjects.erasureRequested]: ErasureRequestedEvent } } },
    release: async () => {
      await erasure.close();
      await storage.close();
      await link.close();
    },
  });
  erasure.start();
  if (config.erasure.runsIn !== 'service') {
    logger.warn('LOOM_ERASURE_RUNS_IN is not "service": the gateways run erasures too. Both are safe (each request runs under its lease); set it to "service" on the gateways to leave the work here.');
  }
  logger.info({ metrics_port: config.erasure.metricsPort || null, poll_ms: config.erasure.pollMs }, 'erasure service started');
  return { ...service, erasure };
}
