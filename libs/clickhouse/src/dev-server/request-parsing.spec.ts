import { buildMultipartBody, formatQueryParams, toSearchParams } from '@clickhouse/client-common';
import { parseDevClickHouseArgs } from './dev-clickhouse.args';
import { errorBody } from './response-writing';
import { DevEndpointError } from './dev-errors';
import { chooseResponseCoding, parseMultipart, parseRequestTarget } from './request-parsing';
import { contentTypeFor, summaryHeader } from './response-writing';

describe('request parsing', () => {
  it('splits the URL the client builds into statement, params and settings', () => {
    const search = toSearchParams({
      database: 'loom',
      query: 'INSERT INTO t FORMAT JSONEachRow',
      query_id: 'q1',
      query_params: { s: "a'b" },
      clickhouse_settings: { max_threads: 2, wait_end_of_query: 1 },
    });
    const t = parseRequestTarget(`/?${search.toString()}`);
    expect(t.query).toBe('INSERT INTO t FORMAT JSONEachRow');
    expect(t.queryId).toBe('q1');
    expect([...t.params]).toEqual([['s', "a\\'b"]]);
    expect([...t.settings]).toEqual([
      ['max_threads', '2'],
      ['wait_end_of_query', '1'],
      ['database', 'loom'],
    ]);
  });

  it('parses the multipart body the client sends for long parameters', () => {
    const body = buildMultipartBody({ query: 'SELECT {s:String}', param_s: formatQueryParams({ value: 'x\r\n--y' }) }, 'BOUNDARY-1');
    const parts = parseMultipart(Buffer.from(body), 'BOUNDARY-1');
    expect(parts.map((p) => [p.name, p.value.toString()])).toEqual([
      ['query', 'SELECT {s:String}'],
      ['param_s', 'x\\r\\n--y'],
    ]);
  });

  it('compresses responses only when enable_http_compression asks for it', () => {
    expect(chooseResponseCoding('gzip', undefined)).toBeUndefined();
    expect(chooseResponseCoding('gzip', '1')).toBe('gzip');
    expect(chooseResponseCoding('identity, br;q=0.5', '1')).toBe('br');
    expect(chooseResponseCoding(undefined, '1')).toBeUndefined();
  });
});

describe('response shape', () => {
  it('renders error bodies the client parses into code and type', () => {
    expect(errorBody(new DevEndpointError(62, 'SYNTAX_ERROR', 'Multi-statements are not allowed'), '1.0').text).toBe(
      'Code: 62. DB::Exception: Multi-statements are not allowed. (SYNTAX_ERROR) (version 1.0)\n',
    );
    const nested = new Error('Code: 108. DB::Exception: Code: 108. DB::Exception: No data to insert. (NO_DATA_TO_INSERT) (version 26.7.2.1). (NO_DATA_TO_INSERT)');
    expect(errorBody(nested, '26.7.2.1')).toEqual({ code: 108, text: 'Code: 108. DB::Exception: No data to insert. (NO_DATA_TO_INSERT) (version 26.7.2.1)\n' });
    expect(errorBody(new Error('boom'), '1').text).toBe('Code: 1002. DB::Exception: boom. (UNKNOWN_EXCEPTION) (version 1)\n');
  });

  it('writes the summary header with string counters', () => {
    expect(JSON.parse(summaryHeader({ readRows: 1, readBytes: 2, writtenRows: 3, writtenBytes: 4, resultRows: 5, resultBytes: 6, elapsedSeconds: 0.5 }))).toEqual({
      read_rows: '1',
      read_bytes: '2',
      written_rows: '3',
      written_bytes: '4',
      total_rows_to_read: '0',
      result_rows: '5',
      result_bytes: '6',
      elapsed_ns: '500000000',
    });
  });

  it('maps formats to content types', () => {
    expect(contentTypeFor('JSONEachRow')).toMatch(/ndjson/);
    expect(contentTypeFor('JSON')).toMatch(/application\/json/);
    expect(contentTypeFor('TabSeparated')).toMatch(/tab-separated/);
    expect(contentTypeFor('RowBinary')).toBe('application/octet-stream');
  });
});

describe('parseDevClickHouseArgs', () => {
  it('parses both flag forms and validates', () => {
    expect(parseDevClickHouseArgs(['--data-dir', '/d', '--port=8123'])).toEqual({ dataDir: '/d', port: 8123 });
    expect(parseDevClickHouseArgs(['--data-dir=/d', '--host', '0.0.0.0'])).toEqual({ dataDir: '/d', port: 0, host: '0.0.0.0' });
    expect(() => parseDevClickHouseArgs(['--port', '1'])).toThrow(/--data-dir/);
    expect(() => parseDevClickHouseArgs(['--data-dir', '/d', '--port', 'x'])).toThrow(/invalid --port/);
    expect(() => parseDevClickHouseArgs(['--data-dir', '/d', '--bogus', '1'])).toThrow(/unknown option/);
  });
});
