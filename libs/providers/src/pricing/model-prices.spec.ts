import { ModelPrices } from './model-prices';

describe('model prices', () => {
  const prices = new ModelPrices();
  const tokens = { input_tokens: 0, output_tokens: 0, cache_write_tokens: 0, cache_write_1h_tokens: 0, cache_read_tokens: 0 };

  it('RUNS-02: a model is priced by its name or a dated snapshot of it, never by a guess from a neighbour', () => {
    expect(prices.priceOf('claude-sonnet-4-5')).toMatchObject({ input: 3, output: 15 });
    expect(prices.priceOf('claude-sonnet-4-5-20250929')).toMatchObject({ input: 3, output: 15 });
    expect(prices.priceOf('claude-opus-4-20250514')).toMatchObject({ input: 15, output: 75 });
    expect(prices.priceOf('claude-opus-4-6')).toMatchObject({ input: 5, output: 25 });
    expect(prices.priceOf('gpt-4o-2024-08-06')).toMatchObject({ input: 2.5 });
    // Not listed: unpriced, although a shorter name is a prefix of it.
    expect(prices.priceOf('claude-opus-4-7')).toBeUndefined();
    expect(prices.priceOf('gpt-4o-mini-tts')).toBeUndefined();
  });

  it('RUNS-02: cost is every kind of token at its own price (Anthropic: 5-minute cache write 1.25x, 1-hour 2x, read 0.1x input)', () => {
    const cost = prices.costOf({ ...tokens, model: 'claude-sonnet-4-5', input_tokens: 1_000_000, output_tokens: 1_000_000, cache_write_tokens: 1_000_000, cache_write_1h_tokens: 1_000_000, cache_read_tokens: 1_000_000 });
    expect(cost).toBeCloseTo(3 + 15 + 3.75 + 6 + 0.3, 9);
    expect(prices.costOf({ ...tokens, model: 'gpt-5.1-codex', input_tokens: 2_000_000, cache_read_tokens: 1_000_000, output_tokens: 100_000 })).toBeCloseTo(2.5 + 0.125 + 1, 9);
    expect(prices.costOf({ ...tokens, model: 'unknown-model', input_tokens: 10 })).toBeUndefined();
  });

  it('LOOM_MODEL_PRICES entries add models, replace listed prices, and price a family by a trailing *', () => {
    const custom = new ModelPrices({ 'claude-sonnet-4-5': { input: 1, output: 2 }, 'acme-*': { input: 10, output: 20, cache_read: 1 }, 'acme-large': { input: 30, output: 60 } });
    expect(custom.priceOf('claude-sonnet-4-5')).toEqual({ input: 1, output: 2 });
    expect(custom.priceOf('acme-small-v2')).toMatchObject({ input: 10 });
    // The longer key wins over the family.
    expect(custom.priceOf('acme-large')).toMatchObject({ input: 30 });
    // Absent cache prices fall back to the input price.
    expect(custom.costOf({ ...tokens, model: 'claude-sonnet-4-5', cache_write_tokens: 1_000_000, cache_read_tokens: 1_000_000 })).toBeCloseTo(2, 9);
  });
});
