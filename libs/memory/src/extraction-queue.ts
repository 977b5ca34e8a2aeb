import type { Storage } from '@loom/clickhouse';
import { StoredJobQueue, type JobState, type JobTable, type StoredJobQueueOptions } from '@loom/jobs';
import type { LeaseManager } from '@loom/leases';
import type { Logger, LoomMetrics } from '@loom/platform';

/** One memory_extractions row. */
export interface ExtractionRow extends JobState {
  extraction_id: string;
  user_id: string;
  facts: number;
}

export type ExtractionQueueOptions = StoredJobQueueOptions;

export const DefaultExtractionQueueOptions: ExtractionQueueOptions = { pollMs: 15_000, retryBaseMs: 30_000, maxAttempts: 5, batch: 20 };

function extractionTable(storage: Storage): JobTable<ExtractionRow> {
  return {
    table: storage.tables.memoryExtractions,
    idColumn: 'extraction_id',
    columns: ['namespace', 'extraction_id', 'user_id', 'status', 'facts', 'attempts', 'last_error', 'next_attempt_at', 'created_at', 'updated_at'],
    leaseKind: 'memory-extraction',
    messages: {
      done: 'deferred extraction done',
      retry: 'deferred extraction failed; it is retried later',
      failed: 'deferred extraction failed for the last time; its evidence is kept (send the messages again to extract)',
      lookFailed: 'looking for pending memory extractions failed; the next poll retries',
    },
    fromStorage: (row) => ({ ...row, facts: Number(row.facts) }),
  };
}

/**
 * Deferred extractions (ADR 0010): kept in storage so an accepted one is never lost, and run by
 * whichever replica takes its lease. A failed one keeps its evidence.
 */
export class ExtractionQueue extends StoredJobQueue<ExtractionRow> {
  constructor(
    storage: Storage,
    leases: LeaseManager,
    run: (row: ExtractionRow) => Promise<number>,
    options: ExtractionQueueOptions = DefaultExtractionQueueOptions,
    logger?: Logger,
    metrics?: LoomMetrics,
  ) {
    super(storage, leases, extractionTable(storage), async (row) => ({ facts: await run(row) }), options, logger, metrics);
  }
}
