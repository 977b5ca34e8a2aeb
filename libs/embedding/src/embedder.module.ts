import { Module, type DynamicModule } from '@nestjs/common';
import type { EmbeddingProvider } from '@loom/providers';
import type { LoomMetrics } from '@loom/platform';
import { EmbedBatcher } from './embed.batcher';
import { EmbedController } from './embed.controller';
import { EMBED_BATCHER, EMBEDDER_METRICS } from './tokens';

export interface EmbedderModuleOptions {
  provider: EmbeddingProvider;
  batching: { maxBatch: number; lingerMs: number; concurrency: number };
  metrics: LoomMetrics;
}

/** The embedder: stateless, no database; served over NATS (split) or the process hub (embedded). */
@Module({})
export class EmbedderModule {
  static forRoot(options: EmbedderModuleOptions): DynamicModule {
    return {
      module: EmbedderModule,
      controllers: [EmbedController],
      providers: [
        { provide: EMBEDDER_METRICS, useValue: options.metrics },
        { provide: EMBED_BATCHER, useValue: new EmbedBatcher(options.provider, options.batching, options.metrics) },
      ],
    };
  }
}
