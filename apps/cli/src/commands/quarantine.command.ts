import { dropQuarantine, listQuarantine, retryQuarantine } from '@loom/capture';
import type { QuarantinedRow } from '@loom/contracts';
import { gatewayTarget } from '../gateway-target';

interface TargetOptions {
  url?: string;
  token?: string;
  json?: boolean;
}

// The quarantine is deployment-wide; the namespace only serves the target's shape.
const target = (options: TargetOptions) => gatewayTarget({ namespace: 'default', ...options });

/** `loom quarantine list`: rows storage refused on their own, by table and key (never their text, unless --rows). */
export async function quarantineListCommand(options: TargetOptions & { limit?: string; rows?: boolean }): Promise<void> {
  const limit = options.limit === undefined ? undefined : Number(options.limit);
  if (limit !== undefined && (!Number.isInteger(limit) || limit < 1 || limit > 1000)) throw new Error('--limit is a whole number from 1 to 1000');
  const answer = await listQuarantine(target(options), { ...(limit !== undefined ? { limit } : {}), includeRows: options.rows === true });
  if (options.json) {
    process.stdout.write(`${JSON.stringify(answer)}\n`);
    return;
  }
  if (answer.rows.length === 0) {
    process.stdout.write('no quarantined rows\n');
    return;
  }
  process.stdout.write(`${answer.rows.map(describe).join('\n')}\n`);
  process.stdout.write(`${answer.rows.length} quarantined row(s); retry with: loom quarantine retry <id>…, or drop with: loom quarantine drop <id>…\n`);
}

/** `loom quarantine retry ID…`: insert each row again; a stored row leaves the quarantine. */
export async function quarantineRetryCommand(ids: string[], options: TargetOptions): Promise<void> {
  const answer = await retryQuarantine(target(options), ids);
  if (options.json) {
    process.stdout.write(`${JSON.stringify(answer)}\n`);
    return;
  }
  for (const r of answer.results) process.stdout.write(`${r.id}: ${r.outcome}${r.outcome === 'refused' ? ` (${r.error})` : ''}\n`);
  if (answer.results.some((r) => r.outcome !== 'stored')) process.exitCode = 1;
}

/** `loom quarantine drop ID…`: remove each row from the quarantine without storing it. */
export async function quarantineDropCommand(ids: string[], options: TargetOptions): Promise<void> {
  const answer = await dropQuarantine(target(options), ids);
  if (options.json) {
    process.stdout.write(`${JSON.stringify(answer)}\n`);
    return;
  }
  for (const r of answer.results) process.stdout.write(`${r.id}: ${r.outcome}\n`);
  if (answer.results.some((r) => r.outcome !== 'dropped')) process.exitCode = 1;
}

function describe(row: QuarantinedRow): string {
  const lines = [`${row.id}  ${row.table}  ${row.key}`, `  since ${row.quarantined_at}, ${row.attempts} attempt(s): ${row.error.split('\n')[0]}`];
  if (row.row !== undefined) lines.push(`  row: ${row.row}`);
  return lines.join('\n');
}
