import { FakeLlmProvider } from './fake.provider';
import { LlmProviderError } from './llm.errors';
import { OpenAiLlmProvider } from './openai-llm.provider';

export { LlmProviderError } from './llm.errors';

export interface LlmMessage {
  role: 'user' | 'assistant';
  content: string;
}

export interface LlmRequest {
  system?: string;
  messages: LlmMessage[];
  maxTokens?: number;
}

export interface LlmResponse {
  text: string;
  usage?: { inputTokens: number; outputTokens: number };
}

export interface LlmProvider {
  readonly name: string;
  readonly model: string;
  /** Throws LlmProviderError on failure. */
  complete(req: LlmRequest): Promise<LlmResponse>;
}

export interface LlmProviderConfig {
  provider: 'fake' | 'openai';
  baseUrl?: string;
  model?: string;
  apiKey?: string;
  timeoutMs?: number;
}

export function createLlmProvider(config: LlmProviderConfig): LlmProvider {
  switch (config.provider) {
    case 'fake':
      return new FakeLlmProvider();
    case 'openai': {
      if (!config.baseUrl || !config.model) {
        throw new LlmProviderError('The openai LLM provider needs both baseUrl and model', false);
      }
      return new OpenAiLlmProvider({
        baseUrl: config.baseUrl,
        model: config.model,
        apiKey: config.apiKey,
        timeoutMs: config.timeoutMs,
      });
    }
    default: {
      const unknown: never = config.provider;
      throw new LlmProviderError(`Unknown LLM provider: ${String(unknown)}`, false);
    }
  }
}
