import type { RunModelCost, UsageTotals } from '@loom/contracts';

/** One (run, model) group of usage rows as the engine sums them; 64-bit sums arrive as text. */
export interface UsageSumRow {
  run_id: string;
  model: string;
  reports: number | string;
  input_tokens: number | string;
  output_tokens: number | string;
  cache_write_tokens: number | string;
  cache_write_1h_tokens: number | string;
  cache_read_tokens: number | string;
  /** The priced reports' cost summed (0 when none was priced). */
  cost_sum: number | string;
  /** How many of the group's reports had a price. */
  priced: number | string;
}

const TOKEN_FIELDS = ['input_tokens', 'output_tokens', 'cache_write_tokens', 'cache_write_1h_tokens', 'cache_read_tokens'] as const;

/** Each run's cost from its per-model sums. */
export function costsOf(rows: readonly UsageSumRow[]): Map<string, RunModelCost> {
  const byRun = new Map<string, Array<UsageTotals & { model: string; priced: number }>>();
  for (const row of rows) {
    const priced = Number(row.priced);
    const totals = {
      model: row.model,
      reports: Number(row.reports),
      ...tokens(row),
      cost_usd: priced > 0 ? roundUsd(Number(row.cost_sum)) : null,
      priced,
    };
    byRun.set(row.run_id, [...(byRun.get(row.run_id) ?? []), totals]);
  }
  const costs = new Map<string, RunModelCost>();
  for (const [runId, models] of byRun) {
    const byModel = models.map(({ priced: _p, ...m }) => m);
    costs.set(runId, {
      ...total(byModel),
      unpriced_models: models.filter((m) => m.priced < m.reports).map((m) => m.model),
      by_model: byModel,
    });
  }
  return costs;
}

/** Several runs' costs as one: what a page of run.list cost. */
export function sumCosts(costs: readonly RunModelCost[]): RunModelCost {
  const byModel = new Map<string, UsageTotals & { model: string }>();
  for (const model of costs.flatMap((c) => c.by_model)) {
    const seen = byModel.get(model.model);
    byModel.set(model.model, seen ? { model: model.model, ...total([seen, model]) } : model);
  }
  const models = [...byModel.values()].sort((a, b) => (a.model < b.model ? -1 : a.model > b.model ? 1 : 0));
  return { ...total(models), unpriced_models: [...new Set(costs.flatMap((c) => c.unpriced_models))].sort(), by_model: models };
}

function total(parts: readonly UsageTotals[]): UsageTotals {
  const priced = parts.filter((p) => p.cost_usd !== null);
  const sum: UsageTotals = { reports: 0, input_tokens: 0, output_tokens: 0, cache_write_tokens: 0, cache_write_1h_tokens: 0, cache_read_tokens: 0, cost_usd: null };
  for (const part of parts) {
    sum.reports += part.reports;
    for (const field of TOKEN_FIELDS) sum[field] += part[field];
  }
  sum.cost_usd = priced.length > 0 ? roundUsd(priced.reduce((n, p) => n + p.cost_usd!, 0)) : null;
  return sum;
}

function tokens(row: UsageSumRow): Pick<UsageTotals, (typeof TOKEN_FIELDS)[number]> {
  return Object.fromEntries(TOKEN_FIELDS.map((f) => [f, Number(row[f])])) as Pick<UsageTotals, (typeof TOKEN_FIELDS)[number]>;
}

/** Dollars to a millionth: finer than any price, and free of float noise in the answers. */
function roundUsd(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}
