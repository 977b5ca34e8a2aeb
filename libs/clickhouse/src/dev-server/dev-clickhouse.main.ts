import { parseDevClickHouseArgs, type DevClickHouseMainArgs } from './dev-clickhouse.args';
import { startDevClickHouse, type DevClickHouseServer } from './dev-clickhouse.server';

// Process entry for running the endpoint on its own (`loom dev clickhouse`, and the child process
// tests start). Its own process because chDB binds one data directory per process.

export type { DevClickHouseMainArgs };

/**
 * Starts the endpoint, writes JSON log lines to stdout, and on SIGTERM/SIGINT closes it (in-flight
 * queries finish, the data directory is released) and lets the process exit. A second signal
 * while closing exits at once.
 */
export async function runDevClickHouseMain(argv: DevClickHouseMainArgs): Promise<DevClickHouseServer> {
  const log = (line: Record<string, unknown>): void => {
    process.stdout.write(`${JSON.stringify({ time: new Date().toISOString(), ...line })}\n`);
  };
  let server: DevClickHouseServer;
  try {
    server = await startDevClickHouse({ dataDir: argv.dataDir, port: argv.port, host: argv.host, log });
  } catch (e) {
    log({ msg: 'development ClickHouse endpoint failed to start', error: e instanceof Error ? e.message : String(e) });
    process.exitCode = 1;
    throw e;
  }
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (stopping) {
      log({ msg: 'second signal while closing; exiting now', signal });
      process.exit(1);
    }
    stopping = true;
    log({ msg: 'closing development ClickHouse endpoint', signal });
    server.close().then(
      () => {
        process.off('SIGTERM', onSignal);
        process.off('SIGINT', onSignal);
        process.exitCode = 0;
      },
      (e: unknown) => {
        log({ msg: 'close failed', error: e instanceof Error ? e.message : String(e) });
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  // Started by a harness with an IPC channel: if that parent dies, close rather than linger
  // holding the port and the data directory. The channel must not itself keep the process alive.
  if (process.channel !== undefined) {
    process.channel.unref();
    process.once('disconnect', () => {
      if (!stopping) onSignal('SIGTERM');
    });
  }
  return server;
}

if (require.main === module) {
  let args: DevClickHouseMainArgs;
  try {
    args = parseDevClickHouseArgs(process.argv.slice(2));
  } catch (e) {
    process.stderr.write(`${e instanceof Error ? e.message : String(e)}\nusage: dev-clickhouse.main --data-dir <dir> [--port <n>] [--host <addr>]\n`);
    process.exit(2);
  }
  runDevClickHouseMain(args).catch(() => {
    process.exitCode = 1;
  });
}
