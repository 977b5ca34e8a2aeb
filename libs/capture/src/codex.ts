import { jsonLines, type CapturedTurn, type ParsedTranscript } from './transcript';

interface Line {
  type?: string;
  payload?: { type?: string; id?: string; role?: string; content?: unknown };
}

/** Context Codex sends as user messages that the person did not type. */
const INJECTED = /^\s*(<environment_context>|<user_instructions>|<permissions instructions>|# AGENTS\.md instructions)/;

/**
 * A Codex rollout (JSONL). Codex writes user and assistant text twice, as a `response_item`
 * message and as an `event_msg`; the response items are the turns and the events are skipped.
 * Lines carry no ids, so the server derives each turn's id from its text.
 */
export function parseCodexTranscript(text: string): ParsedTranscript {
  const turns: CapturedTurn[] = [];
  let sessionId: string | undefined;
  let seq = -1;
  for (const line of jsonLines<Line>(text)) {
    seq += 1;
    if (line.type === 'session_meta') sessionId ??= line.payload?.id;
    const p = line.payload;
    if (line.type !== 'response_item' || p?.type !== 'message' || (p.role !== 'user' && p.role !== 'assistant')) continue;
    const body = Array.isArray(p.content)
      ? (p.content as Array<{ type?: string; text?: unknown }>)
          .filter((b) => (b?.type === 'input_text' || b?.type === 'output_text') && typeof b.text === 'string')
          .map((b) => b.text as string)
          .join('\n\n')
      : '';
    if (body.trim() === '' || (p.role === 'user' && INJECTED.test(body))) continue;
    turns.push({ role: p.role, content: body, seq });
  }
  return { format: 'codex', turns, ...(sessionId ? { sessionId } : {}) };
}
