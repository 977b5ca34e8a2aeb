import { createHash, randomBytes, randomUUID } from 'node:crypto';

export function newId(prefix = ''): string {
  return prefix + randomUUID();
}

export function sha256Hex(...parts: string[]): string {
  const hash = createHash('sha256');
  // Length-prefix each part so ("ab","c") and ("a","bc") never hash alike.
  for (const part of parts) hash.update(`${Buffer.byteLength(part)}:${part}`);
  return hash.digest('hex');
}

export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

let lastVersion = 0;
/**
 * A strictly increasing row version for ReplacingMergeTree tables: wall-clock microseconds,
 * bumped when two writes land in the same microsecond so the later write always wins.
 */
export function nextVersion(): number {
  const now = Date.now() * 1000;
  lastVersion = now > lastVersion ? now : lastVersion + 1;
  return lastVersion;
}
