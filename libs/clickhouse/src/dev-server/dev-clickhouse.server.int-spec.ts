import { ClickHouseError, ClickHouseLogLevel, createClient, type ClickHouseClient, type ClickHouseClientConfigOptions } from '@clickhouse/client';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { startDevClickHouseChild, type DevClickHouseChild } from './dev-clickhouse.child';
import { DEV_ENDPOINT_NOTICE } from './notice';

// The endpoint runs in a child process: chDB binds one data directory per process, and this jest
// worker may already hold one for another test file. Everything is exercised through the real
// @clickhouse/client in HTTP mode, exactly as Loom's services would use a ClickHouse server.

const DB = 'dev_endpoint_it';

// Failed requests are expected here; the client would log each of them at ERROR level.
const quiet = (options: ClickHouseClientConfigOptions): ClickHouseClient => createClient({ ...options, log: { level: ClickHouseLogLevel.OFF } });

interface Row {
  id: string;
  text: string;
  vec: number[];
  note: string | null;
  at: string;
}

const ROWS: Row[] = [
  { id: '1', text: `it's "quoted" \\ back\\slash`, vec: [0.5, -1.25, 3], note: null, at: '2024-05-06 07:08:09.123' },
  { id: '2', text: 'line one\nline two\ttabbed\r\n', vec: [], note: 'present', at: '1999-12-31 23:59:59.999' },
  { id: '3', text: 'ünïcødé — 日本語 — 😀', vec: [0.25, 65504, 1e-3], note: '', at: '2030-01-01 00:00:00.000' },
  { id: '18446744073709551615', text: '', vec: [0.75, 2, 4], note: "semi;colon 'x'", at: '2024-01-01 00:00:00.001' },
];

async function expectClickHouseError(p: Promise<unknown>, code: string, type: string): Promise<ClickHouseError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ClickHouseError);
  const ch = err as ClickHouseError;
  expect({ code: ch.code, type: ch.type }).toEqual({ code, type });
  return ch;
}

