import { mkdtempSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import { startTestNats } from './nats-server';
import { LoomApi } from './api.client';
import { freePort, httpOk, launch, waitFor, type ManagedProcess } from './processes';

const ROOT = resolve(__dirname, '..', '..', '..');
const DIST = join(ROOT, 'dist', 'apps');

/**
 * How each service of the split topology is started: `node dist/apps/<app>/src/main.js`, with
 * the port its /healthz, /readyz and /metrics listen on, and the line it logs once it serves.
 * The one place the e2e tier learns how to launch a service.
 */
export const SplitServices = {
  embedder: { entry: join(DIST, 'embedder', 'src', 'main.js'), portVariable: 'LOOM_EMBEDDER_METRICS_PORT', ready: 'embedder serving' },
  titler: { entry: join(DIST, 'titler', 'src', 'main.js'), portVariable: 'LOOM_TITLER_METRICS_PORT', ready: 'titler service started' },
  erasure: { entry: join(DIST, 'erasure', 'src', 'main.js'), portVariable: 'LOOM_ERASURE_METRICS_PORT', ready: 'erasure service started' },
  compactor: { entry: join(DIST, 'compactor', 'src', 'main.js'), portVariable: 'LOOM_COMPACTOR_METRICS_PORT', ready: 'compactor serving' },
  'brief-condenser': { entry: join(DIST, 'brief-condenser', 'src', 'main.js'), portVariable: 'LOOM_BRIEF_CONDENSER_METRICS_PORT', ready: 'brief condenser serving' },
} as const;
export type SplitWorker = Exclude<keyof typeof SplitServices, 'embedder'>;

export interface SplitTopology {
  url: string;
  /** Every gateway replica's URL (the first is `url`). */
  urls: string[];
  admin: LoomApi;
  natsUrl: string;
  clickhouseUrl: string;
  database: string;
  processes(): ManagedProcess[];
  /** The /metrics URL of each running embedder. */
  embedderMetricsUrls(): string[];
  /** The base URL (/healthz, /readyz, /metrics) of each running process of a service, by process name. */
  serviceUrls(): Record<string, string>;
  /** Starts `count` more processes of a worker service (named `<app>-<n>`), once each serves. */
  startWorkers(app: SplitWorker, count: number, env?: Record<string, string>): Promise<ManagedProcess[]>;
  /**
   * Starts one more gateway replica (its env on top of the topology's), once it is ready: a
   * replica with other switches, or one started again after a test killed the first.
   */
  startGateway(env?: Record<string, string>): Promise<{ process: ManagedProcess; url: string; admin: LoomApi }>;
  startEmbedders(count: number): Promise<void>;
  stopEmbedders(): Promise<void>;
  stopClickHouse(): Promise<void>;
  startClickHouse(): Promise<void>;
  close(): Promise<void>;
}

/**
 * The production shape as separate processes: a development ClickHouse endpoint over chDB, a
 * NATS server of its own (or LOOM_TEST_NATS_URL), N embedders in queue group `embedder`, and
 * the gateway. Runs the built apps from dist/ (`npm run build` first).
 */
export async function startSplitTopology(
  options: {
    embedders?: number;
    titlers?: number;
    erasers?: number;
    compactors?: number;
    condensers?: number;
    gateways?: number;
    env?: Record<string, string>;
    /** Puts something between Loom and the engine (e.g. a latency proxy): returns the URL Loom's services use instead. */
    storageInFront?: (clickhouseUrl: string) => Promise<string>;
    /** A NATS server the caller runs (and may stop and start), instead of one of the suite's own. */
    natsUrl?: string;
  } = {},
): Promise<SplitTopology> {
  for (const app of ['cli', 'gateway', 'embedder', 'titler', 'erasure', 'compactor', 'brief-condenser']) {
    if (!existsSync(join(DIST, app, 'src', 'main.js'))) throw new Error(`dist/apps/${app} is missing: run \`npm run build\` first`);
  }
  const workDir = mkdtempSync(join(tmpdir(), 'loom-split-'));
  const procs: ManagedProcess[] = [];
  const embedders: ManagedProcess[] = [];
  const embedderMetrics = new Map<ManagedProcess, string>();
  const serviceUrls: Record<string, string> = {};
  const counts: Record<string, number> = {};
  const adminToken = 'split-admin-' + randomBytes(16).toString('hex');
  const quiet = { LOOM_LOG_LEVEL: process.env['LOOM_LOG_LEVEL'] === 'silent' ? 'warn' : (process.env['LOOM_LOG_LEVEL'] ?? 'warn'), OTEL_TRACES_EXPORTER: 'none' };

  const nats = options.natsUrl ? { url: options.natsUrl, close: async () => undefined } : await startTestNats();
  const natsUrl = nats.url;

  let clickhouseUrl = process.env['LOOM_TEST_CLICKHOUSE_URL'];
  let clickhouse: ManagedProcess | undefined;
  const chPort = await freePort();
  const startClickHouse = async (): Promise<void> => {
    if (process.env['LOOM_TEST_CLICKHOUSE_URL']) return;
    clickhouse = launch('dev-clickhouse', process.execPath, [join(DIST, 'cli', 'src', 'main.js'), 'dev', 'clickhouse', '--port', String(chPort), '--data-dir', join(workDir, 'chdb')], quiet);
    procs.push(clickhouse);
    clickhouseUrl = `http://127.0.0.1:${chPort}`;
    await waitFor('the development ClickHouse endpoint', () => httpOk(`${clickhouseUrl}/ping`), { processes: [clickhouse] });
  };
  await startClickHouse();

  const database = 'loom_split_' + randomBytes(4).toString('hex');
  const storageUrl = options.storageInFront ? await options.storageInFront(clickhouseUrl!) : clickhouseUrl;
  const baseEnv = { ...quiet, LOOM_NATS_URL: natsUrl, LOOM_CLICKHOUSE_URL: storageUrl, LOOM_CLICKHOUSE_DATABASE: database, ...options.env };
  const startEmbedders = async (count: number): Promise<void> => {
    const started: ManagedProcess[] = [];
    for (let i = 0; i < count; i += 1) {
      // Info level: the one start-up line says when the embedder serves.
      const metricsPort = await freePort();
      const name = `embedder-${embedders.length + 1}`;
      const embedder = launch(name, process.execPath, [SplitServices.embedder.entry], {
        ...baseEnv,
        LOOM_LOG_LEVEL: 'info',
        [SplitServices.embedder.portVariable]: String(metricsPort),
      });
      embedderMetrics.set(embedder, `http://127.0.0.1:${metricsPort}/metrics`);
      serviceUrls[name] = `http://127.0.0.1:${metricsPort}`;
      embedders.push(embedder);
      procs.push(embedder);
      started.push(embedder);
    }
    await waitFor('embedders to serve', async () => started.every((p) => p.output().includes(SplitServices.embedder.ready)), { processes: started });
  };
  await startEmbedders(options.embedders ?? 2);

  // Replicas start together, as in a rollout: they take turns on the migration lock.
  const urls: string[] = [];
  const gateways: ManagedProcess[] = [];
  for (let i = 0; i < (options.gateways ?? 1); i += 1) {
    const port = await freePort();
    // The gateway: `node dist/apps/gateway/src/main.js`, its API, /healthz, /readyz and /metrics on LOOM_PORT.
    const gateway = launch(i === 0 ? 'gateway' : `gateway-${i + 1}`, process.execPath, [join(DIST, 'gateway', 'src', 'main.js')], {
      ...baseEnv,
      LOOM_PORT: String(port),
      LOOM_BOOTSTRAP_ADMIN_TOKEN: adminToken,
    });
    procs.push(gateway);
    gateways.push(gateway);
    urls.push(`http://127.0.0.1:${port}`);
  }
  const url = urls[0]!;
  for (const [i, u] of urls.entries()) await waitFor('the gateway to be ready', () => httpOk(`${u}/readyz`), { processes: [gateways[i]!] });

  // Workers start after the gateway has migrated the schema; each logs one line when it serves.
  const startWorkers = async (app: SplitWorker, count: number, env: Record<string, string> = {}): Promise<ManagedProcess[]> => {
    const started: ManagedProcess[] = [];
    const service = SplitServices[app];
    for (let i = 0; i < count; i += 1) {
      counts[app] = (counts[app] ?? 0) + 1;
      const name = `${app}-${counts[app]}`;
      const port = await freePort();
      const worker = launch(name, process.execPath, [service.entry], { ...baseEnv, LOOM_LOG_LEVEL: 'info', [service.portVariable]: String(port), ...env });
      serviceUrls[name] = `http://127.0.0.1:${port}`;
      started.push(worker);
      procs.push(worker);
    }
    await waitFor(`${app} processes to start`, async () => started.every((p) => p.output().includes(service.ready)), { processes: started });
    return started;
  };
  await startWorkers('titler', options.titlers ?? 0);
  await startWorkers('erasure', options.erasers ?? 0);
  await startWorkers('compactor', options.compactors ?? 0);
  await startWorkers('brief-condenser', options.condensers ?? 0);

  const startGateway = async (env: Record<string, string> = {}): Promise<{ process: ManagedProcess; url: string; admin: LoomApi }> => {
    const port = await freePort();
    const gateway = launch(`gateway-${gateways.length + 1}`, process.execPath, [join(DIST, 'gateway', 'src', 'main.js')], { ...baseEnv, LOOM_PORT: String(port), LOOM_BOOTSTRAP_ADMIN_TOKEN: adminToken, ...env });
    procs.push(gateway);
    gateways.push(gateway);
    const gatewayUrl = `http://127.0.0.1:${port}`;
    await waitFor('the gateway to be ready', () => httpOk(`${gatewayUrl}/readyz`), { processes: [gateway] });
    return { process: gateway, url: gatewayUrl, admin: new LoomApi(gatewayUrl, adminToken) };
  };

  return {
    url,
    urls,
    admin: new LoomApi(url, adminToken),
    natsUrl,
    clickhouseUrl: clickhouseUrl!,
    database,
    processes: () => [...procs],
    embedderMetricsUrls: () => embedders.map((e) => embedderMetrics.get(e)!),
    // Only processes still running: a test that kills one no longer probes it.
    serviceUrls: () => Object.fromEntries(Object.entries(serviceUrls).filter(([name]) => procs.some((p) => p.name === name && p.child.exitCode === null && p.child.signalCode === null))),
    startWorkers,
    startGateway,
    startEmbedders,
    stopEmbedders: async () => {
      await Promise.all(embedders.splice(0).map((p) => p.stop()));
    },
    stopClickHouse: async () => {
      await clickhouse?.stop();
    },
    startClickHouse,
    close: async () => {
      for (const p of [...procs].reverse()) await p.stop();
      await nats.close();
      rmSync(workDir, { recursive: true, force: true });
    },
  };
}
