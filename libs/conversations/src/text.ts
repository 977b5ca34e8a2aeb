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
