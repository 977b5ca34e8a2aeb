import 'reflect-metadata';
import { startGateway } from '@loom/api';
import { ConfigError, loadConfig, onShutdown } from '@loom/platform';


/** The gateway as its own process (split topology): LOOM_CLICKHOUSE_URL and LOOM_NATS_URL set. */
async function main(): Promise<void> {
  const config = loadConfig();
  const gateway = await startGateway(config);
  if (!config.natsUrl) {
    gateway.runtime.logger.warn('LOOM_NATS_URL is unset and this process runs no embedder: every embed fails open and search answers by substring. Set LOOM_NATS_URL, or run `loom up` for the all-in-one.');
  }
  onShutdown(() => gateway.close());
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof ConfigError ? error.message : (error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
