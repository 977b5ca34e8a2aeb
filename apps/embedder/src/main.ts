import 'reflect-metadata';
import { loadEmbedderConfig, runHost, startEmbedder } from '@loom/hosts';

/** The embedder as its own process: serves loom.embed.batch.v1 on NATS in queue group `embedder`. */
runHost(loadEmbedderConfig, (config) => startEmbedder(config, { serveMetricsOnPort: config.embedder.metricsPort }));