describe('development ClickHouse endpoint (chDB over HTTP, child process)', () => {
  let dataDir: string;
  let server: DevClickHouseChild;
  let client: ClickHouseClient;
  const logLines: Record<string, unknown>[] = [];

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'loom-dev-ch-'));
    server = await startDevClickHouseChild({ dataDir, onLine: (l) => logLines.push(l) });
    client = quiet({ url: server.url });
    await client.command({ query: `CREATE DATABASE IF NOT EXISTS ${DB}` });
    await client.command({
      query: `CREATE TABLE ${DB}.docs (id UInt64, text String, vec Array(Float32), note Nullable(String), at DateTime64(3, 'UTC'))
              ENGINE = MergeTree ORDER BY id`,
    });
    await client.insert({ table: `${DB}.docs`, values: ROWS, format: 'JSONEachRow' });
  });

  afterAll(async () => {
    await client?.close();
    const status = await server?.stop();
    // A clean close (in-flight work drained, chDB session released) ends with exit code 0.
    expect(status).toEqual({ code: 0, signal: null });
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('announces itself as a development tool on start', () => {
    expect(server.process.ready).toMatchObject({ msg: DEV_ENDPOINT_NOTICE, url: server.url, dataDir });
  });

  it('answers ping in both forms', async () => {
    expect(await client.ping()).toEqual({ success: true });
    expect(await client.ping({ select: true })).toEqual({ success: true });
  });

  it('returns inserted rows unchanged in JSONEachRow', async () => {
    // UInt64 beyond 2^53 only survives as text; Float32 comes back in its shortest decimal form.
    const rs = await client.query({ query: `SELECT toString(id) AS id_text, text, vec, note, at FROM ${DB}.docs ORDER BY id`, format: 'JSONEachRow' });
    const rows = (await rs.json<Omit<Row, 'id'> & { id_text: string }>()).map(({ id_text, ...rest }) => ({ id: id_text, ...rest }));
    expect(rows).toEqual([...ROWS].sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1)));
    expect(rs.response_headers['x-clickhouse-format']).toBe('JSONEachRow');
    expect(rs.response_headers['x-clickhouse-timezone']).toEqual(expect.any(String));
    expect(rs.query_id).toEqual(expect.any(String));
  });

  it('returns the JSON format document with meta and data', async () => {
    const rs = await client.query({ query: `SELECT id, note FROM ${DB}.docs WHERE id < 3 ORDER BY id`, format: 'JSON' });
    const doc = await rs.json<{ id: string | number; note: string | null }>();
    expect(doc.meta).toEqual([
      { name: 'id', type: 'UInt64' },
      { name: 'note', type: 'Nullable(String)' },
    ]);
    expect(doc.data.map((r) => [String(r.id), r.note])).toEqual([
      ['1', null],
      ['2', 'present'],
    ]);
    expect(doc.rows).toBe(2);
  });

  it('binds String, UInt64, Array(String) and Array(Float32) query parameters', async () => {
    const text = ROWS[0]!.text;
    const rs = await client.query({
      query: `SELECT id, {s:String} AS s, {arr:Array(String)} AS arr, {v:Array(Float32)} AS v, {big:UInt64} AS big
              FROM ${DB}.docs WHERE text = {s:String} AND id = {id:UInt64}`,
      format: 'JSONEachRow',
      query_params: { s: text, id: 1, arr: ["a'b", 'c\\d', 'e\nf', '\\N', ''], v: [0.5, -2], big: '18446744073709551615' },
    });
    expect(await rs.json()).toEqual([{ id: 1, s: text, arr: ["a'b", 'c\\d', 'e\nf', '\\N', ''], v: [0.5, -2], big: expect.anything() }]);

    const byVec = await client.query({
      query: `SELECT toString(id) FROM ${DB}.docs WHERE length(vec) = 3 ORDER BY L2Distance(vec, {q:Array(Float32)}) ASC LIMIT 1`,
      format: 'JSONCompactEachRow',
      query_params: { q: [0.75, 2, 3.9] },
    });
    expect(await byVec.json()).toEqual([['18446744073709551615']]);

    const inList = await client.query({
      query: `SELECT count() AS n FROM ${DB}.docs WHERE text IN {texts:Array(String)}`,
      format: 'JSONEachRow',
      query_params: { texts: ROWS.map((r) => r.text) },
    });
    expect(await inList.json()).toEqual([{ n: ROWS.length }]);
  });

  it('accepts parameters sent as multipart/form-data', async () => {
    const long = 'x'.repeat(10_000) + "'\\";
    const mp = quiet({ url: server.url, use_multipart_params: true });
    try {
      const rs = await mp.query({ query: 'SELECT length({s:String}) AS n, {s:String} = {t:String} AS same', format: 'JSONEachRow', query_params: { s: long, t: long } });
      expect(await rs.json()).toEqual([{ n: long.length, same: 1 }]);
    } finally {
      await mp.close();
    }
  });

  it('surfaces a syntax error as ClickHouseError 62 SYNTAX_ERROR', async () => {
    const err = await expectClickHouseError(client.query({ query: 'SELEC 1', format: 'JSONEachRow' }), '62', 'SYNTAX_ERROR');
    expect(err.message).toMatch(/Syntax error/);
  });

  it('surfaces a missing table as ClickHouseError 60 UNKNOWN_TABLE', async () => {
    await expectClickHouseError(client.query({ query: `SELECT * FROM ${DB}.no_such_table`, format: 'JSONEachRow' }), '60', 'UNKNOWN_TABLE');
    await expectClickHouseError(client.insert({ table: `${DB}.no_such_table`, values: [{ a: 1 }], format: 'JSONEachRow' }), '60', 'UNKNOWN_TABLE');
  });

  it('refuses multi-statement requests, as the ClickHouse HTTP interface does', async () => {
    await expectClickHouseError(client.command({ query: `SELECT 1; DROP TABLE ${DB}.docs` }), '62', 'SYNTAX_ERROR');
    const rs = await client.query({ query: `SELECT count() AS n FROM ${DB}.docs`, format: 'JSONEachRow' });
    expect(await rs.json()).toEqual([{ n: ROWS.length }]);
  });

  it('scopes settings to their own request: nothing leaks into the next one', async () => {
    const probe = async (settings?: Record<string, number>): Promise<unknown> => {
      const rs = await client.query({
        query: "SELECT getSetting('max_block_size') AS mbs, getSetting('max_threads') AS mt",
        format: 'JSONEachRow',
        clickhouse_settings: settings,
      });
      return (await rs.json())[0];
    };
    const before = await probe();
    expect(await probe({ max_block_size: 1234, max_threads: 3 })).toEqual({ mbs: 1234, mt: 3 });
    expect(await probe()).toEqual(before);

    // Insert settings are scoped to the insert as well.
    await client.insert({
      table: `${DB}.docs`,
      values: [{ id: 100, text: 'extra', vec: [], note: null, at: '2024-01-01 00:00:00.000', unknown_column: 1 }],
      format: 'JSONEachRow',
      clickhouse_settings: { input_format_skip_unknown_fields: 1, max_block_size: '4321' },
    });
    expect(await probe()).toEqual(before);

    // A SET statement cannot leak either (without a session it only ever affected its own request).
    await client.command({ query: 'SET max_block_size = 777' });
    expect(await probe()).toEqual(before);

    // A setting that has no per-statement slot is refused rather than applied session-wide.
    await expectClickHouseError(
      client.command({ query: `CREATE TABLE ${DB}.refused (x UInt8) ENGINE = Memory`, clickhouse_settings: { max_block_size: '99' } }),
      '48',
      'NOT_IMPLEMENTED',
    );
    expect(await probe()).toEqual(before);
    await client.command({ query: `DELETE FROM ${DB}.docs WHERE id = 100` });
  });

  it('runs 200 concurrent small queries', async () => {
    const results = await Promise.all(
      Array.from({ length: 200 }, async (_, i) => {
        const rs = await client.query({
          query: i % 2 === 0 ? 'SELECT {i:UInt32} AS i' : `SELECT ${i} AS i`,
          format: 'JSONEachRow',
          query_params: i % 2 === 0 ? { i } : undefined,
        });
        return ((await rs.json()) as Array<{ i: number }>)[0]!.i;
      }),
    );
    expect(results).toEqual(Array.from({ length: 200 }, (_, i) => i));
  });

  it('streams a 20 MB result', async () => {
    const rs = await client.query({
      query: "SELECT number AS n, repeat('x', 200) AS pad FROM numbers(100000)",
      format: 'JSONEachRow',
    });
    let rows = 0;
    let sum = 0;
    let bytes = 0;
    for await (const batch of rs.stream<{ n: number; pad: string }>()) {
      for (const row of batch) {
        const r = row.json();
        rows++;
        sum += r.n;
        bytes += row.text.length + 1;
      }
    }
    expect(rows).toBe(100000);
    expect(sum).toBe((100000 * 99999) / 2);
    expect(bytes).toBeGreaterThan(20_000_000);
  });

  it('supports exec and command', async () => {
    const ex = await client.exec({ query: `SELECT count() FROM ${DB}.docs FORMAT TabSeparated` });
    const chunks: Buffer[] = [];
    for await (const c of ex.stream) chunks.push(c as Buffer);
    expect(Buffer.concat(chunks).toString()).toBe(`${ROWS.length}\n`);

    const cmd = await client.command({ query: `ALTER TABLE ${DB}.docs UPDATE note = 'updated' WHERE id = 2 SETTINGS mutations_sync = 1` });
    expect(cmd.query_id).toEqual(expect.any(String));
    const rs = await client.query({ query: `SELECT note FROM ${DB}.docs WHERE id = 2`, format: 'JSONEachRow' });
    expect(await rs.json()).toEqual([{ note: 'updated' }]);
  });

  it('inserts into a column subset and with a column exclusion', async () => {
    await client.insert({ table: `${DB}.docs`, values: [{ id: 300, text: 'subset' }], format: 'JSONEachRow', columns: ['id', 'text'] });
    await client.insert({
      table: `${DB}.docs`,
      values: [{ id: 301, text: 'except', vec: [1], at: '2024-01-01 00:00:00.000' }],
      format: 'JSONEachRow',
      columns: { except: ['note'] },
    });
    const rs = await client.query({ query: `SELECT id, text, vec, note FROM ${DB}.docs WHERE id IN (300, 301) ORDER BY id`, format: 'JSONEachRow' });
    expect(await rs.json()).toEqual([
      { id: 300, text: 'subset', vec: [], note: null },
      { id: 301, text: 'except', vec: [1], note: null },
    ]);
    await client.command({ query: `DELETE FROM ${DB}.docs WHERE id IN (300, 301)` });
  });

  it('treats an empty insert as inserting nothing', async () => {
    await client.insert({ table: `${DB}.docs`, values: [], format: 'JSONEachRow' });
    await client.exec({ query: `INSERT INTO ${DB}.docs FORMAT JSONEachRow`, values: Buffer.alloc(0) as never });
  });

  it('works with gzip compression of requests and responses', async () => {
    const gz = quiet({ url: server.url, compression: { request: true, response: true } });
    try {
      await gz.insert({
        table: `${DB}.docs`,
        values: [{ id: 200, text: 'gzipped ü', vec: [1], note: null, at: '2024-01-01 00:00:00.000' }],
        format: 'JSONEachRow',
      });
      const rs = await gz.query({ query: `SELECT text FROM ${DB}.docs WHERE id = 200`, format: 'JSONEachRow' });
      expect(rs.response_headers['content-encoding']).toBe('gzip');
      expect(await rs.json()).toEqual([{ text: 'gzipped ü' }]);
      await gz.command({ query: `DELETE FROM ${DB}.docs WHERE id = 200` });
    } finally {
      await gz.close();
    }
  });

  it('answers unknown paths with 404 and logs failures as JSON lines', async () => {
    const status = await new Promise<number | undefined>((resolve, reject) => {
      http.get(`${server.url}/nope`, (res) => {
        res.resume();
        resolve(res.statusCode);
      }).on('error', reject);
    });
    expect(status).toBe(404);
    expect(logLines.some((l) => l['msg'] === 'query failed' && l['code'] === 62)).toBe(true);
  });
});

describe('development ClickHouse endpoint shutdown', () => {
  it('finishes in-flight queries on SIGTERM, then releases the data directory and exits 0', async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'loom-dev-ch-close-'));
    try {
      const server = await startDevClickHouseChild({ dataDir });
      const client = quiet({ url: server.url });
      try {
        const slow = client.query({ query: 'SELECT sum(sleepEachRow(0.3)) AS s FROM numbers(3)', format: 'JSONEachRow' }).then((rs) => rs.json());
        await new Promise((r) => setTimeout(r, 150));
        const stopping = server.stop();
        expect(await slow).toEqual([{ s: 0 }]);
        expect(await stopping).toEqual({ code: 0, signal: null });
        expect(server.process.lines.map((l) => l['msg'])).toEqual(
          expect.arrayContaining(['closing development ClickHouse endpoint', 'development ClickHouse endpoint closed']),
        );
      } finally {
        await client.close();
      }
      // The directory is free again: a new endpoint can open it and sees the same engine state.
      const again = await startDevClickHouseChild({ dataDir });
      expect(await (await fetch(`${again.url}/ping`)).text()).toBe('Ok.\n');
      expect(await again.stop()).toEqual({ code: 0, signal: null });
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
