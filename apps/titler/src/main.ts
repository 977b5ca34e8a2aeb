import 'reflect-metadata';
import { runWorkerProcess, startTitlerService } from '@loom/api';

/** The titler as its own process: periodic title passes, one replica at a time (a NATS KV lease). */
runWorkerProcess({ nats: 'replicas share the pass lease on NATS KV', clickhouse: 'a separate titler' }, (config) =>
  startTitlerService(config, config.titler.metricsPort ? { serveMetricsOnPort: config.titler.metricsPort } : {}),
);
