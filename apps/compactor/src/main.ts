import 'reflect-metadata';
import { runWorkerProcess, startCompactorService } from '@loom/api';

/** The compactor as its own process: serves loom.compact.run.v1 in queue group `compactor`. */
runWorkerProcess({ nats: 'the gateways send conversation.compact here over NATS', clickhouse: 'a separate compactor' }, (config) =>
  startCompactorService(config, config.compaction.metricsPort ? { serveMetricsOnPort: config.compaction.metricsPort } : {}),
);
