import { runMigrations, Storage } from '@loom/clickhouse';
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * chDB allows one data directory per process, so every test file in a jest worker shares this
 * one directory and isolates itself by database name instead.
 */
export function workerDataDir(): string {
  return join(tmpdir(), `loom-test-${process.pid}`);
}

export function uniqueDatabase(prefix = 'loom_t'): string {
  return `${prefix}_${randomBytes(6).toString('hex')}`;
}

/** A migrated database of its own on the embedded engine; drop it when done. */
export async function openTestStorage(): Promise<Storage & { drop(): Promise<void> }> {
  const storage = Storage.open({ database: uniqueDatabase(), dataDir: workerDataDir() });
  await runMigrations(storage);
  return Object.assign(storage, {
    drop: async () => {
      await storage.command(`DROP DATABASE IF EXISTS ${storage.tables.database}`);
      await storage.close();
      rmSync(join(workerDataDir(), 'wal', storage.tables.database), { recursive: true, force: true });
    },
  });
}

/**
 * A transcript row as the append path writes it; the columns left out take their defaults.
 * `extra` sets any other column (deleted, user_id, …).
 */
export function transcriptRow(i: number, version: number, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    namespace: 'ns',
    thread_id: `t${i % 3}`,
    agent: 'default',
    msg_id: `m${i}`,
    ts: '2026-11-29 12:00:00.000000',
    role: 'user',
    content: `turn ${i}`,
    created_at: '2026-11-29 12:00:00.000',
    version,
    ...extra,
  };
}
