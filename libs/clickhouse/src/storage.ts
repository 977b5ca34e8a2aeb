import { createClient, type ClickHouseClient } from '@clickhouse/client';
import { LoomError } from '@loom/contracts';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { classifyInsertFailure, describeFailure } from './quarantine/insert-failures';
import { insertIsolating } from './quarantine/isolating-insert';
import { QuarantineService } from './quarantine/quarantine.service';
import { WriteQuarantine, type QuarantineEngine, type QuarantinedEvent } from './quarantine/write-quarantine';
import { SharedHandles } from './shared-handles';
import { StatementGate } from './statement-gate';
import { tablesFor, type Tables } from './tables';
import { readSeesAppends, writeBehindTables } from './write-behind/append-visibility';
import { stringifyLoggedRow } from './write-behind/row-json';
import { WriteAheadLog } from './write-behind/write-ahead-log';
import { WriteBehind, type WriteBehindOptions } from './write-behind/write-behind';

export interface StorageConfig {
  /** A ClickHouse server over HTTP; unset means the embedded chDB engine under `dataDir`. */
  url?: string | undefined;
  username?: string | undefined;
  password?: string | undefined;
  database: string;
  dataDir: string;
  cluster?: string | undefined;
  /**
   * Embedded only: acknowledge inserts into the append-path tables once they are in the
   * write-ahead log, and flush them in shared inserts (on unless `enabled: false`).
   */
  writeBehind?: { enabled?: boolean } & Pick<WriteBehindOptions, 'flushIntervalMs' | 'onFlush' | 'onReplay' | 'onFailure'>;
  /** Each row of the append path the engine refused on its own and the write path set aside (log its key, count it). */
  onQuarantine?: (event: QuarantinedEvent) => void;
}

/** How long a direct insert that found the engine down keeps /readyz false (server mode). */
const DIRECT_FAILURE_MS = 10_000;

export type QueryParams = Record<string, unknown>;

/**
 * One handle on ClickHouse for a process: the client (server or embedded), the table names, and
 * three typed calls. Connection failures become `unavailable` (503, safe to retry); anything the
 * engine rejects stays an error with its ClickHouse code for the logs.
 */
export class Storage {
  /** Quarantined rows of the append path: list, retry, drop (`loom quarantine`). */
  readonly quarantine: QuarantineService;
  private readonly refusedRows: WriteQuarantine;
  /** Server mode: the last direct insert found the engine down (cleared by the next that lands), and when. */
  private directFailure: { error: unknown; at: number } | undefined;
  /** Whether a read must wait for the write-behind queue's flush (see readSeesAppends). */
  private readonly seesAppends: (sql: string) => boolean;

  private constructor(
    readonly client: ClickHouseClient,
    readonly tables: Tables,
    readonly mode: 'embedded' | 'server',
    readonly cluster: string | undefined,
    private readonly release: () => Promise<void>,
    quarantine: WriteQuarantine,
    private readonly writeBehind?: WriteBehind,
  ) {
    this.refusedRows = quarantine;
    this.seesAppends = readSeesAppends(tables);
    const ownTables = new Set(Object.entries(tables).filter(([name]) => name !== 'database').map(([, table]) => table));
    this.quarantine = new QuarantineService(quarantine, ownTables, (table, rows) => this.insertNow(table, rows));
  }

  static open(config: StorageConfig): Storage {
    const tables = tablesFor(config.database);
    const quarantineFile = join(config.dataDir, 'quarantine', `${config.database}.jsonl`);
    const quarantineFor = (client: ClickHouseClient): WriteQuarantine =>
      new WriteQuarantine(engineCalls(client), tables.writeQuarantine, quarantineFile, config.onQuarantine);
    if (config.url) {
      const client = createClient({
        url: config.url,
        username: config.username ?? 'default',
        password: config.password ?? '',
        request_timeout: 30_000,
        max_open_connections: 64,
        keep_alive: { enabled: true },
      });
      return new Storage(client, tables, 'server', config.cluster, () => client.close(), quarantineFor(client));
    }
    const { client, release } = openEmbedded(join(config.dataDir, 'chdb'));
    const quarantine = quarantineFor(client);
    if (config.writeBehind?.enabled === false) return new Storage(client, tables, 'embedded', undefined, release, quarantine);
    const shared = writeBehindFor(client, join(config.dataDir, 'wal', config.database), tables, quarantine, config.writeBehind ?? {});
    return new Storage(
      client,
      tables,
      'embedded',
      undefined,
      async () => {
        try {
          await shared.release();
        } finally {
          await release();
        }
      },
      quarantine,
      shared.writeBehind,
    );
  }

  /**
   * Why writes are failing now (the engine does not take acknowledged writes), or undefined
   * while they land. Quarantined rows do not count: the rest of the writes go on. /readyz says it.
   */
  writeFailure(): string | undefined {
    const behind = this.writeBehind?.failureReason();
    if (behind !== undefined) return behind;
    // Direct inserts have no retry loop to clear the mark, and a not-ready gateway gets no
    // inserts: the mark lapses, and the storage check (a ping) speaks for the engine after that.
    if (this.directFailure === undefined || Date.now() - this.directFailure.at > DIRECT_FAILURE_MS) return undefined;
    return describeFailure(this.directFailure.error, 300);
  }

