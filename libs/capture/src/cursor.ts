import { createHash } from 'node:crypto';
import type { CapturedTurn, ParsedTranscript } from './transcript';

interface Line {
  role?: string;
  message?: { content?: unknown };
}

/** The wrapper Cursor puts around what the person typed; what sits outside it the client added. */
const USER_QUERY = /<user_query>\s*([\s\S]*?)\s*<\/user_query>/;

/**
 * Cursor's own agent transcript (JSONL, the `transcript_path` of its hooks): one line per turn,
 * `{"role": "user" | "assistant", "message": {"content": [{"type": "text", "text": …}]}}`, the
 * person's words wrapped in `<user_query>`. Lines carry no ids, and Cursor only appends to the
 * file, so a turn's id is its line and a hash of its text: the same file captured again adds
 * nothing, and two equal prompts on different lines stay two turns. Blocks other than text
 * (tool calls and their results) are not turns.
 */
export function parseCursorTranscript(text: string): ParsedTranscript {
  const turns: CapturedTurn[] = [];
  let seq = -1;
  for (const raw of text.split('\n')) {
    if (raw.trim() === '') continue;
    // Counted before parsing: a line still being written keeps its number when it is read whole.
    seq += 1;
    let line: Line;
    try {
      line = JSON.parse(raw) as Line;
    } catch {
      continue;
    }
    if (line.role !== 'user' && line.role !== 'assistant') continue;
    let body = textOf(line.message?.content);
    if (line.role === 'user') body = USER_QUERY.exec(body)?.[1] ?? body.trim();
    if (body.trim() === '') continue;
    const hash = createHash('sha256').update(`${line.role}\n${body}`).digest('hex').slice(0, 12);
    turns.push({ role: line.role, content: body, msg_id: `cursor-${seq}-${hash}`, seq });
  }
  return { format: 'cursor', turns };
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return (content as Array<{ type?: string; text?: unknown }>)
    .filter((b) => b?.type === 'text' && typeof b.text === 'string')
    .map((b) => b.text as string)
    .join('\n\n');
}
