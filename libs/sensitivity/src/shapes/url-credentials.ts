import type { ShapeSink } from '../types';
import { isPlaceholderValue } from './placeholders';

/**
 * Credentials inside a URL: `postgres://admin:S3cr3t@db/prod`, `mongodb+srv://app:…@cluster`,
 * `redis://:pass@host`, `https://user:token@git.example.com`. Reported as a password assignment
 * (the password is assigned to the user in the URL's userinfo); the span covers the password only.
 *
 * Connection strings in docs and compose files are full of placeholders (`user:password@`,
 * `${DB_PASS}`, `****`) and of dev defaults where the password repeats the user
 * (`postgres:postgres@`, `guest:guest@`); neither is a secret.
 */
const URL_CREDENTIALS = /(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]{1,24}:\/\/([^\s:/?#@'"<>]{0,128}):([^\s/?#@'"<>]{1,256})@(?=[A-Za-z0-9[])/g;

export function scanUrlCredentials(text: string, sink: ShapeSink): boolean {
  // The pattern needs both; most text holds neither, and `includes` says so far faster.
  if (!text.includes('://') || !text.includes('@')) return true;
  for (const match of text.matchAll(URL_CREDENTIALS)) {
    const [whole, user = '', password = ''] = match;
    const end = match.index + whole.length - 1;
    const passwordStart = end - password.length;
    // GitHub's token-as-user form: the password is a fixed word and the user is the secret.
    if (password === 'x-oauth-basic') {
      const userStart = passwordStart - 1 - user.length;
      if (user.length >= 20 && !sink({ kind: 'password_assignment', start: userStart, end: userStart + user.length })) return false;
      continue;
    }
    if (!isUrlPassword(user, password)) continue;
    if (!sink({ kind: 'password_assignment', start: passwordStart, end })) return false;
  }
  return true;
}

function isUrlPassword(user: string, password: string): boolean {
  if (password === user || isPlaceholderValue(password)) return false;
  const lower = password.toLowerCase();
  return !URL_PLACEHOLDERS.has(lower) && !/^\d{1,5}$/.test(password); // host:port@ is no password
}

/** The placeholders documentation writes between `user:` and `@`. */
const URL_PLACEHOLDERS = new Set(['pass', 'password', 'passwd', 'pwd', 'secret', 'pw', 'token', 'apikey', 'api_key', 'key']);
