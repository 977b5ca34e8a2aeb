import type { ShapeSink } from '../types';
import { STATED_AS } from './stated-value';

/**
 * US Social Security numbers. Nine bare digits are far too common (ids, zip+4, counters) to read as
 * an SSN on their own, so they count only after an explicit label; the dashed or spaced 3-2-4 form
 * counts by itself. Either way the number must be one the SSA could have issued.
 */

// The separator is captured and reused so "123-45 6789" is not read as one number.
const GROUPED_SSN = /(?<![\w-])(\d{3})([ -])(\d{2})\2(\d{4})(?![\w-])/g;
const LABELLED_SSN = new RegExp(
  String.raw`(?<![A-Za-z0-9])(?:ssn|social[ _-]?security(?:[ _-]?(?:number|num|no\.?|#))?)(?![A-Za-z])` +
    STATED_AS +
    String.raw`(\d{3})(\d{2})(\d{4})(?![\w])`,
  'gi',
);

export function scanSsns(text: string, sink: ShapeSink): boolean {
  return scanGroupedSsns(text, sink) && scanLabelledSsns(text, sink);
}

function scanGroupedSsns(text: string, sink: ShapeSink): boolean {
  for (const match of text.matchAll(GROUPED_SSN)) {
    const [digits, area = '', separator, group = '', serial = ''] = match;
    const start = match.index;
    const end = start + digits.length;
    if (separator === ' ' && isInsideNumberSequence(text, start, end)) continue;
    if (isIssuableSsn(area, group, serial) && !sink({ kind: 'ssn', start, end })) return false;
  }
  return true;
}

function scanLabelledSsns(text: string, sink: ShapeSink): boolean {
  for (const match of text.matchAll(LABELLED_SSN)) {
    const [whole, , area = '', group = '', serial = ''] = match;
    if (!isIssuableSsn(area, group, serial)) continue;
    const end = match.index + whole.length;
    if (!sink({ kind: 'ssn', start: end - 9, end })) return false;
  }
  return true;
}

/** "100 20 3000" inside a table of spaced numbers is data, not an SSN; the dashed form is specific enough. */
function isInsideNumberSequence(text: string, start: number, end: number): boolean {
  return /\d[ ]$/.test(text.slice(Math.max(0, start - 2), start)) || /^[ ]\d/.test(text.slice(end, end + 2));
}

/** Never issued: area 000, 666 or 900–999; group 00; serial 0000. */
function isIssuableSsn(area: string, group: string, serial: string): boolean {
  return area !== '000' && area !== '666' && !area.startsWith('9') && group !== '00' && serial !== '0000';
}
