import type { ShapeSink } from '../types';
import { isPlaceholderValue } from './placeholders';
import { skipBlanks } from './text';

/**
 * A secret-named key given a literal value: `password=...`, `"api_key": "..."`, `DB_PASSWORD: ...`,
 * `--password ...`. The span covers the value only: it is what a redactor masks, and the key
 * name on its own is not sensitive.
 *
 * Coding sessions are full of code and prose that name passwords without holding one
 * (`password: string`, `password=password`, "reset your password: click here"), so most of this
 * file is about the values that are *not* literals. The scan is a cheap keyword search followed by
 * index-based parsing around each hit; there is no regex that could backtrack over the input.
 */

/** Finds candidate keys; `isSecretKeyName` has the final say on the whole identifier. */
const KEY_CANDIDATE = /pass(?:word|wd|phrase)?|pwd?|secret|api[_-]?key|token|credential|(?:private|account|access|signing|encryption|master)[_-]?key/gi;

/** A key name ends with one of these as its last word (so `PGPASSWORD` and `clientsecret` count)... */
const SECRET_WORD_SUFFIXES = [
  'password',
  'passwd',
  'passphrase',
  'pwd',
  'secret',
  'apikey',
  'secretkey',
  'accesstoken',
  'authtoken',
  'refreshtoken',
  'sessiontoken',
];
/** Loose names, as their last word exactly (`pass`, `DB_PASS`, `pw`; but not `bypass` or `compass`). */
const LOOSE_LAST_WORDS = ['pass', 'pw'];
/** ...or with one of these word sequences (`api_key`, `x-api-key`, `accessToken`, `SECRET_KEY`). */
const SECRET_WORD_SEQUENCES: readonly (readonly string[])[] = [
  ['secret', 'key', 'base'],
  ['api', 'key'],
  ['secret', 'key'],
  ['secret', 'access', 'key'],
  ['access', 'token'],
  ['auth', 'token'],
  ['refresh', 'token'],
  ['session', 'token'],
];

/**
 * Weaker names: a `token`, `*_key` or `credentials` is as often a page cursor, a CSRF nonce, a key
 * id or a lookup key as a secret, so their values must also look machine-generated (see
 * `looksGenerated`): `BOT_TOKEN=8f2kQ…`, `private_key = "MIIEv…"`, but not `token: abc`.
 */
const WEAK_WORD_SUFFIXES = ['token', 'credential', 'credentials', 'privatekey', 'accountkey', 'accesskey', 'signingkey', 'encryptionkey', 'masterkey'];
const WEAK_WORD_SEQUENCES: readonly (readonly string[])[] = [
  ['private', 'key'],
  ['account', 'key'],
  ['shared', 'access', 'key'],
  ['access', 'key'],
  ['signing', 'key'],
  ['encryption', 'key'],
  ['master', 'key'],
];

/**
 * strong: any literal counts; weak (`token`, `*_key`): the value must look generated; loose
 * (`pass`, `pw`, also a test verdict or a compiler pass): the value must look like a credential.
 */
type KeyStrength = 'strong' | 'weak' | 'loose' | null;

const MAX_KEY_LENGTH = 64;
const MAX_QUOTED_VALUE_LENGTH = 512;

/** How the value was introduced decides how much context it must have to count as a literal. */
type ValueContext =
  /** `key=value`, `key:value`: config, env, query strings, kwargs. */
  | 'tight'
  /** `key: value`, `key = value` opening a line: YAML, ini, but also code. */
  | 'spaced'
  /** `--key value` on a command line. */
  | 'cli'
  /** Mid-sentence: "set aws_secret_access_key = …", "my password is …", "password: … and more". */
  | 'prose'
  /** `setPassword("…")`, `.password("…")`, `withApiKey("…")`: a literal passed to a setter. */
  | 'call';

interface Span {
  start: number;
  end: number;
}

