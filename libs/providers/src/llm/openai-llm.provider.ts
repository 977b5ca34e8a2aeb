import type { OpenAI } from 'openai';
import { createOpenAiClient, describeEndpoint, mapOpenAiError } from '../internal/openai-client';
import { LlmProviderError } from './llm.errors';
import type { LlmProvider, LlmRequest, LlmResponse } from './llm.provider';

export interface OpenAiLlmProviderOptions {
  baseUrl: string;
  model: string;
  apiKey?: string;
  timeoutMs?: number;
}

const WHAT = 'Chat completion request';

/** Any OpenAI-compatible /v1/chat/completions endpoint. */
export class OpenAiLlmProvider implements LlmProvider {
  readonly name = 'openai';
  readonly model: string;
  private readonly client: OpenAI;
  private readonly endpoint: string;

  constructor(options: OpenAiLlmProviderOptions) {
    if (!options.baseUrl || !options.model) {
      throw new LlmProviderError('The openai LLM provider needs both baseUrl and model', false);
    }
    this.model = options.model;
    this.endpoint = describeEndpoint(options.baseUrl);
    this.client = createOpenAiClient(options);
  }

  async complete(req: LlmRequest): Promise<LlmResponse> {
    const messages: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = [];
    if (req.system) messages.push({ role: 'system', content: req.system });
    for (const m of req.messages) messages.push({ role: m.role, content: m.content });

    let completion: OpenAI.Chat.Completions.ChatCompletion;
    try {
      completion = await this.client.chat.completions.create({
        model: this.model,
        messages,
        // max_tokens rather than max_completion_tokens: it is the field every OpenAI-compatible
        // server understands (OpenAI's reasoning models are the exception and need the newer one).
        ...(req.maxTokens !== undefined ? { max_tokens: req.maxTokens } : {}),
        stream: false,
      });
    } catch (error) {
      const mapped = mapOpenAiError(error, WHAT, this.endpoint);
      throw new LlmProviderError(mapped.message, mapped.retryable, mapped.cause === undefined ? undefined : { cause: mapped.cause });
    }

    const choice = completion.choices?.[0];
    if (!choice) {
      throw new LlmProviderError(`${WHAT} to ${this.endpoint} returned an invalid response: no choices`, false);
    }
    const text = typeof choice.message?.content === 'string' ? choice.message.content : '';
    const usage = completion.usage;
    return usage
      ? { text, usage: { inputTokens: usage.prompt_tokens ?? 0, outputTokens: usage.completion_tokens ?? 0 } }
      : { text };
  }
}
