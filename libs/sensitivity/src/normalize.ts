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

const NEEDS_NORMALISING = /[\u00A0\u00AD\u1680\u180E\u2000-\u2015\u2018\u2019\u201C\u201D\u2028-\u202F\u205F-\u2064\u2066-\u2069\u2212\u3000\uFE63\uFEFF\uFF01-\uFF5E]/;

/** The text with paste artefacts undone, or the text itself (no copy) when it has none. */
export function normalisedView(text: string): TextView {
  if (!NEEDS_NORMALISING.test(text)) return { text, origin: undefined };
  const out: string[] = [];
  const origin = new Int32Array(text.length + 1);
  let length = 0;
  let runStart = 0;
  const flush = (end: number): void => {
    if (end > runStart) out.push(text.slice(runStart, end));
    for (let k = runStart; k < end; k++) origin[length++] = k;
  };
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0xa0) continue;
    const mapped = asciiFor(code);
    if (mapped === undefined) continue;
    flush(i);
    runStart = i + 1;
    if (mapped !== '') {
      out.push(mapped);
      origin[length++] = i;
    }
  }
  flush(text.length);
  origin[length] = text.length;
  return { text: out.join(''), origin: origin.subarray(0, length + 1) };
}

/**
 * What a character stands for: '' for one that renders as nothing (soft hyphen, zero-width
 * space/joiners, bidi marks and isolates, word joiner, BOM), its ASCII twin for full-width and
 * typographic forms, undefined for a character that stays as it is.
 */
function asciiFor(code: number): string | undefined {
  if (code === 0xad || code === 0x180e || (code >= 0x200b && code <= 0x200f) || (code >= 0x202a && code <= 0x202e)) return '';
  if ((code >= 0x2060 && code <= 0x2064) || (code >= 0x2066 && code <= 0x2069) || code === 0xfeff) return '';
  if (code >= 0xff01 && code <= 0xff5e) return String.fromCharCode(code - 0xfee0); // full-width ASCII
  if (code === 0xa0 || code === 0x1680 || (code >= 0x2000 && code <= 0x200a) || code === 0x202f || code === 0x205f || code === 0x3000) {
    return ' ';
  }
  if ((code >= 0x2010 && code <= 0x2013) || code === 0x2212 || code === 0xfe63) return '-';
  if (code === 0x2018 || code === 0x2019) return "'";
  if (code === 0x201c || code === 0x201d) return '"';
  if (code === 0x2028 || code === 0x2029) return '\n';
  return undefined;
}

/**
 * A credential broken over two lines by a terminal or mail client ("ghp_abc…\n  def…"): the view
 * joins a line break, with the indentation around it, when a token-like run stands on both sides
 * (at least 4 characters before it and 20 in all). Only the prefix-based key scanner reads this
 * view (see detector.ts): joining lines cannot produce an issuer prefix that was not on the page.
 * The scan visits line breaks only, so ordinary multi-line text costs one indexOf per line.
 */
const MIN_RUN_BEFORE = 4;
const MIN_RUN_JOINED = 20;
const MAX_BLANKS = 8;

export function unwrappedView(view: TextView): TextView | undefined {
  const { text } = view;
  const joins: { from: number; to: number }[] = [];
  for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', nl + 1)) {
    const join = joinAt(text, nl);
    if (join !== undefined) joins.push(join);
  }
  if (joins.length === 0) return undefined;
  const out: string[] = [];
  const origin = new Int32Array(text.length + 1);
  let length = 0;
  let runStart = 0;
  for (const { from, to } of [...joins, { from: text.length, to: text.length }]) {
    out.push(text.slice(runStart, from));
    for (let k = runStart; k < from; k++) origin[length++] = originOf(view, k);
    runStart = to;
  }
  origin[length] = originOf(view, text.length);
  return { text: out.join(''), origin: origin.subarray(0, length + 1) };
}

/** The blanks + line break + blanks around the newline at `nl`, if token runs surround them. */
function joinAt(text: string, nl: number): { from: number; to: number } | undefined {
  let from = nl;
  if (text[from - 1] === '\r') from--;
  for (let n = 0; n < MAX_BLANKS && (text[from - 1] === ' ' || text[from - 1] === '\t'); n++) from--;
  let to = nl + 1;
  for (let n = 0; n < MAX_BLANKS && (text[to] === ' ' || text[to] === '\t'); n++) to++;
  let before = 0;
  while (before < MIN_RUN_JOINED && isTokenChar(text.charCodeAt(from - 1 - before))) before++;
  if (before < MIN_RUN_BEFORE) return undefined;
  let after = 0;
  while ((after === 0 || before + after < MIN_RUN_JOINED) && isTokenChar(text.charCodeAt(to + after))) after++;
  return after > 0 && before + after >= MIN_RUN_JOINED ? { from, to } : undefined;
}

/** Letters, digits and the punctuation of key alphabets: _ - + / = . */
function isTokenChar(code: number): boolean {
  return (
    (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95 || code === 45 || code === 43 || code === 47 || code === 61 || code === 46
  );
}

export function originOf(view: TextView, offset: number): number {
  return view.origin === undefined ? offset : (view.origin[offset] ?? offset);
}
