import { formatMillis, toIso, type Storage } from '@loom/clickhouse';
import { leaseKey, withLease, type LeaseManager } from '@loom/leases';
import { nextVersion, type Logger, type LoomMetrics } from '@loom/platform';

export type JobStatus = 'pending' | 'done' | 'failed';

/** The columns every job table has beside its own (ReplacingMergeTree on `version`, keyed by namespace and id). */
export interface JobState {
  namespace: string;
  status: JobStatus;
  attempts: number;
  last_error: string;
  next_attempt_at: string;
  created_at: string;
  updated_at: string;
}

type QueueColumns = 'attempts' | 'last_error' | 'next_attempt_at' | 'created_at' | 'updated_at';

/** A new job as its owner describes it; the queue fills in the bookkeeping. */
export type NewJob<Row extends JobState> = Omit<Row, QueueColumns>;

export interface StoredJobQueueOptions {
  /** How often pending work is looked for (retries that fell due, work a crashed replica left). */
  pollMs: number;
  /** The wait before the first retry; it doubles with each attempt. */
  retryBaseMs: number;
  /** Attempts before a job is marked failed. */
  maxAttempts: number;
  /** Jobs taken per look. */
  batch: number;
}

/** What a queue needs to know of its table and how to speak of its jobs. */
export interface JobTable<Row extends JobState> {
  /** The fully qualified table. */
  table: string;
  /** The id column: (namespace, id) is the table's sort key. */
  idColumn: keyof Row & string;
  /** Every column of the row, as selected. */
  columns: readonly (keyof Row & string)[];
  /** The lease kind a job runs under, e.g. `memory-extraction`. */
  leaseKind: string;
  /** Log lines, so an operator reads what happened and what to do next. */
  messages: { done: string; retry: string; failed: string; lookFailed: string };
  /** The row as read: UInt32 arrives as a number or text, depending on the engine. */
  fromStorage?: (row: Row) => Row;
}

/** An attempt's outcome: whether it ran (another replica may hold the job), and its error. */
export interface AttemptOutcome<Row> {
  ran: boolean;
  row?: Row;
  error?: unknown;
}

/**
 * Jobs kept in storage, so an accepted one is never lost (ADR 0010, ADR 0011). Any replica runs
 * a pending job under its lease: at start (work a crash left), when one is added, and on a poll
 * that also picks up retries falling due. A failed attempt is retried with doubling waits; after
 * the last it is marked failed, with its error, for an operator or client to see.
 *
 * The work a job does must be idempotent: a crash after the work and before `done` is written
 * runs it again.
 */
export class StoredJobQueue<Row extends JobState> {
  private timer: NodeJS.Timeout | undefined;
  private draining: Promise<void> | undefined;
  private again = false;
  private closed = false;

  constructor(
    private readonly storage: Storage,
    private readonly leases: LeaseManager,
    private readonly spec: JobTable<Row>,
    /** Does the job's work; answers the columns to write with `done` (counts, results). */
    private readonly run: (row: Row) => Promise<Partial<Row>>,
    private readonly options: StoredJobQueueOptions,
    private readonly logger?: Logger,
    private readonly metrics?: LoomMetrics,
  ) {}

  start(): void {
    if (this.timer || this.closed) return;
    this.timer = setInterval(() => this.kick(), this.options.pollMs);
    this.timer.unref();
    this.kick();
  }

  /**
   * Records a job; a `pending` one is then run in the background unless `background` is false
   * (the caller runs it now with `runNow`, and the queue only picks it up if that is cut short).
   */
  async record(job: NewJob<Row>, options: { background?: boolean } = {}): Promise<Row> {
    const now = formatMillis();
    const row = { ...job, attempts: 0, last_error: '', next_attempt_at: now, created_at: now, updated_at: now } as Row;
    await this.write(row);
    if (row.status === 'pending' && options.background !== false) this.kick();
    return row;
  }

