import { fits } from './mapping-check';

describe('mapping check: which column kinds a mapped field takes', () => {
  it('TRACKER-01 [issue 13: mapping sections]: a text field takes one String per row, wrapped or not, and no Array, Map or other type that merely names String', () => {
    for (const type of ['String', 'Nullable(String)', 'LowCardinality(String)', 'LowCardinality(Nullable(String))', 'FixedString(16)']) expect([type, fits('text', type)]).toEqual([type, true]);
    for (const type of ['Array(String)', 'Map(String, String)', 'Map(String, UInt32)', 'Tuple(String, String)', 'Nullable(Array(String))', 'UInt32', "DateTime('UTC')", "Enum8('String' = 1)"]) expect([type, fits('text', type)]).toEqual([type, false]);
  });

  it('TRACKER-01 [issue 13: mapping sections]: a time field takes one Date or DateTime per row, and no Array or Map of them', () => {
    for (const type of ['Date', 'Date32', 'DateTime', "DateTime('UTC')", "DateTime64(3, 'UTC')", "Nullable(DateTime('UTC'))", 'LowCardinality(Nullable(Date))']) expect([type, fits('time', type)]).toEqual([type, true]);
    for (const type of ["Array(DateTime('UTC'))", "Map(String, DateTime('UTC'))", 'Tuple(Date, Date)', 'String', 'Nullable(String)', "Array(Nullable(DateTime64(3, 'UTC')))"]) expect([type, fits('time', type)]).toEqual([type, false]);
  });

  it('TRACKER-01 [issue 13: mapping sections]: an incident id, severity or status, and either side of a duplicate link, take one value per row, not an Array, Map or Tuple', () => {
    for (const type of ['String', 'UInt32', 'Nullable(UInt64)', 'LowCardinality(String)', "Enum8('a' = 1)", "DateTime('UTC')", 'UUID']) expect([type, fits('one', type)]).toEqual([type, true]);
    for (const type of ['Array(UInt32)', 'Map(String, String)', 'Tuple(UInt32, String)', 'Nullable(Array(String))', 'JSON', 'Nested(a UInt32)']) expect([type, fits('one', type)]).toEqual([type, false]);
  });
});
