import { parseClaudeCodeTranscript } from './claude-code';
import { parseCodexTranscript } from './codex';
import { parseCursorTranscript } from './cursor';
import { parseJsonTranscript } from './json-array';
import { parseMarkdownTranscript } from './markdown';
import { TranscriptFormatError, type ParsedTranscript, type TranscriptFormat } from './transcript';

/** Which format a file holds: from its name, then from its first line. */
export function detectFormat(fileName: string, text: string): TranscriptFormat {
  const first = text.split('\n').find((l) => l.trim() !== '')?.trim() ?? '';
  if (/\.md$|\.markdown$/i.test(fileName)) return 'markdown';
  if (first.startsWith('[')) return 'json';
  if (first.startsWith('{')) {
    try {
      const line = JSON.parse(first) as { type?: string; payload?: unknown; role?: unknown; message?: unknown };
      if (line.payload !== undefined || line.type === 'session_meta') return 'codex';
      // Cursor's agent transcript: a role and a message on every line, and no entry type.
      if (line.type === undefined && typeof line.role === 'string' && typeof line.message === 'object') return 'cursor';
      return 'claude-code';
    } catch {
      throw new TranscriptFormatError('the first line is neither a JSON array nor a JSON object; give --format');
    }
  }
  return 'markdown';
}

export function parseTranscript(fileName: string, text: string, format: TranscriptFormat | 'auto' = 'auto'): ParsedTranscript {
  const chosen = format === 'auto' ? detectFormat(fileName, text) : format;
  switch (chosen) {
    case 'markdown':
      return { format: chosen, turns: parseMarkdownTranscript(text) };
    case 'json':
      return { format: chosen, turns: parseJsonTranscript(text) };
    case 'claude-code':
      return parseClaudeCodeTranscript(text);
    case 'codex':
      return parseCodexTranscript(text);
    case 'cursor':
      return parseCursorTranscript(text);
  }
}
