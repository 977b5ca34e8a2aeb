import type { CapturedTurn } from './transcript';

/** `# user` / `# assistant` headings (the spec's format), any heading level, any case. */
const HEADING = /^#{1,6}\s*(user|assistant)\s*$/i;
/** SpecStory's Cursor exports: `_**User**_` / `_**Assistant**_` lines, turns separated by `---`. */
const SPECSTORY = /^_\*\*(User|Assistant)\*\*_\s*$/;

/**
 * Alternating user and assistant sections. Text before the first section (a title, an export
 * banner) is not a turn; empty sections are dropped.
 */
export function parseMarkdownTranscript(text: string): CapturedTurn[] {
  const turns: CapturedTurn[] = [];
  let current: { role: 'user' | 'assistant'; lines: string[] } | undefined;
  const flush = (): void => {
    if (!current) return;
    const content = trimSeparators(current.lines).join('\n').trim();
    if (content !== '') turns.push({ role: current.role, content });
  };
  for (const line of text.split(/\r?\n/)) {
    const match = HEADING.exec(line) ?? SPECSTORY.exec(line);
    if (match) {
      flush();
      current = { role: match[1]!.toLowerCase() as 'user' | 'assistant', lines: [] };
    } else {
      current?.lines.push(line);
    }
  }
  flush();
  return turns;
}

/** A section's trailing `---` separates turns in SpecStory exports; it is not part of the turn. */
function trimSeparators(lines: string[]): string[] {
  const out = [...lines];
  while (out.length > 0 && /^\s*(---)?\s*$/.test(out[out.length - 1]!)) out.pop();
  return out;
}
