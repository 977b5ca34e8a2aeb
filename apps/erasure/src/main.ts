import 'reflect-metadata';
import { runWorkerProcess, startErasureService } from '@loom/api';

/** The erasure service as its own process: runs the erasure requests the gateways store (NATS KV leases). */
runWorkerProcess({ nats: "replicas share each request's lease on NATS KV", clickhouse: 'a separate erasure service' }, (config) =>
  startErasureService(config, config.erasure.metricsPort ? { serveMetricsOnPort: config.erasure.metricsPort } : {}),
);
