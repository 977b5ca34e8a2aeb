import 'reflect-metadata';
import { startCompactorService } from '@loom/api';
import { ConfigError, loadConfig, onShutdown } from '@loom/platform';

/** The compactor as its own process: serves loom.compact.run.v1 in queue group `compactor`. */
async function main(): Promise<void> {
  const config = loadConfig();
  const problems: string[] = [];
  if (!config.natsUrl) problems.push('LOOM_NATS_URL is required: the gateways send conversation.compact here over NATS (for one process with everything in it, run `loom up`)');
  if (!config.clickhouse.url) problems.push('LOOM_CLICKHOUSE_URL is required: the embedded engine belongs to one process, so a separate compactor reads a ClickHouse server');
  if (problems.length > 0) throw new ConfigError(problems);
  const compactor = await startCompactorService(config, config.compaction.metricsPort ? { serveMetricsOnPort: config.compaction.metricsPort } : {});
  onShutdown(() => compactor.close());
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof ConfigError ? error.message : (error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
