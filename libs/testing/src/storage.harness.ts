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
