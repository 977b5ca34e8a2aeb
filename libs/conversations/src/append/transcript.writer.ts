import type { Storage } from '@loom/clickhouse';
import { MicroBatcher, type LoomMetrics } from '@loom/platform';
import { turnKey, type TranscriptRow } from '../rows';

export type TranscriptOutcome = 'stored' | 'duplicate';

/**
 * Writes new transcript rows in shared inserts and answers "duplicate" for a turn whose
 * (namespace, thread, agent, msg_id) already landed. Identity comes from the data: one lookup per
 * batch finds the keys already stored, and a turn already in flight in this process is answered
 * from that flight, so N identical concurrent appends store one row.
 */
export class TranscriptWriter {
  private readonly inFlight = new Map<string, Promise<TranscriptOutcome>>();
  private readonly batcher: MicroBatcher<TranscriptRow, TranscriptOutcome>;

  constructor(
    private readonly storage: Storage,
    options: { lingerMs: number; maxRows: number },
    metrics?: LoomMetrics,
  ) {
    this.batcher = new MicroBatcher((rows) => this.writeBatch(rows), { maxItems: options.maxRows, lingerMs: options.lingerMs, maxConcurrent: 2 }, (n) =>
      metrics?.appendBatchSize.observe(n),
    );
  }

  write(row: TranscriptRow): Promise<TranscriptOutcome> {
    const key = turnKey(row);
    const flight = this.inFlight.get(key);
    if (flight) return flight.then(() => 'duplicate');
    const promise = this.batcher.submit(row).finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, promise);
    return promise;
  }

  private async writeBatch(rows: TranscriptRow[]): Promise<TranscriptOutcome[]> {
    const existing = await this.existingKeys(rows);
    const fresh = rows.filter((row) => !existing.has(turnKey(row)));
    await this.storage.insert(this.storage.tables.conversations, fresh);
    return rows.map((row) => (existing.has(turnKey(row)) ? 'duplicate' : 'stored'));
  }

  /** Any stored version counts, tombstoned ones too: a re-sent turn that was deleted stays deleted. */
  private async existingKeys(rows: TranscriptRow[]): Promise<Set<string>> {
    const found = await this.storage.query<{ namespace: string; thread_id: string; agent: string; msg_id: string }>(
      `SELECT DISTINCT namespace, thread_id, agent, msg_id FROM ${this.storage.tables.conversations}
       WHERE namespace IN {namespaces:Array(String)} AND thread_id IN {threads:Array(String)} AND msg_id IN {ids:Array(String)}`,
      {
        namespaces: unique(rows.map((r) => r.namespace)),
        threads: unique(rows.map((r) => r.thread_id)),
        ids: unique(rows.map((r) => r.msg_id)),
      },
    );
    return new Set(found.map(turnKey));
  }
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}
