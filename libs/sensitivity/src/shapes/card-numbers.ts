import { passesLuhn } from '../luhn';
import type { ShapeSink } from '../types';
import { isDigit, isWordChar } from './text';

/**
 * Payment card numbers: 13–19 digits written solid or in the groupings cards are printed with
 * (4-4-4-4[-1..3], Amex 4-6-5, Diners 4-6-4), on a known issuer prefix, passing Luhn. Requiring
 * all three keeps order ids, timestamps and counters out: a random 16-digit id passes Luhn one time
 * in ten, and the issuer prefix rules out epoch timestamps (1…) and compact dates (19…, 20…).
 */

const MIN_DIGITS = 13;
const MAX_DIGITS = 19;

/** Digit groups joined by single spaces or dashes. The separator is mandatory between groups, so
 *  the pattern has exactly one way to match and scans in linear time. */
const DIGIT_RUN = /\d+(?:[ -]\d+)*/g;

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

/**
 * Walks the run group by group without collecting the groups: a run of single-spaced digits can
 * be a megabyte long, and each group only needs to know the length of the one before it.
 */
function scanRun(text: string, runStart: number, runEnd: number, sink: ShapeSink): boolean {
  let previousLength = 0;
  let start = runStart;
  while (start < runEnd) {
    const end = groupEnd(text, start, runEnd);
    const cardEnd = cardEndAt(text, start, end, previousLength, runEnd);
    if (cardEnd === undefined) {
      previousLength = end - start;
      start = end + 1;
      continue;
    }
    if (!sink({ kind: 'card_number', start, end: cardEnd })) return false;
    previousLength = cardEnd - lastGroupStart(text, start, cardEnd);
    start = cardEnd + 1;
  }
  return true;
}

function groupEnd(text: string, start: number, runEnd: number): number {
  let end = start;
  while (end < runEnd && isDigit(text[end])) end++;
  return end;
}

function lastGroupStart(text: string, start: number, end: number): number {
  let i = end;
  while (i > start && isDigit(text[i - 1])) i--;
  return i;
}

/** Where the card that starts with the group `start..end` ends, if one does. */
function cardEndAt(text: string, start: number, end: number, previousLength: number, runEnd: number): number | undefined {
  const length = end - start;
  if (length >= MIN_DIGITS) return length <= MAX_DIGITS && isCardNumberAt(text, start, end) ? end : undefined;
  if (length !== 4) return undefined;
  return amexOrDinersEndAt(text, start, end, runEnd) ?? groupsOfFourEndAt(text, start, end, previousLength, runEnd);
}

/** 4-6-5 (Amex) or 4-6-4 (Diners). */
function amexOrDinersEndAt(text: string, start: number, end: number, runEnd: number): number | undefined {
  const secondEnd = groupEnd(text, end + 1, runEnd);
  if (secondEnd - end - 1 !== 6) return undefined;
  const thirdEnd = groupEnd(text, secondEnd + 1, runEnd);
  const thirdLength = thirdEnd - secondEnd - 1;
  if (thirdLength !== 5 && thirdLength !== 4) return undefined;
  return isCardNumberAt(text, start, thirdEnd) ? thirdEnd : undefined;
}

/**
 * 4-4-4-4, optionally with a short last group (4-4-4-4-3 is 19 digits, 4-4-4-1 is 13). Only a
 * whole stretch of 4-digit groups counts, so a 20+ digit grouped number is not read as a card and
 * a stretch is examined once, from its first group.
 */
function groupsOfFourEndAt(text: string, start: number, end: number, previousLength: number, runEnd: number): number | undefined {
  if (previousLength === 4) return undefined;
  let stretchEnd = end;
  let fours = 1;
  for (;;) {
    const next = groupEnd(text, stretchEnd + 1, runEnd);
    if (next - stretchEnd - 1 !== 4) break;
    stretchEnd = next;
    fours++;
  }
  const tailEnd = groupEnd(text, stretchEnd + 1, runEnd);
  const tailLength = tailEnd - stretchEnd - 1;
  if (tailLength >= 1 && tailLength <= 3 && isCardLength(fours * 4 + tailLength) && isCardNumberAt(text, start, tailEnd)) {
    return tailEnd;
  }
  return isCardLength(fours * 4) && isCardNumberAt(text, start, stretchEnd) ? stretchEnd : undefined;
}

function isCardLength(digits: number): boolean {
  return digits >= MIN_DIGITS && digits <= MAX_DIGITS;
}

function isCardNumberAt(text: string, start: number, end: number): boolean {
  return isCardNumber(text.slice(start, end).replace(/[ -]/g, ''));
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
