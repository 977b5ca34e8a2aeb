import { resolve } from 'node:path';
import { startEmbedder, startGateway } from '@loom/hosts';
import { loadConfig, LoomMetrics, onShutdown } from '@loom/platform';
import { ensureAdminToken } from '../admin-token';

export interface UpOptions {
  port?: string;
  dataDir?: string;
}

/**
 * The flags win over the environment. They are written into it, not only into this config: every
 * part started here (and any it starts) reads its configuration from the environment.
 */
function applyFlags(options: UpOptions): void {
  if (options.port !== undefined) {
    const port = Number(options.port);
    if (!/^\d+$/.test(options.port) || port > 65_535) throw new Error(`--port must be a whole number from 0 to 65535, not "${options.port}"`);
    process.env['LOOM_PORT'] = String(port);
  }
  if (options.dataDir !== undefined) {
    if (options.dataDir.trim() === '') throw new Error('--data-dir must name a directory');
    process.env['LOOM_DATA_DIR'] = resolve(options.dataDir);
  }
}

/** `loom up`: the embedded all-in-one — chDB in-process, the embedder on the process hub, the gateway. */
export async function upCommand(options: UpOptions = {}): Promise<void> {
  applyFlags(options);
  const config = loadConfig();
  // One process, one registry: the gateway's /metrics shows the embedder's batch sizes too.
  const metrics = new LoomMetrics('loom');
  const embedder = await startEmbedder(config, { metrics });
  const gateway = await startGateway(config, { metrics });
  const out = process.stdout;
  out.write(`\nLoom is up at ${gateway.url}\n`);
  out.write(`  storage:    ${gateway.runtime.storage.mode === 'embedded' ? `embedded chDB in ${config.dataDir}` : config.clickhouse.url}\n`);
  out.write(`  transport:  ${config.natsUrl ? `NATS at ${config.natsUrl}` : 'in-process'}\n`);
  out.write(`  embeddings: ${embedder.provider.name} (${embedder.provider.model})\n`);
  if (gateway.runtime.migrations.applied.length > 0) out.write(`  migrations applied: ${gateway.runtime.migrations.applied.join(', ')}\n`);
  if (config.bootstrapAdminToken) {
    out.write('  admin token: the value of LOOM_BOOTSTRAP_ADMIN_TOKEN\n');
  } else {
    const admin = await ensureAdminToken(gateway.runtime.auth, config.dataDir);
    if (admin.created) {
      out.write(`  admin token (shown once, also saved to ${admin.path}, mode 600):\n\n    ${admin.token}\n\n`);
    } else {
      out.write(`  admin token: in ${admin.path}\n`);
    }
  }
  out.write(`  try:  curl -s ${gateway.url}/readyz\n  stop: Ctrl-C\n\n`);
  onShutdown(async () => {
    await gateway.close();
    await embedder.close();
  });
}
