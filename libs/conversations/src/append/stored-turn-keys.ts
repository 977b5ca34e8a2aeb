import type { Storage } from '@loom/clickhouse';
import { BloomFilter } from '@loom/platform';
import { embeddingKey } from '../rows';

/**
 * Which turns (namespace, thread, msg_id) may already be stored, for the one process that
 * writes an embedded engine: a turn the filter has never seen is certainly new, and its append
 * skips the idempotency lookup. Only a "maybe" (a stored key, or a 1% false positive) pays for
 * the lookup. Exact only because every insert into the transcript table passes through this
 * process's storage, which reports it here (`Storage.watchInserts`).
 */
export class StoredTurnKeys {
  private constructor(private readonly filter: BloomFilter) {}

  /** Undefined where other processes may write the table too (a ClickHouse server). */
  static async load(storage: Storage): Promise<StoredTurnKeys | undefined> {
    const table = storage.tables.conversations;
    // The filter grows by layers as keys arrive, so it needs no count of the stored keys first.
    const filter = new BloomFilter();
    // Watch first, then read: a key inserted in between lands in the filter either way.
    const unwatch = storage.watchInserts(table, (rows) => {
      for (const row of rows) filter.add(embeddingKey(row as { namespace: string; thread_id: string; msg_id: string }));
    });
    if (!unwatch) return undefined;
    const keys = await storage.query<{ namespace: string; thread_id: string; msg_id: string }>(`SELECT DISTINCT namespace, thread_id, msg_id FROM ${table}`);
    for (const key of keys) filter.add(embeddingKey(key));
    return new StoredTurnKeys(filter);
  }

  mayBeStored(row: { namespace: string; thread_id: string; msg_id: string }): boolean {
    return this.filter.mayContain(embeddingKey(row));
  }

  get size(): number {
    return this.filter.size;
  }
}
