/**
 * The stored-key prefix of a bounded principal: `~<user>~` for a token bounded to one user,
 * `~<user>~<session>~` for one bounded to a user's session. User and session ids are free text,
 * so each part is escaped: `%` becomes `%25` and `~` becomes `%7E`. An escaped part never holds
 * `~`, so the parts split back exactly, and two principals never share a prefix (user `a~b` is
 * `~a%7Eb~`, not session `b` of user `a`). Ids with neither character are stored as they are,
 * so briefs written before the escaping read back unchanged.
 */
export type BoundedPrincipal = { user: string; session?: string | undefined };

export function escapeKeyPart(part: string): string {
  return part.replace(/[%~]/g, (c) => (c === '%' ? '%25' : '%7E'));
}

export function unescapeKeyPart(part: string): string {
  return part.replace(/%(25|7E)/g, (_m, hex: string) => (hex === '25' ? '%' : '~'));
}

export function principalKeyPrefix(principal: BoundedPrincipal): string {
  const user = `~${escapeKeyPart(principal.user)}~`;
  return principal.session === undefined ? user : `${user}${escapeKeyPart(principal.session)}~`;
}

/**
 * Whose a stored key is: the bounded principal and the key it sees, or undefined for a
 * namespace-wide key. The inverse of `principalKeyPrefix(p) + key` for keys without `~`.
 */
export function parseStoredKey(stored: string): { principal: BoundedPrincipal; key: string } | undefined {
  if (!stored.startsWith('~')) return undefined;
  const parts = stored.slice(1).split('~');
  if (parts.length === 2) return { principal: { user: unescapeKeyPart(parts[0]!) }, key: parts[1]! };
  if (parts.length === 3) return { principal: { user: unescapeKeyPart(parts[0]!), session: unescapeKeyPart(parts[1]!) }, key: parts[2]! };
  return undefined;
}
