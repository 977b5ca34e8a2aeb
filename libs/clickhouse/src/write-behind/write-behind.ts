import { LoomError } from '@loom/contracts';
import { describeFailure } from '../quarantine/insert-failures';
import { insertIsolating } from '../quarantine/isolating-insert';
import type { WriteQuarantine } from '../quarantine/write-quarantine';
import { WriteAheadLog, type LoggedInsert } from './write-ahead-log';

export interface WriteBehindOptions {
  /** Tables whose inserts are acknowledged once logged. */
  tables: ReadonlySet<string>;
  /** Logged bytes waiting for the engine before a new insert waits for a flush (memory bound). */
  maxPendingBytes: number;
  /** Pause before a failed flush is tried again. */
  retryMs: number;
  /**
   * Longest a logged insert waits for company before a flush when nobody reads (default 200 ms).
   * Each flush writes one part per table, so under load this bounds the parts the engine must
   * merge (at most 5 a second per table). A read, a memory bound or a close flushes at once.
   */
  flushIntervalMs?: number;
  /** Where rows the engine refuses on their own go, so that they never hold up the rest. */
  quarantine: WriteQuarantine;
  onFlush?: (event: { rows: number; inserts: number; ms: number }) => void;
  onReplay?: (event: { segments: number; rows: number; alreadyStored: number; quarantined?: number; absentTables?: string[] }) => void;
  onFailure?: (error: unknown) => void;
}

/** How long a refused write-ahead-log write keeps readiness false without a newer write. */
const LOG_FAILURE_MS = 10_000;

/** The engine calls a write-behind queue makes directly (they never wait on the queue itself). */
export interface EngineCalls {
  insert(table: string, rows: object[]): Promise<void>;
  query<T>(sql: string, params: Record<string, unknown>): Promise<T[]>;
}

interface Entry extends LoggedInsert {
  bytes: number;
}

/** One table's rows through an isolating insert and the quarantine: all handled, or the engine went down. */
type Stored = { done: true; stored: number; quarantined: number } | { done: false; stored: number; quarantined: number; remaining: object[]; error: unknown };

/**
 * Write-behind for the embedded engine, where one process owns the data: an insert into one of
 * `tables` is logged (write-ahead log), acknowledged, and reaches the engine in the next flush,
 * which takes everything logged meanwhile in one INSERT per table. Every read of the process
 * first waits for the inserts acknowledged before it (`settled`), so reads see every write.
 *
 * The engine runs one statement at a time and a part costs milliseconds to write, so this turns
 * a thousand small inserts a second into a few large ones without making any caller wait for them.
 *
 * A row the engine refuses (a poison row) must not hold up the rows flushed with it, nor the
 * start after a crash: a refused insert is bisected, the rows the engine takes are stored, and
 * each row it refuses alone goes to the quarantine with the engine's error. Only when the engine
 * itself is down (see classifyInsertFailure) is the flush retried as a whole, and then reads
 * answer 503 and `failureReason` says why.
 */
export class WriteBehind {
  readonly ready: Promise<void>;
  private pending: Entry[] = [];
  private pendingBytes = 0;
  private enqueued = 0;
  private flushed = 0;
  /** Highest WAL segment closed so far: removed once its rows are all in the engine. */
  private closedSegment = 0;
  private flushing: Promise<void> | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private flushTimer: NodeJS.Timeout | undefined;
  private failure: unknown;
  private logFailure: { error: unknown; at: number } | undefined;
  private waiters: Array<{ seq: number; resolve: () => void; reject: (error: unknown) => void }> = [];
  private roomWaiters: Array<() => void> = [];
  private watchers: Array<{ table: string; listener: (rows: readonly object[]) => void }> = [];

  constructor(
    private readonly wal: WriteAheadLog,
    private readonly engine: EngineCalls,
    private readonly options: WriteBehindOptions,
  ) {
    this.ready = this.replay();
    // An unobserved failed replay must not crash the process; every caller sees it on `ready`.
    this.ready.catch(() => undefined);
  }

  handles(table: string): boolean {
    return this.options.tables.has(table);
  }

  /** Calls `listener` with the rows of every insert into `table` this process makes from now on. */
  watch(table: string, listener: (rows: readonly object[]) => void): () => void {
    const watcher = { table, listener };
    this.watchers.push(watcher);
    return () => {
      this.watchers = this.watchers.filter((w) => w !== watcher);
    };
  }

  /** Logs the rows and queues them; resolves once they are durable in the log (not yet in the engine). */
  async insert(table: string, rows: readonly object[]): Promise<void> {
    if (rows.length === 0) return;
    await this.ready;
    while (this.pendingBytes >= this.options.maxPendingBytes) {
      this.flushNow();
      await new Promise<void>((resolve) => this.roomWaiters.push(resolve));
    }
    const entry: LoggedInsert = { table, rows: [...rows] };
    let bytes: number;
    try {
      bytes = this.wal.append(entry);
      this.logFailure = undefined;
    } catch (error) {
      // A full disk refuses the log: nothing is acknowledged, and readiness says so until a write lands.
      this.logFailure = { error, at: Date.now() };
      throw error;
    }
    this.pending.push({ ...entry, bytes });
    this.pendingBytes += bytes;
    this.enqueued += 1;
    for (const w of this.watchers) if (w.table === table) w.listener(entry.rows);
    this.schedule();
  }

