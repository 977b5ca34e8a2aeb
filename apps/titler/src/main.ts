import 'reflect-metadata';
import { startTitlerService } from '@loom/api';
import { ConfigError, loadConfig, onShutdown } from '@loom/platform';

/** The titler as its own process: periodic title passes, one replica at a time (a NATS KV lease). */
async function main(): Promise<void> {
  const config = loadConfig();
  const problems: string[] = [];
  if (!config.natsUrl) problems.push('LOOM_NATS_URL is required: replicas share the pass lease on NATS KV (for one process with everything in it, run `loom up`)');
  if (!config.clickhouse.url) problems.push('LOOM_CLICKHOUSE_URL is required: the embedded engine belongs to one process, so a separate titler reads a ClickHouse server');
  if (problems.length > 0) throw new ConfigError(problems);
  const titler = await startTitlerService(config, config.titler.metricsPort ? { serveMetricsOnPort: config.titler.metricsPort } : {});
  onShutdown(() => titler.close());
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof ConfigError ? error.message : (error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
