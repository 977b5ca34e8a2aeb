import { TurnRoles, type TurnRole } from '@loom/contracts';
import { TranscriptFormatError, type CapturedTurn } from './transcript';

/** A JSON array of `{role, content}` (optionally `msg_id`), one turn each. */
export function parseJsonTranscript(text: string): CapturedTurn[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new TranscriptFormatError(`not valid JSON: ${(error as Error).message}`);
  }
  if (!Array.isArray(value)) throw new TranscriptFormatError('a JSON transcript is an array of {role, content} objects');
  return value.map((item: unknown, i) => {
    const entry = item as { role?: unknown; content?: unknown; msg_id?: unknown };
    if (typeof entry?.role !== 'string' || !(TurnRoles as readonly string[]).includes(entry.role)) {
      throw new TranscriptFormatError(`element ${i}: role must be one of ${TurnRoles.join(', ')}`);
    }
    if (typeof entry.content !== 'string') throw new TranscriptFormatError(`element ${i}: content must be a string`);
    return { role: entry.role as TurnRole, content: entry.content, ...(typeof entry.msg_id === 'string' && entry.msg_id ? { msg_id: entry.msg_id } : {}) };
  });
}
