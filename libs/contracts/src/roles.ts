/** Roles are ordered: each one can do everything the ones before it can. */
export const Roles = ['viewer', 'writer', 'admin'] as const;
export type Role = (typeof Roles)[number];

export function roleAtLeast(actual: Role, required: Role): boolean {
  return Roles.indexOf(actual) >= Roles.indexOf(required);
}

/**
 * What a token may read. `all` is namespace-wide; `own_user` and `own_session` bound the token
 * to one user (or session) and are accepted only by the saved-message ops.
 */
export const ReadScopes = ['all', 'own_user', 'own_session'] as const;
export type ReadScope = (typeof ReadScopes)[number];

/** A token granted for every namespace (the bootstrap admin token). */
export const ALL_NAMESPACES = '*';
