import { inSpan, type LoomMetrics } from '@loom/platform';
import { ModelPrices } from '../pricing/model-prices';
import type { LlmProvider, LlmRequest, LlmResponse } from './llm.provider';

/** What Loom asks its own model for: the label of its spend. */
export type LlmPurpose = 'titler' | 'summarizer' | 'brief' | 'extraction' | 'review';

/**
 * Loom's own model calls, metered in one place (TRACE-02). Each call is a span named for its
 * purpose, with the model, the tokens and the cost as OpenTelemetry GenAI attributes (which a
 * trace sink such as Langfuse shows as a generation), and counts in the call, token and cost
 * metrics. The span never carries the prompt or the answer: they may hold a person's words.
 */
export class MeteredLlm implements LlmProvider {
  constructor(
    private readonly inner: LlmProvider,
    private readonly purpose: LlmPurpose,
    private readonly observe: { metrics?: LoomMetrics | undefined; prices?: ModelPrices | undefined } = {},
  ) {}

  get name(): string {
    return this.inner.name;
  }

  get model(): string {
    return this.inner.model;
  }

  complete(request: LlmRequest): Promise<LlmResponse> {
    const attributes = { 'gen_ai.operation.name': 'chat', 'gen_ai.system': this.inner.name, 'gen_ai.request.model': this.inner.model, 'loom.llm.purpose': this.purpose };
    return inSpan(`llm ${this.purpose}`, attributes, async (span) => {
      const metrics = this.observe.metrics;
      let response: LlmResponse;
      try {
        response = await this.inner.complete(request);
      } catch (error) {
        metrics?.llmCalls.inc({ purpose: this.purpose, outcome: 'failed' });
        throw error;
      }
      metrics?.llmCalls.inc({ purpose: this.purpose, outcome: 'ok' });
      if (response.usage) {
        const { inputTokens, outputTokens } = response.usage;
        metrics?.llmTokens.inc({ purpose: this.purpose, direction: 'input' }, inputTokens);
        metrics?.llmTokens.inc({ purpose: this.purpose, direction: 'output' }, outputTokens);
        span.setAttributes({ 'gen_ai.usage.input_tokens': inputTokens, 'gen_ai.usage.output_tokens': outputTokens });
        const cost = (this.observe.prices ?? DEFAULT_PRICES).costOf({ model: this.inner.model, input_tokens: inputTokens, output_tokens: outputTokens });
        if (cost !== undefined) {
          metrics?.llmCost.inc({ purpose: this.purpose, model: this.inner.model }, cost);
          span.setAttribute('loom.llm.cost_usd', cost);
        }
      }
      return response;
    });
  }
}

const DEFAULT_PRICES = new ModelPrices();
