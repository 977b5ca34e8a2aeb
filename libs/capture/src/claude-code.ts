import { jsonLines, type CapturedTurn, type ParsedTranscript } from './transcript';

interface Line {
  type?: string;
  uuid?: string;
  sessionId?: string;
  cwd?: string;
  gitBranch?: string;
  isMeta?: boolean;
  isSidechain?: boolean;
  isCompactSummary?: boolean;
  message?: { id?: string; role?: string; content?: unknown };
}

/** Text the client injects into the user's stream (slash commands, their output, reminders). */
const INJECTED = /^\s*<(command-name|command-message|command-args|local-command-stdout|local-command-stderr|system-reminder)>/;

/**
 * A Claude Code session (JSONL). The conversation is the user's prompts and the assistant's
 * text; one assistant message is written as several lines sharing `message.id`, which are
 * merged (thinking blocks become its reasoning). Progress, tool calls and results, meta lines,
 * sub-agent lines and the client's own compaction summaries are not turns. `msg_id` is the
 * uuid of the entry's first line, so capturing the same transcript again adds nothing.
 */
export function parseClaudeCodeTranscript(text: string): ParsedTranscript {
  const turns: Array<CapturedTurn & { messageId?: string }> = [];
  let sessionId: string | undefined;
  let cwd: string | undefined;
  let branch: string | undefined;
  let clientSummary: string | undefined;
  let clientSummaryAt = 0;
  let seq = -1;
  for (const line of jsonLines<Line>(text)) {
    seq += 1;
    sessionId ??= line.sessionId;
    cwd ??= line.cwd;
    if (line.gitBranch && line.gitBranch !== 'HEAD') branch = line.gitBranch;
    if (line.isCompactSummary && line.type === 'user') {
      clientSummary = blocks(line.message?.content).text || clientSummary;
      clientSummaryAt = turns.length;
    }
    if ((line.type !== 'user' && line.type !== 'assistant') || line.isMeta || line.isSidechain || line.isCompactSummary || !line.uuid) continue;
    const { text: body, thinking } = blocks(line.message?.content);
    if (line.type === 'user') {
      if (body.trim() === '' || INJECTED.test(body)) continue;
      turns.push({ role: 'user', content: body, msg_id: line.uuid, seq });
      continue;
    }
    const messageId = line.message?.id;
    const last = turns[turns.length - 1];
    // A response often streams a blank text block first: it would only indent the turn.
    if (body.trim() === '' && !thinking && messageId && last?.role === 'assistant' && last.messageId === messageId) continue;
    if (messageId && last?.role === 'assistant' && last.messageId === messageId) {
      if (body) last.content = last.content ? `${last.content}\n\n${body}` : body;
      if (thinking) last.reasoning = last.reasoning ? `${last.reasoning}\n\n${thinking}` : thinking;
      continue;
    }
    turns.push({ role: 'assistant', content: body.trim() === '' ? '' : body, msg_id: line.uuid, seq, ...(thinking ? { reasoning: thinking } : {}), ...(messageId ? { messageId } : {}) });
  }
  return {
    format: 'claude-code',
    // A message of only tool calls has no text: nothing to record.
    turns: turns.filter((t) => t.content.trim() !== '').map(({ messageId: _m, ...turn }) => turn),
    ...(sessionId ? { sessionId } : {}),
    ...(cwd ? { cwd } : {}),
    ...(branch ? { branch } : {}),
    ...(clientSummary ? { clientSummary, clientSummaryAt: turns.slice(0, clientSummaryAt).filter((t) => t.content.trim() !== '').length } : {}),
  };
}

function blocks(content: unknown): { text: string; thinking: string } {
  if (typeof content === 'string') return { text: content, thinking: '' };
  if (!Array.isArray(content)) return { text: '', thinking: '' };
  const text: string[] = [];
  const thinking: string[] = [];
  for (const block of content as Array<{ type?: string; text?: unknown; thinking?: unknown }>) {
    if (block?.type === 'text' && typeof block.text === 'string') text.push(block.text);
    if (block?.type === 'thinking' && typeof block.thinking === 'string') thinking.push(block.thinking);
  }
  return { text: text.join('\n\n'), thinking: thinking.join('\n\n') };
}
