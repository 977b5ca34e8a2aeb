import type { EmbeddingProvider } from '@loom/providers';
import { MicroBatcher, type LoomMetrics } from '@loom/platform';

/**
 * Merges the texts of concurrent `loom.embed.batch.v1` requests into shared provider calls,
 * bounded by `maxBatch` texts a call and `concurrency` calls at once.
 */
export class EmbedBatcher {
  private readonly batcher: MicroBatcher<string, number[]>;

  constructor(
    private readonly provider: EmbeddingProvider,
    options: { maxBatch: number; lingerMs: number; concurrency: number },
    metrics?: LoomMetrics,
  ) {
    this.batcher = new MicroBatcher((texts) => this.provider.embed(texts), { maxItems: options.maxBatch, lingerMs: options.lingerMs, maxConcurrent: options.concurrency }, (n) =>
      metrics?.embedBatchSize.observe(n),
    );
  }

  get model(): string {
    return this.provider.model;
  }

  get dims(): number {
    return this.provider.dims;
  }

  embed(texts: string[]): Promise<number[][]> {
    return Promise.all(texts.map((t) => this.batcher.submit(t)));
  }
}
