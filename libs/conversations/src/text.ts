import { Limits } from '@loom/contracts';

/** Earlier builds cut embedding text at this length; such a row cannot show whether it holds the whole text. */
export const LEGACY_EMBED_CUT = 240;

/**
 * Whether an embedding row's text is its turn's whole text: the write path keeps the first
 * `Limits.embedChars` characters (code points), so a shorter text is all of it, unless it is an
 * earlier build's cut.
 */
export function isWholeText(text: string): boolean {
  if (text.length < LEGACY_EMBED_CUT) return true;
  let points = 0;
  for (const _ of text) points += 1;
  return points < Limits.embedChars && points !== LEGACY_EMBED_CUT;
}

/**
 * The first `n` characters of `text`, counted in code points so an emoji or other astral
 * character is never cut in half (UTF-16 slicing would leave a lone surrogate).
 */
export function firstChars(text: string, n: number): string {
  if (text.length <= n) return text;
  let count = 0;
  let end = 0;
  while (end < text.length && count < n) {
    const code = text.charCodeAt(end);
    end += code >= 0xd800 && code <= 0xdbff && end + 1 < text.length ? 2 : 1;
    count += 1;
  }
  return text.slice(0, end);
}
