/** Small character helpers shared by the scanners; index-based so no scanner copies the input. */

export function isWordChar(ch: string | undefined): boolean {
  return ch !== undefined && /[A-Za-z0-9_]/.test(ch);
}

export function isDigit(ch: string | undefined): boolean {
  return ch !== undefined && ch >= '0' && ch <= '9';
}

/** First index at or after `from` whose character fails `accepts`. */
export function extendWhile(text: string, from: number, accepts: RegExp): number {
  let end = from;
  while (end < text.length && accepts.test(text.charAt(end))) end++;
  return end;
}

/** Skips spaces and tabs (never newlines: an assignment lives on one line), at most `max` of them. */
export function skipBlanks(text: string, from: number, max = 8): number {
  let i = from;
  while (i < text.length && i - from < max && (text[i] === ' ' || text[i] === '\t')) i++;
  return i;
}

/** Random-looking tokens mix letters and digits; hyphenated prose-like identifiers rarely do. */
export function hasLetterAndDigit(token: string): boolean {
  return /[A-Za-z]/.test(token) && /[0-9]/.test(token);
}