  /**
   * Why writes are failing now (the engine is down, or the write-ahead log cannot be written),
   * or undefined while they land. A log failure has no retry loop to clear it, and a not-ready
   * gateway gets no writes: its mark lapses after LOG_FAILURE_MS.
   */
  failureReason(): string | undefined {
    if (this.failure !== undefined) return describeFailure(this.failure, 300);
    if (this.logFailure !== undefined && Date.now() - this.logFailure.at <= LOG_FAILURE_MS) return describeFailure(this.logFailure.error, 300);
    return undefined;
  }

  /**
   * Inserts straight into the engine once every acknowledged insert is in, and tells watchers:
   * for a quarantined row's retry, whose caller must know whether the engine took it. Throws
   * the engine's error when it does not.
   */
  async insertNow(table: string, rows: readonly object[]): Promise<void> {
    await this.settled();
    await this.engine.insert(table, [...rows]);
    for (const w of this.watchers) if (w.table === table) w.listener(rows);
  }

  /** Resolves once every insert acknowledged before the call is in the engine; rejects (503) while flushes fail. */
  async settled(): Promise<void> {
    await this.ready;
    const target = this.enqueued;
    if (this.flushed >= target) return;
    // A read after a failed flush tries again now rather than waiting out the retry pause.
    if (this.failure !== undefined && this.flushing === undefined) this.clearRetry();
    const settled = new Promise<void>((resolve, reject) => this.waiters.push({ seq: target, resolve, reject }));
    // Someone reads: the writes before the read are flushed now, not at the next interval.
    this.flushNow();
    return settled;
  }

  /** Flushes what is pending; the log keeps whatever could not be flushed for the next start. */
  async close(): Promise<void> {
    try {
      await this.settled();
    } finally {
      this.clearRetry();
      if (this.flushTimer !== undefined) clearTimeout(this.flushTimer);
      this.flushTimer = undefined;
      this.wal.close();
    }
  }

  /** A flush within the interval, or at once if a reader or a full buffer waits. */
  private schedule(): void {
    if (this.waiters.length > 0 || this.roomWaiters.length > 0) return this.flushNow();
    if (this.flushTimer !== undefined || this.pending.length === 0) return;
    this.flushTimer = setTimeout(() => {
      this.flushTimer = undefined;
      this.kick();
    }, this.options.flushIntervalMs ?? 200);
    this.flushTimer.unref();
  }

  private flushNow(): void {
    if (this.flushTimer !== undefined) clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    this.kick();
  }

  private kick(): void {
    if (this.flushing !== undefined || this.retryTimer !== undefined || this.pending.length === 0) return;
    this.flushing = this.drain().finally(() => {
      this.flushing = undefined;
      // Inserts that arrived during the last round trip form the next flush.
      if (this.failure === undefined) this.schedule();
    });
  }

  private async drain(): Promise<void> {
    const batch = this.pending;
    const through = this.enqueued;
    this.pending = [];
    this.closedSegment = Math.max(this.closedSegment, this.wal.rotate());
    const started = process.hrtime.bigint();
    const groups = groupByTable(batch);
    let rows = 0;
    for (const [index, [table, tableRows]] of groups.entries()) {
      const result = await this.store(table, tableRows);
      rows += result.stored;
      if (!result.done) {
        // Rows stored or quarantined are done; the rest of this table and every later table go
        // back to the front of the queue (their log segment stays until they are in).
        const later = new Set(groups.slice(index + 1).map(([t]) => t));
        const tableBytes = sumBytes(batch.filter((e) => e.table === table));
        const back: Entry[] = [
          { table, rows: result.remaining, bytes: Math.ceil((tableBytes * result.remaining.length) / tableRows.length) },
          ...batch.filter((e) => later.has(e.table)),
        ].filter((e) => e.rows.length > 0);
        this.pendingBytes -= sumBytes(batch) - sumBytes(back);
        this.pending = back.concat(this.pending);
        this.fail(result.error);
        return;
      }
    }
    this.failure = undefined;
    this.pendingBytes -= sumBytes(batch);
    this.flushed = through;
    // Every row of the closed segments is in the engine (or in quarantine) now; later inserts sit in the open one.
    this.wal.removeThrough(this.closedSegment);
    this.options.onFlush?.({ rows, inserts: batch.length, ms: Number(process.hrtime.bigint() - started) / 1e6 });
    this.waiters = this.waiters.filter((w) => (w.seq <= through ? (w.resolve(), false) : true));
    for (const wake of this.roomWaiters.splice(0)) wake();
  }

