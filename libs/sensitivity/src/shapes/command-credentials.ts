import type { ShapeSink } from '../types';
import { isPlaceholderValue } from './placeholders';

/**
 * Passwords that commands and their files take in positions no `key=value` names: `mysql -pS3cret`,
 * `docker login -u me -p S3cret`, `sshpass -p S3cret`, `curl -u user:S3cret`, a `.netrc` entry and
 * `Authorization: Basic <base64 of user:password>`. Reported as password assignments; the span
 * covers the password only (for Basic, the encoded credentials).
 *
 * Each pattern starts at the command's name and its gap to the flag is bounded, so a line is tried
 * a constant number of times per command name on it.
 */
interface CommandRule {
  readonly pattern: RegExp;
  /** The capture group holding the password. */
  readonly group: number;
}

const RULES: readonly CommandRule[] = [
  // mysql/mysqldump/mysqladmin take the password glued to -p; "-p" alone prompts for it.
  { pattern: /(?<![\w-])(?:mysql|mysqldump|mysqladmin|mariadb)(?![\w-])[^\n]{0,120}?[ \t]-p(['"]?)([^\s'"-][^\s'"]{0,127})\1(?!\S)/g, group: 2 },
  { pattern: /(?<![\w-])login(?![\w-])[^\n]{0,120}?[ \t]-p[ \t]{1,4}(['"]?)([^\s'"-][^\s'"]{0,255})\1(?!\S)/g, group: 2 },
  { pattern: /(?<![\w-])sshpass[ \t]{1,4}-p[ \t]{0,4}(['"]?)([^\s'"-][^\s'"]{0,255})\1(?!\S)/g, group: 2 },
  { pattern: /(?<![\w-])curl(?![\w-])[^\n]{0,160}?[ \t](?:-u|--user)[ \t]{1,4}(['"]?)[^\s:'"]{1,128}:([^\s'"]{1,256})\1(?!\S)/g, group: 2 },
  // redis.conf
  { pattern: /(?<![\w-])(?:requirepass|masterauth)[ \t]{1,8}(['"]?)([^\s'"]{1,255})\1(?!\S)/g, group: 2 },
  // A signing secret passed to a JWT library as a literal.
  { pattern: /(?<![\w])jwt\.(?:sign|encode)\([^,()\n]{1,100},[ \t]{0,3}(['"])([^'"\n]{8,256})\1/g, group: 2 },
  { pattern: /(?<![\w-])machine[ \t]+\S{1,255}\s{1,8}login[ \t]+\S{1,255}\s{1,8}password[ \t]+(\S{1,255})/g, group: 1 },
];

const BASIC_AUTH = /(?<![A-Za-z0-9_])(?:[Bb]asic|BASIC)[ \t]{1,4}([A-Za-z0-9+/]{8,1024}={0,2})(?![A-Za-z0-9+/=])/g;

export function scanCommandCredentials(text: string, sink: ShapeSink): boolean {
  for (const { pattern, group } of RULES) {
    for (const match of text.matchAll(pattern)) {
      const password = match[group] ?? '';
      if (/^\d{1,5}$/.test(password) || isPlaceholderValue(password)) continue; // "-p 22" is a port
      const closingQuote = group === 2 ? (match[1] ?? '').length : 0;
      const end = match.index + match[0].length - closingQuote;
      if (!sink({ kind: 'password_assignment', start: end - password.length, end })) return false;
    }
  }
  return scanBasicAuth(text, sink);
}

function scanBasicAuth(text: string, sink: ShapeSink): boolean {
  for (const match of text.matchAll(BASIC_AUTH)) {
    const encoded = match[1] ?? '';
    if (!encodesCredentials(encoded)) continue;
    const end = match.index + match[0].length;
    if (!sink({ kind: 'password_assignment', start: end - encoded.length, end })) return false;
  }
  return true;
}

/** Whether base64 decodes to printable `user:password` with a password that is not a placeholder. */
function encodesCredentials(encoded: string): boolean {
  const decoded = Buffer.from(encoded, 'base64').toString('latin1');
  if (!/^[\x20-\x7e]+$/.test(decoded)) return false;
  const colon = decoded.indexOf(':');
  if (colon < 0) return false;
  const password = decoded.slice(colon + 1);
  return password.length > 0 && !isPlaceholderValue(password) && !['pass', 'password'].includes(password.toLowerCase());
}
