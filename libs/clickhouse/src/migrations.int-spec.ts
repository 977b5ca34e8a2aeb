import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openTestStorage, transcriptRow, uniqueDatabase, workerDataDir } from '../../testing/src/storage.harness';
import { Storage } from './storage';
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

  it.each([9, 10])('the rebuild of conversation_embeddings (0007-0011) keeps every row and adds the Int8 copy, with step %i applied but not recorded by a crash', async (crashedStep) => {
    await rebuildAfterCrash(
      'conversation_embeddings',
      6,
      crashedStep,
      async (storage) => {
        const rows = [0.5, -0.25, 0].map((x, i) => ({
          namespace: 'ns',
          thread_id: 't',
          msg_id: `m${i}`,
          agent: 'default',
          role: 'user',
          ts: '2026-11-29 12:00:00.000000',
          text: `turn ${i}`,
          model: 'hashed-v1-384',
          embedding: [x, 1 - x, -x],
          embed_error: '',
          created_at: '2026-11-29 12:00:00.000',
          version: i + 1,
        }));
        await storage.insert(storage.tables.conversationEmbeddings, rows);
      },
      async (storage, meta) => {
        const after = await storage.query<{ msg_id: string; embedding_q8: number[]; embedding_scale: number }>(
          `SELECT msg_id, embedding_q8, embedding_scale FROM ${storage.tables.conversationEmbeddings} FINAL ORDER BY msg_id`,
        );
        expect(after.map((r) => [r.msg_id, r.embedding_q8])).toEqual([
          ['m0', [127, 127, -127]],
          ['m1', [-25, 127, 25]],
          ['m2', [0, 127, 0]],
        ]);
        expect(meta.settings).toContain('index_granularity = 64');
        expect(meta.tables).toEqual(['conversation_embeddings']);
      },
    );
  });

  it.each([27, 28])('the rebuild of conversations (0025-0029) keeps every row, tombstones included, in granules of 512 KiB, with step %i applied but not recorded by a crash', async (crashedStep) => {
    const turn = (i: number, version: number, deleted = false) => transcriptRow(i, version, { deleted });
    await rebuildAfterCrash(
      'conversations',
      24,
      crashedStep,
      (storage) => storage.insert(storage.tables.conversations, [...Array.from({ length: 50 }, (_, i) => turn(i, i + 1)), turn(7, 100, true)]),
      async (storage, meta) => {
        const after = await storage.query<{ msg_id: string; deleted: boolean }>(`SELECT msg_id, deleted FROM ${storage.tables.conversations} FINAL ORDER BY toUInt32(substring(msg_id, 2))`);
        expect(after).toHaveLength(50);
        expect(after[7]).toMatchObject({ msg_id: 'm7', deleted: true });
        expect(after.filter((r) => r.deleted)).toHaveLength(1);
        expect(meta.settings).toContain('index_granularity_bytes = 524288');
        expect(meta.tables).toEqual(['conversations']);
      },
    );
  });

  it('a long step says it is still running while it runs, then the next step starts', async () => {
    const storage = Storage.open({ database: uniqueDatabase(), dataDir: workerDataDir() });
    const dir = mkdtempSync(join(tmpdir(), 'loom-mig-'));
    try {
      writeFileSync(join(dir, '0001_create_t.sql'), 'CREATE TABLE IF NOT EXISTS {db}.t (n UInt64) ENGINE = MergeTree ORDER BY n');
      // Long enough for a few heartbeats of 20 ms.
      writeFileSync(join(dir, '0002_copy_t.sql'), 'INSERT INTO {db}.t SELECT number FROM numbers(20000000) WHERE sipHash64(number) % 1000 = 0');
      const events: Array<{ migration: string; elapsedMs?: number }> = [];
      await runMigrations(storage, { dir, heartbeatMs: 20, onProgress: (p) => events.push(p) });
      const copy = events.filter((e) => e.migration === '0002_copy_t');
      expect(copy[0]).toEqual({ migration: '0002_copy_t', index: 2, total: 2 });
      expect(copy.length).toBeGreaterThan(1);
      expect(copy.slice(1).every((e) => typeof e.elapsedMs === 'number' && e.elapsedMs > 0)).toBe(true);
      // No heartbeat of the first step comes after the second started.
      expect(events.findIndex((e) => e.migration === '0002_copy_t')).toBe(events.filter((e) => e.migration === '0001_create_t').length);
    } finally {
      await storage.command(`DROP DATABASE IF EXISTS ${storage.tables.database}`);
      await storage.close();
      rmSync(dir, { recursive: true, force: true });
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

/**
 * A table rebuild (create _next, copy, rename, rename, drop) interrupted by a crash: the schema up
 * to `before`, `seed` writes rows, then step `crashedStep` runs without being recorded and the
 * next run repeats it. Answers the rebuilt table's engine settings and the tables of its name.
 */
async function rebuildAfterCrash(
  table: string,
  before: number,
  crashedStep: number,
  seed: (storage: Storage) => Promise<void>,
  check: (storage: Storage, meta: { settings: string; tables: string[] }) => Promise<void>,
): Promise<void> {
  const storage = Storage.open({ database: uniqueDatabase(), dataDir: workerDataDir() });
  const dir = mkdtempSync(join(tmpdir(), 'loom-mig-'));
  try {
    const upTo = async (version: number): Promise<void> => {
      for (const m of readMigrations().filter((m) => m.version <= version)) writeFileSync(join(dir, `${String(m.version).padStart(4, '0')}_${m.name}.sql`), m.sql);
      await runMigrations(storage, { dir });
    };
    await upTo(before);
    await seed(storage);
    await upTo(crashedStep - 1);
    // The step ran but a crash kept it from being recorded: the next run repeats it, which changes nothing.
    const step = readMigrations().find((m) => m.version === crashedStep)!;
    await storage.command(renderMigration(step.sql, storage.tables.database, undefined));
    const last = readMigrations().filter((m) => m.version > crashedStep && m.sql.includes('DROP TABLE'))[0]!;
    await expect(runMigrations(storage)).resolves.toMatchObject({ applied: expect.arrayContaining([`${String(last.version).padStart(4, '0')}_${last.name}`]) });
    const [meta] = await storage.query<{ settings: string; tables: string[] }>(
      `SELECT engine_full AS settings, (SELECT groupArray(name) FROM system.tables WHERE database = {db:String} AND name LIKE {like:String}) AS tables
       FROM system.tables WHERE database = {db:String} AND name = {table:String}`,
      { db: storage.tables.database, table, like: `${table}%` },
    );
    await check(storage, meta!);
  } finally {
    await storage.command(`DROP DATABASE IF EXISTS ${storage.tables.database}`);
    await storage.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
