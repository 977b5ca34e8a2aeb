import { EmbeddingProviderError } from './embedding.errors';
import { HashedEmbeddingProvider } from './hashed.provider';
import { OpenAiEmbeddingProvider } from './openai.provider';
import { ThreadedHashedEmbeddingProvider } from './threaded-hashed.provider';
import { UniversalSentenceEncoderProvider, USE_DIMS } from './use.provider';

export { EmbeddingProviderError } from './embedding.errors';

export interface EmbeddingProvider {
  /** 'hashed' | 'openai' | 'use' */
  readonly name: string;
  /** Stored on every embedding row; vectors of different models are never compared. */
  readonly model: string;
  /** Vector length. The OpenAI provider reports 0 until it has seen a response, unless configured. */
  readonly dims: number;
  /** One L2-normalised vector per text, in input order. Throws EmbeddingProviderError on failure. */
  embed(texts: readonly string[]): Promise<number[][]>;
}

export interface EmbeddingProviderConfig {
  provider: 'hashed' | 'openai' | 'use';
  baseUrl?: string;
  model?: string;
  apiKey?: string;
  dims?: number;
  timeoutMs?: number;
  /** hashed only: embed on a worker thread (same vectors, off the caller's thread). */
  thread?: boolean;
}

export function createEmbeddingProvider(config: EmbeddingProviderConfig): EmbeddingProvider {
  switch (config.provider) {
    case 'hashed':
      return config.thread ? new ThreadedHashedEmbeddingProvider(config.dims) : new HashedEmbeddingProvider(config.dims);
    case 'openai': {
      if (!config.baseUrl || !config.model) {
        throw new EmbeddingProviderError('The openai embedding provider needs both baseUrl and model', false);
      }
      return new OpenAiEmbeddingProvider({
        baseUrl: config.baseUrl,
        model: config.model,
        apiKey: config.apiKey,
        dims: config.dims,
        timeoutMs: config.timeoutMs,
      });
    }
    case 'use':
      // The model is fixed; accepting another size silently would store vectors under a lie.
      if (config.dims !== undefined && config.dims !== USE_DIMS) {
        throw new EmbeddingProviderError(`The use embedding provider always produces ${USE_DIMS} dims, not ${config.dims}`, false);
      }
      return new UniversalSentenceEncoderProvider();
    default: {
      const unknown: never = config.provider;
      throw new EmbeddingProviderError(`Unknown embedding provider: ${String(unknown)}`, false);
    }
  }
}
