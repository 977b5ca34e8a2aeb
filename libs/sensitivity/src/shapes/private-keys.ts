import type { ShapeSink } from '../types';

// RSA, EC, DSA, OPENSSH, ENCRYPTED, PGP ... all share the "PRIVATE KEY" wording.
const HEADER = /-----BEGIN (?:[A-Z0-9]+ ){0,4}PRIVATE KEY(?: BLOCK)?-----/g;
const FOOTER = /-----END (?:[A-Z0-9]+ ){0,4}PRIVATE KEY(?: BLOCK)?-----/g;

/**
 * Code that merely mentions the header (`pem.startsWith('-----BEGIN PRIVATE KEY-----')`) is common
 * in coding sessions and is not a key, so a block needs key material: a base64 line soon after the
 * header, past any "Proc-Type:"/"Version:" headers. Both bounds keep the look-ahead constant-size.
 */
const BODY_SEARCH_WINDOW = 320;
const BASE64_LINE_LENGTH = 40;
/** A footer further away than this belongs to some other block; the largest real keys are ~4 KiB. */
const MAX_BLOCK_LENGTH = 64 * 1024;

export function scanPrivateKeys(text: string, sink: ShapeSink): boolean {
  const headers = new RegExp(HEADER);
  const footers = new FooterCursor(text);
  for (let header = headers.exec(text); header !== null; header = headers.exec(text)) {
    const headerEnd = header.index + header[0].length;
    const material = keyMaterialStart(text, headerEnd);
    if (material === undefined) continue;
    const end = footers.blockEndAfter(headerEnd) ?? base64LinesEnd(text, material);
    if (!sink({ kind: 'private_key', start: header.index, end })) return false;
    headers.lastIndex = Math.max(headers.lastIndex, end);
  }
  return true;
}

/**
 * Where the first base64 line of key material starts, if one starts soon after the header. Stops
 * at the next "-----" marker: material after another header or a footer is not this block's.
 */
function keyMaterialStart(text: string, from: number): number | undefined {
  const limit = Math.min(text.length, from + BODY_SEARCH_WINDOW);
  let run = 0;
  for (let i = from; i < limit; i++) {
    const ch = text.charAt(i);
    if (isBase64Char(ch)) {
      if (++run >= BASE64_LINE_LENGTH) return i + 1 - run;
    } else if (ch === '-' && text.startsWith('-----', i)) {
      return undefined;
    } else {
      run = 0;
    }
  }
  return undefined;
}

/**
 * The end of a block pasted without its footer: the run of lines holding nothing but base64, with
 * real or JSON-escaped ("\n") line breaks, so the span stops at the prose that follows.
 */
function base64LinesEnd(text: string, from: number): number {
  let end = from;
  let i = from;
  for (;;) {
    while (i < text.length && (isBase64Char(text.charAt(i)) || text[i] === '=')) i++;
    const lineBreak = lineBreakLengthAt(text, i);
    if (lineBreak === 0 && i < text.length) return end; // this line is more than base64: prose
    end = i;
    if (lineBreak === 0 || !isBase64Char(text.charAt(i + lineBreak))) return end;
    i += lineBreak;
  }
}

function lineBreakLengthAt(text: string, i: number): number {
  if (text.startsWith('\r\n', i)) return 2;
  if (text[i] === '\n') return 1;
  if (text.startsWith('\\r\\n', i)) return 4;
  return text.startsWith('\\n', i) ? 2 : 0;
}

function isBase64Char(ch: string): boolean {
  return (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch === '+' || ch === '/';
}

/**
 * Remembers the next footer so that many headers without footers cost one forward search in
 * total instead of one search to the end of the text per header.
 */
class FooterCursor {
  private readonly footers = new RegExp(FOOTER);
  private next: RegExpExecArray | null | undefined;

  constructor(private readonly text: string) {}

  blockEndAfter(from: number): number | undefined {
    if (this.next === undefined || (this.next !== null && this.next.index < from)) {
      this.footers.lastIndex = from;
      this.next = this.footers.exec(this.text);
    }
    if (this.next === null || this.next.index - from > MAX_BLOCK_LENGTH) return undefined;
    return this.next.index + this.next[0].length;
  }
}
