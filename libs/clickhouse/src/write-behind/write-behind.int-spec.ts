import { LoomError } from '@loom/contracts';
import { appendFileSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openTestStorage, transcriptRow, uniqueDatabase, workerDataDir } from '../../../testing/src/storage.harness';
import { runMigrations } from '../migrations.runner';
import { Storage } from '../storage';
import { appendFedTables, writeBehindTables } from './append-visibility';
import { WriteAheadLog } from './write-ahead-log';
import { WriteBehind, type EngineCalls } from './write-behind';
import { WriteQuarantine } from '../quarantine/write-quarantine';

const turn = (i: number, version = 1_000_000 + i): Record<string, unknown> => transcriptRow(i, version);

function engineOf(storage: Storage): EngineCalls {
  return {
    insert: (table, rows) => storage.client.insert({ table, values: rows, format: 'JSONEachRow' }).then(() => undefined),
    query: async <T>(sql: string, params: Record<string, unknown>) => (await storage.client.query({ query: sql, query_params: params, format: 'JSONEachRow' })).json<T>(),
  };
}

async function rowCounts(storage: Storage): Promise<{ rows: number; keys: number }> {
  const [r] = await storage.query<{ rows: string; keys: string }>(
    `SELECT count() AS rows, uniqExact(namespace, thread_id, agent, msg_id) AS keys FROM ${storage.tables.conversations}`,
  );
  return { rows: Number(r!.rows), keys: Number(r!.keys) };
}

