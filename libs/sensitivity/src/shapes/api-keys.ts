import type { ShapeSink } from '../types';
import { extendWhile, hasLetterAndDigit } from './text';

/**
 * A pasted credential recognised by its issuer's prefix. Every pattern opens with a look-behind so
 * it can only start at a token boundary (a 1 MiB token is tried once, not once per character), and
 * its quantifiers are bounded; `extendOver` then walks past the bound so the reported span still
 * covers an unusually long token whole.
 */
interface TokenRule {
  readonly pattern: RegExp;
  readonly extendOver?: RegExp;
  /** Rejects look-alikes the prefix alone cannot rule out (documentation examples, prose). */
  readonly accepts?: (token: string) => boolean;
}

const ALNUM = /[A-Za-z0-9]/;
const ALNUM_UNDERSCORE = /[A-Za-z0-9_]/;
const BASE64URL = /[A-Za-z0-9_-]/;
const BEARER_TOKEN_CHAR = /[A-Za-z0-9._~+/=-]/;

const TOKEN_RULES: readonly TokenRule[] = [
  // OpenAI (sk-, sk-proj-, sk-svcacct-) and Anthropic (sk-ant-api03-...). Real keys always mix
  // letters and digits, which keeps hyphenated words such as "sk-not-a-real-key-at-all" out.
  {
    pattern: /(?<![A-Za-z0-9_-])sk-[A-Za-z0-9_-]{20,512}/g,
    extendOver: BASE64URL,
    accepts: (token) => hasLetterAndDigit(token.slice(3)),
  },
  // GitHub classic (ghp_/gho_/ghu_/ghs_/ghr_) and fine-grained (github_pat_) tokens.
  { pattern: /(?<![A-Za-z0-9_])gh[pousr]_[A-Za-z0-9]{36,255}/g, extendOver: ALNUM },
  { pattern: /(?<![A-Za-z0-9_])github_pat_[A-Za-z0-9_]{22,255}/g, extendOver: ALNUM_UNDERSCORE },
  // Slack bot/user/app/refresh tokens; "xoxb-your-token-here" has no digits and is a placeholder.
  {
    pattern: /(?<![A-Za-z0-9_-])xox[abprse]-[A-Za-z0-9-]{10,255}/g,
    extendOver: /[A-Za-z0-9-]/,
    accepts: (token) => hasLetterAndDigit(token.slice(5)),
  },
  // AWS access key ids. AWS's own documentation key ends in EXAMPLE and is pasted constantly.
  {
    pattern: /(?<![A-Za-z0-9])(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Za-z0-9])/g,
    accepts: (token) => !token.endsWith('EXAMPLE'),
  },
  // Google API keys have a fixed length.
  { pattern: /(?<![A-Za-z0-9_-])AIza[A-Za-z0-9_-]{35}(?![A-Za-z0-9_-])/g },
  // Stripe live secret and restricted keys (test-mode keys are excluded on purpose: see README).
  { pattern: /(?<![A-Za-z0-9_])[sr]k_live_[A-Za-z0-9]{16,255}/g, extendOver: ALNUM },
  // GitLab personal access tokens and npm automation tokens.
  { pattern: /(?<![A-Za-z0-9_-])glpat-[A-Za-z0-9_-]{20,255}/g, extendOver: BASE64URL },
  { pattern: /(?<![A-Za-z0-9_])npm_[A-Za-z0-9]{36}(?![A-Za-z0-9])/g },
  // JWTs: a base64url JSON header and payload (both start "eyJ", i.e. `{"`) plus a signature.
  {
    pattern:
      /(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{8,16384}\.eyJ[A-Za-z0-9_-]{8,16384}\.[A-Za-z0-9_-]{10,4096}/g,
    extendOver: BASE64URL,
  },
];

/**
 * "Bearer <token>": whatever the issuer, a long random token after the scheme name is a
 * credential. The span covers the token only, which is the part a redactor must mask.
 */
const BEARER = /(?<![A-Za-z0-9_])(?:[Bb]earer|BEARER)[ \t]{1,4}([A-Za-z0-9._~+/-]{20,4096}={0,3})/g;

export function scanApiKeys(text: string, sink: ShapeSink): boolean {
  return TOKEN_RULES.every((rule) => scanTokenRule(rule, text, sink)) && scanBearerTokens(text, sink);
}

function scanTokenRule(rule: TokenRule, text: string, sink: ShapeSink): boolean {
  // matchAll clones the pattern, so concurrent scans never share a lastIndex.
  for (const match of text.matchAll(rule.pattern)) {
    const start = match.index;
    const matchEnd = start + match[0].length;
    const end = rule.extendOver === undefined ? matchEnd : extendWhile(text, matchEnd, rule.extendOver);
    if (rule.accepts !== undefined && !rule.accepts(text.slice(start, end))) continue;
    if (!sink({ kind: 'api_key', start, end })) return false;
  }
  return true;
}

function scanBearerTokens(text: string, sink: ShapeSink): boolean {
  for (const match of text.matchAll(BEARER)) {
    const token = match[1] ?? '';
    const start = match.index + match[0].length - token.length;
    const end = extendWhile(text, start + token.length, BEARER_TOKEN_CHAR);
    // Scheme descriptions ("Bearer YOUR_ACCESS_TOKEN_HERE") have no digits; real tokens do.
    if (hasLetterAndDigit(text.slice(start, end)) && !sink({ kind: 'api_key', start, end })) return false;
  }
  return true;
}
