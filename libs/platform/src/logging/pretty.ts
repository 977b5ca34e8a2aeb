/** Where log lines go: anything with a write(line) method (a TTY stream, a test's collector). */
export interface LineSink {
  write(line: string): unknown;
  isTTY?: boolean;
}

const LEVEL_COLOURS: Record<string, string> = { trace: '90', debug: '90', info: '32', warn: '33', error: '31', fatal: '35' };
/** Keys every line has, shown in the line's head rather than as key=value. */
const HEAD_KEYS = new Set(['level', 'time', 'msg', 'service', 'pid', 'hostname']);

/**
 * One pino JSON line as a person reads it: `12:04:05.123 INFO  gateway  message  key=value …`.
 * The fields are pino's (already redacted); a line that is not JSON passes through unchanged.
 */
export function formatLogLine(line: string, colour = false): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line.endsWith('\n') ? line : `${line}\n`;
  }
  const level = String(entry['level'] ?? 'info');
  const time = typeof entry['time'] === 'string' ? entry['time'].slice(11, 23) : '';
  const label = level.toUpperCase().padEnd(5);
  const head = [time, colour ? `\u001b[${LEVEL_COLOURS[level] ?? '0'}m${label}\u001b[0m` : label, entry['service'] ? String(entry['service']) : ''].filter(Boolean).join(' ');
  const rest = Object.entries(entry)
    .filter(([key, value]) => !HEAD_KEYS.has(key) && value !== undefined && value !== null)
    .map(([key, value]) => `${key}=${typeof value === 'string' && !/\s/.test(value) ? value : JSON.stringify(value)}`);
  return `${head}  ${String(entry['msg'] ?? '')}${rest.length > 0 ? `  ${rest.join(' ')}` : ''}\n`;
}

/** A pino destination writing readable lines (coloured when the sink is a terminal). */
export function prettyDestination(sink: LineSink): { write(line: string): void } {
  const colour = sink.isTTY === true;
  return {
    write(chunk: string): void {
      for (const line of chunk.split('\n')) if (line.trim() !== '') sink.write(formatLogLine(line, colour));
    },
  };
}
