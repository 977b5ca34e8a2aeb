import { existsSync } from 'node:fs';
import path from 'node:path';
import { DEV_ENDPOINT_NOTICE } from './notice';
import { spawnTsProcess, type ExitStatus, type TsChildProcess } from './ts-child-process';

// Test tooling: the development ClickHouse endpoint in its own process, for tests whose own
// process (a jest worker) may already hold a chDB data directory.

export interface DevClickHouseChild {
  url: string;
  port: number;
  dataDir: string;
  process: TsChildProcess;
  /** SIGTERM and wait: the endpoint drains in-flight queries and releases the data directory. */
  stop(): Promise<ExitStatus>;
}

// From source (tests) the .ts entry runs through ts-register.js; from a build, the emitted .js.
const tsEntry = path.join(__dirname, 'dev-clickhouse.main.ts');
export const DEV_CLICKHOUSE_ENTRY = existsSync(tsEntry) ? tsEntry : path.join(__dirname, 'dev-clickhouse.main.js');

export async function startDevClickHouseChild(options: {
  dataDir: string;
  port?: number;
  host?: string;
  env?: NodeJS.ProcessEnv;
  onLine?: (line: Record<string, unknown>) => void;
}): Promise<DevClickHouseChild> {
  const args = ['--data-dir', options.dataDir, '--port', String(options.port ?? 0)];
  if (options.host !== undefined) args.push('--host', options.host);
  const proc = await spawnTsProcess({
    entry: DEV_CLICKHOUSE_ENTRY,
    args,
    env: options.env,
    onLine: options.onLine,
    readyWhen: (line) => line['msg'] === DEV_ENDPOINT_NOTICE && typeof line['url'] === 'string',
  });
  const url = proc.ready['url'] as string;
  return {
    url,
    port: Number(new URL(url).port),
    dataDir: options.dataDir,
    process: proc,
    stop: () => proc.stop('SIGTERM'),
  };
}
