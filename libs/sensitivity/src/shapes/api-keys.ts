import type { ShapeSink } from '../types';
import { extendWhile, hasLetterAndDigit } from './text';

/**
 * A pasted credential recognised by its issuer's prefix. Every pattern opens with a look-behind so
 * it can only start at a token boundary (a 1 MiB token is tried once, not once per character), and
 * its quantifiers are bounded; `extendOver` then walks past the bound so the reported span still
 * covers an unusually long token whole.
 */
interface TokenRule {
  /**
   * Literals of which the pattern needs at least one, case as written: a text holding none
   * cannot match, and `includes` rules it out far faster than the pattern's own scan, which
   * tries its look-behind at every position (an append checks every turn against every rule).
   */
  readonly hints: readonly string[];
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
    hints: ['sk-'], pattern: /(?<![A-Za-z0-9_-])sk-[A-Za-z0-9_-]{20,512}/g,
    extendOver: BASE64URL,
    accepts: (token) => hasLetterAndDigit(token.slice(3)),
  },
  // GitHub classic (ghp_/gho_/ghu_/ghs_/ghr_) and fine-grained (github_pat_) tokens.
  { hints: ['ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_'], pattern: /(?<![A-Za-z0-9_])gh[pousr]_[A-Za-z0-9]{36,255}/g, extendOver: ALNUM },
  { hints: ['github_pat_'], pattern: /(?<![A-Za-z0-9_])github_pat_[A-Za-z0-9_]{22,255}/g, extendOver: ALNUM_UNDERSCORE },
  // Slack bot/user/app/refresh tokens; "xoxb-your-token-here" has no digits and is a placeholder.
  {
    hints: ['xox'], pattern: /(?<![A-Za-z0-9_-])xox[abprse]-[A-Za-z0-9-]{10,255}/g,
    extendOver: /[A-Za-z0-9-]/,
    accepts: (token) => hasLetterAndDigit(token.slice(5)),
  },
  // AWS access key ids. AWS's own documentation key ends in EXAMPLE and is pasted constantly.
  {
    hints: ['AKIA', 'ASIA'], pattern: /(?<![A-Za-z0-9])(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Za-z0-9])/g,
    accepts: (token) => !token.endsWith('EXAMPLE'),
  },
  // Google API keys have a fixed length.
  { hints: ['AIza'], pattern: /(?<![A-Za-z0-9_-])AIza[A-Za-z0-9_-]{35}(?![A-Za-z0-9_-])/g },
  // Stripe live secret and restricted keys (test-mode keys are excluded on purpose: see README).
  { hints: ['k_live_'], pattern: /(?<![A-Za-z0-9_])[sr]k_live_[A-Za-z0-9]{16,255}/g, extendOver: ALNUM },
  // GitLab personal access tokens and npm automation tokens.
  { hints: ['glpat-'], pattern: /(?<![A-Za-z0-9_-])glpat-[A-Za-z0-9_-]{20,255}/g, extendOver: BASE64URL },
  { hints: ['npm_'], pattern: /(?<![A-Za-z0-9_])npm_[A-Za-z0-9]{36}(?![A-Za-z0-9])/g },
  // Slack app-level tokens and incoming webhooks (the URL path is the secret).
  { hints: ['xapp-'], pattern: /(?<![A-Za-z0-9_-])xapp-\d-[A-Za-z0-9-]{20,255}/g, extendOver: /[A-Za-z0-9-]/ },
  {
    hints: ['hooks.slack.com/'], pattern: /hooks\.slack\.com\/(?:services|workflows|triggers)\/[A-Za-z0-9]{8,12}\/[A-Za-z0-9]{8,12}\/[A-Za-z0-9]{16,64}/g,
    extendOver: ALNUM,
  },
  // Discord webhooks carry their token in the path as well.
  { hints: ['discord'], pattern: /discord(?:app)?\.com\/api\/webhooks\/\d{10,20}\/[A-Za-z0-9_-]{40,100}/g, extendOver: BASE64URL },
  // SendGrid: SG.<22>.<43>.
  { hints: ['SG.'], pattern: /(?<![A-Za-z0-9_-])SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])/g },
  // Twilio API key sids (SK + 32 hex); account sids (AC…) are identifiers, not secrets.
  { hints: ['SK'], pattern: /(?<![A-Za-z0-9])SK[0-9a-f]{32}(?![A-Za-z0-9])/g },
  // PyPI upload tokens are macaroons that always open with the same base64 ("pypi.org").
  { hints: ['pypi-AgEIcHlwaS5vcmc'], pattern: /(?<![A-Za-z0-9_-])pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{40,}/g, extendOver: BASE64URL },
  // Docker Hub, Shopify, DigitalOcean, Hugging Face, Linear, HashiCorp Vault, Stripe webhooks,
  // Google OAuth client secrets, Heroku, Mailgun, Postman, Atlassian, Grafana, New Relic, Doppler.
  { hints: ['dckr_pat_'], pattern: /(?<![A-Za-z0-9_])dckr_pat_[A-Za-z0-9_-]{20,255}/g, extendOver: BASE64URL },
  { hints: ['shp'], pattern: /(?<![A-Za-z0-9_])shp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}(?![A-Za-z0-9])/g },
  { hints: ['_v1_'], pattern: /(?<![A-Za-z0-9_])do[opr]_v1_[a-f0-9]{64}(?![A-Za-z0-9])/g },
  { hints: ['hf_'], pattern: /(?<![A-Za-z0-9_])hf_[A-Za-z0-9]{30,40}(?![A-Za-z0-9])/g, accepts: (token) => /[a-z]/.test(token.slice(3)) && /[A-Z]/.test(token.slice(3)) },
  { hints: ['lin_'], pattern: /(?<![A-Za-z0-9_])lin_(?:api|oauth)_[A-Za-z0-9]{40}(?![A-Za-z0-9])/g },
  { hints: ['hvs.', 'hvb.', 'hvr.'], pattern: /(?<![A-Za-z0-9_.])hv[sbr]\.[A-Za-z0-9_-]{24,255}/g, extendOver: BASE64URL, accepts: (token) => hasLetterAndDigit(token.slice(4)) },
  { hints: ['whsec_'], pattern: /(?<![A-Za-z0-9_])whsec_[A-Za-z0-9+/]{24,255}/g, extendOver: /[A-Za-z0-9+/=]/ },
  { hints: ['GOCSPX-'], pattern: /(?<![A-Za-z0-9_-])GOCSPX-[A-Za-z0-9_-]{24,40}(?![A-Za-z0-9_-])/g },
  { hints: ['HRKU-'], pattern: /(?<![A-Za-z0-9_-])HRKU-[A-Za-z0-9_-]{40,80}(?![A-Za-z0-9_-])/g },
  { hints: ['key-'], pattern: /(?<![A-Za-z0-9_-])key-[0-9a-f]{32}(?![A-Za-z0-9_-])/g },
  { hints: ['PMAK-'], pattern: /(?<![A-Za-z0-9_])PMAK-[0-9a-f]{24}-[0-9a-f]{34}(?![A-Za-z0-9])/g },
  { hints: ['ATATT3'], pattern: /(?<![A-Za-z0-9_])ATATT3[A-Za-z0-9_=-]{100,300}/g, extendOver: /[A-Za-z0-9_=-]/ },
  { hints: ['glsa_'], pattern: /(?<![A-Za-z0-9_])glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}(?![A-Za-z0-9])/g },
  { hints: ['NRAK-'], pattern: /(?<![A-Za-z0-9_])NRAK-[A-Z0-9]{27}(?![A-Za-z0-9])/g },
  { hints: ['dp.'], pattern: /(?<![A-Za-z0-9_])dp\.(?:st|ct|sa|scim)\.[A-Za-z0-9_-]{2,40}\.?[A-Za-z0-9]{40,44}(?![A-Za-z0-9])/g },
  // Telegram bot tokens: <bot id>:AA<33>.
  { hints: [':AA'], pattern: /(?<![A-Za-z0-9_:])\d{8,10}:AA[A-Za-z0-9_-]{33}(?![A-Za-z0-9_-])/g },
  // Azure storage SAS: the signature parameter of a shared access signature URL.
  { hints: ['sig='], pattern: /(?<=[?&])sig=[A-Za-z0-9%+/]{30,200}(?:%3D|=){0,2}/g, accepts: (token) => /[A-Z]/.test(token) && /[a-z]/.test(token) },
  // JWTs: a base64url JSON header and payload (both start "eyJ", i.e. `{"`) plus a signature.
  {
    hints: ['eyJ'],
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
  if (!rule.hints.some((hint) => text.includes(hint))) return true;
  // matchAll clones the pattern, so concurrent scans never share a lastIndex.
  for (const match of text.matchAll(rule.pattern)) {
    const start = match.index;
    const matchEnd = start + match[0].length;
    const end = rule.extendOver === undefined ? matchEnd : extendWhile(text, matchEnd, rule.extendOver);
    const token = text.slice(start, end);
    if (isFiller(token) || (rule.accepts !== undefined && !rule.accepts(token))) continue;
    if (!sink({ kind: 'api_key', start, end })) return false;
  }
  return true;
}

/**
 * Documentation and masked pastes keep the prefix and fill the rest: `ghp_XXXXXXXX…`,
 * `AKIA0000000000000000`, `sk-proj-abc…xxxxxxxx`. A generated key never holds a run of eight equal
 * characters (odds below 1 in 10^12 for a 62-letter alphabet).
 */
function isFiller(token: string): boolean {
  return /(.)\1{7}/.test(token) || token.includes('EXAMPLE');
}

function scanBearerTokens(text: string, sink: ShapeSink): boolean {
  for (const match of text.matchAll(BEARER)) {
    const matched = match[1] ?? '';
    const start = match.index + match[0].length - matched.length;
    const end = extendWhile(text, start + matched.length, BEARER_TOKEN_CHAR);
    // Scheme descriptions ("Bearer YOUR_ACCESS_TOKEN_HERE") have no digits; real tokens do.
    const token = text.slice(start, end);
    if (hasLetterAndDigit(token) && !isFiller(token) && !sink({ kind: 'api_key', start, end })) return false;
  }
  return true;
}
