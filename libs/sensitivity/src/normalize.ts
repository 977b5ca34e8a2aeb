/**
 * What a paste does to a secret without changing it for the reader: invisible characters inside it
 * (zero-width spaces and joiners, soft hyphens, bidi marks, a BOM), typographic look-alikes
 * (no-break and ideographic spaces, en dashes, curly quotes) and full-width ASCII from East Asian
 * input methods. The scanners see the text with these undone, and every shape is mapped back to
 * offsets in the text as written, so a redactor masks the original characters.
 *
 * Only characters that render as nothing, or as the ASCII character they are mapped to, are
 * touched: the reader sees the same text before and after, so no new shape can appear that the
 * reader would not also have seen.
 */

/** A text the scanners read, and where each of its characters came from in the original. */
export interface TextView {
  readonly text: string;
  /** `origin[i]` is the original offset of `text[i]`; `origin[text.length]` is the original length. */
  readonly origin: Int32Array | undefined;
}

// Characters that render as nothing: soft hyphen, Mongolian vowel separator, zero-width space,
// non-joiner and joiner, LRM/RLM, bidi embeddings and isolates, word joiner and invisible
// operators, BOM / zero-width no-break space.
const INVISIBLE = /[\u00AD\u180E\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF]/;
const NEEDS_NORMALISING = /[\u00A0\u00AD\u1680\u180E\u2000-\u2015\u2018\u2019\u201C\u201D\u2028-\u202F\u205F-\u2064\u2066-\u2069\u2212\u3000\uFE63\uFEFF\uFF01-\uFF5E]/;

/** The text with paste artefacts undone, or the text itself (no copy) when it has none. */
export function normalisedView(text: string): TextView {
  if (!NEEDS_NORMALISING.test(text)) return { text, origin: undefined };
  const out: string[] = [];
  const origin = new Int32Array(text.length + 1);
  let length = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charAt(i);
    const mapped = asciiFor(ch);
    if (mapped === '') continue;
    out.push(mapped);
    origin[length++] = i;
  }
  origin[length] = text.length;
  return { text: out.join(''), origin: origin.subarray(0, length + 1) };
}

function asciiFor(ch: string): string {
  const code = ch.charCodeAt(0);
  if (code < 0xa0) return ch;
  if (INVISIBLE.test(ch)) return '';
  if (code >= 0xff01 && code <= 0xff5e) return String.fromCharCode(code - 0xfee0); // full-width ASCII
  if (code === 0xa0 || code === 0x1680 || (code >= 0x2000 && code <= 0x200a) || code === 0x202f || code === 0x205f || code === 0x3000) {
    return ' ';
  }
  if ((code >= 0x2010 && code <= 0x2013) || code === 0x2212 || code === 0xfe63) return '-';
  if (code === 0x2018 || code === 0x2019) return "'";
  if (code === 0x201c || code === 0x201d) return '"';
  if (code === 0x2028 || code === 0x2029) return '\n';
  return ch;
}

/**
 * A credential broken over two lines by a terminal or mail client ("ghp_abc…\n  def…"): the view
 * joins a line break, with the indentation around it, when token characters stand on both sides.
 * Only the prefix-based key scanner reads this view (see detector.ts): joining prose lines cannot
 * produce an issuer prefix that was not already on the page.
 */
const WRAPPED_TOKEN = /[A-Za-z0-9_\-+/=.][ \t]{0,8}\r?\n[ \t]{0,8}[A-Za-z0-9_\-+/=]/;
const TOKEN_CHAR = /[A-Za-z0-9_\-+/=.]/;

export function unwrappedView(view: TextView): TextView | undefined {
  const { text } = view;
  if (!WRAPPED_TOKEN.test(text)) return undefined;
  const out: string[] = [];
  const origin = new Int32Array(text.length + 1);
  let length = 0;
  let runStart = 0;
  for (let i = 0; i < text.length; i++) {
    const breakEnd = TOKEN_CHAR.test(text.charAt(i)) ? undefined : joinableBreakEnd(text, i);
    if (breakEnd !== undefined) {
      out.push(text.slice(runStart, i));
      for (let k = runStart; k < i; k++) origin[length++] = originOf(view, k);
      runStart = breakEnd;
      i = breakEnd - 1;
    }
  }
  out.push(text.slice(runStart));
  for (let k = runStart; k < text.length; k++) origin[length++] = originOf(view, k);
  origin[length] = originOf(view, text.length);
  return { text: out.join(''), origin: origin.subarray(0, length + 1) };
}

/** Where the blanks + line break + blanks starting at `i` end, if token characters surround them. */
function joinableBreakEnd(text: string, i: number): number | undefined {
  if (i === 0 || !TOKEN_CHAR.test(text.charAt(i - 1))) return undefined;
  let j = i;
  while (j < text.length && j - i < 8 && (text[j] === ' ' || text[j] === '\t')) j++;
  if (text[j] === '\r') j++;
  if (text[j] !== '\n') return undefined;
  j++;
  const afterBreak = j;
  while (j < text.length && j - afterBreak < 8 && (text[j] === ' ' || text[j] === '\t')) j++;
  return j < text.length && /[A-Za-z0-9_\-+/=]/.test(text.charAt(j)) ? j : undefined;
}

export function originOf(view: TextView, offset: number): number {
  return view.origin === undefined ? offset : (view.origin[offset] ?? offset);
}
