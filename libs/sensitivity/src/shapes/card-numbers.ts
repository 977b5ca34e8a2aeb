import { passesLuhn } from '../luhn';
import type { ShapeSink } from '../types';
import { isDigit, isWordChar } from './text';

/**
 * Payment card numbers: 13–19 digits written solid or in the groupings cards are printed with
 * (4-4-4-4[-1..3], Amex 4-6-5, Diners 4-6-4; spaces, dashes, dots or slashes between), on a known issuer prefix, passing Luhn. Requiring
 * all three keeps order ids, timestamps and counters out: a random 16-digit id passes Luhn one time
 * in ten, and the issuer prefix rules out epoch timestamps (1…) and compact dates (19…, 20…).
 */

const MIN_DIGITS = 13;
const MAX_DIGITS = 19;

/**
 * Digit groups joined by a separator: spaces, a dash, a dot or a slash (each with up to one blank
 * on either side), or two blanks. Separators hold no digits, so the run has exactly one way to
 * match and scans in linear time. Within one card every separator must be the same (see
 * `sameSeparators`): "4111.1111 1111-1111" is a row of numbers, not a card.
 */
const DIGIT_RUN = /\d+(?:(?:[ \t]?[-./][ \t]?|[ \t]{1,2})\d+)*/g;

export function scanCardNumbers(text: string, sink: ShapeSink): boolean {
  for (const run of text.matchAll(DIGIT_RUN)) {
    const start = run.index;
    const end = start + run[0].length;
    // A card needs at least 13 digits; most digit runs are years, counts and line numbers.
    if (end - start < MIN_DIGITS || !standsAlone(text, start, end)) continue;
    if (!scanRun(text, start, end, sink)) return false;
  }
  return true;
}

/** Digits glued to letters (hashes, identifiers) or decimals (3.14159…) are not a pasted number. */
function standsAlone(text: string, start: number, end: number): boolean {
  const before = text[start - 1];
  const after = text[end];
  if (isWordChar(before) || isWordChar(after)) return false;
  if ((before === '.' || before === ',') && isDigit(text[start - 2])) return false;
  return !((after === '.' || after === ',') && isDigit(text[end + 1]));
}

/** The digit groups of one run, as start/end offsets. */
interface Groups {
  starts: number[];
  ends: number[];
}

function groupsOf(text: string, runStart: number, runEnd: number): Groups {
  const starts: number[] = [];
  const ends: number[] = [];
  let i = runStart;
  while (i < runEnd) {
    const start = i;
    while (i < runEnd && isDigit(text[i])) i++;
    starts.push(start);
    ends.push(i);
    while (i < runEnd && !isDigit(text[i])) i++;
  }
  return { starts, ends };
}

function scanRun(text: string, runStart: number, runEnd: number, sink: ShapeSink): boolean {
  const groups = groupsOf(text, runStart, runEnd);
  const count = groups.starts.length;
  const length = (g: number): number => (groups.ends[g] ?? 0) - (groups.starts[g] ?? 0);
  let g = 0;
  while (g < count) {
    const last = cardLastGroupFrom(text, groups, g, length);
    if (last === undefined) {
      g++;
      continue;
    }
    if (!sink({ kind: 'card_number', start: groups.starts[g] ?? 0, end: groups.ends[last] ?? 0 })) return false;
    g = last + 1;
  }
  return true;
}

/** The last group of the card that starts at group `g`, if one does. */
function cardLastGroupFrom(text: string, groups: Groups, g: number, length: (g: number) => number): number | undefined {
  const first = length(g);
  if (first >= MIN_DIGITS) {
    // A solid number next to a dot is a decimal or a dotted version, not a card.
    if (separatorBefore(text, groups, g).includes('.') || separatorBefore(text, groups, g + 1).includes('.')) return undefined;
    return first <= MAX_DIGITS && isCard(text, groups, g, g) ? g : undefined;
  }
  if (first !== 4) return undefined;
  return amexOrDinersFrom(text, groups, g, length) ?? groupsOfFourFrom(text, groups, g, length);
}

/** The separator between group `g - 1` and group `g` ('' at the run's edges). */
function separatorBefore(text: string, groups: Groups, g: number): string {
  const start = groups.starts[g];
  const previousEnd = groups.ends[g - 1];
  return start === undefined || previousEnd === undefined ? '' : text.slice(previousEnd, start);
}

/** 4-6-5 (Amex) or 4-6-4 (Diners). */
function amexOrDinersFrom(text: string, groups: Groups, g: number, length: (g: number) => number): number | undefined {
  if (length(g + 1) !== 6) return undefined;
  const third = length(g + 2);
  if (third !== 5 && third !== 4) return undefined;
  return isCard(text, groups, g, g + 2) ? g + 2 : undefined;
}

/**
 * 4-4-4-4, optionally with a short last group (4-4-4-4-3 is 19 digits, 4-4-4-1 is 13). Only a
 * whole stretch of 4-digit groups counts, so a 20+ digit grouped number is not read as a card and
 * a stretch is examined once, from its first group.
 */
function groupsOfFourFrom(text: string, groups: Groups, g: number, length: (g: number) => number): number | undefined {
  const separator = separatorBefore(text, groups, g + 1);
  if (g > 0 && length(g - 1) === 4 && separatorBefore(text, groups, g) === separator) return undefined;
  let last = g;
  while (length(last + 1) === 4 && separatorBefore(text, groups, last + 1) === separator) last++;
  const fours = last - g + 1;
  const tail = length(last + 1);
  if (tail >= 1 && tail <= 3 && isCardLength(fours * 4 + tail) && isCard(text, groups, g, last + 1)) return last + 1;
  return isCardLength(fours * 4) && isCard(text, groups, g, last) ? last : undefined;
}

function isCard(text: string, groups: Groups, first: number, last: number): boolean {
  if (!sameSeparators(text, groups, first, last)) return false;
  let digits = '';
  for (let g = first; g <= last; g++) digits += text.slice(groups.starts[g], groups.ends[g]);
  return isCardNumber(digits);
}

/** Whether every separator between groups `first` and `last` is written the same way. */
function sameSeparators(text: string, groups: Groups, first: number, last: number): boolean {
  const separator = separatorBefore(text, groups, first + 1);
  for (let g = first + 2; g <= last; g++) if (separatorBefore(text, groups, g) !== separator) return false;
  return true;
}

function isCardLength(digits: number): boolean {
  return digits >= MIN_DIGITS && digits <= MAX_DIGITS;
}

function isCardNumber(digits: string): boolean {
  return isCardLength(digits.length) && hasIssuerPrefix(digits) && passesLuhn(digits);
}

/**
 * Issuer identification ranges of the networks people actually paste: Mir and Mastercard 2-series,
 * Amex/JCB/Diners (3), Visa (4), Mastercard/Maestro (5), Discover/UnionPay/Maestro (6).
 */
function hasIssuerPrefix(digits: string): boolean {
  const two = Number(digits.slice(0, 2));
  const four = Number(digits.slice(0, 4));
  switch (digits.charAt(0)) {
    case '2':
      return (four >= 2200 && four <= 2204) || (four >= 2221 && four <= 2720);
    case '3':
      return two === 30 || (two >= 34 && two <= 39);
    case '4':
    case '5':
    case '6':
      return true;
    default:
      return false;
  }
}
