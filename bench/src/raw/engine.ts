import { createClient, type ClickHouseClient } from '@clickhouse/client';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MIGRATIONS_SRC } from '../util/paths';

/** Where a raw-engine task runs: a chDB data directory in this process, or a ClickHouse HTTP endpoint. */
export type EngineTarget = { chdbPath: string } | { url: string };

export function openEngine(target: EngineTarget, maxConnections = 128): ClickHouseClient {
  if ('url' in target) {
    return createClient({ url: target.url, request_timeout: 60_000, max_open_connections: maxConnections, keep_alive: { enabled: true } });
  }
  // Required lazily: only a child process opens a chDB directory (one per process).
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { createChdbConnection } = require('chdb/connection') as typeof import('chdb/connection');
  return createClient({ connection: createChdbConnection({ path: target.chdbPath }) } as unknown as Parameters<typeof createClient>[0]);
}

export async function rows<T = Record<string, unknown>>(client: ClickHouseClient, sql: string, params: Record<string, unknown> = {}): Promise<T[]> {
  const result = await client.query({ query: sql, query_params: params, format: 'JSONEachRow' });
  return result.json<T>();
}

/** Loom's own table definition (from its migration file), rendered into `database`. */
export function loomTableDdl(file: '0002_create_conversations.sql' | '0003_create_conversation_embeddings.sql', database: string): string {
  const sql = readFileSync(join(MIGRATIONS_SRC, file), 'utf8');
  return sql
    .replace(/\{db\}/g, database)
    .replace(/\{on_cluster\}/g, '')
    .replace(/\{replacing\}/g, 'ReplacingMergeTree');
}
