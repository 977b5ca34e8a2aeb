/**
 * Luhn (mod 10) check over a string of ASCII digits. Card numbers carry this check digit, so it
 * separates a pasted card from an arbitrary long number (order ids, counters) nine times in ten.
 */
export function passesLuhn(digits: string): boolean {
  if (digits.length === 0) return false;
  let sum = 0;
  let doubled = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    const digit = digits.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return false;
    sum += doubled ? doubledLuhnDigit(digit) : digit;
    doubled = !doubled;
  }
  return sum % 10 === 0;
}

function doubledLuhnDigit(digit: number): number {
  const twice = digit * 2;
  return twice > 9 ? twice - 9 : twice;
}
