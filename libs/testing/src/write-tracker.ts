import type { Storage } from '@loom/clickhouse';
import { currentCorrelationId } from '@loom/platform';

/** The writes each op call made, by its correlation id. */
export interface WriteTracker {
  /** The tables written (insert, insert-select or statement) while serving the call with this correlation id. */
  writesOf(correlationId: string): string[];
  /** Forgets a call's writes. */
  forget(correlationId: string): void;
}

/**
 * Wraps a Storage so that every write it makes is recorded under the correlation id of the op
 * call being served (the dispatcher runs each call in its own correlation context, and async
 * work the call starts inherits it). Background jobs of earlier calls carry their own ids, so
 * a refused call is blamed only for what it wrote itself, whatever runs meanwhile.
 */
export function trackWrites(storage: Storage): WriteTracker {
  const writes = new Map<string, string[]>();
  const note = (table: string) => {
    const id = currentCorrelationId();
    if (id !== undefined) writes.set(id, [...(writes.get(id) ?? []), table]);
  };
  const insert = storage.insert.bind(storage);
  const insertSelect = storage.insertSelect.bind(storage);
  const command = storage.command.bind(storage);
  storage.insert = async (table, rows) => {
    if (rows.length > 0) note(table);
    return insert(table, rows);
  };
  storage.insertSelect = async (table, select, params) => {
    note(table);
    return insertSelect(table, select, params);
  };
  storage.command = async (sql, params) => {
    note(sql.slice(0, 60));
    return command(sql, params);
  };
  return {
    writesOf: (id) => writes.get(id) ?? [],
    forget: (id) => void writes.delete(id),
  };
}
