import { ALL_NAMESPACES, Defaults, LoomError, roleAtLeast, type ReadScope, type Role } from '@loom/contracts';

/** Who is calling, as established by their token. */
export interface Principal {
  tokenId: string;
  /** The namespaces the token may act on; `['*']` for every namespace. */
  namespaces: string[];
  role: Role;
  readScope: ReadScope;
  readUserId: string | undefined;
  /** An own_session token's session. */
  readSessionId?: string | undefined;
}

export function coversAllNamespaces(principal: Principal): boolean {
  return principal.namespaces.includes(ALL_NAMESPACES);
}

/**
 * The namespace an op acts on: the one the body names, else the token's only namespace, else
 * "default" for an every-namespace token. A namespace outside the token's grant is a 403.
 */
export function resolveNamespace(principal: Principal, requested: string | undefined): string {
  if (requested === undefined) {
    if (coversAllNamespaces(principal)) return Defaults.namespace;
    if (principal.namespaces.length === 1) return principal.namespaces[0]!;
    throw new LoomError('invalid_input', 'this token covers several namespaces: name one in "namespace"', {
      fields: [{ field: 'namespace', message: 'required for a token that covers several namespaces' }],
    });
  }
  if (requested === '@me') {
    // An end-user token is one pinned to one user of one namespace: "@me" is that namespace.
    if (principal.readScope === 'own_user' && principal.readUserId && !coversAllNamespaces(principal) && principal.namespaces.length === 1) {
      return principal.namespaces[0]!;
    }
    throw new LoomError('forbidden', '"@me" addresses an end user\'s namespace and needs an end-user token (read_scope own_user with read_user_id)');
  }
  if (!coversAllNamespaces(principal) && !principal.namespaces.includes(requested)) {
    throw new LoomError('forbidden', `this token has no access to namespace "${requested}"`);
  }
  return requested;
}

/** Refuses a role below the op's. */
export function requireRole(principal: Principal, required: Role, op: string): void {
  if (!roleAtLeast(principal.role, required)) {
    throw new LoomError('forbidden', `${op} needs the ${required} role; this token is ${principal.role}`);
  }
}

/** Refuses a token that does not cover every namespace: the op changes what all of them get. */
export function requireEveryNamespace(principal: Principal, op: string): void {
  if (!coversAllNamespaces(principal)) {
    throw new LoomError('forbidden', `${op} changes every namespace at once and needs a token for every namespace ("*"); this token covers ${principal.namespaces.join(', ')}`);
  }
}

/**
 * Tokens bounded to one user or session serve only the saved-message ops (a thread mixes users
 * and has no user axis to bound), so every other op refuses them.
 */
export function requireNamespaceWideToken(principal: Principal, op: string): void {
  if (principal.readScope !== 'all') {
    throw new LoomError('forbidden', `${op} is not available to a token with read scope ${principal.readScope}`);
  }
}

/**
 * The user a saved-message op acts for. A token pinned to one user acts as that user only: a
 * body naming another is refused. An `own_session` token is refused: the conversation tables
 * have no session axis to bound it by.
 */
export function resolveUserId(principal: Principal, requested: string | undefined, op: string): string {
  if (principal.readScope === 'own_session') {
    throw new LoomError('forbidden', `${op} is not available to a token with read scope own_session: conversation rows have no session to bound it by`);
  }
  if (principal.readScope === 'own_user' && principal.readUserId === undefined) {
    // Minted before token.create required read_user_id: bounded to nobody, it must act for nobody.
    throw new LoomError('forbidden', `${op}: this token has read scope own_user but names no user; mint one with read_user_id`);
  }
  const pinned = principal.readScope === 'own_user' ? principal.readUserId : undefined;
  if (pinned !== undefined) {
    if (requested !== undefined && requested !== pinned) {
      throw new LoomError('forbidden', `this token acts for one user only; user_id "${requested}" is not that user`);
    }
    return pinned;
  }
  if (requested === undefined) {
    throw new LoomError('invalid_input', `${op} acts for one user: give user_id`, { fields: [{ field: 'user_id', message: 'required' }] });
  }
  return requested;
}
