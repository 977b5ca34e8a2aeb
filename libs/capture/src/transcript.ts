import type { TurnRole } from '@loom/contracts';

/** One turn read from a client's transcript, ready for conversation.append. */
export interface CapturedTurn {
  role: TurnRole;
  content: string;
  /** The client's own id for the entry (Claude Code's uuid); absent: the server derives one. */
  msg_id?: string;
  /** The model's reasoning (Claude Code's thinking blocks), kept in its own column. */
  reasoning?: string;
  /** Which JSON line of the file the turn starts on: orders turns among tool actions. Never sent. */
  seq?: number;
}

export interface ParsedTranscript {
  format: TranscriptFormat;
  turns: CapturedTurn[];
  /** The client's session id, when the format carries one: a stable thread id. */
  sessionId?: string;
  /** Where the session started (its first working directory) and its latest git branch, when the format says. */
  cwd?: string;
  branch?: string;
  /** The client's own last compaction summary (Claude Code writes it as a user line). */
  clientSummary?: string;
  /** How many turns came before that summary: it is new to a save that resumes before it. */
  clientSummaryAt?: number;
}

export const TranscriptFormats = ['markdown', 'json', 'claude-code', 'codex', 'cursor'] as const;
export type TranscriptFormat = (typeof TranscriptFormats)[number];

export class TranscriptFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TranscriptFormatError';
  }
}

/** The parsed lines of a JSONL file. A line that does not parse (the client still writing it) is skipped: the next capture sees it whole. */
export function* jsonLines<T>(text: string): Generator<T> {
  for (const raw of text.split('\n')) {
    if (raw.trim() === '') continue;
    try {
      yield JSON.parse(raw) as T;
    } catch {
      continue;
    }
  }
}
