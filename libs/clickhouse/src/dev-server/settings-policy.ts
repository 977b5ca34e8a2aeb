import { DevEndpointError } from './dev-errors';
import type { StatementShape } from './sql-scan';

// ClickHouse's HTTP interface applies URL settings to one request's query context and then forgets
// them. chDB has no such scope for a statement: the usual route (what chdb/connection does with
// clickhouse_settings) is a `SET` on the connection, which stays in force for every later query
// on it. So this endpoint never issues SET. A setting either belongs to the HTTP layer (handled
// or dropped here), or it is written into the statement's own SETTINGS clause — which ClickHouse
// scopes to that statement — where the grammar gives that clause per-query meaning: the SELECT
// family and INSERT. Anywhere else (a trailing SETTINGS on CREATE TABLE would become a table
// setting, for instance) the request is refused rather than run with a silently different meaning.

/** URL parameters that are HTTP-interface controls or request identity, not engine settings. */
const HTTP_LAYER_PARAMS = new Set([
  'query',
  'query_id',
  'database', // chDB ignores it; Loom fully qualifies table names (see README)
  'session_id',
  'session_timeout',
  'session_check',
  'default_format', // selects the output format for statements without FORMAT
  'user',
  'password',
  'quota_key',
  'role',
  'compress',
  'decompress',
  'buffer_size',
  'wait_end_of_query',
  'send_progress_in_http_headers',
  'enable_http_compression',
  'add_http_cors_header',
  'cancel_http_readonly_queries_on_client_close',
  'stacktrace',
  'client_protocol_version',
]);

export function isHttpLayerParam(name: string): boolean {
  return HTTP_LAYER_PARAMS.has(name) || name.startsWith('http_') || name.startsWith('param_');
}

/** Statements whose trailing `[FORMAT f] SETTINGS ...` is the per-query settings slot. */
const SELECT_FAMILY = new Set(['SELECT', 'WITH', 'SHOW', 'DESCRIBE', 'DESC', 'EXISTS', 'EXPLAIN']);

const SETTING_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Renders a setting value as a SETTINGS-clause literal: bare when numeric, else a quoted string. */
export function settingLiteral(value: string): string {
  if (/^-?\d+(\.\d+)?$/.test(value)) return value;
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/** Value for chDB's raw-insert `settings` map, which quotes strings itself. */
export function settingValue(value: string): string | number {
  if (/^-?\d{1,15}$/.test(value)) return Number(value);
  if (/^-?\d+\.\d+$/.test(value)) return Number(value);
  return value;
}

function validateNames(settings: ReadonlyMap<string, string>): void {
  for (const name of settings.keys()) {
    if (!SETTING_NAME.test(name)) {
      throw new DevEndpointError(115, 'UNKNOWN_SETTING', `Invalid setting name ${JSON.stringify(name)}`);
    }
  }
}

function clause(settings: ReadonlyMap<string, string>): string {
  return [...settings].map(([k, v]) => `${k}=${settingLiteral(v)}`).join(', ');
}

/**
 * Returns the statement text with `settings` scoped to it, or throws a DevEndpointError when the
 * statement kind has no per-query settings slot. `shape.statement` is used, so a trailing `;` is
 * already gone.
 */
export function applyStatementSettings(shape: StatementShape, settings: ReadonlyMap<string, string>): string {
  if (settings.size === 0) return shape.statement;
  validateNames(settings);
  const sql = shape.statement;
  if (SELECT_FAMILY.has(shape.kind)) {
    // `FORMAT f SETTINGS a=1` admits no second SETTINGS clause, so extend the existing one. The
    // newline keeps the addition out of a trailing `--` comment.
    if (shape.format !== undefined && shape.settingsAfterFormat) return `${sql}\n, ${clause(settings)}`;
    return `${sql}\nSETTINGS ${clause(settings)}`;
  }
  if (shape.kind === 'INSERT' && shape.insert !== undefined) {
    const ins = shape.insert;
    if (ins.settingsKeyword !== undefined) {
      const at = ins.settingsKeyword.end;
      return `${sql.slice(0, at)} ${clause(settings)},${sql.slice(at)}`;
    }
    if (ins.source !== undefined) {
      const at = ins.source.start;
      return `${sql.slice(0, at)}SETTINGS ${clause(settings)} ${sql.slice(at)}`;
    }
  }
  const names = [...settings.keys()].join(', ');
  throw new DevEndpointError(
    48,
    'NOT_IMPLEMENTED',
    `The development ClickHouse endpoint cannot scope setting(s) ${names} to a ${shape.kind || 'empty'} statement: ` +
      'chDB would need a session-wide SET, which would leak into later requests. ' +
      'Send these settings only with SELECT or INSERT requests, or put them in the statement itself',
  );
}

/** Splits URL settings into HTTP-layer controls and engine settings for the statement. */
export function engineSettings(all: ReadonlyMap<string, string>): Map<string, string> {
  const out = new Map<string, string>();
  for (const [k, v] of all) if (!isHttpLayerParam(k)) out.set(k, v);
  return out;
}
