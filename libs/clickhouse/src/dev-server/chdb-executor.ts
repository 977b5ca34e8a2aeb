import { drainPending, Session, type RawInsertFormat } from 'chdb';

// The only module that touches chDB. It uses a Session (Layer 1) rather than chdb/connection's
// ChdbConnection: that adapter turns clickhouse_settings into connection-wide SETs, reads insert
// bodies into one JS string, and hides the raw zero-copy insert — all three wrong for an
// endpoint that serves many independent requests from one data directory.

export interface ChdbQueryResult {
  /** The complete output, as the one Buffer chDB produced (no further copies are made). */
  bytes: Buffer;
  rowsRead: number;
  bytesRead: number;
  elapsedSeconds: number;
}

export interface ChdbInsertResult {
  rowsWritten: number;
  bytesWritten: number;
  elapsedSeconds: number;
}

export interface RawInsertRequest {
  table: string;
  columns?: string[];
  format: RawInsertFormat;
  data: Buffer;
  settings?: Record<string, string | number>;
}

/** Formats chDB's raw insert accepts (its whitelist; anything else takes the SQL-text route). */
export const RAW_INSERT_FORMATS: ReadonlySet<string> = new Set<RawInsertFormat>([
  'JSONEachRow',
  'JSONCompactEachRow',
  'CSV',
  'CSVWithNames',
  'TSV',
  'TabSeparated',
  'TSVWithNames',
  'TabSeparatedWithNames',
]);

function asBuffer(u8: Uint8Array): Buffer {
  return Buffer.isBuffer(u8) ? u8 : Buffer.from(u8.buffer, u8.byteOffset, u8.byteLength);
}

export class ChdbExecutor {
  private readonly session: Session;
  private closed = false;

  constructor(readonly dataDir: string) {
    this.session = new Session(dataDir);
  }

  /**
   * Runs one statement. `format` applies only when the statement has no FORMAT clause. With
   * `params`, values are bound by the engine (`{name:Type}` placeholders), never spliced into SQL.
   */
  async query(sql: string, format: string, params?: Record<string, string | null>): Promise<ChdbQueryResult> {
    const result =
      params !== undefined && Object.keys(params).length > 0
        ? await this.session.queryBindAsync(sql, params, { format })
        : await this.session.queryAsync(sql, { format });
    return {
      bytes: asBuffer(result.bytes()),
      rowsRead: result.rowsRead,
      bytesRead: result.bytesRead,
      elapsedSeconds: result.elapsed,
    };
  }

  /** Passes the request body to the engine's parser as is (zero-copy on the JS side). */
  async rawInsert(req: RawInsertRequest): Promise<ChdbInsertResult> {
    const summary = await this.session.insert({
      table: req.table,
      columns: req.columns,
      format: req.format,
      values: req.data,
      settings: req.settings,
    });
    return { rowsWritten: summary.rowsWritten, bytesWritten: summary.bytesWritten, elapsedSeconds: summary.elapsed };
  }

  /**
   * Releases the connection. Callers stop issuing work first; drainPending() then covers native
   * work whose JS promise has already settled, so the data directory is really free on return.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.session.close();
    await drainPending();
  }
}
