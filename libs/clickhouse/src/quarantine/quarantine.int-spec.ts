import { mkdtempSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openTestStorage, transcriptRow, uniqueDatabase, workerDataDir } from '../../../testing/src/storage.harness';
import { runMigrations } from '../migrations.runner';
import { Storage } from '../storage';
import { WriteAheadLog } from '../write-behind/write-ahead-log';
import { WriteBehind, type EngineCalls } from '../write-behind/write-behind';
import { classifyInsertFailure } from './insert-failures';
import { WriteQuarantine, type QuarantinedEvent } from './write-quarantine';

const good = (i: number): Record<string, unknown> => transcriptRow(i, 2_000_000 + i);
/** Rows the engine refuses, as a careless client could once send them (validation now refuses them first). */
const poison = {
  tokens: (i: number) => transcriptRow(i, 2_000_000 + i, { tokens: 1e21 }),
  content: (i: number) => transcriptRow(i, 2_000_000 + i, { content: 'half a pair \ud800 here' }),
  msgId: (i: number) => transcriptRow(i, 2_000_000 + i, { msg_id: `m${i}\ud800` }),
};

function engineOf(storage: Storage): EngineCalls {
  return {
    insert: (table, rows) => storage.client.insert({ table, values: rows, format: 'JSONEachRow' }).then(() => undefined),
    query: async <T>(sql: string, params: Record<string, unknown>) => (await storage.client.query({ query: sql, query_params: params, format: 'JSONEachRow' })).json<T>(),
  };
}

async function stored(storage: Storage): Promise<{ rows: number; keys: number; ids: string[] }> {
  const rows = await storage.query<{ msg_id: string }>(`SELECT msg_id FROM ${storage.tables.conversations} ORDER BY msg_id`);
  return { rows: rows.length, keys: new Set(rows.map((r) => r.msg_id)).size, ids: rows.map((r) => r.msg_id) };
}

const refused = Object.assign(new Error('Cannot parse input'), { code: '27', type: 'CANNOT_PARSE_INPUT_ASSERTION_FAILED' });
const down = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:8123'), { code: 'ECONNREFUSED' });

