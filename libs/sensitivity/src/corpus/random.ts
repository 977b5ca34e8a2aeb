/**
 * A seeded generator for the corpus: the same seed gives the same samples on every machine, so a
 * recall figure in docs/reliability.md can be reproduced and a miss can be looked at again.
 * (mulberry32: tiny, fast, and good enough for test data; never for anything secret.)
 */
export class SeededRandom {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  int(below: number): number {
    return Math.floor(this.next() * below);
  }

  pick<T>(items: readonly T[]): T {
    const item = items[this.int(items.length)];
    if (item === undefined) throw new Error('pick from an empty list');
    return item;
  }

  /** `length` characters of `alphabet`, with at least one letter and one digit when the alphabet has both. */
  chars(alphabet: string, length: number): string {
    for (;;) {
      let out = '';
      for (let i = 0; i < length; i++) out += alphabet.charAt(this.int(alphabet.length));
      const wantsMix = /[A-Za-z]/.test(alphabet) && /\d/.test(alphabet) && length >= 8;
      if (!wantsMix || (/[A-Za-z]/.test(out) && /\d/.test(out) && !/(.)\1{7}/.test(out))) return out;
    }
  }
}

export const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
export const UPPER_ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
export const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
export const HEX = '0123456789abcdef';
export const BASE64 = `${ALNUM}+/`;
export const BASE64URL = `${ALNUM}_-`;

/** A number of `length` digits on `prefix` whose last digit makes it pass Luhn. */
export function luhnNumber(random: SeededRandom, prefix: string, length: number): string {
  let body = prefix;
  while (body.length < length - 1) body += String(random.int(10));
  return body + luhnCheckDigit(body);
}

/** A number of `length` digits on `prefix` that fails Luhn (the check digit is off by one). */
export function nonLuhnNumber(random: SeededRandom, prefix: string, length: number): string {
  const valid = luhnNumber(random, prefix, length);
  const last = Number(valid.charAt(valid.length - 1));
  return valid.slice(0, -1) + String((last + 1 + random.int(8)) % 10);
}

function luhnCheckDigit(body: string): string {
  let sum = 0;
  for (let i = body.length - 1, doubled = true; i >= 0; i--, doubled = !doubled) {
    const digit = Number(body.charAt(i));
    const value = doubled ? digit * 2 : digit;
    sum += value > 9 ? value - 9 : value;
  }
  return String((10 - (sum % 10)) % 10);
}

/** Digits split into groups of the given sizes, joined by `separator`. */
export function grouped(digits: string, sizes: readonly number[], separator: string): string {
  const groups: string[] = [];
  let at = 0;
  for (const size of sizes) {
    groups.push(digits.slice(at, at + size));
    at += size;
  }
  if (at < digits.length) groups.push(digits.slice(at));
  return groups.filter((g) => g.length > 0).join(separator);
}
