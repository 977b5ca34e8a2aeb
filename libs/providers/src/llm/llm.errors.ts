/** Separate from llm.provider.ts so providers can import it without a runtime import cycle. */
export class LlmProviderError extends Error {
  constructor(
    message: string,
    /** True when the same request may succeed later (rate limit, 5xx, timeout, connection failure). */
    readonly retryable: boolean,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'LlmProviderError';
  }
}
