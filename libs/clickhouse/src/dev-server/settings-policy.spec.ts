import { DevEndpointError } from './dev-errors';
import { applyStatementSettings, engineSettings, isHttpLayerParam, settingLiteral, settingValue } from './settings-policy';
import { analyzeStatement } from './sql-scan';

const apply = (sql: string, settings: Record<string, string>): string => applyStatementSettings(analyzeStatement(sql), new Map(Object.entries(settings)));

describe('settings policy', () => {
  it('drops HTTP-layer parameters and keeps engine settings', () => {
    const all = new Map([
      ['wait_end_of_query', '1'],
      ['send_progress_in_http_headers', '1'],
      ['http_headers_progress_interval_ms', '100'],
      ['enable_http_compression', '1'],
      ['default_format', 'JSON'],
      ['database', 'loom'],
      ['session_id', 's'],
      ['max_threads', '2'],
      ['date_time_input_format', 'best_effort'],
    ]);
    expect([...engineSettings(all)]).toEqual([
      ['max_threads', '2'],
      ['date_time_input_format', 'best_effort'],
    ]);
    expect(isHttpLayerParam('param_x')).toBe(true);
  });

  it('appends a SETTINGS clause to SELECT-family statements', () => {
    expect(apply('SELECT 1 \nFORMAT JSONEachRow', { max_threads: '2' })).toBe('SELECT 1 \nFORMAT JSONEachRow\nSETTINGS max_threads=2');
    expect(apply('SELECT 1 -- comment', { a: 'x' })).toBe("SELECT 1\nSETTINGS a='x'");
    expect(apply('SELECT 1 -- c\nFORMAT JSON', { a: 'x' })).toBe("SELECT 1 -- c\nFORMAT JSON\nSETTINGS a='x'");
    expect(apply('SELECT 1;', { a: '1' })).toBe('SELECT 1\nSETTINGS a=1');
    expect(apply('SHOW TABLES', { a: '1' })).toBe('SHOW TABLES\nSETTINGS a=1');
  });

  it('extends an existing SETTINGS clause after FORMAT instead of adding a second one', () => {
    expect(apply('SELECT 1 FORMAT JSON SETTINGS b=1', { a: '2' })).toBe('SELECT 1 FORMAT JSON SETTINGS b=1\n, a=2');
  });

  it('puts INSERT settings before the row source', () => {
    expect(apply('INSERT INTO t FORMAT JSONEachRow', { a: '1' })).toBe('INSERT INTO t SETTINGS a=1 FORMAT JSONEachRow');
    expect(apply('INSERT INTO t (x) SELECT 1', { a: '1' })).toBe('INSERT INTO t (x) SETTINGS a=1 SELECT 1');
    expect(apply("INSERT INTO t VALUES ('a;b')", { a: '1' })).toBe("INSERT INTO t SETTINGS a=1 VALUES ('a;b')");
    expect(apply('INSERT INTO t SETTINGS b=2 FORMAT CSV', { a: '1' })).toBe('INSERT INTO t SETTINGS a=1, b=2 FORMAT CSV');
  });

  it('refuses settings it cannot scope to the statement', () => {
    expect(() => apply('CREATE TABLE t (x UInt8) ENGINE = MergeTree ORDER BY x', { max_threads: '1' })).toThrow(DevEndpointError);
    expect(() => apply('ALTER TABLE t DELETE WHERE 1', { mutations_sync: '1' })).toThrow(/would leak into later requests/);
    expect(apply('CREATE TABLE t (x UInt8) ENGINE = Memory', {})).toBe('CREATE TABLE t (x UInt8) ENGINE = Memory');
  });

  it('refuses setting names that are not identifiers', () => {
    expect(() => apply('SELECT 1', { 'a=1, b': '2' })).toThrow(/Invalid setting name/);
  });

  it('renders values as literals', () => {
    expect(settingLiteral('42')).toBe('42');
    expect(settingLiteral('-1.5')).toBe('-1.5');
    expect(settingLiteral("it's \\")).toBe("'it\\'s \\\\'");
    expect(settingValue('7')).toBe(7);
    expect(settingValue('18446744073709551615')).toBe('18446744073709551615');
    expect(settingValue('best_effort')).toBe('best_effort');
  });
});
