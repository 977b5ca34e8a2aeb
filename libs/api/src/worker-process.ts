import { ConfigError, loadConfig, onShutdown, type LoomConfig } from '@loom/platform';

/**
 * The main of a split-topology worker (titler, erasure service, compactor): it needs NATS and a
 * ClickHouse server, says why when either is missing, starts, and stops cleanly on a signal.
 */
export function runWorkerProcess(needs: { nats: string; clickhouse: string }, start: (config: LoomConfig) => Promise<{ close(): Promise<void> }>): void {
  const main = async (): Promise<void> => {
    const config = loadConfig();
    const problems: string[] = [];
    if (!config.natsUrl) problems.push(`LOOM_NATS_URL is required: ${needs.nats} (for one process with everything in it, run \`loom up\`)`);
    if (!config.clickhouse.url) problems.push(`LOOM_CLICKHOUSE_URL is required: the embedded engine belongs to one process, so ${needs.clickhouse} reads a ClickHouse server`);
    if (problems.length > 0) throw new ConfigError(problems);
    const worker = await start(config);
    onShutdown(() => worker.close());
  };
  main().catch((error: unknown) => {
    process.stderr.write(`${error instanceof ConfigError ? error.message : (error as Error).stack ?? String(error)}\n`);
    process.exit(1);
  });
}
