import type { TurnRole } from '@loom/contracts';

/** One turn read from a client's transcript, ready for conversation.append. */
export interface CapturedTurn {
  role: TurnRole;
  content: string;
  /** The client's own id for the entry (Claude Code's uuid); absent: the server derives one. */
  msg_id?: string;
  /** The model's reasoning (Claude Code's thinking blocks), kept in its own column. */
  reasoning?: string;
}

export interface ParsedTranscript {
  format: TranscriptFormat;
  turns: CapturedTurn[];
  /** The client's session id, when the format carries one: a stable thread id. */
  sessionId?: string;
}

export const TranscriptFormats = ['markdown', 'json', 'claude-code', 'codex'] as const;
export type TranscriptFormat = (typeof TranscriptFormats)[number];

export class TranscriptFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TranscriptFormatError';
  }
}
