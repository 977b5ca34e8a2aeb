import type { IncomingMessage } from 'node:http';
import { pipeline, type Readable } from 'node:stream';
import zlib from 'node:zlib';
import { DevEndpointError } from './dev-errors';

// Turns one HTTP request into what ClickHouse's HTTP handler would execute: the statement text,
// the request body when it is data for that statement, `param_*` values and URL settings.
// ClickHouse's rules, which @clickhouse/client relies on:
//   - `query` in the URL plus a body → the body is data for the statement (client.insert and
//     client.exec with `values` do this); the server runs `<query>\n<body>`.
//   - no `query` in the URL → the body is the statement (client.query, client.command, client.exec).
//   - multipart/form-data → parts named `query` and `param_*` (the client switches to this when
//     query parameters would make the URL too long).

export type ContentCoding = 'gzip' | 'deflate' | 'br' | 'zstd';

export interface DevRequest {
  /** Statement text: the URL `query`, or the body when the URL has none. */
  sql: string;
  /** Data for the statement (body of a request whose URL carries the statement). */
  data?: Buffer;
  queryId?: string;
  /** `param_<name>` values as sent on the wire, keyed by `<name>`. */
  params: Map<string, string>;
  /** Every other URL parameter: engine settings and HTTP-layer controls alike. */
  settings: Map<string, string>;
  defaultFormat?: string;
  /** Response content coding to use, when compression was requested and is supported. */
  responseCoding?: ContentCoding;
}

export interface RequestTarget {
  pathname: string;
  query?: string;
  queryId?: string;
  params: Map<string, string>;
  settings: Map<string, string>;
}

/** Splits a request URL's search parameters into statement, parameters and settings. */
export function parseRequestTarget(url: string): RequestTarget {
  const parsed = new URL(url, 'http://dev-clickhouse.invalid');
  const params = new Map<string, string>();
  const settings = new Map<string, string>();
  let query: string | undefined;
  let queryId: string | undefined;
  for (const [key, value] of parsed.searchParams) {
    if (key === 'query') query = value;
    else if (key === 'query_id') queryId = value;
    else if (key.startsWith('param_')) params.set(key.slice('param_'.length), value);
    else settings.set(key, value);
  }
  return { pathname: parsed.pathname, query, queryId, params, settings };
}

function hasZstd(): boolean {
  return typeof (zlib as unknown as { createZstdDecompress?: unknown }).createZstdDecompress === 'function';
}

/**
 * Picks the response coding the way ClickHouse does: only when `enable_http_compression` is on,
 * and then the first supported coding the client accepts. zstd is skipped on runtimes without it
 * (Node < 22.15); an uncompressed response is always acceptable to the client.
 */
export function chooseResponseCoding(acceptEncoding: string | undefined, enableHttpCompression: string | undefined): ContentCoding | undefined {
  if (enableHttpCompression !== '1' && enableHttpCompression?.toLowerCase() !== 'true') return undefined;
  if (!acceptEncoding) return undefined;
  for (const part of acceptEncoding.split(',')) {
    const coding = part.split(';')[0]!.trim().toLowerCase();
    if (coding === 'gzip' || coding === 'deflate' || coding === 'br') return coding;
    if (coding === 'zstd' && hasZstd()) return 'zstd';
  }
  return undefined;
}

function decoderFor(coding: string): NodeJS.ReadWriteStream | undefined {
  switch (coding) {
    case 'gzip':
    case 'x-gzip':
      return zlib.createGunzip();
    case 'deflate':
      return zlib.createInflate();
    case 'br':
      return zlib.createBrotliDecompress();
    case 'zstd':
      if (hasZstd()) return (zlib as unknown as { createZstdDecompress(): NodeJS.ReadWriteStream }).createZstdDecompress();
      return undefined;
    default:
      return undefined;
  }
}

/** Reads the whole (decoded) body into one Buffer. */
export async function readBody(req: IncomingMessage): Promise<Buffer> {
  const coding = (req.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  let source: Readable = req;
  if (coding !== 'identity' && coding !== '') {
    const decoder = decoderFor(coding);
    if (decoder === undefined) {
      req.resume();
      throw new DevEndpointError(
        48,
        'NOT_IMPLEMENTED',
        `Request Content-Encoding ${JSON.stringify(coding)} is not supported by the development ClickHouse endpoint (gzip, deflate and br are)`,
      );
    }
    // pipeline() destroys the decoder when the request fails, so the loop below always ends.
    source = pipeline(req, decoder, () => undefined) as unknown as Readable;
  }
  const chunks: Buffer[] = [];
  let total = 0;
  try {
    for await (const chunk of source) {
      const b = chunk as Buffer;
      chunks.push(b);
      total += b.length;
    }
  } catch (e) {
    if (source !== req) {
      throw new DevEndpointError(271, 'CANNOT_DECOMPRESS', `Cannot decode the ${coding} request body: ${(e as Error).message}`);
    }
    throw e;
  }
  // One copy of the body at most: a single chunk is used as is.
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total);
}

