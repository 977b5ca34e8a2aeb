import 'reflect-metadata';
import { startEmbedder } from '@loom/api';
import { ConfigError, loadConfig, onShutdown } from '@loom/platform';


/** The embedder as its own process: serves loom.embed.batch.v1 on NATS in queue group `embedder`. */
async function main(): Promise<void> {
  const config = loadConfig();
  if (!config.natsUrl) {
    throw new ConfigError(['LOOM_NATS_URL is required: the embedder app serves NATS (for one process with everything in it, run `loom up`)']);
  }
  const embedder = await startEmbedder(config, config.embedder.metricsPort ? { serveMetricsOnPort: config.embedder.metricsPort } : {});
  onShutdown(() => embedder.close());
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof ConfigError ? error.message : (error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