export function scanPasswordAssignments(text: string, sink: ShapeSink): boolean {
  const candidates = new RegExp(KEY_CANDIDATE);
  const verdicts = verdictsForOneScan();
  for (let hit = candidates.exec(text); hit !== null; hit = candidates.exec(text)) {
    const key = keyAround(text, hit.index, hit.index + hit[0].length);
    // Each identifier is examined once, however many keywords it holds.
    candidates.lastIndex = key.end;
    if (key.start === undefined) continue;
    // Structure first: it is cheap and rules out most hits (prose mentions of "password").
    const assignment = assignmentAfter(text, key.start, key.end);
    if (assignment === null) continue;
    const strength = verdicts.keyStrength(text.slice(key.start, key.end));
    if (strength === null || (assignment.context === 'call' && !isSetterName(text.slice(key.start, key.end)))) continue;
    const value = valueOf(text, assignment, strength, verdicts);
    if (value === null) continue;
    if (!sink({ kind: 'password_assignment', start: value.start, end: value.end })) return false;
    candidates.lastIndex = Math.max(candidates.lastIndex, value.end);
  }
  return true;
}

/**
 * The string-only judgements, memoised for the length of one scan. Texts repeat the same few key
 * names and, in generated or hostile input, the same values; each distinct string is judged once.
 */
interface Verdicts {
  keyStrength(name: string): KeyStrength;
  isQuotedLiteral(content: string): boolean;
  isUnquotedLiteral(value: string): boolean;
  isPlaceholder(value: string): boolean;
  looksLikeCredential(value: string): boolean;
  looksGenerated(value: string): boolean;
  namesASecret(value: string): boolean;
  namesASecretType(value: string): boolean;
}

function verdictsForOneScan(): Verdicts {
  return {
    keyStrength: memoized(keyStrengthOf),
    isQuotedLiteral: memoized(isQuotedLiteral),
    isUnquotedLiteral: memoized(isUnquotedLiteral),
    isPlaceholder: memoized(isPlaceholderValue),
    looksLikeCredential: memoized(looksLikeCredential),
    looksGenerated: memoized(looksGenerated),
    namesASecret: memoized(namesASecret),
    namesASecretType: memoized(namesASecretType),
  };
}

function memoized<T>(decide: (subject: string) => T): (subject: string) => T {
  const verdicts = new Map<string, T>();
  return (subject) => {
    let verdict = verdicts.get(subject);
    if (verdict === undefined) {
      verdict = decide(subject);
      verdicts.set(subject, verdict);
    }
    return verdict;
  };
}

/** The identifier around a keyword hit; `start` is undefined when it is too long to be a key. */
function keyAround(text: string, hitStart: number, hitEnd: number): { start: number | undefined; end: number } {
  let start = hitStart;
  while (start > 0 && hitEnd - start <= MAX_KEY_LENGTH && isKeyChar(text.charAt(start - 1))) start--;
  let end = hitEnd;
  while (end < text.length && isKeyChar(text.charAt(end))) end++;
  const fits = end - start <= MAX_KEY_LENGTH && (start === 0 || !isKeyChar(text.charAt(start - 1)));
  return { start: fits ? start : undefined, end };
}

function isSecretKeyName(name: string): boolean {
  return keyStrengthOf(name) === 'strong';
}

function keyStrengthOf(name: string): KeyStrength {
  const words = lastWordsOf(name, 3);
  const last = words[words.length - 1];
  if (last === undefined) return null;
  if (SECRET_WORD_SUFFIXES.some((suffix) => last.endsWith(suffix))) return 'strong';
  if (LOOSE_LAST_WORDS.includes(last)) return 'loose';
  if (SECRET_WORD_SEQUENCES.some((sequence) => endsWithWords(words, sequence))) return 'strong';
  if (WEAK_WORD_SUFFIXES.some((suffix) => last.endsWith(suffix))) return 'weak';
  return WEAK_WORD_SEQUENCES.some((sequence) => endsWithWords(words, sequence)) ? 'weak' : null;
}