export interface MultipartPart {
  name: string;
  filename?: string;
  value: Buffer;
}

/** Minimal multipart/form-data parser: enough for the `query` and `param_*` parts the client sends. */
export function parseMultipart(body: Buffer, boundary: string): MultipartPart[] {
  const delimiter = Buffer.from(`--${boundary}`);
  const parts: MultipartPart[] = [];
  let pos = body.indexOf(delimiter);
  if (pos === -1) throw new DevEndpointError(62, 'SYNTAX_ERROR', 'Malformed multipart body: boundary not found');
  for (;;) {
    pos += delimiter.length;
    if (body[pos] === 0x2d && body[pos + 1] === 0x2d) break; // closing `--boundary--`
    if (body[pos] === 0x0d && body[pos + 1] === 0x0a) pos += 2;
    const headerEnd = body.indexOf('\r\n\r\n', pos);
    if (headerEnd === -1) throw new DevEndpointError(62, 'SYNTAX_ERROR', 'Malformed multipart body: part headers not terminated');
    const headers = body.subarray(pos, headerEnd).toString('utf8');
    const next = body.indexOf(Buffer.concat([Buffer.from('\r\n'), delimiter]), headerEnd + 4);
    if (next === -1) throw new DevEndpointError(62, 'SYNTAX_ERROR', 'Malformed multipart body: missing closing boundary');
    const disposition = /^content-disposition:(.*)$/im.exec(headers)?.[1] ?? '';
    const name = /\bname="([^"]*)"/i.exec(disposition)?.[1];
    const filename = /\bfilename="([^"]*)"/i.exec(disposition)?.[1];
    if (name !== undefined) parts.push({ name, filename, value: body.subarray(headerEnd + 4, next) });
    pos = next + 2;
  }
  return parts;
}

function multipartBoundary(contentType: string | undefined): string | undefined {
  if (!contentType || !/^multipart\/form-data/i.test(contentType)) return undefined;
  const m = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  return m?.[1] ?? m?.[2];
}

/** Builds the DevRequest for a request to `/`. */
export async function parseDevRequest(req: IncomingMessage): Promise<DevRequest> {
  const target = parseRequestTarget(req.url ?? '/');
  if (target.settings.get('decompress') === '1') {
    req.resume();
    throw new DevEndpointError(
      48,
      'NOT_IMPLEMENTED',
      "ClickHouse native-compressed request bodies (decompress=1) are not supported by the development ClickHouse endpoint; use HTTP Content-Encoding instead",
    );
  }
  const body = req.method === 'GET' || req.method === 'HEAD' ? Buffer.alloc(0) : await readBody(req);

  let sql = target.query;
  let data: Buffer | undefined;
  const boundary = multipartBoundary(req.headers['content-type']);
  if (boundary !== undefined) {
    for (const part of parseMultipart(body, boundary)) {
      if (part.filename !== undefined) {
        throw new DevEndpointError(48, 'NOT_IMPLEMENTED', `External tables (multipart file part ${JSON.stringify(part.name)}) are not supported by the development ClickHouse endpoint`);
      }
      if (part.name === 'query') sql = (sql === undefined ? '' : `${sql}\n`) + part.value.toString('utf8');
      else if (part.name.startsWith('param_')) target.params.set(part.name.slice('param_'.length), part.value.toString('utf8'));
    }
  } else if (sql === undefined) {
    sql = body.toString('utf8');
  } else if (body.length > 0) {
    data = body;
  }
  if (sql === undefined || sql.trim() === '') {
    throw new DevEndpointError(62, 'SYNTAX_ERROR', 'Empty query');
  }

  const formatHeader = req.headers['x-clickhouse-format'];
  const defaultFormat = target.settings.get('default_format') ?? (typeof formatHeader === 'string' ? formatHeader : undefined);
  const acceptEncoding = req.headers['accept-encoding'];
  return {
    sql,
    data,
    queryId: target.queryId,
    params: target.params,
    settings: target.settings,
    defaultFormat,
    responseCoding: chooseResponseCoding(typeof acceptEncoding === 'string' ? acceptEncoding : undefined, target.settings.get('enable_http_compression')),
  };
}