describe('write-behind on the embedded engine (acknowledged once logged, flushed in shared inserts)', () => {
  let storage: Storage & { drop(): Promise<void> };
  let walDir: string;
  beforeEach(async () => {
    storage = await openTestStorage();
    walDir = mkdtempSync(join(tmpdir(), 'loom-wal-'));
  });
  afterEach(async () => {
    await storage.drop();
    rmSync(walDir, { recursive: true, force: true });
  });

  const quarantine = (): WriteQuarantine => new WriteQuarantine(engineOf(storage), storage.tables.writeQuarantine, join(walDir, 'quarantine', 'rows.jsonl'));
  const queue = (engine: EngineCalls, maxPendingBytes = 64 << 20): WriteBehind =>
    new WriteBehind(new WriteAheadLog(walDir), engine, { tables: new Set([storage.tables.conversations]), maxPendingBytes, retryMs: 50, quarantine: quarantine() });

  it('CONV-APPEND-06: a read through the storage sees every insert acknowledged before it, and 200 concurrent inserts land in a few shared INSERTs', async () => {
    const acks = await Promise.all(Array.from({ length: 200 }, (_, i) => storage.insert(storage.tables.conversations, [turn(i)])));
    expect(acks).toHaveLength(200);
    // No explicit flush: the read itself waits for the acknowledged inserts.
    expect(await rowCounts(storage)).toEqual({ rows: 200, keys: 200 });
    const [parts] = await storage.query<{ n: string }>(
      `SELECT count() AS n FROM system.parts WHERE database = {db:String} AND table = 'conversations'`,
      { db: storage.tables.database },
    );
    expect(Number(parts!.n)).toBeLessThan(20);
    // Flushed segments are removed.
    expect(readdirSync(join(workerDataDir(), 'wal', storage.tables.database))).toEqual([]);
  });

  it('CONV-APPEND-06: after a crash, the next start stores what the log holds once: rows already flushed are not doubled, rows never flushed are not lost', async () => {
    // The "crashed" process: its engine never finishes an insert, so everything stays in the log.
    const stuck: EngineCalls = { insert: () => new Promise<void>(() => undefined), query: engineOf(storage).query };
    const crashed = queue(stuck);
    await crashed.insert(storage.tables.conversations, [turn(0)]);
    // A read forces a flush, which takes segment 1 to the engine and never comes back.
    void crashed.settled().catch(() => undefined);
    for (let i = 1; i < 30; i += 1) await crashed.insert(storage.tables.conversations, [turn(i)]);
    // Ten of them had reached the engine before the crash (flushed, segment not yet removed).
    await storage.insert(storage.tables.conversations, Array.from({ length: 10 }, (_, i) => turn(i)));
    await storage.settled();
    // A torn last line: the write that was cut off was never acknowledged.
    const segments = new WriteAheadLog(walDir).segments();
    // The rest sit in segment 2.
    expect(segments).toHaveLength(2);
    appendFileSync(segments[1]!.path, '{"table":"x","rows":[{"namesp');

    const replays: unknown[] = [];
    const restarted = new WriteBehind(new WriteAheadLog(walDir), engineOf(storage), {
      tables: new Set([storage.tables.conversations]),
      maxPendingBytes: 64 << 20,
      retryMs: 50,
      quarantine: quarantine(),
      onReplay: (e) => replays.push(e),
    });
    await restarted.ready;
    expect(replays).toEqual([{ segments: 2, rows: 30, alreadyStored: 10 }]);
    expect(await rowCounts(storage)).toEqual({ rows: 30, keys: 30 });
    expect(new WriteAheadLog(walDir).segments()).toEqual([]);
    await restarted.close();
  });

  it('rows logged for a table that no longer exists neither block the start nor vanish: their segments are set aside', async () => {
    const stuck: EngineCalls = { insert: () => new Promise<void>(() => undefined), query: engineOf(storage).query };
    const crashed = new WriteBehind(new WriteAheadLog(walDir), stuck, { tables: new Set(['gone_db.conversations']), maxPendingBytes: 64 << 20, retryMs: 50, quarantine: quarantine() });
    await crashed.insert('gone_db.conversations', [turn(1)]);
    const replays: unknown[] = [];
    const restarted = new WriteBehind(new WriteAheadLog(walDir), engineOf(storage), {
      tables: new Set(['gone_db.conversations']),
      maxPendingBytes: 64 << 20,
      retryMs: 50,
      quarantine: quarantine(),
      onReplay: (e) => replays.push(e),
    });
    await expect(restarted.ready).resolves.toBeUndefined();
    expect(replays).toEqual([{ segments: 1, rows: 0, alreadyStored: 0, absentTables: ['gone_db.conversations'] }]);
    expect(new WriteAheadLog(walDir).segments()).toEqual([]);
    expect(readdirSync(walDir).filter((f) => f.endsWith('.set-aside'))).toHaveLength(1);
    await restarted.close();
  });

  it('a failed flush makes reads answer 503 while the rows wait in the log; the retry stores each row once', async () => {
    let failures = 2;
    const real = engineOf(storage);
    const flaky: EngineCalls = {
      insert: (table, rows) => (failures-- > 0 ? Promise.reject(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })) : real.insert(table, rows)),
      query: real.query,
    };
    const wb = queue(flaky);
    await wb.insert(storage.tables.conversations, [turn(1)]);
    const read = await wb.settled().then(
      () => 'settled',
      (e: unknown) => e,
    );
    expect(read).toBeInstanceOf(LoomError);
    expect((read as LoomError).status).toBe(503);
    expect(new WriteAheadLog(walDir).segments()).toHaveLength(1);
    await wb.insert(storage.tables.conversations, [turn(2)]);
    // Reads keep answering 503 until a flush lands; the queue retries on its own.
    let settled = false;
    for (let attempt = 0; attempt < 50 && !settled; attempt += 1) settled = await wb.settled().then(() => true, () => false);
    expect(settled).toBe(true);
    expect(await rowCounts(storage)).toEqual({ rows: 2, keys: 2 });
    expect(new WriteAheadLog(walDir).segments()).toEqual([]);
    await wb.close();
  });

  it('CONV-APPEND-06 [LOOM_WRITE_BEHIND_FLUSH_MS]: acknowledged writes wait up to the flush interval for company, and a read flushes them at once', async () => {
    const real = engineOf(storage);
    let inserts = 0;
    const counting: EngineCalls = { insert: (t, rows) => ((inserts += 1), real.insert(t, rows)), query: real.query };
    const wb = new WriteBehind(new WriteAheadLog(walDir), counting, {
      tables: new Set([storage.tables.conversations]),
      maxPendingBytes: 64 << 20,
      retryMs: 50,
      flushIntervalMs: 60_000,
      quarantine: quarantine(),
    });
    for (let i = 0; i < 3; i += 1) {
      await wb.insert(storage.tables.conversations, [turn(i)]);
      await new Promise((r) => setTimeout(r, 100));
    }
    // Well past the 200 ms default: nothing has gone to the engine yet.
    expect(inserts).toBe(0);
    await wb.settled();
    expect(inserts).toBe(1);
    expect(await rowCounts(storage)).toEqual({ rows: 3, keys: 3 });
    await wb.close();
  });

  it('CONV-APPEND-06: a read of a table written directly does not wait for the flush; a read of the transcript still sees every acknowledged append', async () => {
    const database = uniqueDatabase();
    const slow = Storage.open({ database, dataDir: workerDataDir(), writeBehind: { flushIntervalMs: 60_000 } });
    try {
      await runMigrations(slow);
      const { tables } = slow;
      await slow.insert(tables.namespaces, [{ namespace: 'ns', conversation_logging_enabled: true, updated_at: '2026-12-07 12:00:00.000', version: 1 }]);
      for (let i = 0; i < 3; i += 1) await slow.insert(tables.conversations, [turn(i)]);
      const inEngine = async (): Promise<number> =>
        Number((await (await slow.client.query({ query: `SELECT count() AS n FROM ${tables.conversations}`, format: 'JSONEachRow' })).json<{ n: string }>())[0]!.n);
      // The recording switch's read answers from the engine as it is: the appends stay in the log.
      const switchRows = await slow.query<{ enabled: boolean }>(`SELECT conversation_logging_enabled AS enabled FROM ${tables.namespaces} FINAL WHERE namespace = {ns:String}`, { ns: 'ns' });
      expect(switchRows.map((r) => Boolean(r.enabled))).toEqual([true]);
      expect(await inEngine()).toBe(0);
      // A read that can see the appends flushes them first.
      const [counted] = await slow.query<{ n: string }>(`SELECT count() AS n FROM ${tables.conversations}`);
      expect(Number(counted!.n)).toBe(3);
      expect(await inEngine()).toBe(3);
    } finally {
      await slow.command(`DROP DATABASE IF EXISTS ${database}`);
      await slow.close();
      rmSync(join(workerDataDir(), 'wal', database), { recursive: true, force: true });
    }
  });

  it('CONV-APPEND-06: every view over the write-behind tables writes a table that reads wait for (append-fed tables match the migrations)', async () => {
    const views = await storage.query<{ create_table_query: string }>(
      `SELECT create_table_query FROM system.tables WHERE database = {db:String} AND engine = 'MaterializedView'`,
      { db: storage.tables.database },
    );
    expect(views.length).toBeGreaterThan(0);
    // Follow views transitively from the write-behind tables: every table reached must be one reads wait for.
    const edges = views.map((v) => ({
      target: /\bTO\s+([\w.]+)/i.exec(v.create_table_query)?.[1],
      sources: [...v.create_table_query.matchAll(/\b(?:FROM|JOIN)\s+([\w.]+)/gi)].map((m) => m[1]!),
    }));
    const fed = new Set(writeBehindTables(storage.tables));
    for (let grew = true; grew; ) {
      grew = false;
      for (const edge of edges) {
        if (edge.target && !fed.has(edge.target) && edge.sources.some((s) => fed.has(s))) {
          fed.add(edge.target);
          grew = true;
        }
      }
    }
    expect(fed.size).toBeGreaterThan(2);
    expect([...fed].sort()).toEqual([...appendFedTables(storage.tables)].sort());
  });

  it('bounds memory: past maxPendingBytes an insert waits for the flush instead of queueing more', async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((r) => (release = r));
    const real = engineOf(storage);
    let inserts = 0;
    const slow: EngineCalls = { insert: async (t, rows) => (inserts++ === 0 ? gate : Promise.resolve()).then(() => real.insert(t, rows)), query: real.query };
    const wb = queue(slow, 1);
    await wb.insert(storage.tables.conversations, [turn(1)]);
    let secondAcked = false;
    const second = wb.insert(storage.tables.conversations, [turn(2)]).then(() => (secondAcked = true));
    await new Promise((r) => setTimeout(r, 50));
    expect(secondAcked).toBe(false);
    release();
    await second;
    await wb.settled();
    expect(await rowCounts(storage)).toEqual({ rows: 2, keys: 2 });
    await wb.close();
  });
});