  /**
   * Embedded with write-behind, this process is the only writer and sees every insert into the
   * append-path tables: `listener` gets their rows. Returns undefined where that cannot hold.
   */
  watchInserts(table: string, listener: (rows: readonly object[]) => void): (() => void) | undefined {
    return this.writeBehind?.handles(table) ? this.writeBehind.watch(table, listener) : undefined;
  }

  /** Resolves once every insert this process acknowledged is in the engine (statements that can see them wait for this first). */
  async settled(): Promise<void> {
    await this.writeBehind?.settled();
  }

  /**
   * What a read waits for first: every acknowledged append if it can see them, else only the
   * log's replay at start (nothing runs before the engine holds what the last run logged).
   * Statements that change the engine (`command`, `insertSelect`) always wait for every append.
   */
  private async settledFor(sql: string): Promise<void> {
    if (!this.writeBehind) return;
    if (this.seesAppends(sql)) await this.writeBehind.settled();
    else await this.writeBehind.ready;
  }

  async query<T>(sql: string, params: QueryParams = {}): Promise<T[]> {
    await this.settledFor(sql);
    const gate = gates.get(this.client);
    return gate ? gate.foreground(() => this.directQuery<T>(sql, params)) : this.directQuery<T>(sql, params);
  }

  /**
   * A read of background work (a kept copy's pages): embedded, it waits for a moment when no
   * search's statement runs, since chDB runs one statement at a time (`StatementGate`). A server
   * runs statements side by side: no wait.
   */
  async backgroundQuery<T>(sql: string, params: QueryParams = {}): Promise<T[]> {
    await this.settledFor(sql);
    const gate = gates.get(this.client);
    return gate ? gate.background(() => this.directQuery<T>(sql, params)) : this.directQuery<T>(sql, params);
  }

  private async directQuery<T>(sql: string, params: QueryParams): Promise<T[]> {
    try {
      const result = await this.client.query({ query: sql, query_params: params, format: 'JSONEachRow' });
      return await result.json<T>();
    } catch (error) {
      throw mapStorageError(error);
    }
  }

  async command(sql: string, params: QueryParams = {}): Promise<void> {
    const target = /^\s*INSERT\s+INTO\s+([\w.]+)/i.exec(sql)?.[1];
    if (target && this.writeBehind?.handles(target)) {
      // Rows written around the write-behind queue would be invisible to its readers' bookkeeping.
      throw new Error(`insert into ${target} through Storage.insert, not a statement`);
    }
    await this.settled();
    try {
      await this.client.command({ query: sql, query_params: params });
    } catch (error) {
      throw mapStorageError(error);
    }
  }

  /**
   * `INSERT INTO table <select>` inside the engine: new versions of rows already stored (a
   * tombstone for each row a condition selects), written without passing them through this
   * process. Allowed for the write-behind tables too: it runs after every acknowledged insert is
   * in, and its rows carry keys already stored, so the stored-key filter has nothing to learn.
   */
  async insertSelect(table: string, select: string, params: QueryParams = {}): Promise<void> {
    await this.settled();
    try {
      await this.client.command({ query: `INSERT INTO ${table} ${select}`, query_params: params });
    } catch (error) {
      throw mapStorageError(error);
    }
  }

  async insert(table: string, rows: readonly object[]): Promise<void> {
    if (rows.length === 0) return;
    if (this.writeBehind?.handles(table)) {
      try {
        return await this.writeBehind.insert(table, rows);
      } catch (error) {
        throw mapStorageError(error);
      }
    }
    return this.directInsert(table, rows);
  }

  private async directInsert(table: string, rows: readonly object[]): Promise<void> {
    try {
      await this.client.insert({ table, values: rows as object[], format: 'JSONEachRow' });
      this.directFailure = undefined;
    } catch (error) {
      if (classifyInsertFailure(error) === 'engine_down') {
        this.directFailure = { error, at: Date.now() };
        throw mapStorageError(error);
      }
      // The append path batches many callers' turns in one insert: one refused row must not fail them all.
      if (!writeBehindTables(this.tables).has(table)) throw mapStorageError(error);
      return this.insertIsolated(table, rows);
    }
  }

  /** Server mode: a refused append-path insert bisected; the rows refused alone are quarantined. */
  private async insertIsolated(table: string, rows: readonly object[]): Promise<void> {
    const result = await insertIsolating((slice) => this.client.insert({ table, values: slice, format: 'JSONEachRow' }).then(() => undefined), rows);
    await this.refusedRows.put(table, result.refused);
    if (!result.done) {
      this.directFailure = { error: result.error, at: Date.now() };
      throw mapStorageError(result.error);
    }
    this.directFailure = undefined;
  }

  /**
   * Straight into the engine, after every acknowledged insert: a quarantined row's retry, whose
   * caller must know whether the engine took it. Throws the engine's own error.
   */
  private async insertNow(table: string, rows: object[]): Promise<void> {
    if (this.writeBehind?.handles(table)) return this.writeBehind.insertNow(table, rows);
    await this.settled();
    await this.client.insert({ table, values: rows, format: 'JSONEachRow' });
  }

