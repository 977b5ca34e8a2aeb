import type { EmbeddingProvider } from '@loom/providers';
import { MicroBatcher, type LoomMetrics } from '@loom/platform';

/**
 * Merges the texts of concurrent `loom.embed.batch.v1` requests into shared provider calls,
 * bounded by `maxBatch` texts a call and `concurrency` calls at once. Its queue depth and calls
 * in flight are what operators scale the embedder on (deploy/keda/), so /metrics reads them.
 */
export class EmbedBatcher {
  private readonly batcher: MicroBatcher<string, number[]>;

  constructor(
    private readonly provider: EmbeddingProvider,
    options: { maxBatch: number; lingerMs: number; concurrency: number },
    private readonly metrics?: LoomMetrics,
  ) {
    this.batcher = new MicroBatcher((texts) => this.call(texts), { maxItems: options.maxBatch, lingerMs: options.lingerMs, maxConcurrent: options.concurrency }, (n) =>
      metrics?.embedBatchSize.observe(n),
    );
    metrics?.reportEmbedder(() => ({ queued: this.batcher.queued, inFlight: this.batcher.running, concurrency: options.concurrency }));
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

  private async call(texts: string[]): Promise<number[][]> {
    const end = this.metrics?.embedProviderDuration.startTimer();
    try {
      const vectors = await this.provider.embed(texts);
      end?.({ outcome: 'ok' });
      return vectors;
    } catch (error) {
      end?.({ outcome: 'failed' });
      throw error;
    }
  }
}
