export interface LatencySummary {
  count: number;
  p50: number;
  p95: number;
  p99: number;
  mean: number;
  max: number;
}

/** Nearest-rank percentile of an ascending array. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))]!;
}

export function summarize(values: readonly number[]): LatencySummary {
  const sorted = [...values].sort((a, b) => a - b);
  const sum = sorted.reduce((a, b) => a + b, 0);
  return {
    count: sorted.length,
    p50: round(percentile(sorted, 50)),
    p95: round(percentile(sorted, 95)),
    p99: round(percentile(sorted, 99)),
    mean: round(sorted.length ? sum / sorted.length : NaN),
    max: round(sorted.length ? sorted[sorted.length - 1]! : NaN),
  };
}

export function round(value: number, digits = 2): number {
  if (!Number.isFinite(value)) return value;
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

export function mean(values: readonly number[]): number {
  return values.length ? values.reduce((a, b) => a + b, 0) / values.length : NaN;
}

export function elapsedMs(start: bigint): number {
  return Number(process.hrtime.bigint() - start) / 1e6;
}

/**
 * Times each named variant once per query, the variants in turn for every query (on a shared
 * machine, compare the rows of one run, not runs), and prints p50/p95 as a markdown table.
 */
export function timeVariantsInTurn<Q>(queries: readonly Q[], variants: Readonly<Record<string, (q: Q) => void>>, heading: string): void {
  const samples = new Map<string, number[]>();
  for (const q of queries) {
    for (const [name, run] of Object.entries(variants)) {
      const started = process.hrtime.bigint();
      run(q);
      samples.set(name, [...(samples.get(name) ?? []), Number(process.hrtime.bigint() - started) / 1e6]);
    }
  }
  console.log(heading);
  console.log('| statement | p50 ms | p95 ms |\n|---|---|---|');
  for (const [name, ms] of samples) {
    const s = summarize(ms);
    console.log(`| ${name} | ${s.p50} | ${s.p95} |`);
  }
}
