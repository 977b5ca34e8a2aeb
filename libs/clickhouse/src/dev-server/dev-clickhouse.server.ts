import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { ChdbExecutor } from './chdb-executor';
import { DevEndpointError } from './dev-errors';
import { DEV_ENDPOINT_NOTICE } from './notice';
import { executeRequest } from './query-execution';
import { parseDevRequest, parseRequestTarget } from './request-parsing';
import { errorBody, writeError, writeNotFound, writeOk, writeResult } from './response-writing';

// A development ClickHouse endpoint: one chDB data directory behind ClickHouse's HTTP interface,
// so code built on @clickhouse/client can run the split topology on a machine with no ClickHouse
// server. It is a test and development tool, never a production path: no auth, no sessions, one
// process-wide engine, results buffered in memory.

export interface DevClickHouseOptions {
  dataDir: string;
  /** Default 127.0.0.1. */
  host?: string;
  /** 0 (the default) picks a free port. */
  port?: number;
  log?: (line: Record<string, unknown>) => void;
}

export interface DevClickHouseServer {
  url: string;
  port: number;
  /** Stops accepting, waits for in-flight requests, then releases the chDB data directory. */
  close(): Promise<void>;
}


const SERVER_NAME = 'loom-dev-chdb';
// ClickHouse's own default; longer than the client's 2.5 s idle-socket TTL, so the client always
// retires a kept-alive socket before the server does (no ECONNRESET on reuse).
const KEEP_ALIVE_TIMEOUT_MS = 10_000;

export async function startDevClickHouse(options: DevClickHouseOptions): Promise<DevClickHouseServer> {
  const log = options.log ?? ((): void => undefined);
  const host = options.host ?? '127.0.0.1';
  const dataDir = path.resolve(options.dataDir);
  mkdirSync(dataDir, { recursive: true });

  const exec = new ChdbExecutor(dataDir);
  let timezone = 'UTC';
  let version = 'unknown';
  try {
    const probe = await exec.query('SELECT timezone(), version() FORMAT JSONCompactEachRow', 'JSONCompactEachRow');
    const row = JSON.parse(probe.bytes.toString('utf8')) as [string, string];
    [timezone, version] = row;
  } catch (e) {
    await exec.close();
    throw e;
  }

  const inFlight = new Set<Promise<void>>();
  let closing = false;
  // Said once per endpoint rather than per request: both are accepted and ignored (see README).
  const warned = new Set<string>();
  const warnOnce = (key: string, line: Record<string, unknown>): void => {
    if (warned.has(key)) return;
    warned.add(key);
    log(line);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const target = parseRequestTarget(req.url ?? '/');
    const isHealth =
      target.pathname === '/ping' ||
      target.pathname === '/replicas_status' ||
      (target.pathname === '/' && (req.method === 'GET' || req.method === 'HEAD') && target.query === undefined);
    if (isHealth) return writeOk(res, req.method, closing);
    if (target.pathname !== '/') {
      req.resume();
      return writeNotFound(res, target.pathname, version);
    }
    const queryId = target.queryId ?? randomUUID();
    const started = process.hrtime.bigint();
    try {
      if (closing) {
        req.resume();
        throw new DevEndpointError(394, 'QUERY_WAS_CANCELLED', 'The development ClickHouse endpoint is shutting down');
      }
      const parsed = await parseDevRequest(req);
      if (parsed.settings.has('session_id')) {
        warnOnce('session_id', { msg: 'session_id is ignored: the development endpoint has no sessions; every request is independent' });
      }
      const database = parsed.settings.get('database');
      if (database !== undefined && database !== 'default') {
        warnOnce('database', { msg: 'the database parameter is ignored: qualify table names (db.table)', database });
      }
      const result = await executeRequest(exec, parsed);
      await writeResult(res, {
        queryId,
        format: result.format,
        timezone,
        serverName: SERVER_NAME,
        summary: result.summary,
        body: result.body,
        coding: parsed.responseCoding,
        closeConnection: closing,
      });
    } catch (err) {
      const { code } = errorBody(err, version);
      log({ msg: 'query failed', query_id: queryId, code, error: err instanceof Error ? err.message : String(err), ms: msSince(started) });
      await writeError(res, err, { queryId, timezone, serverName: SERVER_NAME, version, closeConnection: closing });
    }
  };

  const server = http.createServer((req, res) => {
    const p = handle(req, res).catch((e: unknown) => {
      log({ msg: 'request handler crashed', error: e instanceof Error ? e.stack : String(e) });
      res.destroy();
    });
    inFlight.add(p);
    void p.finally(() => inFlight.delete(p));
  });
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;

  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? 0, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (e) {
    await exec.close();
    throw e;
  }
  const port = (server.address() as AddressInfo).port;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  log({ msg: DEV_ENDPOINT_NOTICE, url, dataDir });

  let closed: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closed ??= (async () => {
      closing = true;
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
      // Sockets kept alive by clients would otherwise hold server.close() open indefinitely.
      server.closeAllConnections();
      await stopped;
      await exec.close();
      log({ msg: 'development ClickHouse endpoint closed', url, dataDir });
    })();
    return closed;
  };

  return { url, port, close };
}

function msSince(start: bigint): number {
  return Number(process.hrtime.bigint() - start) / 1e6;
}
