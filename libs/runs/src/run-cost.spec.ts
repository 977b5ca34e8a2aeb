import { costsOf, sumCosts, type UsageSumRow } from './run-cost';

describe('run cost totals', () => {
  const row = (run: string, model: string, reports: number, cost: number, priced: number): UsageSumRow => ({
    run_id: run,
    model,
    reports: String(reports),
    input_tokens: '10',
    output_tokens: '20',
    cache_write_tokens: '0',
    cache_write_1h_tokens: '0',
    cache_read_tokens: '5',
    cost_sum: cost,
    priced: String(priced),
  });

  it('RUNS-02: a run sums its models; a model with no price counts its tokens and is named, and its cost stays out', () => {
    const costs = costsOf([row('r', 'claude-sonnet-4-5', 2, 0.0123456789, 2), row('r', 'mystery', 1, 0, 0)]);
    expect(costs.get('r')).toEqual({
      reports: 3,
      input_tokens: 20,
      output_tokens: 40,
      cache_write_tokens: 0,
      cache_write_1h_tokens: 0,
      cache_read_tokens: 10,
      cost_usd: 0.012346,
      unpriced_models: ['mystery'],
      by_model: [
        { model: 'claude-sonnet-4-5', reports: 2, input_tokens: 10, output_tokens: 20, cache_write_tokens: 0, cache_write_1h_tokens: 0, cache_read_tokens: 5, cost_usd: 0.012346 },
        { model: 'mystery', reports: 1, input_tokens: 10, output_tokens: 20, cache_write_tokens: 0, cache_write_1h_tokens: 0, cache_read_tokens: 5, cost_usd: null },
      ],
    });
    expect(costsOf([row('only', 'mystery', 1, 0, 0)]).get('only')!.cost_usd).toBeNull();
  });

  it('a page of runs sums per model across runs', () => {
    const costs = costsOf([row('a', 'm1', 1, 1.5, 1), row('b', 'm1', 2, 2.25, 2), row('b', 'm2', 1, 0, 0)]);
    const page = sumCosts([...costs.values()]);
    expect(page).toMatchObject({ reports: 4, cost_usd: 3.75, unpriced_models: ['m2'] });
    expect(page.by_model.map((m) => [m.model, m.reports, m.cost_usd])).toEqual([
      ['m1', 3, 3.75],
      ['m2', 1, null],
    ]);
  });
});
