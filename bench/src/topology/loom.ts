import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { LoomClient } from '../util/http';
import { progress } from '../util/log';
import { runtimeDistDir, runtimeEnv } from '../util/paths';
import { freePort, httpOk, launch, launchNatsServer, waitFor, type ManagedProcess } from '@loom/testing/processes';

/** Lines worth counting in Loom's output: storage refusals and logged errors. */
const WATCH = /too many parts|TOO_MANY_PARTS|"level":(50|60)|\bERROR\b/i;

export interface LoomInstance {
  topology: 'embedded' | 'split';
  url: string;
  token: string;
  database: string;
  /** Embedded: LOOM_DATA_DIR (chDB keeps its data in `<dataDir>/chdb`). */
  dataDir?: string;
  /** Embedded: the one Loom process (gateway thread and chDB's threads), for CPU readings. */
  pid?: number;
  /** Split: the development ClickHouse endpoint. */
  clickhouseUrl?: string;
  client(maxSockets?: number): LoomClient;
  /** Lines Loom's processes printed that mention errors or "too many parts". */
  watchedLines(): string[];
  /** Split: the NATS server's URL. */
  natsUrl?: string;
  /** Split: each embedder replica's /metrics URL. */
  embedderMetricsUrls?: string[];
  /** Stops the Loom services (gateway, embedders); the split topology's ClickHouse stays up. */
  stopLoom(): Promise<void>;
  /** Stops everything. */
  close(): Promise<void>;
}

const quietEnv = (): Record<string, string> => ({ LOOM_LOG_LEVEL: 'warn', OTEL_TRACES_EXPORTER: 'none', LOOM_TRACES: 'none', ...runtimeEnv() });

function adminToken(): string {
  return 'bench-admin-' + randomBytes(12).toString('hex');
}

/** `loom up`: chDB, the in-process transport, embedder and gateway in one child process. */
export async function startEmbeddedLoom(options: { dataDir: string; database: string; provider: string; env?: Record<string, string> }): Promise<LoomInstance> {
  mkdirSync(options.dataDir, { recursive: true });
  const token = adminToken();
  const port = await freePort();
  const proc = launch(
    'loom-up',
    process.execPath,
    [join(runtimeDistDir(), 'apps', 'cli', 'src', 'main.js'), 'up'],
    {
      ...quietEnv(),
      LOOM_PORT: String(port),
      LOOM_DATA_DIR: options.dataDir,
      LOOM_CLICKHOUSE_DATABASE: options.database,
      LOOM_BOOTSTRAP_ADMIN_TOKEN: token,
      LOOM_EMBEDDINGS_PROVIDER: options.provider,
      ...options.env,
    },
    { watch: WATCH },
  );
  const url = `http://127.0.0.1:${port}`;
  await waitFor('Loom (embedded) to be ready', () => httpOk(`${url}/readyz`), { processes: [proc], timeoutMs: 120_000 });
  const stop = (): Promise<void> => proc.stop();
  return {
    topology: 'embedded',
    url,
    token,
    database: options.database,
    dataDir: options.dataDir,
    ...(proc.child.pid !== undefined ? { pid: proc.child.pid } : {}),
    client: (maxSockets) => new LoomClient(url, token, maxSockets),
    watchedLines: () => proc.matches(),
    stopLoom: stop,
    close: stop,
  };
}

/**
 * The split topology as separate processes (mirrors libs/testing/src/split-topology.ts): a
 * development ClickHouse endpoint over chDB, nats-server with JetStream, N embedders in queue
 * group `embedder`, and the gateway.
 */
