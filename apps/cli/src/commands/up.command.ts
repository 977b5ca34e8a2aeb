import { startEmbedder, startGateway } from '@loom/api';
import { loadConfig, LoomMetrics, onShutdown } from '@loom/platform';
import { ensureAdminToken } from '../admin-token';


/** `loom up`: the embedded all-in-one — chDB in-process, the embedder on the process hub, the gateway. */
export async function upCommand(): Promise<void> {
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
