import type { LlmProvider, LlmRequest, LlmResponse } from './llm.provider';

/**
 * The spec's stock fake: it answers every request with an empty string. Features built on an LLM
 * must therefore treat empty output as "nothing to add" rather than as an error.
 */
export class FakeLlmProvider implements LlmProvider {
  readonly name = 'fake';
  readonly model = 'fake';

  async complete(_req: LlmRequest): Promise<LlmResponse> {
    return { text: '' };
  }
}
