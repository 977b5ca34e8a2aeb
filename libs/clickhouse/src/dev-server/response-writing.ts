import type { ServerResponse } from 'node:http';
import { pipeline, Readable, type Transform } from 'node:stream';
import zlib from 'node:zlib';
import { httpStatusForCode, toClickHouseError } from './dev-errors';
import type { ContentCoding } from './request-parsing';

// Writes responses the way ClickHouse's HTTP handler does, as far as @clickhouse/client can tell:
// status 200 with X-ClickHouse-* headers on success; a non-2xx status, X-ClickHouse-Exception-Code
// and a `Code: N. DB::Exception: ... (TYPE)` body on failure (the client parses that body into a
// ClickHouseError). Results are complete before the first byte is sent, so an error is always a
// proper error response and never a truncated 200.

/** Engine counters, rendered as the server's X-ClickHouse-Summary (all values are strings). */
export interface QuerySummary {
  readRows: number;
  readBytes: number;
  writtenRows: number;
  writtenBytes: number;
  resultRows: number;
  resultBytes: number;
  elapsedSeconds: number;
}

export function summaryHeader(s: QuerySummary): string {
  return JSON.stringify({
    read_rows: String(s.readRows),
    read_bytes: String(s.readBytes),
    written_rows: String(s.writtenRows),
    written_bytes: String(s.writtenBytes),
    total_rows_to_read: '0',
    result_rows: String(s.resultRows),
    result_bytes: String(s.resultBytes),
    elapsed_ns: String(Math.max(0, Math.round(s.elapsedSeconds * 1e9))),
  });
}

const BINARY_FORMATS = /^(RowBinary.*|Native|Parquet|Arrow|ArrowStream|ORC|Avro|Protobuf.*|CapnProto|MsgPack|BSONEachRow|Npy)$/i;

/** The Content-Type ClickHouse sends for an output format. */
export function contentTypeFor(format: string): string {
  const f = format.toLowerCase();
  if (BINARY_FORMATS.test(format)) return 'application/octet-stream';
  if (f.startsWith('json') && (f.includes('eachrow') || f === 'jsonlines' || f === 'jsonl')) return 'application/x-ndjson; charset=UTF-8';
  if (f === 'ndjson') return 'application/x-ndjson; charset=UTF-8';
  if (f.startsWith('json')) return 'application/json; charset=UTF-8';
  if (f.startsWith('tabseparated') || f.startsWith('tsv')) return 'text/tab-separated-values; charset=UTF-8';
  if (f.startsWith('csv')) return `text/csv; charset=UTF-8; header=${f.includes('withnames') ? 'present' : 'absent'}`;
  if (f === 'xml') return 'application/xml; charset=UTF-8';
  return 'text/plain; charset=UTF-8';
}

export function isBinaryFormat(format: string): boolean {
  return BINARY_FORMATS.test(format);
}

export interface ResultResponse {
  queryId: string;
  format: string;
  timezone: string;
  serverName: string;
  summary: QuerySummary;
  body?: Buffer;
  coding?: ContentCoding;
  /** Ask the client to close the connection (set while the endpoint is shutting down). */
  closeConnection?: boolean;
}

// Slices are views into the one result Buffer; the socket sees one bounded slice at a time and
// the writable's backpressure decides when the next is produced.
const SLICE = 256 * 1024;

function* slices(buf: Buffer): Generator<Buffer> {
  for (let off = 0; off < buf.length; off += SLICE) yield buf.subarray(off, Math.min(buf.length, off + SLICE));
}

function encoderFor(coding: ContentCoding): Transform {
  switch (coding) {
    case 'gzip':
      return zlib.createGzip();
    case 'deflate':
      return zlib.createDeflate();
    case 'br':
      return zlib.createBrotliCompress({ params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 4 } });
    case 'zstd':
      return (zlib as unknown as { createZstdCompress(): Transform }).createZstdCompress();
  }
}

