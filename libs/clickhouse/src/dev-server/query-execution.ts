import type { RawInsertFormat } from 'chdb';
import { RAW_INSERT_FORMATS, type ChdbExecutor } from './chdb-executor';
import { DevEndpointError } from './dev-errors';
import { toChdbBindParams } from './query-params';
import type { DevRequest } from './request-parsing';
import { isBinaryFormat, type QuerySummary } from './response-writing';
import { applyStatementSettings, engineSettings, settingValue } from './settings-policy';
import { analyzeStatement, type StatementShape } from './sql-scan';

// Decides how one parsed request runs on chDB and runs it.

export interface ExecutionResult {
  format: string;
  body?: Buffer;
  summary: QuerySummary;
}

const NO_ROWS: QuerySummary = { readRows: 0, readBytes: 0, writtenRows: 0, writtenBytes: 0, resultRows: 0, resultBytes: 0, elapsedSeconds: 0 };

// Identifier shapes chDB's raw insert accepts; anything fancier goes through SQL text.
const PLAIN_TABLE = /^[A-Za-z0-9_]+(\.[A-Za-z0-9_]+)*$/;
const PLAIN_COLUMN = /^[A-Za-z0-9_]+$/;

export async function executeRequest(exec: ChdbExecutor, req: DevRequest): Promise<ExecutionResult> {
  const shape = analyzeStatement(req.sql);
  if (shape.kind === '') throw new DevEndpointError(62, 'SYNTAX_ERROR', 'Empty query');
  if (shape.multiStatement) {
    // ClickHouse's HTTP interface runs exactly one statement; chDB would run them all.
    throw new DevEndpointError(62, 'SYNTAX_ERROR', 'Multi-statements are not allowed');
  }
  const format = shape.format?.name ?? req.defaultFormat ?? 'TabSeparated';

  // Without a session a SET or USE over HTTP affects only its own request, i.e. nothing that
  // outlives it. Running it on chDB's shared connection would change every later request.
  if (shape.kind === 'SET' || shape.kind === 'USE') return { format, summary: NO_ROWS };
  if (shape.kind === 'CREATE' && shape.secondWord === 'TEMPORARY') {
    throw new DevEndpointError(
      48,
      'NOT_IMPLEMENTED',
      'Temporary tables need a session, which the development ClickHouse endpoint does not emulate (it would share one table between all requests)',
    );
  }

  const settings = engineSettings(req.settings);
  const params = req.params.size > 0 ? toChdbBindParams(req.params, shape.paramTypes) : undefined;

  if (shape.kind === 'INSERT') return executeInsert(exec, req, shape, settings, params, format);

  let sql = applyStatementSettings(shape, settings);
  if (req.data !== undefined) sql = `${sql}\n${req.data.toString('utf8')}`;
  const r = await exec.query(sql, format, params);
  return {
    format,
    body: r.bytes,
    summary: { ...NO_ROWS, readRows: r.rowsRead, readBytes: r.bytesRead, resultRows: r.rowsRead, resultBytes: r.bytes.length, elapsedSeconds: r.elapsedSeconds },
  };
}

async function executeInsert(
  exec: ChdbExecutor,
  req: DevRequest,
  shape: StatementShape,
  settings: Map<string, string>,
  params: Record<string, string | null> | undefined,
  format: string,
): Promise<ExecutionResult> {
  const ins = shape.insert!;
  const inlineData = ins.dataStart !== undefined && req.sql.slice(ins.dataStart).trim().length > 0;
  const data = req.data;

  // ClickHouse accepts an INSERT ... FORMAT with no rows as inserting nothing; chDB calls it an
  // error (NO_DATA_TO_INSERT). A client flushing an empty batch must not fail.
  if (ins.source !== undefined && ins.format !== undefined && !inlineData && (data === undefined || data.length === 0)) {
    return { format, summary: NO_ROWS };
  }

  if (
    data !== undefined &&
    !inlineData &&
    params === undefined &&
    ins.format !== undefined &&
    RAW_INSERT_FORMATS.has(ins.format) &&
    ins.settingsKeyword === undefined &&
    !ins.complexColumns &&
    ins.table !== undefined &&
    PLAIN_TABLE.test(ins.table) &&
    (ins.columns === undefined || ins.columns.every((c) => PLAIN_COLUMN.test(c)))
  ) {
    // The common case (client.insert): the body goes to the engine's parser untouched.
    const r = await exec.rawInsert({
      table: ins.table,
      columns: ins.columns,
      format: ins.format as RawInsertFormat,
      data,
      settings: settings.size > 0 ? Object.fromEntries([...settings].map(([k, v]) => [k, settingValue(v)])) : undefined,
    });
    return {
      format,
      summary: { ...NO_ROWS, writtenRows: r.rowsWritten, writtenBytes: r.bytesWritten, elapsedSeconds: r.elapsedSeconds },
    };
  }

  if (data !== undefined && ins.format !== undefined && isBinaryFormat(ins.format)) {
    throw new DevEndpointError(
      48,
      'NOT_IMPLEMENTED',
      `Binary insert format ${ins.format} is not supported by the development ClickHouse endpoint; use JSONEachRow or another text format`,
    );
  }
  let sql = applyStatementSettings(shape, settings);
  if (data !== undefined) sql = `${sql}\n${data.toString('utf8')}`;
  const r = await exec.query(sql, format, params);
  return {
    format,
    body: r.bytes,
    // chDB reports no written-row count for a SQL-text INSERT.
    summary: { ...NO_ROWS, elapsedSeconds: r.elapsedSeconds },
  };
}
