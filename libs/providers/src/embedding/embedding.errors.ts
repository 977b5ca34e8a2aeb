/**
 * Lives apart from embedding.provider.ts so the concrete providers can import it without a
 * runtime import cycle through the factory.
 */
export class EmbeddingProviderError extends Error {
  constructor(
    message: string,
    /** True when the same request may succeed later (rate limit, 5xx, timeout, connection failure). */
    readonly retryable: boolean,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'EmbeddingProviderError';
  }
}
