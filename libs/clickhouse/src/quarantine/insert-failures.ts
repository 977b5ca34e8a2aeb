/**
 * Why an insert failed: the engine refused these rows (`rows_refused`: a value a column cannot
 * take, text it cannot parse), or the engine is not taking writes now (`engine_down`: no
 * connection, a timeout, a full disk, too many parts, memory). Only the first is a row's fault:
 * the write path isolates and quarantines such rows, and retries everything on the second.
 *
 * An error without a ClickHouse code (a socket, chDB itself, a fault injected by a test) counts
 * as the engine being down: retrying is always safe, quarantining a healthy row is not.
 */
export type InsertFailure = 'rows_refused' | 'engine_down';

/**
 * ClickHouse error codes that say nothing about the rows: the server, its disk, its memory, its
 * schema or its replicas. Every other code an insert answers with is about the data it was sent.
 */
const ENGINE_CODES = new Set([
  3, // UNEXPECTED_END_OF_FILE: the body was cut off on the way
  16, // NO_SUCH_COLUMN_IN_TABLE: the schema is mid-migration
  32, // ATTEMPT_TO_READ_AFTER_EOF
  60, // UNKNOWN_TABLE
  74, // CANNOT_READ_FROM_FILE_DESCRIPTOR
  75, // CANNOT_WRITE_TO_FILE_DESCRIPTOR
  76, // CANNOT_OPEN_FILE
  81, // UNKNOWN_DATABASE
  159, // TIMEOUT_EXCEEDED
  160, // TOO_SLOW
  164, // READONLY
  173, // CANNOT_ALLOCATE_MEMORY
  202, // TOO_MANY_SIMULTANEOUS_QUERIES
  203, // NO_FREE_CONNECTION
  209, // SOCKET_TIMEOUT
  210, // NETWORK_ERROR
  225, // NO_ZOOKEEPER
  236, // ABORTED
  241, // MEMORY_LIMIT_EXCEEDED
  242, // TABLE_IS_READ_ONLY
  243, // NOT_ENOUGH_SPACE
  252, // TOO_MANY_PARTS
  285, // TOO_FEW_LIVE_REPLICAS
  319, // UNKNOWN_STATUS_OF_INSERT
  394, // QUERY_WAS_CANCELLED
  425, // SYSTEM_ERROR
  999, // KEEPER_EXCEPTION
  1000, // POCO_EXCEPTION
  1001, // STD_EXCEPTION
  1002, // UNKNOWN_EXCEPTION
]);

export function classifyInsertFailure(error: unknown): InsertFailure {
  const code = Number((error as { code?: unknown } | undefined)?.code);
  // Node's socket errors carry string codes (ECONNREFUSED): not a number, so the engine is down.
  if (!Number.isInteger(code) || code <= 0) return 'engine_down';
  return ENGINE_CODES.has(code) ? 'engine_down' : 'rows_refused';
}

/**
 * The error's message as well-formed text of bounded length, safe to store and log. The engine
 * quotes the data it could not parse (`expected ',' before: '…'`), which may be a turn's text:
 * every quoted excerpt longer than a syntax token is cut, and what stays names the problem and
 * the column.
 */
export function describeFailure(error: unknown, maxChars = 2000): string {
  const message = error instanceof Error ? error.message : String(error);
  return wellFormed(message)
    .replace(/'(?:[^'\\]|\\.){4,}'/g, "'…'")
    .replace(/"(?:[^"\\]|\\.){4,}"/g, '"…"')
    .slice(0, maxChars);
}

/** Replaces lone UTF-16 surrogates (which no engine column or JSON parser takes) with U+FFFD. */
export function wellFormed(text: string): string {
  return text.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');
}