/**
 * `<add key="SmtpPassword" value="…"/>`, `<property name="password" value="…"/>`: XML and .NET
 * config name a setting in one attribute and give its value in the next.
 */
const ATTRIBUTE_PAIR = /(?<![\w-])(?:key|name)[ \t]{0,3}=[ \t]{0,3}"([A-Za-z0-9_.:-]{1,64})"[ \t]{1,8}value[ \t]{0,3}=[ \t]{0,3}"([^"\n]{1,512})"/g;

export function scanAttributeAssignments(text: string, sink: ShapeSink): boolean {
  for (const match of text.matchAll(ATTRIBUTE_PAIR)) {
    const [whole, name = '', value = ''] = match;
    const strength = keyStrengthOf(name);
    if (strength === null || isPlaceholderValue(value) || namesASecret(value)) continue;
    if ((strength === 'weak' && !looksGenerated(value)) || (strength === 'loose' && !looksLikeCredential(value))) continue;
    const end = match.index + whole.length - 1;
    if (!sink({ kind: 'password_assignment', start: end - value.length, end })) return false;
  }
  return true;
}

/** `setPassword`, `withApiKey`, `password`, `.secret(…)`: calls that store a secret, not ones that look one up. */
function isSetterName(name: string): boolean {
  const bare = name.slice(name.lastIndexOf('.') + 1).replace(/^[_-]+/, '');
  const words = lastWordsOf(bare, 4);
  return words.length === 1 || words[0] === 'set' || words[0] === 'with' || /^(?:set|with)[_-]/i.test(bare);
}

/**
 * The last `count` lower-cased words of a snake_case, kebab-case, dotted or camelCase name
 * (`clientSecret` → client, secret; `APIKey` → api, key). Walks backwards by index because this
 * runs on every keyword hit and regex splitting dominated the scan time.
 */
function lastWordsOf(name: string, count: number): string[] {
  const words: string[] = [];
  let end = name.length;
  for (let i = name.length - 1; i >= 0 && words.length < count; i--) {
    if (!isAlnum(name.charAt(i))) {
      if (end > i + 1) words.unshift(name.slice(i + 1, end).toLowerCase());
      end = i;
    } else if (startsCamelWord(name, i)) {
      words.unshift(name.slice(i, end).toLowerCase());
      end = i;
    }
  }
  if (end > 0 && words.length < count && isAlnum(name.charAt(0))) words.unshift(name.slice(0, end).toLowerCase());
  return words;
}

/** An upper-case letter after a lower-case one or a digit (dbPassword), or the last capital of an acronym (APIKey). */
function startsCamelWord(name: string, i: number): boolean {
  if (i === 0 || !isUpper(name.charAt(i))) return false;
  const before = name.charAt(i - 1);
  if (isLower(before) || isDigitChar(before)) return true;
  return isUpper(before) && isLower(name.charAt(i + 1));
}

function isUpper(ch: string): boolean {
  return ch >= 'A' && ch <= 'Z';
}

function isLower(ch: string): boolean {
  return ch >= 'a' && ch <= 'z';
}

function isDigitChar(ch: string): boolean {
  return ch >= '0' && ch <= '9';
}

function isAlnum(ch: string): boolean {
  return isUpper(ch) || isLower(ch) || isDigitChar(ch);
}

function isKeyChar(ch: string): boolean {
  return isAlnum(ch) || ch === '_' || ch === '.' || ch === '-';
}

function endsWithWords(words: readonly string[], sequence: readonly string[]): boolean {
  const offset = words.length - sequence.length;
  return offset >= 0 && sequence.every((word, i) => words[offset + i] === word);
}

/** Where the value of a `key = value`-like construct starts, and how it was introduced. */
interface Assignment {
  valueStart: number;
  context: ValueContext;
}

