import { resolve } from 'node:path';
import { runDevClickHouseMain } from '@loom/clickhouse/dev-server';

/** `loom dev clickhouse`: ClickHouse's HTTP interface over a chDB data directory, for tests and development. */
export async function devClickHouseCommand(options: { dataDir: string; port: string; host: string }): Promise<void> {
  const port = Number(options.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error('--port must be a whole number from 0 to 65535');
  await runDevClickHouseMain({ dataDir: resolve(options.dataDir), port, host: options.host });
}
