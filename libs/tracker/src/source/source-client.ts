import { ClickHouseLogLevel, createClient, type ClickHouseClient } from '@clickhouse/client';
import { LoomError, TRACKER_EMBEDDED, TRACKER_IDENTIFIER } from '@loom/contracts';
import type { Storage } from '@loom/clickhouse';
import { createHash } from 'node:crypto';

/** How Loom reaches a registered source (the password stays inside; see `describeUrl`). */
export interface SourceConnection {
  url: string;
  user: string | undefined;
  password: string | undefined;
  database: string;
}

/** Reads one source's tables. Values go through `{name:Type}` parameters, never into the text. */
export interface SourceReader {
  query<T>(sql: string, params?: Record<string, unknown>): Promise<T[]>;
}

/** A name for SQL: checked as a plain identifier again here, then quoted. */
export function ident(name: string): string {
  if (!TRACKER_IDENTIFIER.test(name)) throw new LoomError('invalid_input', `not a plain identifier: ${JSON.stringify(name)}`);
  return `\`${name}\``;
}

export function qualified(database: string, table: string): string {
  return `${ident(database)}.${ident(table)}`;
}

/** The URL as it may be shown: no user or password in it. */
export function describeUrl(url: string): string {
  if (url === TRACKER_EMBEDDED) return url;
  try {
    const parsed = new URL(url);
    parsed.username = '';
    parsed.password = '';
    return parsed.toString().replace(/\/$/, '');
  } catch {
    return '(an unparsable URL)';
  }
}

/** The first line of a driver error, with anything that looks like a credential taken out. */
export function reasonOf(error: unknown, password: string | undefined): string {
  let text = error instanceof Error ? error.message : String(error);
  text = text.split('\n')[0]!.slice(0, 300);
  if (password) text = text.split(password).join('***');
  return text.replace(/\/\/[^/@\s]+@/g, '//***@');
}

/**
 * One client per registered source, kept while the registration stands: `embedded` reads through
 * Loom's own storage handle (the engine allows one per process), anything else through a
 * ClickHouse HTTP client of its own with the query timeout.
 */
export class SourceClients {
  private readonly clients = new Map<string, { key: string; client: ClickHouseClient }>();

  constructor(
    private readonly storage: Storage,
    private readonly timeoutMs: number,
  ) {}

  reader(namespace: string, connection: SourceConnection): SourceReader {
    const seconds = Math.max(1, Math.ceil(this.timeoutMs / 1000));
    // Per-query settings go in the statement (ARCHITECTURE: the embedded adapter makes client settings session-wide).
    const limit = (sql: string) => `${sql} SETTINGS max_execution_time = ${seconds}`;
    if (connection.url === TRACKER_EMBEDDED) {
      return { query: <T>(sql: string, params: Record<string, unknown> = {}) => this.storage.query<T>(limit(sql), params) };
    }
    const client = this.clientFor(namespace, connection);
    return {
      query: async <T>(sql: string, params: Record<string, unknown> = {}) => {
        const result = await client.query({ query: limit(sql), query_params: params, format: 'JSONEachRow' });
        return result.json<T>();
      },
    };
  }

  private clientFor(namespace: string, connection: SourceConnection): ClickHouseClient {
    const key = createHash('sha256').update(JSON.stringify([connection.url, connection.user, connection.password, connection.database])).digest('hex');
    const held = this.clients.get(namespace);
    if (held?.key === key) return held.client;
    if (held) void held.client.close().catch(() => undefined);
    const client = createClient({
      url: connection.url,
      username: connection.user ?? 'default',
      password: connection.password ?? '',
      database: connection.database,
      request_timeout: this.timeoutMs,
      max_open_connections: 4,
      // The op answers the failure; the driver's own console lines would only repeat it.
      log: { level: ClickHouseLogLevel.OFF },
    });
    this.clients.set(namespace, { key, client });
    return client;
  }

  /** A client for a registration being checked: not kept unless it is stored. */
  probe(connection: SourceConnection): { reader: SourceReader; close(): Promise<void> } {
    if (connection.url === TRACKER_EMBEDDED) return { reader: this.reader('', connection), close: async () => undefined };
    const client = createClient({
      url: connection.url,
      username: connection.user ?? 'default',
      password: connection.password ?? '',
      database: connection.database,
      request_timeout: this.timeoutMs,
      max_open_connections: 1,
      log: { level: ClickHouseLogLevel.OFF },
    });
    const seconds = Math.max(1, Math.ceil(this.timeoutMs / 1000));
    return {
      reader: {
        query: async <T>(sql: string, params: Record<string, unknown> = {}) => {
          const result = await client.query({ query: `${sql} SETTINGS max_execution_time = ${seconds}`, query_params: params, format: 'JSONEachRow' });
          return result.json<T>();
        },
      },
      close: () => client.close(),
    };
  }

  async close(): Promise<void> {
    await Promise.all([...this.clients.values()].map((c) => c.client.close().catch(() => undefined)));
    this.clients.clear();
  }
}