function assignmentAfter(text: string, keyStart: number, keyEnd: number): Assignment | null {
  const afterKey = skipKeyClosingQuote(text, keyEnd);
  const separatorStart = skipBlanks(text, afterKey);
  const separatorEnd = separatorEndAt(text, separatorStart);
  if (separatorEnd === null) {
    const isFlag = text[keyStart] === '-' && separatorStart > afterKey;
    if (isFlag) return { valueStart: separatorStart, context: 'cli' };
    if (text[afterKey] === '(' && openingQuoteAt(text, afterKey + 1) !== null) return { valueStart: afterKey + 1, context: 'call' };
    const stated = statedValueStart(text, afterKey);
    return stated === undefined ? null : { valueStart: stated, context: 'prose' };
  }
  const valueStart = skipBlanks(text, skipMarkdownEmphasis(text, skipBlanks(text, separatorEnd)));
  const spaced = separatorStart > afterKey || valueStart > separatorEnd;
  if (!spaced) return { valueStart, context: 'tight' };
  // Unquoted `key: value` is YAML only when the key opens the line; mid-sentence it is usually
  // prose ("to change your password: Settings"), so there the value must look like a credential.
  // A quoted value is a literal wherever it stands.
  if (openingQuoteAt(text, valueStart) === null && !startsLine(text, keyStart)) return { valueStart, context: 'prose' };
  return { valueStart, context: 'spaced' };
}

/**
 * "my password is hunter2", "the db password for staging is X", "changed the password to X",
 * "password was: X". Every quantifier is bounded and the pattern is anchored at the key's end.
 */
const STATED_VALUE =
  /(?:[ \t]{1,3}(?:for|of|on|in)[ \t]{1,3}(?:[\w.@/-]{1,40}[ \t]{1,3}){0,2}[\w.@/-]{1,40}[ \t]{0,3}:|[ \t]{1,3}(?:(?:for|of|on|in)[ \t]{1,3}(?:[\w.@/-]{1,40}[ \t]{1,3}){1,3})?(?:(?:is|was|are)(?:[ \t]{1,3}(?:now|still|set[ \t]{1,3}to|just))?|(?:set|changed|reset)?[ \t]{0,3}to)[ \t]{0,3}:?)[ \t]{0,3}/iy;

function statedValueStart(text: string, afterKey: number): number | undefined {
  // Sticky: matched exactly at the key's end, without copying the text. Scans are synchronous,
  // so the shared lastIndex cannot be disturbed between these two lines.
  STATED_VALUE.lastIndex = afterKey;
  const match = STATED_VALUE.exec(text);
  return match === null ? undefined : skipMarkdownEmphasis(text, afterKey + match[0].length);
}

/** `"password": ...` and JSON-escaped `\"password\": ...` */
function skipKeyClosingQuote(text: string, i: number): number {
  if (text[i] === '\\' && isQuote(text[i + 1])) return i + 2;
  if (!isQuote(text[i])) return i;
  // os.environ["DB_PASSWORD"] = ..., ENV['API_KEY'] = ...
  return text[i + 1] === ']' ? i + 2 : i + 1;
}

/** `=`, `:`, `:=` (Go) and `=>` (PHP, Ruby); comparisons such as `==` and `::` are not assignments. */
function separatorEndAt(text: string, i: number): number | null {
  const ch = text[i];
  const next = text[i + 1];
  if (ch === '=') {
    if (next === '>') return i + 2;
    return next === '=' || next === '~' ? null : i + 1;
  }
  if (ch === ':') {
    if (next === '=') return i + 2;
    return next === ':' ? null : i + 1;
  }
  return null;
}

/** `**Password:** hunter2` in Markdown. */
function skipMarkdownEmphasis(text: string, i: number): number {
  const pair = text.slice(i, i + 2);
  return pair === '**' || pair === '__' ? i + 2 : i;
}