describe('poison rows in the write path: bisect, store the good rows, quarantine the refused ones', () => {
  let storage: Storage & { drop(): Promise<void> };
  let walDir: string;
  let events: QuarantinedEvent[];
  const quarantine = (table = storage.tables.writeQuarantine): WriteQuarantine =>
    new WriteQuarantine(engineOf(storage), table, join(walDir, 'quarantine', 'rows.jsonl'), (e) => events.push(e));
  const queue = (engine: EngineCalls, extra: { onReplay?: (e: unknown) => void; quarantine?: WriteQuarantine } = {}): WriteBehind =>
    new WriteBehind(new WriteAheadLog(walDir), engine, {
      tables: new Set([storage.tables.conversations]),
      maxPendingBytes: 64 << 20,
      retryMs: 50,
      quarantine: extra.quarantine ?? quarantine(),
      ...(extra.onReplay ? { onReplay: extra.onReplay } : {}),
    });

  beforeEach(async () => {
    storage = await openTestStorage();
    walDir = mkdtempSync(join(tmpdir(), 'loom-wal-'));
    events = [];
  });
  afterEach(async () => {
    await storage.drop();
    rmSync(walDir, { recursive: true, force: true });
  });

  it('the engine\'s own refusals are a row\'s fault; connection errors, timeouts, a full disk and errors without a code are the engine being down', () => {
    expect(classifyInsertFailure(refused)).toBe('rows_refused');
    expect(classifyInsertFailure(Object.assign(new Error('x'), { code: '70' }))).toBe('rows_refused');
    expect(classifyInsertFailure(down)).toBe('engine_down');
    expect(classifyInsertFailure(Object.assign(new Error('x'), { code: '243', type: 'NOT_ENOUGH_SPACE' }))).toBe('engine_down');
    expect(classifyInsertFailure(Object.assign(new Error('x'), { code: '159', type: 'TIMEOUT_EXCEEDED' }))).toBe('engine_down');
    expect(classifyInsertFailure(new Error('no code at all'))).toBe('engine_down');
  });

  it('CONV-APPEND-06 [issue 9: poison row]: a flush holding three poison rows among 60 good ones stores every good row once and quarantines the three, with the engine\'s error and their keys', async () => {
    const inserts: number[] = [];
    const real = engineOf(storage);
    const counting: EngineCalls = { insert: (t, rows) => (inserts.push(rows.length), real.insert(t, rows)), query: real.query };
    const wb = queue(counting);
    const rows = Array.from({ length: 60 }, (_, i) => good(i));
    rows.splice(7, 0, poison.tokens(100));
    rows.splice(30, 0, poison.content(101));
    rows.splice(55, 0, poison.msgId(102));
    await Promise.all(rows.map((r) => wb.insert(storage.tables.conversations, [r])));
    await wb.settled();
    expect(await stored(storage)).toMatchObject({ rows: 60, keys: 60 });
    expect((await stored(storage)).ids).not.toContain('m100');
    // One insert for the batch, then about 2·log2(n) per poison row: never one per row.
    expect(inserts[0]).toBe(63);
    expect(inserts.length).toBeLessThan(40);
    const listed = await quarantine().list();
    expect(listed.map((r) => JSON.parse(r.row_key) as Record<string, unknown>).map((k) => k['msg_id']).sort()).toEqual(['m100', 'm101', 'm102\ud800']);
    expect(listed.every((r) => r.table_name === storage.tables.conversations && r.error.length > 0 && r.attempts === 1)).toBe(true);
    expect(listed.find((r) => r.row_key.includes('m100'))!.error).toMatch(/parse/i);
    // The key names the row; its text stays out of logs.
    expect(events.map((e) => e.key).join(' ')).not.toContain('half a pair');
    expect(events.map((e) => e.to)).toEqual(['table', 'table', 'table']);
    // The quarantined row is kept whole, lone surrogate included.
    expect((JSON.parse(listed.find((r) => r.row_key.includes('m101'))!.row_json) as { content: string }).content).toBe('half a pair \ud800 here');
    expect(new WriteAheadLog(walDir).segments()).toEqual([]);
    await wb.close();
  });

  it('CONV-APPEND-06 [issue 9: engine down]: while the engine is down nothing is quarantined, reads answer 503, failureReason says why, and the retry stores every row once', async () => {
    let failing = true;
    const real = engineOf(storage);
    const flaky: EngineCalls = { insert: (t, rows) => (failing ? Promise.reject(down) : real.insert(t, rows)), query: real.query };
    const wb = queue(flaky);
    for (let i = 0; i < 5; i += 1) await wb.insert(storage.tables.conversations, [good(i)]);
    await expect(wb.settled()).rejects.toMatchObject({ status: 503 });
    expect(wb.failureReason()).toMatch(/ECONNREFUSED/);
    expect(events).toEqual([]);
    failing = false;
    let settled = false;
    for (let attempt = 0; attempt < 50 && !settled; attempt += 1) settled = await wb.settled().then(() => true, () => false);
    expect(settled).toBe(true);
    expect(wb.failureReason()).toBeUndefined();
    expect(await stored(storage)).toMatchObject({ rows: 5, keys: 5 });
    expect(await quarantine().list()).toEqual([]);
    await wb.close();
  });

  it('CONV-APPEND-06 [issue 9: poison row]: the engine going down in the middle of a bisect loses and doubles nothing: the rows not yet handled wait for the retry', async () => {
    const real = engineOf(storage);
    let calls = 0;
    // The batch is refused (a poison row), the first half lands, then the engine goes away for a while.
    const dying: EngineCalls = {
      insert: (t, rows) => {
        calls += 1;
        if (calls >= 3 && calls <= 5) return Promise.reject(down);
        return real.insert(t, rows);
      },
      query: real.query,
    };
    const wb = queue(dying);
    const rows = Array.from({ length: 20 }, (_, i) => good(i));
    rows.push(poison.tokens(100));
    await Promise.all(rows.map((r) => wb.insert(storage.tables.conversations, [r])));
    let settled = false;
    for (let attempt = 0; attempt < 50 && !settled; attempt += 1) settled = await wb.settled().then(() => true, () => false);
    expect(settled).toBe(true);
    expect(await stored(storage)).toMatchObject({ rows: 20, keys: 20 });
    expect((await quarantine().list()).map((r) => r.row_key)).toEqual([expect.stringContaining('m100')]);
    await wb.close();
  });

  it('CONV-APPEND-06 [issue 9: replay]: a write-ahead log holding a poison row replays at start without failing: the good rows are stored, the poison row quarantined', async () => {
    // The "crashed" process: its engine never finishes an insert, so everything stays in the log.
    const stuck: EngineCalls = { insert: () => new Promise<void>(() => undefined), query: engineOf(storage).query };
    const crashed = queue(stuck);
    for (let i = 0; i < 10; i += 1) await crashed.insert(storage.tables.conversations, [good(i)]);
    await crashed.insert(storage.tables.conversations, [poison.content(100)]);
    await crashed.insert(storage.tables.conversations, [good(10)]);
    expect(new WriteAheadLog(walDir).segments()).toHaveLength(1);

    const replays: unknown[] = [];
    const restarted = queue(engineOf(storage), { onReplay: (e) => replays.push(e) });
    await expect(restarted.ready).resolves.toBeUndefined();
    expect(replays).toEqual([{ segments: 1, rows: 12, alreadyStored: 0, quarantined: 1 }]);
    expect(await stored(storage)).toMatchObject({ rows: 11, keys: 11 });
    expect(await quarantine().list()).toHaveLength(1);
    expect(new WriteAheadLog(walDir).segments()).toEqual([]);
    await restarted.close();
  });

  it('[issue 9: quarantine file]: when the quarantine table cannot take a row (it does not exist yet: replay runs before migrations), the row goes to a file that the next listing moves into the table', async () => {
    const early = quarantine(`${storage.tables.database}.no_such_table`);
    const wb = queue(engineOf(storage), { quarantine: early });
    await wb.insert(storage.tables.conversations, [poison.msgId(1), good(2)]);
    await wb.settled();
    expect(events.map((e) => e.to)).toEqual(['file']);
    const file = join(walDir, 'quarantine', 'rows.jsonl');
    expect(readFileSync(file, 'utf8')).toContain('"table_name"');
    const listed = await quarantine().list();
    expect(listed.map((r) => r.row_key)).toEqual([expect.stringContaining('"msg_id":"m1\\ud800"')]);
    expect(existsSync(file)).toBe(false);
    expect(await stored(storage)).toMatchObject({ rows: 1 });
    await wb.close();
  });

  it('[issue 9: quarantine retry/drop]: a retry the engine refuses again keeps the row with one more attempt; a retry it takes stores the row and removes it; drop removes without storing', async () => {
    await storage.insert(storage.tables.conversations, [poison.tokens(1), poison.content(2), good(3)]);
    await storage.settled();
    const listed = await storage.quarantine.list();
    expect(listed).toHaveLength(2);
    const tokens = listed.find((r) => r.key.includes('"m1"'))!;
    const content = listed.find((r) => r.key.includes('"m2"'))!;
    expect(await storage.quarantine.retry([tokens.id, 'f'.repeat(32)])).toEqual([
      { id: tokens.id, outcome: 'refused', error: expect.stringMatching(/parse/i) },
      { id: 'f'.repeat(32), outcome: 'not_found' },
    ]);
    expect((await storage.quarantine.list()).find((r) => r.id === tokens.id)!.attempts).toBe(2);
    // The operator fixes the cause (here: the column takes the value now) and retries.
    await storage.command(`ALTER TABLE ${storage.tables.conversations} MODIFY COLUMN tokens Nullable(Float64)`);
    expect(await storage.quarantine.retry([tokens.id])).toEqual([{ id: tokens.id, outcome: 'stored' }]);
    expect(await storage.quarantine.drop([content.id])).toEqual([{ id: content.id, outcome: 'dropped' }]);
    expect(await storage.quarantine.list()).toEqual([]);
    expect((await stored(storage)).ids).toEqual(['m1', 'm3']);
  });

  it('[issue 9: poison row] without a write-behind (the path a ClickHouse server takes), a batched insert holding a poison row stores the good rows and quarantines the poison row', async () => {
    const direct = Storage.open({ database: uniqueDatabase(), dataDir: workerDataDir(), writeBehind: { enabled: false }, onQuarantine: (e) => events.push(e) });
    try {
      await runMigrations(direct);
      await direct.insert(direct.tables.conversations, [good(1), poison.content(2), good(3), poison.tokens(4), good(5)]);
      expect((await stored(direct)).ids).toEqual(['m1', 'm3', 'm5']);
      expect(events.map((e) => JSON.parse(e.key).msg_id).sort()).toEqual(['m2', 'm4']);
      expect((await direct.quarantine.list()).map((r) => r.table)).toEqual([direct.tables.conversations, direct.tables.conversations]);
      expect(direct.writeFailure()).toBeUndefined();
      // Outside the append path, a refused insert is the caller's error, as before.
      await expect(direct.insert(direct.tables.namespaces, [{ namespace: 'x', updated_at: '2026-11-29 12:00:00.000', version: 1e21 }])).rejects.toThrow(/parse/i);
    } finally {
      await direct.command(`DROP DATABASE IF EXISTS ${direct.tables.database}`);
      await direct.close();
    }
  });

  it('CONV-EMBED-07 [issue 9: wordless turn] the embeddings table takes a zero vector: its Int8 copy is all zeros instead of a division by a zero scale', async () => {
    const row = {
      namespace: 'ns', thread_id: 't', msg_id: 'zero', agent: 'default', role: 'user', run_id: '', user_id: '', ts: '2026-11-29 12:00:00.000000',
      text: '?', model: 'hashed-v1-4', embedding: [0, 0, 0, 0], embed_error: '', created_at: '2026-11-29 12:00:00.000', version: 1,
    };
    await storage.client.insert({ table: storage.tables.conversationEmbeddings, values: [row, { ...row, msg_id: 'unit', embedding: [0.6, -0.8, 0, 0] }], format: 'JSONEachRow' });
    const rows = await storage.query<{ msg_id: string; embedding_q8: number[]; embedding_scale: number }>(
      `SELECT msg_id, embedding_q8, embedding_scale FROM ${storage.tables.conversationEmbeddings} ORDER BY msg_id`,
    );
    expect(rows).toEqual([
      { msg_id: 'unit', embedding_q8: [95, -127, 0, 0], embedding_scale: expect.closeTo(0.8 / 127, 6) },
      { msg_id: 'zero', embedding_q8: [0, 0, 0, 0], embedding_scale: 0 },
    ]);
  });
});
