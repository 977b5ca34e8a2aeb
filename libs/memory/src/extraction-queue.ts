import { formatMillis, toIso, type Storage } from '@loom/clickhouse';
import { leaseKey, withLease, type LeaseManager } from '@loom/leases';
import { nextVersion, type Logger } from '@loom/platform';

export type ExtractionStatus = 'pending' | 'done' | 'failed';

/** One memory_extractions row. Counts arrive as numbers or text, as the client reads them. */
export interface ExtractionRow {
  namespace: string;
  extraction_id: string;
  user_id: string;
  status: ExtractionStatus;
  facts: number;
  attempts: number;
  last_error: string;
  next_attempt_at: string;
  created_at: string;
  updated_at: string;
}

export interface ExtractionQueueOptions {
  /** How often pending work is looked for (retries that fell due, work a crashed replica left). */
  pollMs: number;
  /** The wait before the first retry; it doubles with each attempt. */
  retryBaseMs: number;
  /** Attempts before an extraction is marked failed (its evidence stays). */
  maxAttempts: number;
  /** Extractions taken per look. */
  batch: number;
}

export const DefaultExtractionQueueOptions: ExtractionQueueOptions = { pollMs: 15_000, retryBaseMs: 30_000, maxAttempts: 5, batch: 20 };

const COLUMNS = 'namespace, extraction_id, user_id, status, facts, attempts, last_error, next_attempt_at, created_at, updated_at';

/**
 * Deferred extractions, kept in storage so an accepted one is never lost. Any replica runs a
 * pending extraction under its lease: at start (work a crash left), when one is added here, and
 * on a poll that also picks up retries falling due. A failed attempt is retried with doubling
 * waits; after the last, the extraction is marked failed and its evidence is kept.
 */
export class ExtractionQueue {
  private timer: NodeJS.Timeout | undefined;
  private draining: Promise<void> | undefined;
  private again = false;
  private closed = false;

  constructor(
    private readonly storage: Storage,
    private readonly leases: LeaseManager,
    private readonly run: (row: ExtractionRow) => Promise<number>,
    private readonly options: ExtractionQueueOptions = DefaultExtractionQueueOptions,
    private readonly logger?: Logger,
  ) {}

  start(): void {
    if (this.timer || this.closed) return;
    this.timer = setInterval(() => this.kick(), this.options.pollMs);
    this.timer.unref();
    this.kick();
  }

  /** Records a new extraction; `pending` ones are then run in the background. */
  async record(row: Omit<ExtractionRow, 'attempts' | 'last_error' | 'next_attempt_at' | 'created_at' | 'updated_at'>): Promise<void> {
    const now = formatMillis();
    await this.write({ ...row, attempts: 0, last_error: '', next_attempt_at: now, created_at: now, updated_at: now });
    if (row.status === 'pending') this.kick();
  }

  async find(namespace: string, extractionId: string): Promise<ExtractionRow | undefined> {
    const [row] = await this.storage.query<ExtractionRow>(
      `SELECT ${COLUMNS} FROM ${this.storage.tables.memoryExtractions} FINAL WHERE namespace = {ns:String} AND extraction_id = {id:String}`,
      { ns: namespace, id: extractionId },
    );
    return row ? { ...row, facts: Number(row.facts), attempts: Number(row.attempts) } : undefined;
  }

  /** Looks for due work now; calls made while a look runs make one more look after it. */
  kick(): void {
    if (this.closed) return;
    if (this.draining) {
      this.again = true;
      return;
    }
    this.draining = this.drain()
      .catch((error: unknown) => this.logger?.warn({ err: error }, 'looking for pending memory extractions failed; the next poll retries'))
      .finally(() => {
        this.draining = undefined;
        if (this.again) {
          this.again = false;
          this.kick();
        }
      });
  }

  /** Waits for the look in progress (tests, and close). */
  async idle(): Promise<void> {
    while (this.draining) await this.draining;
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    await this.idle();
  }

  private async drain(): Promise<void> {
    for (;;) {
      const due = await this.storage.query<ExtractionRow>(
        `SELECT ${COLUMNS} FROM ${this.storage.tables.memoryExtractions} FINAL
         WHERE status = 'pending' AND next_attempt_at <= {now:DateTime64(3, 'UTC')}
         ORDER BY next_attempt_at, extraction_id
         LIMIT {batch:UInt32}`,
        { now: formatMillis(), batch: this.options.batch },
      );
      let ran = 0;
      for (const row of due) {
        if (this.closed) return;
        // Another replica running it holds the lease: skip it, it is in hand.
        const outcome = await withLease(this.leases, leaseKey('memory-extraction', row.namespace, row.extraction_id), () => this.attempt(row.namespace, row.extraction_id));
        if (outcome.acquired && outcome.value) ran += 1;
      }
      if (due.length < this.options.batch || ran === 0) return;
    }
  }

  /** One attempt, under the lease; answers whether it ran. */
  private async attempt(namespace: string, extractionId: string): Promise<boolean> {
    // Read again under the lease: a replica may have finished it since the look.
    const row = await this.find(namespace, extractionId);
    if (!row || row.status !== 'pending' || Date.parse(toIso(row.next_attempt_at)!) > Date.now()) return false;
    const attempts = row.attempts + 1;
    try {
      const facts = await this.run(row);
      await this.write({ ...row, status: 'done', facts, attempts, last_error: '', updated_at: formatMillis() });
      this.logger?.info({ namespace, extraction_id: extractionId, facts, attempts }, 'deferred extraction done');
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      const failed = attempts >= this.options.maxAttempts;
      const next = new Date(Date.now() + this.options.retryBaseMs * 2 ** (attempts - 1));
      await this.write({ ...row, status: failed ? 'failed' : 'pending', attempts, last_error: message.slice(0, 500), next_attempt_at: formatMillis(next), updated_at: formatMillis() });
      this.logger?.warn(
        { err: error, namespace, extraction_id: extractionId, attempts },
        failed ? 'deferred extraction failed for the last time; its evidence is kept (send the messages again to extract)' : 'deferred extraction failed; it is retried later',
      );
    }
    return true;
  }

  private async write(row: ExtractionRow): Promise<void> {
    await this.storage.insert(this.storage.tables.memoryExtractions, [{ ...row, version: nextVersion() }]);
  }
}
