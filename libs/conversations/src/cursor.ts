import { LoomError } from '@loom/contracts';

/** Position after the last turn of a page: (ts, agent, msg_id) orders turns totally. */
export interface TurnCursor {
  ts: string;
  agent: string;
  msg_id: string;
}

/** Cursors are opaque to clients: base64url JSON, so the format can change without breaking them. */
export function encodePosition(parts: readonly string[]): string {
  return Buffer.from(JSON.stringify(parts)).toString('base64url');
}

/** The position a cursor holds: `n` strings, the first passing `firstValid` when given; else a 400. */
export function decodePosition(value: string, n: number, firstValid?: RegExp): string[] {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(value, 'base64url').toString('utf8'));
    if (Array.isArray(parsed) && parsed.length === n && parsed.every((p) => typeof p === 'string') && (!firstValid || firstValid.test(parsed[0] as string))) {
      return parsed as string[];
    }
  } catch {
    // fall through to the error below
  }
  throw new LoomError('invalid_input', 'cursor is not one this server issued; start again without it', {
    fields: [{ field: 'cursor', message: 'not a valid cursor' }],
  });
}

export function encodeCursor(cursor: TurnCursor): string {
  return encodePosition([cursor.ts, cursor.agent, cursor.msg_id]);
}

export function decodeCursor(value: string): TurnCursor {
  const [ts, agent, msg_id] = decodePosition(value, 3, /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{6}$/) as [string, string, string];
  return { ts, agent, msg_id };
}
