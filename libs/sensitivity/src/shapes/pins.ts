import type { ShapeSink } from '../types';
import { STATED_AS } from './stated-value';

/**
 * A PIN stated as such: "my PIN is 4821", "pin: 1234", "PIN code 00912", `"pin": "0000"`.
 * "pin" is also a verb in coding sessions ("pin the version to 1.2.3", "pinned 4 deps", "pin 2024
 * as the base year"), so a lower-case "pin" needs a connector (is, :, =) or a qualifier (code,
 * number) before the digits; only the upper-case noun "PIN 4821" may state the digits directly.
 */
const STATED_PIN = new RegExp(
  String.raw`(?<![A-Za-z0-9])(pin)((?:[ _-]?(?:code|number|num|no\.?|#))?)(?![A-Za-z])` +
    STATED_AS +
    String.raw`(\d{4,8})(?!\d|[A-Za-z_]|[.,]\d)`,
  'gi',
);

export function scanPins(text: string, sink: ShapeSink): boolean {
  for (const match of text.matchAll(STATED_PIN)) {
    const [whole, label = '', qualifier = '', connector = '', digits = ''] = match;
    if (!isStatedAsPin(label, qualifier, connector)) continue;
    const end = match.index + whole.length;
    if (!sink({ kind: 'pin', start: end - digits.length, end })) return false;
  }
  return true;
}

function isStatedAsPin(label: string, qualifier: string, connector: string): boolean {
  return label === 'PIN' || qualifier.length > 0 || connector.trim().length > 0;
}