  /** Active parts per table and merges running, for /metrics. */
  async health(): Promise<{ activeParts: Record<string, number>; mergesRunning: number }> {
    const params = { db: this.tables.database };
    const [parts, merges] = await Promise.all([
      this.directQuery<{ table: string; parts: string }>('SELECT table, count() AS parts FROM system.parts WHERE database = {db:String} AND active GROUP BY table', params),
      this.directQuery<{ n: string }>('SELECT count() AS n FROM system.merges WHERE database = {db:String}', params),
    ]);
    return { activeParts: Object.fromEntries(parts.map((p) => [p.table, Number(p.parts)])), mergesRunning: Number(merges[0]?.n ?? 0) };
  }

  async ping(): Promise<boolean> {
    try {
      const result = await this.client.ping();
      return result.success;
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    await this.release();
  }
}

// One write-behind queue per database of the embedded engine, shared by every Storage of the
// process, so that a read through any handle waits for inserts made through any other.
const writeBehinds = new SharedHandles<WriteBehind>((queue) => queue.close());

function writeBehindFor(
  client: ClickHouseClient,
  walDir: string,
  tables: Tables,
  quarantine: WriteQuarantine,
  hooks: Pick<WriteBehindOptions, 'flushIntervalMs' | 'onFlush' | 'onReplay' | 'onFailure'>,
): { writeBehind: WriteBehind; release: () => Promise<void> } {
  const { value, release } = writeBehinds.acquire(walDir, () =>
    new WriteBehind(new WriteAheadLog(walDir), engineCalls(client), {
      tables: writeBehindTables(tables),
      maxPendingBytes: 64 * 1024 * 1024,
      retryMs: 1000,
      quarantine,
      ...hooks,
    }),
  );
  return { writeBehind: value, release };
}

/** Inserts and queries straight on the client: for the write path itself and its quarantine. */
function engineCalls(client: ClickHouseClient): QuarantineEngine {
  return {
    insert: (table: string, rows: object[]) => client.insert({ table, values: rows, format: 'JSONEachRow' }).then(() => undefined),
    query: async <T>(sql: string, params: Record<string, unknown>) => (await client.query({ query: sql, query_params: params, format: 'JSONEachRow' })).json<T>(),
  };
}

// chDB allows one data directory per process, so every Storage of this process shares one
// embedded connection, closed when the last user closes.
const embeddedEngines = new SharedHandles<ClickHouseClient>((client) => client.close());

/** One gate per embedded engine, shared by every Storage of the process on it. */
const gates = new WeakMap<ClickHouseClient, StatementGate>();

function openEmbedded(path: string): { client: ClickHouseClient; release: () => Promise<void> } {
  const [open] = embeddedEngines.keys;
  if (open !== undefined && open !== path) {
    throw new Error(`this process already uses the embedded engine at ${open}; chDB allows one data directory per process`);
  }
  const { value, release } = embeddedEngines.acquire(path, () => {
    mkdirSync(path, { recursive: true });
    // Required lazily: the server topology never loads the 550 MB engine.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { createChdbConnection } = require('chdb/connection') as typeof import('chdb/connection');
    const client = createClient({
      connection: createChdbConnection({ path }),
      // Rows the write-ahead log already wrote out are sent as that text, not encoded again.
      json: { parse: JSON.parse, stringify: stringifyLoggedRow },
    } as unknown as Parameters<typeof createClient>[0]);
    gates.set(client, new StatementGate());
    return client;
  });
  return { client: value, release };
}

const UNAVAILABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'UND_ERR_SOCKET']);

export function mapStorageError(error: unknown): Error {
  if (LoomError.isLoomError(error)) return error;
  const code = (error as { code?: unknown } | undefined)?.code;
  const message = error instanceof Error ? error.message : String(error);
  if (
    (typeof code === 'string' && UNAVAILABLE_CODES.has(code)) ||
    /ECONNREFUSED|ECONNRESET|socket hang up|Timeout error|other side closed|connect ETIMEDOUT/i.test(message)
  ) {
    return new LoomError('unavailable', 'storage is unavailable; nothing was written, retry is safe', { cause: error });
  }
  return error instanceof Error ? error : new Error(message);
}

/** ClickHouse DateTime64 text (UTC) from epoch microseconds. */
export function formatMicros(epochMicros: number): string {
  const ms = Math.floor(epochMicros / 1000);
  const micros = String(Math.floor(epochMicros % 1000)).padStart(3, '0');
  return new Date(ms).toISOString().replace('T', ' ').replace('Z', '') + micros;
}

export function formatMillis(date: Date = new Date()): string {
  return date.toISOString().replace('T', ' ').replace('Z', '');
}

/** ISO 8601 (UTC) from ClickHouse DateTime64 text. */
export function toIso(value: string | null | undefined): string | null {
  if (!value) return null;
  return value.replace(' ', 'T') + 'Z';
}