/** True when only indentation, list bullets or structural characters precede the key on its line. */
function startsLine(text: string, keyStart: number): boolean {
  for (let i = keyStart - 1, seen = 0; seen < 32; i--, seen++) {
    if (i < 0 || text[i] === '\n' || text[i] === '\r') return true;
    if (text[i] === 'n' && text[i - 1] === '\\') return true; // a JSON-escaped line break
    if (!/[ \t\-*{,"'`]/.test(text.charAt(i))) return false;
  }
  return false;
}

function valueOf(text: string, { valueStart, context }: Assignment, strength: KeyStrength, verdicts: Verdicts): Span | null {
  const quote = openingQuoteAt(text, valueStart);
  const span = quote !== null ? quotedValue(text, valueStart, quote, verdicts) : context === 'call' ? null : unquotedValue(text, valueStart, context, verdicts);
  if (span === null) return null;
  const value = withoutSentencePunctuation(text.slice(span.start, span.end));
  if (strength === 'weak' && !verdicts.looksGenerated(value)) return null;
  if (strength === 'loose' && !verdicts.looksLikeCredential(value)) return null;
  if ((context === 'prose' || context === 'call') && (!verdicts.looksLikeCredential(value) || verdicts.namesASecret(value))) return null;
  return span;
}

function isQuote(ch: string | undefined): boolean {
  return ch === '"' || ch === "'" || ch === '`';
}

function openingQuoteAt(text: string, i: number): string | null {
  if (text[i] === '\\' && isQuote(text[i + 1])) return text.slice(i, i + 2);
  return isQuote(text[i]) ? text.charAt(i) : null;
}

function quotedValue(text: string, openAt: number, quote: string, verdicts: Verdicts): Span | null {
  const start = openAt + quote.length;
  const limit = Math.min(text.length, start + MAX_QUOTED_VALUE_LENGTH);
  for (let i = start; i < limit; i++) {
    if (text[i] === '\n') return null;
    if (text.startsWith(quote, i)) return verdicts.isQuotedLiteral(text.slice(start, i)) ? { start, end: i } : null;
  }
  return null;
}

/**
 * A quoted value is a literal unless it is a placeholder, a template that interpolates
 * (`\`CHJS_${guid()}\``), the name of an environment variable holding the secret
 * (`password: "CLICKHOUSE_PASSWORD"`), or the secret's own name (`password: "password"`).
 */
function isQuotedLiteral(content: string): boolean {
  if (isPlaceholderValue(content) || content.includes('${')) return false;
  if (/^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$/.test(content) && isSecretKeyName(content)) return false;
  return !QUOTED_SECRET_NAMES.has(content.toLowerCase());
}

const QUOTED_SECRET_NAMES = new Set(['password', 'passwd', 'token', 'api_key', 'apikey', 'jwt', 'secret_key']);

/** Unquoted values stop at whitespace, at structure, and at a backslash (JSON-escaped "\n"). */
function endsUnquotedValue(ch: string, context: ValueContext): boolean {
  if (ch === '&') return context === 'tight'; // a query string's next parameter; elsewhere part of the value
  return ch <= ' ' || ',;)}]"\'`\\'.includes(ch) || (ch > '~' && /\s/.test(ch));
}

function unquotedValue(text: string, start: number, context: ValueContext, verdicts: Verdicts): Span | null {
  let runEnd = start;
  while (runEnd < text.length && !endsUnquotedValue(text.charAt(runEnd), context)) runEnd++;
  const prefixedQuote = openingQuoteAt(text, runEnd);
  if (prefixedQuote !== null && /^[fbruFBRU]{1,2}$/.test(text.slice(start, runEnd))) {
    return quotedValue(text, runEnd, prefixedQuote, verdicts); // Python f"..", b"..", r".."
  }
  // "Password: Required." is judged without its full stop, but the span keeps it: over-masking a
  // trailing "!" is harmless, leaving the last character of a password visible is not.
  const run = text.slice(start, runEnd);
  const value = withoutSentencePunctuation(run);
  if (value.length === 0 || !verdicts.isUnquotedLiteral(value)) return null;
  if (verdicts.isPlaceholder(run) || !fitsContext(text, value, runEnd, context, verdicts)) return null; // "sk-..." is judged with its dots
  return { start, end: runEnd };
}

function withoutSentencePunctuation(value: string): string {
  let end = value.length;
  while (end > 0 && '.!?:'.includes(value.charAt(end - 1))) end--;
  return value.slice(0, end);
}

function fitsContext(text: string, value: string, runEnd: number, context: ValueContext, verdicts: Verdicts): boolean {
  switch (context) {
    case 'tight':
      // `connect(user=user, password=pw)`: literal passwords in keyword arguments are quoted.
      return !(/^[A-Za-z_]\w*$/.test(value) && (text[runEnd] === ',' || text[runEnd] === ')'));
    case 'spaced':
      // YAML/ini: the value ends its line, or it looks like a credential with more text after it.
      if (verdicts.namesASecretType(value)) return false;
      return lineEndsAt(text, runEnd) || verdicts.looksLikeCredential(value);
    case 'prose':
      return !verdicts.namesASecretType(value);
    case 'call':
      return true; // judged in valueOf, for quoted and unquoted values alike
    case 'cli':
      return !value.startsWith('-') && !PROSE_WORDS.has(value.toLowerCase());
  }
}

/** After a YAML/ini value only a comment or the end of the line may follow; otherwise it is prose or code. */
function lineEndsAt(text: string, i: number): boolean {
  const j = skipBlanks(text, i, 64);
  if (j >= text.length) return true;
  const ch = text[j];
  if (ch === '\n' || ch === '\r' || ch === '#' || isQuote(ch)) return true;
  const pair = text.slice(j, j + 2);
  return pair === '//' || pair === '\\n' || pair === '\\r';
}

/** An unquoted value that is a literal secret rather than a placeholder, code or a reference. */
function isUnquotedLiteral(value: string): boolean {
  return !isPlaceholderValue(value) && !isExpressionOrReference(value) && !namesASecret(value);
}

/** Unquoted values that are code or references to a value kept elsewhere. */
function isExpressionOrReference(value: string): boolean {
  if (/[()[\]]/.test(value)) return true; // calls and indexing: getpass(), os.environ["X"]
  if (/^(?:![A-Za-z]\w*|[&*][A-Za-z_][\w-]*|[|>][-+]?\d?)$/.test(value)) return true; // YAML tags (!Ref, !vault), anchors, aliases, block scalars
  if (isPathLike(value)) return true; // a path to the secret, or PWD=/home/me in an env dump
  if (/^[A-Za-z_$][\w$]*(?:(?:\??\.|::|->)[A-Za-z_$][\w$]*)+$/.test(value)) return true; // process.env.X
  if (/^[a-z]+(?:[A-Z][a-z]+)+$/.test(value)) return true; // hashedPassword
  if (/^[A-Za-z_][\w.]*<.*>$/.test(value)) return true; // Option<String>
  return TYPE_NAMES.has(value.toLowerCase()); // `password: string` in a type
}

/**
 * `/run/secrets/db`, `~/.pgpass`, `./creds.json`; but not a base64 secret that happens to open
 * with a slash (`/X/FlnGjV9+Nl…`): paths have no `+` or `=`, and no long segment mixing cases and
 * digits.
 */
function isPathLike(value: string): boolean {
  if (!/^(?:~?\/|\.{1,2}\/)[\w.@/-]*$/.test(value)) return false;
  return !value.split('/').some((segment) => segment.length >= 16 && /[a-z]/.test(segment) && /[A-Z]/.test(segment) && /\d/.test(segment));
}

const TYPE_NAMES = new Set([
  'string',
  'str',
  'number',
  'int',
  'integer',
  'float',
  'double',
  'bool',
  'boolean',
  'bytes',
  'char',
  'text',
  'any',
  'unknown',
  'object',
  'secretstr',
  'securestring',
]);

/**
 * `password=password`, `password=db_password`, `secret: Secret`, `key: dbPassword`: the value names
 * a variable. Only names written the way variables are (one word, snake_case, SCREAMING_CASE,
 * kebab-case or camelCase, no digits) count: `Hunter2Secret` or `SuperSecretKey` name nothing, they
 * are passwords that happen to end in a secret word.
 */
function namesASecret(value: string): boolean {
  if (SECRET_NAMES.has(value.toLowerCase())) return true;
  if (!/^[A-Za-z_][A-Za-z_.-]*$/.test(value) || !isSecretKeyName(value)) return false;
  return /^(?:[a-z_.-]+|[A-Z_.-]+|[A-Z]?[a-z]+|[a-z]+(?:[A-Z][a-z]*)+)$/.test(value);
}

/**
 * Where only context could tell a secret from prose ("my password is …", "password: … and more"),
 * the value must read like one: a letter and a digit or symbol, six characters or more, and none
 * of the technical words prose puts there ("sha256-hashed", "v1.2.3", "32-bytes", "https://…").
 */
export function looksLikeCredential(value: string): boolean {
  if (value.length < 6 || value.length > 512) return false;
  if (!/[A-Za-z]/.test(value) || !/[0-9!@#$%^&*+=?~]/.test(value)) return false;
  if (value.includes('://') || /^\d+[-_ ]?[A-Za-z]+$/.test(value)) return false; // a URL, "32-bytes"
  return !TECHNICAL_WORD.test(value);
}

const TECHNICAL_WORD =
  /^(?:v?\d+(?:\.\d+)+|sha-?\d*|md5|utf-?(?:8|16)|base(?:32|64)|bcrypt|scrypt|argon2\w*|aes-?\d*|rsa-?\d*|ecdsa|ed25519|pbkdf2|oauth-?2|http-?2|ipv[46]|x\.?509|[hre]s\d{3}|tls-?1|\d+(?:\.\d+)?[kmgt]?i?b?$)/i;

/**
 * Values of weakly named keys (`token`, `*_key`) must look machine-generated: 16+ characters of a
 * key alphabet mixing letters and digits. Tokens and keys are generated; cursors and ids in prose
 * and configs are short or readable.
 */
function looksGenerated(value: string): boolean {
  if (value.length < 16 || !/[A-Za-z]/.test(value) || !/[0-9]/.test(value)) return false;
  return !/\s/.test(value) && !TECHNICAL_WORD.test(value) && !isUuidOrDigest(value);
}

/** Ids and content hashes are not credentials, even under a `*_key` name. */
function isUuidOrDigest(value: string): boolean {
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value) || /^(?:sha\d+:)?[0-9a-f]{40}(?:[0-9a-f]{24})?$/.test(value);
}

/** `secret_key: SecretKey`, `password: DbPassword`: after a spaced colon a PascalCase name is a type. */
function namesASecretType(value: string): boolean {
  return /^(?:[A-Z][a-z]+)+$/.test(value) && isSecretKeyName(value);
}

const SECRET_NAMES = new Set(['pass', 'token', 'key', 'credentials', 'creds']);

/** Words that follow a flag in prose ("use --password to set it"), never as its value. */
const PROSE_WORDS = new Set([
  'a',
  'an',
  'the',
  'to',
  'is',
  'was',
  'and',
  'or',
  'for',
  'of',
  'in',
  'on',
  'with',
  'as',
  'if',
  'when',
  'flag',
  'option',
  'argument',
  'parameter',
  'field',
  'value',
  'must',
  'should',
  'will',
  'can',
  'instead',
]);
