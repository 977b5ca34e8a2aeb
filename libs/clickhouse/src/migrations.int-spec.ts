import { cpSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openTestStorage } from '../../testing/src/storage.harness';
import { MIGRATIONS_DIR, readMigrations, renderMigration, runMigrations } from './migrations.runner';

describe('migrations', () => {
  it('apply in order, record version and checksum, and are re-runnable', async () => {
    const storage = await openTestStorage();
    try {
      const again = await runMigrations(storage);
      expect(again.applied).toEqual([]);
      expect(again.alreadyApplied).toBe(readMigrations().length);
      const tables = await storage.query<{ name: string }>('SELECT name FROM system.tables WHERE database = {db:String} ORDER BY name', {
        db: storage.tables.database,
      });
      expect(tables.map((t) => t.name)).toEqual(
        expect.arrayContaining(['conversations', 'conversation_embeddings', 'conversation_threads', 'namespaces', 'api_tokens', 'settings', 'schema_migrations']),
      );
    } finally {
      await storage.drop();
    }
  });

  it('refuse a migration edited after it was applied', async () => {
    const storage = await openTestStorage();
    const dir = mkdtempSync(join(tmpdir(), 'loom-mig-'));
    try {
      cpSync(MIGRATIONS_DIR, dir, { recursive: true });
      writeFileSync(join(dir, '0001_create_namespaces.sql'), 'CREATE TABLE IF NOT EXISTS {db}.namespaces (x UInt8) ENGINE = Memory');
      await expect(runMigrations(storage, { dir })).rejects.toThrow(/was edited after it was applied/);
    } finally {
      await storage.drop();
    }
  });

  it('refuse two files with one version', () => {
    const dir = mkdtempSync(join(tmpdir(), 'loom-mig-'));
    writeFileSync(join(dir, '0001_create_a.sql'), 'SELECT 1');
    writeFileSync(join(dir, '0001_create_b.sql'), 'SELECT 1');
    expect(() => readMigrations(dir)).toThrow(/share version 1/);
  });

  it('render cluster DDL from the same definition', () => {
    const sql = 'CREATE TABLE {db}.t {on_cluster} (v UInt64) ENGINE = {replacing}(v) ORDER BY v';
    expect(renderMigration(sql, 'loom', undefined)).toBe('CREATE TABLE loom.t  (v UInt64) ENGINE = ReplacingMergeTree(v) ORDER BY v');
    expect(renderMigration(sql, 'loom', 'prod')).toBe('CREATE TABLE loom.t ON CLUSTER prod (v UInt64) ENGINE = ReplicatedReplacingMergeTree(v) ORDER BY v');
  });
});
