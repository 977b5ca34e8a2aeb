import { BRIEF_KEY_PATTERN, LoomError, principalKeyPrefix } from '@loom/contracts';

/** Who is asking, as far as brief keys go: a namespace-wide token, or one bounded to a user. */
export type BriefScope = { bounded: false } | { bounded: true; prefix: string };

/**
 * A bounded token's briefs are stored under `~<user>~<key>` (or `~<user>~<session>~<key>`), ids
 * escaped so no two principals share a prefix (principalKeyPrefix), and seen as `<key>`; a
 * namespace-wide token sees and names the stored form.
 */
export function scopeFor(principal: { readScope: string; readUserId: string | undefined; readSessionId?: string | undefined }): BriefScope {
  if (principal.readScope === 'all') return { bounded: false };
  if (principal.readScope === 'own_user' && principal.readUserId) return { bounded: true, prefix: principalKeyPrefix({ user: principal.readUserId }) };
  if (principal.readScope === 'own_session' && principal.readUserId && principal.readSessionId) {
    return { bounded: true, prefix: principalKeyPrefix({ user: principal.readUserId, session: principal.readSessionId }) };
  }
  throw new LoomError('forbidden', 'session briefs take a namespace-wide token, or one bounded to a user (read_user_id) or to a user\'s session (read_user_id and read_session_id)');
}

/** The key a save writes: the given one, else `auto/<project>/<branch>`, else `session/<session_id>`. */
export function keyForSave(input: { brief_key?: string | undefined; project?: string | undefined; branch?: string | undefined; session_id?: string | undefined }): string {
  if (input.brief_key) return input.brief_key;
  if (input.project && input.branch) return `auto/${input.project}/${input.branch}`;
  if (input.session_id) return `session/${input.session_id}`;
  throw new LoomError('invalid_input', 'give brief_key, or project and branch, or session_id: a brief needs an address', {
    fields: [{ field: 'brief_key', message: 'empty, and neither project with branch nor session_id is given' }],
  });
}

/** The stored key for a client's key, checked against the key pattern. */
export function storedKey(scope: BriefScope, key: string): string {
  if (scope.bounded) {
    if (key.includes('~')) throw new LoomError('forbidden', 'a token bounded to one user cannot name a key containing "~"');
    checkPattern(key);
    return scope.prefix + key;
  }
  if (!key.startsWith('~')) checkPattern(key);
  return key;
}

/**
 * Whether a stored key is this bounded scope's own: it starts with the prefix and holds no further
 * `~` (a user's prefix also starts each of that user's session prefixes, whose briefs are not the
 * user token's). The storage filter `ownedKeyCondition` says the same in SQL.
 */
export function ownsStoredKey(scope: BriefScope & { bounded: true }, stored: string): boolean {
  return stored.startsWith(scope.prefix) && !stored.includes('~', scope.prefix.length);
}

/** `ownsStoredKey` as a condition on `brief_key`, with its parameters. */
export function ownedKeyCondition(scope: BriefScope): { sql: string; params: Record<string, string | number> } {
  if (!scope.bounded) return { sql: '1', params: {} };
  // position() counts bytes from 1: the first byte after the prefix.
  return { sql: "startsWith(brief_key, {prefix:String}) AND position(brief_key, '~', {after:UInt64}) = 0", params: { prefix: scope.prefix, after: Buffer.byteLength(scope.prefix) + 1 } };
}

/** What the caller sees for a stored key. */
export function visibleKey(scope: BriefScope, stored: string): string {
  return scope.bounded ? stored.slice(scope.prefix.length) : stored;
}

function checkPattern(key: string): void {
  if (!BRIEF_KEY_PATTERN.test(key)) {
    throw new LoomError('invalid_input', 'brief_key must be 1-160 characters of letters, digits and _ . : / @ + -, starting with a letter or digit', {
      fields: [{ field: 'brief_key', message: 'does not match ^[A-Za-z0-9][A-Za-z0-9_.:/@+-]{0,159}$' }],
    });
  }
}
