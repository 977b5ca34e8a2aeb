import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Storage } from './storage';

export interface Migration {
  version: number;
  name: string;
  sql: string;
  checksum: string;
}

export interface MigrationLock {
  /** Resolves once held; the returned function releases it. */
  acquire(name: string): Promise<() => Promise<void>>;
}

export const MIGRATIONS_DIR = resolve(__dirname, '..', 'migrations');

/** Reads `NNNN_<verb>_<object>.sql` files in order; refuses gaps in naming and duplicate versions. */
export function readMigrations(dir = MIGRATIONS_DIR): Migration[] {
  const files = readdirSync(dir).filter((f) => f.endsWith('.sql')).sort();
  const seen = new Map<number, string>();
  return files.map((file) => {
    const match = /^(\d{4})_([a-z0-9_]+)\.sql$/.exec(file);
    if (!match) throw new Error(`migration file ${file} must be named NNNN_<verb>_<object>.sql`);
    const version = Number(match[1]);
    const other = seen.get(version);
    if (other) throw new Error(`migrations ${other} and ${file} share version ${version}`);
    seen.set(version, file);
    const sql = readFileSync(join(dir, file), 'utf8');
    return { version, name: match[2]!, sql, checksum: createHash('sha256').update(sql).digest('hex') };
  });
}

/** Substitutes the placeholders that let one definition serve a single node and a cluster. */
export function renderMigration(sql: string, database: string, cluster: string | undefined): string {
  return sql
    .replace(/\{db\}/g, database)
    .replace(/\{on_cluster\}/g, cluster ? `ON CLUSTER ${cluster}` : '')
    .replace(/\{replacing\}/g, cluster ? 'ReplicatedReplacingMergeTree' : 'ReplacingMergeTree');
}

/** A migration starting (`elapsedMs` absent), or still running after `elapsedMs` (a heartbeat, for long copies). */
export interface MigrationProgress {
  migration: string;
  index: number;
  total: number;
  elapsedMs?: number;
}

export interface MigrationReport {
  applied: string[];
  alreadyApplied: number;
}

/**
 * Applies pending migrations in order, recording version, name and checksum. A recorded
 * migration whose file changed, or a recorded version with no file, stops the run: schema
 * history is forward-only.
 */
export async function runMigrations(
  storage: Storage,
  options: { lock?: MigrationLock; dir?: string; onProgress?: (event: MigrationProgress) => void; heartbeatMs?: number } = {},
): Promise<MigrationReport> {
  const release = options.lock ? await options.lock.acquire('schema-migrations') : undefined;
  try {
    const { tables, cluster } = storage;
    const onCluster = cluster ? ` ON CLUSTER ${cluster}` : '';
    await storage.command(`CREATE DATABASE IF NOT EXISTS ${tables.database}${onCluster}`);
    await storage.command(
      `CREATE TABLE IF NOT EXISTS ${tables.migrations}${onCluster} (version UInt32, name String, checksum String, applied_at DateTime64(3, 'UTC')) ` +
        `ENGINE = ${cluster ? 'ReplicatedMergeTree' : 'MergeTree'} ORDER BY version`,
    );
    const recorded = await storage.query<{ version: number; name: string; checksum: string }>(
      `SELECT version, name, checksum FROM ${tables.migrations} ORDER BY version`,
    );
    const migrations = readMigrations(options.dir);
    const byVersion = new Map(migrations.map((m) => [m.version, m]));
    for (const row of recorded) {
      const file = byVersion.get(row.version);
      if (!file) throw new Error(`migration ${row.version}_${row.name} is recorded as applied but its file is missing`);
      if (file.checksum !== row.checksum) {
        throw new Error(`migration ${row.version}_${row.name} was edited after it was applied; add a new migration instead`);
      }
    }
    const done = new Set(recorded.map((r) => r.version));
    const pending = migrations.filter((m) => !done.has(m.version));
    const applied: string[] = [];
    for (const [index, migration] of pending.entries()) {
      const label = `${String(migration.version).padStart(4, '0')}_${migration.name}`;
      const step = { migration: label, index: index + 1, total: pending.length };
      options.onProgress?.(step);
      // A copy of a large table runs for minutes: say it is still running, so no one kills it.
      const started = Date.now();
      const beat = setInterval(() => options.onProgress?.({ ...step, elapsedMs: Date.now() - started }), options.heartbeatMs ?? 10_000);
      beat.unref();
      try {
        await storage.command(renderMigration(migration.sql, tables.database, cluster));
      } finally {
        clearInterval(beat);
      }
      await storage.insert(tables.migrations, [
        { version: migration.version, name: migration.name, checksum: migration.checksum, applied_at: new Date().toISOString().replace('T', ' ').replace('Z', '') },
      ]);
      applied.push(label);
    }
    return { applied, alreadyApplied: recorded.length };
  } finally {
    await release?.();
  }
}
