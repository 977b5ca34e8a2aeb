import { errorLabel, type OpCall } from '@loom/testing/reliability';
import { summarize, type LatencySummary } from '../util/stats';

/** Answers and client-side latencies of one kind of call, by outcome. */
export class OpRecorder {
  readonly outcomes: Record<string, number> = {};
  readonly okMs: number[] = [];
  readonly allMs: number[] = [];

  async call(call: OpCall, op: string, body: unknown, timeoutMs: number): Promise<{ status: number; body: any } | undefined> {
    const started = Date.now();
    try {
      const result = await call(op, body, timeoutMs);
      const ms = Date.now() - started;
      this.allMs.push(ms);
      if (result.status === 200) this.okMs.push(ms);
      const key = result.status === 200 ? '200' : `${result.status} ${String(result.body?.error?.code ?? result.body?.code ?? '')}`.trim();
      this.outcomes[key] = (this.outcomes[key] ?? 0) + 1;
      return result;
    } catch (error) {
      this.allMs.push(Date.now() - started);
      const key = errorLabel(error);
      this.outcomes[key] = (this.outcomes[key] ?? 0) + 1;
      return undefined;
    }
  }

  slowestMs(): number {
    return this.allMs.reduce((a, b) => Math.max(a, b), 0);
  }

  get count(): number {
    return this.allMs.length;
  }

  ok(): LatencySummary {
    return summarize(this.okMs);
  }

  all(): LatencySummary {
    return summarize(this.allMs);
  }

  outcomesLine(): string {
    const entries = Object.entries(this.outcomes).sort((a, b) => b[1] - a[1]);
    return entries.length === 0 ? 'none' : entries.map(([k, v]) => `${k}: ${v.toLocaleString('en-US')}`).join(', ');
  }
}