/** Sends a successful result; resolves when the response is finished or the client went away. */
export function writeResult(res: ServerResponse, r: ResultResponse): Promise<void> {
  const body = r.body ?? Buffer.alloc(0);
  res.statusCode = 200;
  res.setHeader('Content-Type', contentTypeFor(r.format));
  res.setHeader('X-ClickHouse-Server-Display-Name', r.serverName);
  res.setHeader('X-ClickHouse-Query-Id', r.queryId);
  res.setHeader('X-ClickHouse-Format', r.format);
  res.setHeader('X-ClickHouse-Timezone', r.timezone);
  res.setHeader('X-ClickHouse-Summary', summaryHeader(r.summary));
  if (r.closeConnection) res.setHeader('Connection', 'close');
  return new Promise<void>((resolve) => {
    const done = (): void => resolve();
    if (r.coding !== undefined && body.length > 0) {
      res.setHeader('Content-Encoding', r.coding);
      res.setHeader('Vary', 'Accept-Encoding');
      pipeline(Readable.from(slices(body)), encoderFor(r.coding), res, done);
      return;
    }
    res.setHeader('Content-Length', body.length);
    if (body.length === 0) {
      res.end(done);
      return;
    }
    pipeline(Readable.from(slices(body)), res, done);
  });
}

export interface ErrorResponse {
  queryId?: string;
  timezone: string;
  serverName: string;
  version: string;
  closeConnection?: boolean;
}

/** The error text ClickHouse would send: one exception line ending with the server version. */
export function errorBody(err: unknown, version: string): { code: number; text: string } {
  const { code, text } = toClickHouseError(err);
  // chDB sometimes wraps an exception in a second copy of itself
  // (`Code: 108. DB::Exception: Code: 108. DB::Exception: ... (version X). (TYPE)`); keep the inner one.
  const nested = /^Code: (\d+)\. DB::Exception: (Code: \1\. DB::Exception: .+?) \(version [^)]*\)\. \([A-Z0-9_]+\)$/s.exec(text);
  const core = nested ? nested[2]! : text;
  const withVersion = /\(version [^)]*\)\s*$/.test(core) ? core : `${core} (version ${version})`;
  return { code, text: `${withVersion}\n` };
}

export function writeError(res: ServerResponse, err: unknown, r: ErrorResponse): Promise<void> {
  const { code, text } = errorBody(err, r.version);
  if (res.headersSent) {
    // Cannot happen for buffered results; if it ever does, a cut connection is the only honest signal.
    res.destroy();
    return Promise.resolve();
  }
  res.statusCode = httpStatusForCode(code);
  res.setHeader('Content-Type', 'text/plain; charset=UTF-8');
  res.setHeader('X-ClickHouse-Server-Display-Name', r.serverName);
  if (r.queryId !== undefined) res.setHeader('X-ClickHouse-Query-Id', r.queryId);
  res.setHeader('X-ClickHouse-Timezone', r.timezone);
  res.setHeader('X-ClickHouse-Exception-Code', String(code));
  if (r.closeConnection) res.setHeader('Connection', 'close');
  const payload = Buffer.from(text, 'utf8');
  res.setHeader('Content-Length', payload.length);
  return new Promise<void>((resolve) => res.end(payload, () => resolve()));
}

/** Plain-text answers for the health endpoints (`/ping`, `/replicas_status`, GET `/`). */
export function writeOk(res: ServerResponse, method: string | undefined, closeConnection?: boolean): Promise<void> {
  res.statusCode = 200;
  res.setHeader('Content-Type', 'text/html; charset=UTF-8');
  res.setHeader('Content-Length', 4);
  if (closeConnection) res.setHeader('Connection', 'close');
  return new Promise<void>((resolve) => (method === 'HEAD' ? res.end(() => resolve()) : res.end('Ok.\n', () => resolve())));
}

export function writeNotFound(res: ServerResponse, pathname: string, version: string): Promise<void> {
  const text = `Code: 48. DB::Exception: There is no handle ${pathname} on the development ClickHouse endpoint. Use / or /ping. (NOT_IMPLEMENTED) (version ${version})\n`;
  res.statusCode = 404;
  res.setHeader('Content-Type', 'text/plain; charset=UTF-8');
  res.setHeader('X-ClickHouse-Exception-Code', '48');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  return new Promise<void>((resolve) => res.end(text, () => resolve()));
}
