import { Storage } from '@loom/clickhouse';
import { ErasureRequestedEvent, QueueGroups, Subjects, validateInput } from '@loom/contracts';
import { StorageCheckedFence } from '@loom/conversations';
import { ErasureService } from '@loom/erasure';
import { NatsKvLeaseManager } from '@loom/leases';
import { createLogger, flushTracing, installTracing, LoomMetrics, type Logger, type LoomConfig } from '@loom/platform';
import { connect } from 'nats';
import { NATS_CONNECTION_POLICY } from '@loom/transport';
import { natsAnswers, serveWorkerMetrics } from './http/metrics-server';

export interface RunningErasureService {
  erasure: ErasureService;
  close(): Promise<void>;
}

/**
 * The erasure service as its own process (split topology, LOOM_ERASURE_RUNS_IN=service): it runs
 * the erasure requests the gateways store, each under its NATS KV lease, so replicas share the
 * work and one that dies leaves its request to another. /metrics on its own port.
 */
export async function startErasureService(config: LoomConfig, options: { logger?: Logger; serveMetricsOnPort?: number } = {}): Promise<RunningErasureService> {
  installTracing(config.traces, 'loom-erasure');
  const logger = options.logger ?? createLogger('erasure', config.logLevel);
  const metrics = new LoomMetrics('erasure');
  if (!config.natsUrl) throw new Error('the erasure service needs LOOM_NATS_URL for its leases (for one process with everything in it, run `loom up`)');
  const nc = await connect({ servers: config.natsUrl, name: 'loom-erasure', ...NATS_CONNECTION_POLICY });
  const storage = Storage.open({ ...config.clickhouse, dataDir: config.dataDir });
  // Other processes append to these threads: only storage knows whether a thread changed.
  const erasure = new ErasureService(storage, new StorageCheckedFence(), logger, {
    leases: new NatsKvLeaseManager(nc),
    metrics,
    options: { maxAttempts: config.erasure.attempts, retryBaseMs: config.erasure.retryMs, pollMs: config.erasure.pollMs, runs: 'here' },
  });
  erasure.start();
  // A gateway's nudge: look now rather than at the next poll (one replica of the group gets it).
  const nudges = nc.subscribe(Subjects.erasureRequested, {
    queue: QueueGroups.erasure,
    callback: (_error, message) => {
      try {
        validateInput(ErasureRequestedEvent, JSON.parse(new TextDecoder().decode(message.data)));
      } catch (error) {
        logger.warn({ err: error }, `ignored an invalid ${Subjects.erasureRequested} payload; stored requests are still found by the poll`);
        return;
      }
      erasure.queue.kick();
    },
  });
  const metricsServer = await serveWorkerMetrics(metrics, options.serveMetricsOnPort, config.host, logger, 'LOOM_ERASURE_METRICS_PORT', {
    nats: () => natsAnswers(nc),
    storage: () => storage.ping(),
  });
  if (config.erasure.runsIn !== 'service') {
    logger.warn('LOOM_ERASURE_RUNS_IN is not "service": the gateways run erasures too. Both are safe (each request runs under its lease); set it to "service" on the gateways to leave the work here.');
  }
  logger.info({ metrics_port: options.serveMetricsOnPort ?? null, poll_ms: config.erasure.pollMs }, 'erasure service started');
  return {
    erasure,
    close: async () => {
      nudges.unsubscribe();
      await erasure.close();
      await metricsServer?.close();
      await storage.close();
      await nc.close();
      await flushTracing();
    },
  };
}