  async find(namespace: string, id: string): Promise<Row | undefined> {
    const [row] = await this.storage.query<Row>(
      `SELECT ${this.spec.columns.join(', ')} FROM ${this.spec.table} FINAL WHERE namespace = {ns:String} AND ${this.spec.idColumn} = {id:String}`,
      { ns: namespace, id },
    );
    if (!row) return undefined;
    const read = { ...row, attempts: Number(row.attempts) };
    return this.spec.fromStorage ? this.spec.fromStorage(read) : read;
  }

  /**
   * Runs one pending job now, under its lease, whether or not its retry is due. If a replica's
   * poll took it first, waits up to `waitMs` for that run and answers the row it left.
   */
  async runNow(namespace: string, id: string, waitMs = 0): Promise<AttemptOutcome<Row>> {
    const outcome = await withLease(this.leases, this.leaseKey(namespace, id), () => this.attempt(namespace, id, { dueOnly: false }), { waitMs, pollMs: 50 });
    return outcome.acquired ? outcome.value : { ran: false };
  }

  /** Looks for due work now; calls made while a look runs make one more look after it. */
  kick(): void {
    if (this.closed) return;
    if (this.draining) {
      this.again = true;
      return;
    }
    this.draining = this.drain()
      .catch((error: unknown) => this.logger?.warn({ err: error }, this.spec.messages.lookFailed))
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
      const due = await this.storage.query<{ namespace: string; id: string }>(
        `SELECT namespace, ${this.spec.idColumn} AS id FROM ${this.spec.table} FINAL
         WHERE status = 'pending' AND next_attempt_at <= {now:DateTime64(3, 'UTC')}
         ORDER BY next_attempt_at, id
         LIMIT {batch:UInt32}`,
        { now: formatMillis(), batch: this.options.batch },
      );
      let ran = 0;
      for (const { namespace, id } of due) {
        if (this.closed) return;
        // Another replica running it holds the lease: skip it, it is in hand.
        const outcome = await withLease(this.leases, this.leaseKey(namespace, id), () => this.attempt(namespace, id, { dueOnly: true }));
        if (outcome.acquired && outcome.value.ran) ran += 1;
      }
      if (due.length < this.options.batch || ran === 0) return;
    }
  }

  /** One attempt, under the lease. */
  private async attempt(namespace: string, id: string, options: { dueOnly: boolean }): Promise<AttemptOutcome<Row>> {
    // Read again under the lease: a replica may have finished it since the look.
    const row = await this.find(namespace, id);
    if (!row || row.status !== 'pending') return { ran: false, ...(row ? { row } : {}) };
    if (options.dueOnly && Date.parse(toIso(row.next_attempt_at)!) > Date.now()) return { ran: false, row };
    const attempts = row.attempts + 1;
    const context: Record<string, unknown> = { namespace, [this.spec.idColumn]: id, attempts };
    try {
      const result = await this.run(row);
      const done = { ...row, ...result, status: 'done', attempts, last_error: '', updated_at: formatMillis() } as Row;
      await this.write(done);
      this.logger?.info({ ...context, ...(result as Record<string, unknown>) }, this.spec.messages.done);
      this.metrics?.jobOutcomes.inc({ kind: this.spec.leaseKind, outcome: 'done' });
      return { ran: true, row: done };
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      const failed = attempts >= this.options.maxAttempts;
      const next = new Date(Date.now() + this.options.retryBaseMs * 2 ** (attempts - 1));
      const left = { ...row, status: failed ? 'failed' : 'pending', attempts, last_error: message.slice(0, 500), next_attempt_at: formatMillis(next), updated_at: formatMillis() } as Row;
      // With storage down this write fails too; the row stays pending and the next poll retries.
      await this.write(left).catch(() => undefined);
      this.logger?.warn({ err: error, ...context }, failed ? this.spec.messages.failed : this.spec.messages.retry);
      this.metrics?.jobOutcomes.inc({ kind: this.spec.leaseKind, outcome: failed ? 'failed' : 'retry' });
      return { ran: true, row: left, error };
    }
  }

  private leaseKey(namespace: string, id: string): string {
    return leaseKey(this.spec.leaseKind, namespace, id);
  }

  private async write(row: Row): Promise<void> {
    await this.storage.insert(this.spec.table, [{ ...row, version: nextVersion() }]);
  }
}
