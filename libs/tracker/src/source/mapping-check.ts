import type { FieldError, TrackerMapping } from '@loom/contracts';
import type { SourceReader } from './source-client';

export type Kind = 'any' | 'one' | 'text' | 'time' | 'link' | 'name';

/** What each mapped column must be, per section of the mapping. `table` and value lists are not columns. */
const COLUMNS: Record<keyof TrackerMapping, Record<string, Kind>> = {
  issues: { id: 'any', title: 'text', body: 'text', created_at: 'time', state: 'any', closed_at: 'time', duplicate_of: 'any' },
  pr_links: { issue: 'any', pr: 'any' },
  pull_requests: { number: 'any', body: 'text', title: 'text', merged_at: 'time' },
  commits: { sha: 'any', message: 'text', committed_at: 'time' },
  ci_runs: { test: 'any', commit: 'any', status: 'any', run_at: 'time' },
  // An issue id, a severity or a status is one value per row: an Array or Map reads as "[]" or "{}".
  duplicate_links: { issue: 'one', duplicate_of: 'one', linked_at: 'time' },
  // A link column holds one value, a list in text, or an Array of values.
  incidents: {
    id: 'one', title: 'text', started_at: 'time', resolved_at: 'time', severity: 'one', status: 'one', summary: 'text',
    caused_by_pr: 'link', caused_by_commit: 'link', fixed_by_pr: 'link', fixed_by_commit: 'link', repo: 'name',
  },
};

const NEEDS: Record<Kind, string> = {
  any: 'any column',
  one: 'a column of one value per row (a number, text or time), not an Array, Map or Tuple',
  text: 'a String column',
  time: 'a Date or DateTime column',
  link: 'a column of one value (a number or text) or an Array of them',
  name: 'a String column of one value (not an Array)',
};

/** The type a column's values have, without its Nullable and LowCardinality wrappers. */
function valueType(type: string): string {
  let t = type.trim();
  for (let m = /^(?:Nullable|LowCardinality)\((.*)\)$/.exec(t); m; m = /^(?:Nullable|LowCardinality)\((.*)\)$/.exec(t)) t = m[1]!.trim();
  return t;
}

/**
 * Whether a column of this type can be read as `kind`. A text or time field takes one value per
 * row: `Array(String)`, `Map(String, DateTime)` and the like name String or Date but are no text
 * or time. A repository name (`name`) is text too.
 */
export function fits(kind: Kind, type: string): boolean {
  if (kind === 'text') return /^(?:String|FixedString\(\d+\))$/.test(valueType(type));
  if (kind === 'time') return /^(?:Date|Date32|DateTime(?:\(.*\))?|DateTime64\(.*\))$/.test(valueType(type));
  if (kind === 'name') return fits('text', type);
  if (kind === 'one') return !/^(?:Array|Map|Tuple|Nested|Object|JSON|Variant|Dynamic|AggregateFunction|SimpleAggregateFunction)\b/.test(valueType(type));
  if (kind === 'link') return !/Map\(|Tuple\(|Nested\(|Array\(.*Array\(|JSON|Object\(/.test(type);
  return true;
}

/**
 * Checks a mapping against the source's real columns (system.columns, what DESCRIBE TABLE reads):
 * each missing table, missing column and column of the wrong kind is one field error, named by
 * its place in the mapping (`mapping.issues.title`).
 */
export async function checkMapping(reader: SourceReader, database: string, mapping: TrackerMapping): Promise<FieldError[]> {
  const sections = (Object.keys(COLUMNS) as Array<keyof TrackerMapping>).filter((s) => mapping[s] !== undefined);
  const tables = [...new Set(sections.map((s) => mapping[s]!.table))];
  const [databases, columns] = await Promise.all([
    reader.query<{ n: string | number }>('SELECT count() AS n FROM system.databases WHERE name = {database:String}', { database }),
    reader.query<{ table: string; name: string; type: string }>(
      'SELECT table, name, type FROM system.columns WHERE database = {database:String} AND table IN {tables:Array(String)} ORDER BY table, position',
      { database, tables },
    ),
  ]);
  if (Number(databases[0]?.n ?? 0) === 0) return [{ field: 'connection.database', message: `the source has no database "${database}"` }];
  const byTable = new Map<string, Map<string, string>>();
  for (const c of columns) {
    const table = byTable.get(c.table) ?? new Map<string, string>();
    table.set(c.name, c.type);
    byTable.set(c.table, table);
  }
  const errors: FieldError[] = [];
  for (const section of sections) {
    const entry = mapping[section] as unknown as Record<string, unknown>;
    const table = String(entry['table']);
    const present = byTable.get(table);
    if (!present) {
      errors.push({ field: `mapping.${section}.table`, message: `no table "${table}" in database "${database}"` });
      continue;
    }
    for (const [field, kind] of Object.entries(COLUMNS[section])) {
      const column = entry[field];
      if (typeof column !== 'string') continue;
      const type = present.get(column);
      if (type === undefined) {
        errors.push({ field: `mapping.${section}.${field}`, message: `no column "${column}" in ${database}.${table} (it has ${[...present.keys()].join(', ')})` });
      } else if (!fits(kind, type)) {
        errors.push({ field: `mapping.${section}.${field}`, message: `column "${column}" of ${database}.${table} is ${type}; ${field} needs ${NEEDS[kind]}` });
      }
    }
  }
  return errors;
}
