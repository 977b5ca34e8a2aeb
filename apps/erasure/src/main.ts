import 'reflect-metadata';
import { startErasureService } from '@loom/api';
import { ConfigError, loadConfig, onShutdown } from '@loom/platform';

/** The erasure service as its own process: runs the erasure requests the gateways store (NATS KV leases). */
async function main(): Promise<void> {
  const config = loadConfig();
  const problems: string[] = [];
  if (!config.natsUrl) problems.push('LOOM_NATS_URL is required: replicas share each request\'s lease on NATS KV (for one process with everything in it, run `loom up`)');
  if (!config.clickhouse.url) problems.push('LOOM_CLICKHOUSE_URL is required: the embedded engine belongs to one process, so a separate erasure service reads a ClickHouse server');
  if (problems.length > 0) throw new ConfigError(problems);
  const service = await startErasureService(config, config.erasure.metricsPort ? { serveMetricsOnPort: config.erasure.metricsPort } : {});
  onShutdown(() => service.close());
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof ConfigError ? error.message : (error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
