import { ConfigError, onShutdown } from '@loom/platform';

/**
 * The main of every service process: parse its own configuration (every bad variable listed),
 * start, and stop cleanly on a signal.
 */
export function runHost<C>(load: () => C, start: (config: C) => Promise<{ close(): Promise<void> }>): void {
  const main = async (): Promise<void> => {
    const config = load();
    const host = await start(config);
    onShutdown(() => host.close());
  };
  main().catch((error: unknown) => {
    process.stderr.write(`${error instanceof ConfigError ? error.message : (error as Error).stack ?? String(error)}\n`);
    process.exit(1);
  });
}
