import { formatQueryParams, TupleParam } from '@clickhouse/client-common';
import { isCompositeType, requoteCompositeLiteral, toChdbBindValue, unescapeTsv } from './query-params';

// chDB re-escapes a string bind value the way its serializer does; this mirrors it so these tests
// can check "what the engine finally reads" without loading chDB.
function chdbTsvEscape(s: string): string {
  const map: Record<string, string> = { '\\': '\\\\', '\0': '\\0', '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t' };
  return [...s].map((c) => map[c] ?? c).join('');
}

describe('query parameter re-encoding', () => {
  it('classifies composite types through Nullable/LowCardinality wrappers', () => {
    expect(isCompositeType('Array(String)')).toBe(true);
    expect(isCompositeType(' Map(String, UInt8)')).toBe(true);
    expect(isCompositeType('Tuple(a String)')).toBe(true);
    expect(isCompositeType('LowCardinality(Nullable(String))')).toBe(false);
    expect(isCompositeType('String')).toBe(false);
    expect(isCompositeType(undefined)).toBe(false);
  });

  it('undoes the client escaping of scalar strings so chDB escapes only once', () => {
    const value = "it's a \\ back\nslash\ttab\r \\N 😀";
    const wire = formatQueryParams({ value });
    const bound = toChdbBindValue(wire, 'String');
    expect(bound).toBe(value);
    expect(chdbTsvEscape(bound!)).not.toContain("\\'");
  });

  it('maps the TSV null marker to null', () => {
    expect(toChdbBindValue(formatQueryParams({ value: null }), 'Nullable(String)')).toBeNull();
    // The *string* "\N" is escaped by the client and must stay a string.
    expect(toChdbBindValue(formatQueryParams({ value: '\\N' }), 'String')).toBe('\\N');
  });

  it('leaves numbers, dates and backslash-free composites untouched', () => {
    expect(toChdbBindValue('42', 'UInt64')).toBe('42');
    expect(toChdbBindValue('[0.5,-1.25,3]', 'Array(Float32)')).toBe('[0.5,-1.25,3]');
    expect(toChdbBindValue(formatQueryParams({ value: new Date(1700000000123) }), 'DateTime64(3)')).toBe('1700000000.123');
  });

  it('rewrites composite literals to quote-doubling so no escape is doubled', () => {
    const wire = formatQueryParams({ value: ["a'b", 'c\\d', 'e\nf', '\\N', ''] });
    expect(wire).toBe("['a\\'b','c\\\\d','e\\nf','\\\\N','']");
    const bound = requoteCompositeLiteral(wire);
    expect(bound).toBe("['a''b','c\\d','e\nf','\\N','']");
    // After chDB's escaping, every quoted string reads back to the original value.
    expect(chdbTsvEscape(bound)).toBe("['a''b','c\\\\d','e\\nf','\\\\N','']");
  });

  it('handles tuples, maps and nested arrays', () => {
    expect(requoteCompositeLiteral(formatQueryParams({ value: new TupleParam([1, "x'y\\", null]) }))).toBe("(1,'x''y\\',NULL)");
    expect(requoteCompositeLiteral(formatQueryParams({ value: new Map([["k'", 'v\\']]) }))).toBe("{'k''':'v\\'}");
    expect(requoteCompositeLiteral(formatQueryParams({ value: [["a'"], []] }))).toBe("[['a'''],[]]");
  });

  it('reads escapes like ClickHouse: known ones map, others stand for themselves', () => {
    expect(unescapeTsv('a\\tb\\nc\\\\d\\\'e\\qf\\x41')).toBe("a\tb\nc\\d'eqfA");
    expect(unescapeTsv('trailing\\')).toBe('trailing\\');
  });
});