describe('Storage with write-behind', () => {
  it('CONV-APPEND-06: the engine stores each row as the log wrote it (one JSON per row, sent as written)', async () => {
    const storage = await openTestStorage();
    try {
      const content = 'quote " backslash \\ newline \n tab \t emoji \u{1F600} ünïcode \u2028 end';
      const row = turn(1, 2_000_001);
      row['content'] = content;
      await storage.insert(storage.tables.conversations, [row]);
      // Changed after it was acknowledged: the engine gets the logged text, which is also what a crash replays.
      row['content'] = 'changed after the append was acknowledged';
      const stored = await storage.query<{ content: string }>(`SELECT content FROM ${storage.tables.conversations} WHERE msg_id = 'm1'`);
      expect(stored).toEqual([{ content }]);
    } finally {
      await storage.drop();
    }
  });

  it('refuses an INSERT statement into a write-behind table: rows must go through Storage.insert and its log', async () => {
    const storage = await openTestStorage();
    try {
      await expect(storage.command(`INSERT INTO ${storage.tables.conversations} (namespace) VALUES ('x')`)).rejects.toThrow(/through Storage.insert/);
      await expect(storage.command(`INSERT INTO ${storage.tables.namespaces} (namespace, updated_at, version) VALUES ('x', now64(3), 1)`)).resolves.toBeUndefined();
    } finally {
      await storage.drop();
    }
  });
});
