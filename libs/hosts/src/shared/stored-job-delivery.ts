import { toIso } from '@loom/clickhouse';
import type { JobState, StoredJobQueue } from '@loom/jobs';

/** How long to wait before looking again at a job another holder is running. */
const BUSY_RETRY_MS = 2_000;

/**
 * Delivers one durable message to a stored job (ADR 0010, 0011): runs it now under its lease and
 * resolves once it is finished, so the message is acked only then. Throws `retry(delay)` when it
 * is not finished: the attempt failed and its retry is due later, or another holder runs it now.
 * A job that is unknown, done or failed needs nothing more.
 */
export async function runStoredJob<Row extends JobState>(
  queue: StoredJobQueue<Row>,
  namespace: string,
  id: string,
  retry: (delayMs: number, why: string) => Error,
): Promise<void> {
  const outcome = await queue.runNow(namespace, id);
  const row = outcome.row ?? (await queue.find(namespace, id));
  if (!row || row.status !== 'pending') return;
  if (!outcome.ran) throw retry(BUSY_RETRY_MS, 'another holder runs it now');
  const due = Date.parse(toIso(row.next_attempt_at) ?? '') - Date.now();
  throw retry(Math.max(BUSY_RETRY_MS, Number.isFinite(due) ? due : BUSY_RETRY_MS), `attempt ${row.attempts} failed: ${row.last_error}`);
}