  /**
   * One table's rows: inserted together when the engine takes them, else bisected, with each
   * row refused alone moved to the quarantine. Rows a refused insert stored anyway (the engine
   * wrote some blocks of a large insert) are not inserted again.
   */
  private async store(table: string, rows: readonly object[]): Promise<Stored> {
    const result = await insertIsolating(
      (slice) => this.engine.insert(table, slice),
      rows,
      async (slice) => (await this.notYetStored(table, slice)) ?? slice,
    );
    try {
      await this.options.quarantine.put(table, result.refused);
    } catch (error) {
      // Neither the quarantine table nor its file takes them: they wait with the rest.
      const back = result.refused.map((r) => r.row).concat(result.done ? [] : result.remaining);
      return { done: false, stored: result.stored, quarantined: 0, remaining: back, error };
    }
    const quarantined = result.refused.length;
    return result.done ? { done: true, stored: result.stored, quarantined } : { done: false, stored: result.stored, quarantined, remaining: result.remaining, error: result.error };
  }

  private fail(error: unknown): void {
    this.failure = error;
    this.options.onFailure?.(error);
    const unavailable = new LoomError('unavailable', 'storage is not taking writes; acknowledged writes are kept in the write-ahead log and retried', {
      cause: error,
    });
    for (const waiter of this.waiters.splice(0)) waiter.reject(unavailable);
    for (const wake of this.roomWaiters.splice(0)) wake();
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      this.kick();
    }, this.options.retryMs);
    this.retryTimer.unref();
  }

  private clearRetry(): void {
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
  }

  /**
   * Inserts what segments left by a crash hold, minus rows the engine already has (the crash
   * came after their flush but before the segment was removed), so nothing is lost or doubled.
   */
  private async replay(): Promise<void> {
    const segments = this.wal.segments();
    if (segments.length === 0) return;
    const byTable = new Map<string, object[]>();
    for (const segment of segments) {
      for (const entry of WriteAheadLog.read(segment.path)) {
        const rows = byTable.get(entry.table) ?? [];
        rows.push(...entry.rows);
        byTable.set(entry.table, rows);
      }
    }
    let total = 0;
    let alreadyStored = 0;
    let quarantined = 0;
    const absentTables: string[] = [];
    for (const [table, rows] of byTable) {
      const missing = await this.notYetStored(table, rows);
      if (missing === undefined) {
        absentTables.push(table);
        continue;
      }
      alreadyStored += rows.length - missing.length;
      total += rows.length;
      if (missing.length === 0) continue;
      // A row the engine refuses is quarantined like in a flush: one row never stops the start.
      const result = await this.store(table, missing);
      quarantined += result.quarantined;
      // The engine itself is down: the start fails with its error and the log stays whole.
      if (!result.done) throw result.error;
    }
    const last = segments[segments.length - 1]!.index;
    // Rows for a table that no longer exists (its database was dropped) cannot be stored, and
    // must neither block the start (migrations need storage too) nor vanish: the segments are
    // set aside under another name, where a later start does not read them.
    if (absentTables.length > 0) this.wal.setAsideThrough(last);
    else this.wal.removeThrough(last);
    this.options.onReplay?.({
      segments: segments.length,
      rows: total,
      alreadyStored,
      ...(quarantined > 0 ? { quarantined } : {}),
      ...(absentTables.length > 0 ? { absentTables } : {}),
    });
  }

  /** Rows whose sorting key and version the table does not hold yet; undefined when the table does not exist. */
  private async notYetStored(table: string, rows: object[]): Promise<object[] | undefined> {
    const [database, name] = table.split('.') as [string, string];
    const [meta] = await this.engine.query<{ sorting_key: string }>(
      'SELECT sorting_key FROM system.tables WHERE database = {database:String} AND name = {name:String}',
      { database, name },
    );
    if (!meta) return undefined;
    // Identifiers from the engine's own catalogue, not from input.
    const columns = [...meta.sorting_key.split(',').map((c) => c.trim()), 'version'];
    const identity = (row: Record<string, unknown>): string => JSON.stringify(columns.map((c) => String(row[c])));
    const stored = new Set<string>();
    const versions = [...new Set(rows.map((r) => Number((r as Record<string, unknown>)['version'])))];
    for (let i = 0; i < versions.length; i += 10_000) {
      const found = await this.engine.query<Record<string, unknown>>(
        `SELECT ${columns.map((c) => `toString(${c}) AS ${c}`).join(', ')} FROM ${table} WHERE version IN {versions:Array(UInt64)}`,
        { versions: versions.slice(i, i + 10_000) },
      );
      for (const row of found) stored.add(identity(row));
    }
    return rows.filter((row) => !stored.has(identity(row as Record<string, unknown>)));
  }
}

function groupByTable(entries: readonly LoggedInsert[]): Array<[string, object[]]> {
  const groups = new Map<string, object[]>();
  for (const entry of entries) {
    const rows = groups.get(entry.table);
    if (rows) rows.push(...entry.rows);
    else groups.set(entry.table, [...entry.rows]);
  }
  return [...groups];
}

function sumBytes(entries: readonly Entry[]): number {
  return entries.reduce((n, e) => n + e.bytes, 0);
}
