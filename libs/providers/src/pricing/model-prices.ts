import type { ModelPrice } from '@loom/platform';

/** Token counts of one model call, by how each kind is billed. */
export interface PricedUsage {
  model: string;
  input_tokens: number;
  output_tokens: number;
  cache_write_tokens?: number | undefined;
  cache_write_1h_tokens?: number | undefined;
  cache_read_tokens?: number | undefined;
}

/**
 * List prices in US dollars per million tokens, as the providers publish them. They drift:
 * operators correct or extend them with LOOM_MODEL_PRICES, and a model missing here is counted
 * in tokens and left unpriced rather than guessed. They price the usage clients report for their
 * runs and Loom's own model calls.
 *
 * Anthropic prices a 5-minute cache write at 1.25x input, a 1-hour one at 2x and a cache read
 * at 0.1x; OpenAI has no cache-write charge and prices cached input separately.
 */
const claude = (input: number, output: number): ModelPrice => ({ input, output, cache_write: input * 1.25, cache_write_1h: input * 2, cache_read: input * 0.1 });
const openai = (input: number, output: number, cachedInput: number): ModelPrice => ({ input, output, cache_write: input, cache_write_1h: input, cache_read: cachedInput });

export const BUILT_IN_MODEL_PRICES: Readonly<Record<string, ModelPrice>> = {
  'claude-opus-4-6': claude(5, 25),
  'claude-opus-4-5': claude(5, 25),
  'claude-opus-4-1': claude(15, 75),
  'claude-opus-4-0': claude(15, 75),
  'claude-opus-4': claude(15, 75),
  'claude-3-opus': claude(15, 75),
  'claude-sonnet-4-6': claude(3, 15),
  'claude-sonnet-4-5': claude(3, 15),
  'claude-sonnet-4-0': claude(3, 15),
  'claude-sonnet-4': claude(3, 15),
  'claude-3-7-sonnet': claude(3, 15),
  'claude-3-5-sonnet': claude(3, 15),
  'claude-3-sonnet': claude(3, 15),
  'claude-haiku-4-5': claude(1, 5),
  'claude-3-5-haiku': claude(0.8, 4),
  'claude-3-haiku': claude(0.25, 1.25),
  'gpt-5': openai(1.25, 10, 0.125),
  'gpt-5-codex': openai(1.25, 10, 0.125),
  'gpt-5.1': openai(1.25, 10, 0.125),
  'gpt-5.1-codex': openai(1.25, 10, 0.125),
  'gpt-5-mini': openai(0.25, 2, 0.025),
  'gpt-5.1-codex-mini': openai(0.25, 2, 0.025),
  'gpt-5-nano': openai(0.05, 0.4, 0.005),
  'gpt-4.1': openai(2, 8, 0.5),
  'gpt-4.1-mini': openai(0.4, 1.6, 0.1),
  'gpt-4o': openai(2.5, 10, 1.25),
  'gpt-4o-mini': openai(0.15, 0.6, 0.075),
  o3: openai(2, 8, 0.5),
  'o4-mini': openai(1.1, 4.4, 0.275),
};

/** A dated snapshot of a listed model: `claude-sonnet-4-5-20250929`, `gpt-4o-2024-08-06`. */
const SNAPSHOT_SUFFIX = /^-(\d{8}|\d{4}-\d{2}-\d{2})$/;

/**
 * Prices models by name. A name matches a listed key exactly, as a dated snapshot of it, or,
 * for a key ending in `*` (operators' entries), by prefix; the longest key wins. Nothing else
 * matches, so `claude-opus-4-7` is not priced as `claude-opus-4`.
 */
export class ModelPrices {
  private readonly entries: Array<[string, ModelPrice]>;

  constructor(overrides: Readonly<Record<string, ModelPrice>> = {}) {
    this.entries = Object.entries({ ...BUILT_IN_MODEL_PRICES, ...overrides }).sort((a, b) => b[0].length - a[0].length);
  }

  priceOf(model: string): ModelPrice | undefined {
    for (const [key, price] of this.entries) {
      if (key.endsWith('*') ? model.startsWith(key.slice(0, -1)) : model === key || (model.startsWith(key) && SNAPSHOT_SUFFIX.test(model.slice(key.length)))) return price;
    }
    return undefined;
  }

  /** The cost of one report in US dollars; undefined when the model has no price. */
  costOf(report: PricedUsage): number | undefined {
    const price = this.priceOf(report.model);
    if (!price) return undefined;
    const cacheWrite = price.cache_write ?? price.input;
    const micro =
      report.input_tokens * price.input +
      report.output_tokens * price.output +
      (report.cache_write_tokens ?? 0) * cacheWrite +
      (report.cache_write_1h_tokens ?? 0) * (price.cache_write_1h ?? cacheWrite) +
      (report.cache_read_tokens ?? 0) * (price.cache_read ?? price.input);
    return micro / 1_000_000;
  }
}
