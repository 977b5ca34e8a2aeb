import { nextVersion } from '@loom/platform';
import { createHash } from 'node:crypto';
import { appendFileSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { describeFailure, wellFormed } from './insert-failures';
import type { RefusedRow } from './isolating-insert';

/** The engine calls the quarantine makes directly (never through a write-behind queue). */
export interface QuarantineEngine {
  insert(table: string, rows: object[]): Promise<void>;
  query<T>(sql: string, params: Record<string, unknown>): Promise<T[]>;
}

/** One stored row of `write_quarantine`. */
export interface QuarantineRow {
  id: string;
  table_name: string;
  row_key: string;
  row_json: string;
  error: string;
  quarantined_at: string;
  attempts: number;
  deleted: boolean;
  updated_at: string;
  version: number;
}

/** What a quarantine write reports: the hook logs the key and counts the row. */
export interface QuarantinedEvent {
  table: string;
  key: string;
  error: string;
  /** `file`: the quarantine table could not take it either (it is missing, or the row is), so it went to the quarantine file. */
  to: 'table' | 'file';
}

/** Columns that name a row without its text, in the order a key reads best. */
const KEY_COLUMNS = ['namespace', 'thread_id', 'agent', 'msg_id', 'user_id', 'run_id', 'id', 'version'];

/** The row's identity for logs and listings: its key columns, never its content. */
export function rowKey(row: object): string {
  const record = row as Record<string, unknown>;
  const key: Record<string, unknown> = {};
  for (const column of KEY_COLUMNS) {
    const value = record[column];
    if (typeof value === 'string') key[column] = value.length > 200 ? `${value.slice(0, 200)}…` : value;
    else if (typeof value === 'number' || typeof value === 'boolean') key[column] = value;
  }
  // JSON.stringify writes a lone surrogate as a \uXXXX escape: the key is always well-formed.
  return JSON.stringify(key);
}

function timestamp(date = new Date()): string {
  return date.toISOString().replace('T', ' ').replace('Z', '');
}

/**
 * Where refused rows go: the `write_quarantine` table, or a JSON-lines file beside the
 * write-ahead log when the table cannot take them (it does not exist yet: the write-ahead log is
 * replayed before migrations run). The file is moved into the table by the next listing.
 *
 * A quarantine row can always be written: the refused row is stored as JSON text, in which any
 * lone surrogate is an ASCII escape, and every other column is well-formed text or a number.
 */
export class WriteQuarantine {
  constructor(
    private readonly engine: QuarantineEngine,
    readonly table: string,
    readonly filePath: string,
    private readonly onQuarantine?: (event: QuarantinedEvent) => void,
  ) {}

  /** Stores the refused rows of `table`; throws only when neither the table nor the file takes them. */
  async put(table: string, refused: readonly RefusedRow[]): Promise<void> {
    if (refused.length === 0) return;
    const now = timestamp();
    const rows: QuarantineRow[] = refused.map(({ row, error }) => {
      const rowJson = JSON.stringify(row);
      return {
        id: createHash('sha256').update(table).update('\n').update(rowJson).digest('hex').slice(0, 32),
        table_name: table,
        row_key: rowKey(row),
        row_json: rowJson,
        error: describeFailure(error),
        quarantined_at: now,
        attempts: 1,
        deleted: false,
        updated_at: now,
        version: nextVersion(),
      };
    });
    let to: QuarantinedEvent['to'] = 'table';
    try {
      await this.engine.insert(this.table, rows);
    } catch {
      to = 'file';
      mkdirSync(dirname(this.filePath), { recursive: true });
      appendFileSync(this.filePath, rows.map((r) => JSON.stringify(r)).join('\n') + '\n', { mode: 0o600 });
    }
    for (const row of rows) this.onQuarantine?.({ table, key: row.row_key, error: row.error, to });
  }

  /** Rows in quarantine (not retried into place, not dropped), oldest first. */
  async list(options: { limit?: number; ids?: readonly string[] } = {}): Promise<QuarantineRow[]> {
    await this.absorbFile();
    const rows = await this.engine.query<QuarantineRow>(
      `SELECT id, table_name, row_key, row_json, error, toString(quarantined_at) AS quarantined_at, attempts, deleted, toString(updated_at) AS updated_at, version
       FROM ${this.table} FINAL
       WHERE deleted = 0 ${options.ids ? 'AND id IN {ids:Array(String)}' : ''}
       ORDER BY quarantined_at, id
       LIMIT {limit:UInt32}`,
      { limit: options.limit ?? 1000, ...(options.ids ? { ids: options.ids } : {}) },
    );
    return rows.map((r) => ({ ...r, attempts: Number(r.attempts), version: Number(r.version), deleted: Boolean(r.deleted) }));
  }

  /** A new version of each row: gone from the quarantine (retried into place, or dropped). */
  async remove(rows: readonly QuarantineRow[]): Promise<void> {
    if (rows.length === 0) return;
    const now = timestamp();
    await this.engine.insert(
      this.table,
      rows.map((r) => ({ ...r, deleted: true, updated_at: now, version: nextVersion() })),
    );
  }

  /** A retry the engine refused again: one more attempt, with its error. */
  async recordAttempt(row: QuarantineRow, error: unknown): Promise<QuarantineRow> {
    const next = { ...row, attempts: row.attempts + 1, error: describeFailure(error), updated_at: timestamp(), version: nextVersion() };
    await this.engine.insert(this.table, [next]);
    return next;
  }

  /** Moves rows the file took (the table could not, then) into the table. */
  private async absorbFile(): Promise<void> {
    if (!existsSync(this.filePath)) return;
    const taking = `${this.filePath}.absorbing`;
    renameSync(this.filePath, taking);
    const lines = readFileSync(taking, 'utf8').split('\n').filter((l) => l.trim() !== '');
    const rows: QuarantineRow[] = [];
    for (const line of lines) {
      try {
        rows.push(JSON.parse(line) as QuarantineRow);
      } catch {
        // A torn last line: the write that was cut off was never acknowledged as quarantined.
      }
    }
    try {
      if (rows.length > 0) await this.engine.insert(this.table, rows.map((r) => ({ ...r, error: wellFormed(r.error) })));
      rmSync(taking, { force: true });
    } catch (error) {
      // Still not possible: the lines go back to the file, after any written meanwhile.
      appendFileSync(this.filePath, readFileSync(taking, 'utf8'), { mode: 0o600 });
      rmSync(taking, { force: true });
      throw error;
    }
  }
}
