import { createGatewayRuntime, startEmbedder } from '@loom/hosts';
import { loadConfig, LoomMetrics } from '@loom/platform';

export interface ReembedCommandOptions {
  namespace?: string;
  all?: boolean;
}

/**
 * `loom reembed`: gives stored turns vectors of the configured embedding model (after a provider
 * switch), from each embedding row's stored text, with progress. Embedded, it needs the data
 * directory to itself; against a ClickHouse server it runs beside live gateways.
 */
export async function reembedCommand(options: ReembedCommandOptions): Promise<void> {
  const config = loadConfig();
  if (!config.clickhouse.url && (await gatewayAnswers(config.port))) {
    throw new Error(
      `a Loom process answers on port ${config.port}; the embedded engine allows one process per data directory. Stop \`loom up\`, run \`loom reembed\`, then start it again`,
    );
  }
  const metrics = new LoomMetrics('loom-reembed', { defaultMetrics: false });
  // Without NATS the embedder runs in this process, on the provider the configuration names.
  const embedder = config.natsUrl ? undefined : await startEmbedder(config, { metrics });
  const runtime = await createGatewayRuntime({ ...config, logLevel: 'warn' }, { metrics });
  const out = process.stdout;
  let lastLine = 0;
  try {
    const report = await runtime.plane.reembed.run({
      namespace: options.namespace,
      all: options.all,
      onProgress: (p) => {
        // A line per 5% (and the first and last), so long runs show progress without flooding.
        const step = Math.max(1, Math.floor(p.total / 20));
        if (p.done === 0 || p.done >= p.total || p.done - lastLine >= step) {
          lastLine = p.done;
          out.write(`[${p.done}/${p.total}] re-embedded ${p.reembedded}, skipped ${p.skipped} (model ${p.model})\n`);
        }
      },
    });
    out.write(
      report.total === 0
        ? `nothing to re-embed: every embedded turn${options.namespace ? ` of ${options.namespace}` : ''} already has a ${report.model} vector\n`
        : `re-embedded ${report.reembedded} turn(s) with ${report.model}; skipped ${report.skipped} (deleted or changed meanwhile, or high)\n`,
    );
  } finally {
    await runtime.close();
    await embedder?.close();
  }
}

async function gatewayAnswers(port: number): Promise<boolean> {
  try {
    await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(1_000) });
    return true;
  } catch {
    return false;
  }
}
