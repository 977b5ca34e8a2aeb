import type { LlmRequest } from '@loom/providers';

/** Characters of one turn the model sees; a title needs the gist, not the whole turn. */
const TURN_CHARS = 1_000;
/** The longest title kept; longer answers are cut at a word boundary. */
export const TITLE_MAX_CHARS = 80;

export interface TitleTurn {
  role: string;
  content: string;
}

/** The request for a title from a thread's opening turns (none of them high). */
export function titleRequest(turns: TitleTurn[]): LlmRequest {
  const transcript = turns.map((t) => `${t.role}: ${Array.from(t.content).slice(0, TURN_CHARS).join('')}`).join('\n\n');
  return {
    system:
      'You name conversations between a person and a coding assistant. Answer with a title of at most eight words ' +
      'that says what the conversation is about. No quotes, no trailing punctuation, nothing else.',
    messages: [{ role: 'user', content: `The conversation opens with:\n\n${transcript}\n\nTitle:` }],
    maxTokens: 32,
  };
}

/**
 * The model's answer made into a title: the first non-empty line, without a "Title:" lead,
 * quotes, markdown emphasis or trailing punctuation, at most TITLE_MAX_CHARS. Empty when the
 * model said nothing usable (the fake provider always).
 */
export function cleanTitle(answer: string): string {
  const line = answer.split(/\r?\n/).map((l) => l.trim()).find((l) => l !== '') ?? '';
  let title = line
    .replace(/^(?:#+\s*)?(?:\*\*)?title(?:\*\*)?\s*:\s*/i, '')
    .replace(/^[*_`"'“”‘’«»]+|[*_`"'“”‘’«»]+$/g, '')
    .replace(/[.!?;:,\s]+$/u, '')
    .replace(/\s+/g, ' ')
    .trim();
  if (Array.from(title).length > TITLE_MAX_CHARS) {
    const cut = Array.from(title).slice(0, TITLE_MAX_CHARS).join('');
    const lastSpace = cut.lastIndexOf(' ');
    title = (lastSpace > TITLE_MAX_CHARS / 2 ? cut.slice(0, lastSpace) : cut).trim();
  }
  return title;
}