export async function startSplitLoom(options: {
  workDir: string;
  database: string;
  provider: string;
  embedders?: number;
  /** More environment for every Loom service (e.g. an embedding provider's endpoint). */
  env?: Record<string, string>;
  /** Puts something between Loom and the engine (e.g. a latency proxy): returns the URL Loom's services use instead. */
  storageInFront?: (clickhouseUrl: string) => Promise<string>;
}): Promise<LoomInstance> {
  mkdirSync(options.workDir, { recursive: true });
  const procs: ManagedProcess[] = [];
  const services: ManagedProcess[] = [];
  const token = adminToken();
  try {
    const { server: nats, url: natsUrl } = await launchNatsServer(join(options.workDir, 'nats'), { watch: WATCH });
    procs.push(nats);

    const chPort = await freePort();
    const clickhouse = launch(
      'dev-clickhouse',
      process.execPath,
      [join(runtimeDistDir(), 'apps', 'cli', 'src', 'main.js'), 'dev', 'clickhouse', '--port', String(chPort), '--data-dir', join(options.workDir, 'chdb')],
      quietEnv(),
      { watch: WATCH },
    );
    procs.push(clickhouse);
    const clickhouseUrl = `http://127.0.0.1:${chPort}`;
    await waitFor('the development ClickHouse endpoint', () => httpOk(`${clickhouseUrl}/ping`), { processes: [clickhouse], timeoutMs: 60_000 });

    const storageUrl = options.storageInFront ? await options.storageInFront(clickhouseUrl) : clickhouseUrl;
    const baseEnv = { ...quietEnv(), LOOM_NATS_URL: natsUrl, LOOM_CLICKHOUSE_URL: storageUrl, LOOM_CLICKHOUSE_DATABASE: options.database, LOOM_EMBEDDINGS_PROVIDER: options.provider, ...options.env };
    const embedders: ManagedProcess[] = [];
    const embedderMetricsUrls: string[] = [];
    for (let i = 0; i < (options.embedders ?? 2); i += 1) {
      // Info level: its start-up line says when it serves.
      // Each replica its own metrics port: two on one host cannot share 9464.
      const metricsPort = await freePort();
      embedderMetricsUrls.push(`http://127.0.0.1:${metricsPort}/metrics`);
      const e = launch(`embedder-${i + 1}`, process.execPath, [join(runtimeDistDir(), 'apps', 'embedder', 'src', 'main.js')], { ...baseEnv, LOOM_LOG_LEVEL: 'info', LOOM_EMBEDDER_METRICS_PORT: String(metricsPort) }, { watch: WATCH });
      embedders.push(e);
      procs.push(e);
      services.push(e);
    }
    await waitFor('embedders to serve', async () => embedders.every((p) => p.output().includes('embedder serving')), { processes: embedders, timeoutMs: 60_000 });

    const port = await freePort();
    const gateway = launch(
      'gateway',
      process.execPath,
      [join(runtimeDistDir(), 'apps', 'gateway', 'src', 'main.js')],
      { ...baseEnv, LOOM_PORT: String(port), LOOM_BOOTSTRAP_ADMIN_TOKEN: token },
      { watch: WATCH },
    );
    procs.push(gateway);
    services.push(gateway);
    const url = `http://127.0.0.1:${port}`;
    await waitFor('the gateway to be ready', () => httpOk(`${url}/readyz`), { processes: [gateway], timeoutMs: 60_000 });
    progress(`split topology up: gateway ${url}, ClickHouse ${clickhouseUrl}, NATS ${natsUrl}, ${embedders.length} embedders`);

    const stopLoom = async (): Promise<void> => {
      for (const p of [...services].reverse()) await p.stop();
    };
    return {
      topology: 'split',
      url,
      token,
      database: options.database,
      clickhouseUrl,
      natsUrl,
      embedderMetricsUrls,
      client: (maxSockets) => new LoomClient(url, token, maxSockets),
      // The embedders log every provider failure at warn; errors and part refusals are what count here.
      watchedLines: () => procs.flatMap((p) => p.matches().map((l) => `${p.name}: ${l}`)),
      stopLoom,
      close: async () => {
        for (const p of [...procs].reverse()) await p.stop();
      },
    };
  } catch (error) {
    for (const p of [...procs].reverse()) await p.stop();
    throw error;
  }
}
