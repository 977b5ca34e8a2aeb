/**
 * Each logged row's JSON, made once. A write-behind insert is serialized for the write-ahead log
 * and again, as JSONEachRow, for the engine; with an embedding row's vector the second pass cost
 * about a twentieth of the gateway's CPU under load (ADR 0004, addendum). The log keeps the text
 * here and the embedded engine's client reads it back instead of encoding the row again.
 *
 * Keyed weakly by the row object, so the text goes with the row. A row is not changed once it is
 * logged: what the engine gets is what the log holds, which is also what a crash replays.
 */
const serialized = new WeakMap<object, string>();

/**
 * The row's JSON, remembered for the engine's insert. Always made afresh: a row object logged
 * again after a change must be logged as it is now, never as an earlier text.
 */
export function logRowJson(row: object): string {
  const json = JSON.stringify(row);
  serialized.set(row, json);
  return json;
}

/** `JSON.stringify`, answering a logged row with the text the log wrote: the client's encoder for inserts. */
export function stringifyLoggedRow(value: unknown): string {
  if (typeof value === 'object' && value !== null) {
    const json = serialized.get(value);
    if (json !== undefined) return json;
  }
  return JSON.stringify(value);
}
