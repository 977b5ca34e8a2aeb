import { LoomError } from '@loom/contracts';
import { classifyInsertFailure, describeFailure } from './insert-failures';
import type { QuarantineRow, WriteQuarantine } from './write-quarantine';

/** A quarantined row as `loom quarantine list` shows it. */
export interface QuarantinedRowView {
  id: string;
  table: string;
  key: string;
  error: string;
  attempts: number;
  quarantined_at: string;
  /** The row as JSON text; only when asked for (it holds the turn's text). */
  row?: string;
}

export type RetryOutcome = { id: string; outcome: 'stored' } | { id: string; outcome: 'refused'; error: string } | { id: string; outcome: 'not_found' };

/**
 * What an operator does with quarantined rows: look at them, try them again (a retry that the
 * engine takes stores the row and removes it from quarantine; one it refuses stays, with one
 * more attempt and the new error), or drop them.
 */
export class QuarantineService {
  constructor(
    private readonly quarantine: WriteQuarantine,
    /** The tables a quarantined row may be retried into: Loom's own. */
    private readonly tables: ReadonlySet<string>,
    /** Inserts straight into the engine after every acknowledged write; throws the engine's error. */
    private readonly insertNow: (table: string, rows: object[]) => Promise<void>,
  ) {}

  async list(options: { limit?: number; includeRows?: boolean } = {}): Promise<QuarantinedRowView[]> {
    const rows = await this.quarantine.list({ limit: options.limit ?? 100 });
    return rows.map((r) => view(r, options.includeRows === true));
  }

  async retry(ids: readonly string[]): Promise<RetryOutcome[]> {
    const found = new Map((await this.quarantine.list({ ids, limit: ids.length })).map((r) => [r.id, r]));
    const outcomes: RetryOutcome[] = [];
    for (const id of ids) {
      const entry = found.get(id);
      if (!entry) {
        outcomes.push({ id, outcome: 'not_found' });
        continue;
      }
      if (!this.tables.has(entry.table_name)) {
        const again = await this.quarantine.recordAttempt(entry, new Error(`${entry.table_name} is not one of this deployment's tables`));
        outcomes.push({ id, outcome: 'refused', error: again.error });
        continue;
      }
      try {
        await this.insertNow(entry.table_name, [JSON.parse(entry.row_json) as object]);
      } catch (error) {
        // The engine is down: nothing about the row is learnt, and the caller may try later.
        if (classifyInsertFailure(error) === 'engine_down') {
          throw new LoomError('unavailable', `storage is not taking writes (${describeFailure(error, 200)}); try again later`, { cause: error });
        }
        const again = await this.quarantine.recordAttempt(entry, error);
        outcomes.push({ id, outcome: 'refused', error: again.error });
        continue;
      }
      await this.quarantine.remove([entry]);
      outcomes.push({ id, outcome: 'stored' });
    }
    return outcomes;
  }

  async drop(ids: readonly string[]): Promise<Array<{ id: string; outcome: 'dropped' | 'not_found' }>> {
    const found = await this.quarantine.list({ ids, limit: ids.length });
    await this.quarantine.remove(found);
    const dropped = new Set(found.map((r) => r.id));
    return ids.map((id) => ({ id, outcome: dropped.has(id) ? 'dropped' : 'not_found' }));
  }
}

function view(row: QuarantineRow, includeRow: boolean): QuarantinedRowView {
  return {
    id: row.id,
    table: row.table_name,
    key: row.row_key,
    error: row.error,
    attempts: row.attempts,
    quarantined_at: row.quarantined_at.replace(' ', 'T') + 'Z',
    ...(includeRow ? { row: row.row_json } : {}),
  };
}
