/** Values that stand where a secret would go but are none: what docs, templates and masks write. */

/** Values that hold no secret: empty, masked, placeholders, booleans and nulls. */
export function isPlaceholderValue(raw: string): boolean {
  const value = raw.trim();
  if (value.length === 0) return true;
  if (/^[*•·xX.#…_-]+$/.test(value)) return true;
  // Partly masked ("sk-…abcd", "ab****yz") or documentation keys ("…EXAMPLEKEY", "example-token").
  if (/\*{3}|\.{3}|…|x{6}|X{6}|EXAMPLE|<[^<>]{1,40}>/.test(value) || /^example|example$/i.test(value)) return true;
  // Stripe's test-mode and publishable keys are meant to be shared (docs print them).
  if (/^(?:[sr]k_test_|pk_(?:test|live)_)/.test(value)) return true;
  if (PLACEHOLDER_WORDS.has(value.toLowerCase())) return true;
  if (isPlaceholderPhrase(value)) return true;
  // ${VAR}, $(cmd), $VAR, {{ template }}, {name}, %VAR%, <your password>
  return /^(?:\$[{(A-Za-z_]|\{\{|\{[A-Za-z_]|%[A-Za-z_]\w*%|<)/.test(value);
}

const PLACEHOLDER_WORDS = new Set([
  '~',
  'true',
  'false',
  'yes',
  'no',
  'on',
  'off',
  'null',
  'nil',
  'none',
  'undefined',
  'required',
  'optional',
  'redacted',
  'hidden',
  'masked',
  'omitted',
  'changeme',
  'change_me',
  'change-me',
  'placeholder',
  'example',
  'dummy',
  'todo',
  'tbd',
  'n/a',
]);

/**
 * your_password, YOUR-API-KEY, "your password here", api_key_here, my_secret, the-api-key; but not
 * "mysql" or "my-dog-rex", which are weak passwords rather than descriptions of one. Three simple
 * tests instead of one clever pattern, which would backtrack on long values.
 */
function isPlaceholderPhrase(value: string): boolean {
  if (!/^[A-Za-z\s_-]+$/.test(value)) return false;
  if (/^your/i.test(value) || /[\s_-]here$/i.test(value)) return true;
  return /^(?:my|the|some)/i.test(value) && /(?:pass(?:word|wd)?|pwd|secret|key|token)$/i.test(value);
}

