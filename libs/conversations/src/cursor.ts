import { LoomError } from '@loom/contracts';

/** Position after the last turn of a page: (ts, agent, msg_id) orders turns totally. */
export interface TurnCursor {
  ts: string;
  agent: string;
  msg_id: string;
}

/** Cursors are opaque to clients: base64url JSON, so the format can change without breaking them. */
export function encodeCursor(cursor: TurnCursor): string {
  return Buffer.from(JSON.stringify([cursor.ts, cursor.agent, cursor.msg_id])).toString('base64url');
}

export function decodeCursor(value: string): TurnCursor {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(value, 'base64url').toString('utf8'));
    if (Array.isArray(parsed) && parsed.length === 3 && parsed.every((p) => typeof p === 'string')) {
      const [ts, agent, msg_id] = parsed as [string, string, string];
      if (/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{6}$/.test(ts)) return { ts, agent, msg_id };
    }
  } catch {
    // fall through to the error below
  }
  throw new LoomError('invalid_input', 'cursor is not one this server issued; start again without it', {
    fields: [{ field: 'cursor', message: 'not a valid cursor' }],
  });
}
