import { toIso } from '@loom/clickhouse';
import { ALL_NAMESPACES, LoomError, type ReadScope, type Role, type TokenInfo } from '@loom/contracts';
import { randomToken, RefreshingCache, sha256Hex } from '@loom/platform';
import { coversAllNamespaces, type Principal } from './principal';
import type { TokenRepository, TokenRow } from './token.repository';

const TOKEN_PREFIX = 'loom_';
const CACHE_MS = 5_000;
/** A token's last use is written at most this often per process: a busy token is not a write per call. */
const USE_NOTE_MS = 60_000;

export interface IssuedToken {
  token: string;
  tokenId: string;
}

/**
 * Tokens: minted here, shown once, stored as SHA-256 hashes (they are 256-bit random, so a slow
 * hash buys nothing). Verified tokens are cached briefly; a revoke in this process drops the
 * entry at once, other processes see it within CACHE_MS.
 */
export class AuthService {
  private readonly cache: RefreshingCache<string, Principal | undefined>;
  private bootstrap: { hash: string; principal: Principal } | undefined;
  private readonly usesNoted = new Map<string, number>();

  constructor(private readonly tokens: TokenRepository) {
    this.cache = new RefreshingCache(CACHE_MS, async (hash: string) => {
      const row = await this.tokens.findByHash(hash);
      return row && !row.revoked ? toPrincipal(row) : undefined;
    });
  }

  /** Makes `value` an admin token for every namespace, for this process's lifetime. */
  setBootstrapAdminToken(value: string): void {
    this.bootstrap = {
      hash: sha256Hex(value),
      principal: { tokenId: 'bootstrap', namespaces: [ALL_NAMESPACES], role: 'admin', readScope: 'all', readUserId: undefined },
    };
  }

  async authenticate(authorization: string | undefined): Promise<Principal> {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
    if (!match) throw new LoomError('unauthorized', 'send "Authorization: Bearer <token>"; mint one with `loom token create`');
    const hash = sha256Hex(match[1]!);
    if (this.bootstrap && this.bootstrap.hash === hash) return this.bootstrap.principal;
    const principal = await this.cache.get(hash);
    if (!principal) throw new LoomError('unauthorized', 'this token is unknown or revoked');
    this.noteUse(principal.tokenId);
    return principal;
  }

  /** Records that a token was used, once a minute at most; a failed write only loses the note. */
  private noteUse(tokenId: string): void {
    const now = Date.now();
    if (now - (this.usesNoted.get(tokenId) ?? 0) < USE_NOTE_MS) return;
    this.usesNoted.set(tokenId, now);
    this.tokens.noteUse(tokenId, new Date(now)).catch(() => this.usesNoted.delete(tokenId));
  }

  /**
   * The tokens an issuer could revoke (an every-namespace admin: all of them), newest first, with
   * labels, grants and use times; never a token or its hash. `namespace` keeps those granted on it.
   */
  async listTokens(issuer: Principal | 'cli', options: { namespace?: string; includeRevoked?: boolean } = {}): Promise<TokenInfo[]> {
    const rows = await this.tokens.list();
    return rows
      .filter((row) => issuer === 'cli' || coversAllNamespaces(issuer) || row.namespaces.every((ns) => issuer.namespaces.includes(ns)))
      .filter((row) => options.namespace === undefined || row.namespaces.includes(options.namespace))
      .filter((row) => options.includeRevoked === true || !row.revoked)
      .map((row) => ({
        token_id: row.token_id,
        label: row.label,
        role: row.role,
        namespaces: row.namespaces,
        read_scope: row.read_scope,
        read_user_id: row.read_user_id || null,
        read_session_id: row.read_session_id || null,
        created_at: toIso(row.created_at)!,
        last_used_at: toIso(row.last_used_at),
        revoked: Boolean(row.revoked),
        revoked_at: toIso(row.revoked_at),
      }));
  }

  /**
   * Mints a token for one namespace (or every namespace with "*", which only an every-namespace
   * admin may grant). An admin cannot mint beyond its own grant.
   */
  async createToken(
    issuer: Principal | 'cli',
    options: { namespace: string; role: Role; readScope?: ReadScope; readUserId?: string; readSessionId?: string; label?: string },
  ): Promise<IssuedToken> {
    if (issuer !== 'cli') {
      const allowed = coversAllNamespaces(issuer) || (options.namespace !== ALL_NAMESPACES && issuer.namespaces.includes(options.namespace));
      if (!allowed) throw new LoomError('forbidden', `this token cannot grant access to namespace "${options.namespace}"`);
    }
    const readScope = options.readScope ?? 'all';
    if (options.readUserId && readScope === 'all') {
      throw new LoomError('invalid_input', 'read_user_id goes with read_scope "own_user" or "own_session"', {
        fields: [{ field: 'read_user_id', message: 'only valid with a bounded read_scope' }],
      });
    }
    if (options.readSessionId && readScope !== 'own_session') {
      throw new LoomError('invalid_input', 'read_session_id goes with read_scope "own_session"', {
        fields: [{ field: 'read_session_id', message: 'only valid with read_scope "own_session"' }],
      });
    }
    // A bounded token names whom it is bounded to: one left open would act for whichever user a
    // body names, which is a namespace-wide reader under another name.
    const missing = [
      ...(readScope !== 'all' && !options.readUserId ? [{ field: 'read_user_id', message: `required with read_scope "${readScope}": the one user the token acts as` }] : []),
      ...(readScope === 'own_session' && !options.readSessionId ? [{ field: 'read_session_id', message: 'required with read_scope "own_session": the one session the token acts for' }] : []),
    ];
    if (missing.length > 0) {
      throw new LoomError('invalid_input', `a token with read_scope "${readScope}" needs ${missing.map((m) => m.field).join(' and ')}`, { fields: missing });
    }
    const token = TOKEN_PREFIX + randomToken(32);
    const tokenId = 'tok_' + randomToken(9);
    await this.tokens.insert({
      token_hash: sha256Hex(token),
      token_id: tokenId,
      namespaces: [options.namespace],
      role: options.role,
      read_scope: readScope,
      read_user_id: options.readUserId ?? '',
      read_session_id: options.readSessionId ?? '',
      label: options.label ?? '',
    });
    return { token, tokenId };
  }

  async revoke(issuer: Principal | 'cli', tokenId: string): Promise<boolean> {
    const row = await this.tokens.findById(tokenId);
    if (!row) return false;
    if (issuer !== 'cli' && !coversAllNamespaces(issuer) && !row.namespaces.every((ns) => issuer.namespaces.includes(ns))) {
      // Same answer as "no such token": an admin of one namespace learns nothing of others.
      return false;
    }
    if (!row.revoked) await this.tokens.revoke(row);
    this.cache.delete(row.token_hash);
    return true;
  }
}

function toPrincipal(row: TokenRow): Principal {
  return {
    tokenId: row.token_id,
    namespaces: row.namespaces,
    role: row.role,
    readScope: row.read_scope,
    readUserId: row.read_user_id || undefined,
    readSessionId: row.read_session_id || undefined,
  };
}
