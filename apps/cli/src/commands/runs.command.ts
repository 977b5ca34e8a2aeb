import { listRuns } from '@loom/capture';
import { isStrictIsoTime, type RunView } from '@loom/contracts';
import { gatewayTarget } from '../gateway-target';

interface RunsListOptions {
  namespace: string;
  agent?: string;
  status?: string;
  since?: string;
  limit?: string;
  url?: string;
  token?: string;
  json?: boolean;
}

/** `loom runs list`: the namespace's runs, newest first, with what their model calls cost. */
export async function runsListCommand(options: RunsListOptions): Promise<void> {
  const limit = options.limit === undefined ? undefined : Number(options.limit);
  if (limit !== undefined && (!Number.isInteger(limit) || limit < 1 || limit > 200)) throw new Error('--limit must be a whole number from 1 to 200');
  const since = options.since === undefined ? undefined : sinceOf(options.since);
  const answer = await listRuns(gatewayTarget(options), {
    ...(options.agent ? { agent: options.agent } : {}),
    ...(options.status ? { status: options.status } : {}),
    ...(since ? { since } : {}),
    ...(limit ? { limit } : {}),
  });
  if (options.json) {
    process.stdout.write(`${JSON.stringify(answer)}\n`);
    return;
  }
  if (answer.runs.length === 0) {
    process.stdout.write('no runs\n');
    return;
  }
  const rows = answer.runs.map((run) => [run.started_at.slice(0, 16).replace('T', ' '), run.status, run.agent, cost(run), run.model_cost ? String(run.model_cost.reports) : '-', run.goal.split('\n')[0]!.slice(0, 60)]);
  const header = ['started', 'status', 'agent', 'cost', 'calls', 'goal'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!))).join('  ');
  process.stdout.write([line(header), ...rows.map(line)].join('\n') + '\n');
  const total = answer.model_cost;
  if (total) {
    const unpriced = total.unpriced_models.length ? ` (no price for ${total.unpriced_models.join(', ')}; set LOOM_MODEL_PRICES)` : '';
    process.stdout.write(`\n${answer.runs.length} run(s): ${total.cost_usd === null ? 'no priced usage' : `$${total.cost_usd.toFixed(2)}`} for ${total.reports} model call(s)${unpriced}\n`);
  }
}

function cost(run: RunView): string {
  if (!run.model_cost) return '-';
  return run.model_cost.cost_usd === null ? 'unpriced' : `$${run.model_cost.cost_usd.toFixed(2)}`;
}

/** An ISO time, or a span back from now: 7d, 24h, 30m. */
function sinceOf(value: string): string {
  const span = /^(\d+)([dhm])$/.exec(value);
  if (span) return new Date(Date.now() - Number(span[1]) * { d: 86_400_000, h: 3_600_000, m: 60_000 }[span[2] as 'd' | 'h' | 'm']).toISOString();
  if (isStrictIsoTime(value)) return value;
  // run.list takes strict ISO 8601 only; a time the CLI can read (no offset: local time) is sent as one.
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw new Error('--since must be an ISO time or a span such as 7d, 24h or 30m');
  return new Date(ms).toISOString();
}
