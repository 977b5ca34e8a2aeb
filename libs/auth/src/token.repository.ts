import { formatMillis, type Storage } from '@loom/clickhouse';
import { nextVersion } from '@loom/platform';
import type { ReadScope, Role } from '@loom/contracts';

export interface TokenRow {
  token_hash: string;
  token_id: string;
  namespaces: string[];
  role: Role;
  read_scope: ReadScope;
  read_user_id: string;
  read_session_id: string;
  label: string;
  created_at: string;
  revoked: boolean;
}

export class TokenRepository {
  constructor(private readonly storage: Storage) {}

  async insert(row: Omit<TokenRow, 'created_at' | 'revoked'>): Promise<void> {
    await this.storage.insert(this.storage.tables.apiTokens, [
      { ...row, created_at: formatMillis(), revoked: false, revoked_at: null, version: nextVersion() },
    ]);
  }

  findByHash(tokenHash: string): Promise<TokenRow | undefined> {
    return this.findOne('token_hash', tokenHash);
  }

  findById(tokenId: string): Promise<TokenRow | undefined> {
    return this.findOne('token_id', tokenId);
  }

  private async findOne(column: 'token_hash' | 'token_id', value: string): Promise<TokenRow | undefined> {
    const rows = await this.storage.query<TokenRow>(
      `SELECT token_hash, token_id, namespaces, role, read_scope, read_user_id, read_session_id, label, created_at, revoked
       FROM ${this.storage.tables.apiTokens} FINAL WHERE ${column} = {value:String} LIMIT 1`,
      { value },
    );
    return rows[0];
  }

  /** Every token row (newest first), with when each was last used; the hashes stay here. */
  async list(): Promise<Array<TokenRow & { revoked_at: string | null; last_used_at: string | null }>> {
    return this.storage.query(
      `SELECT t.token_hash AS token_hash, t.token_id AS token_id, t.namespaces AS namespaces, t.role AS role, t.read_scope AS read_scope,
              t.read_user_id AS read_user_id, t.read_session_id AS read_session_id, t.label AS label, t.created_at AS created_at,
              t.revoked AS revoked, t.revoked_at AS revoked_at, u.last_used_at AS last_used_at
       FROM (SELECT * FROM ${this.storage.tables.apiTokens} FINAL) AS t
       LEFT JOIN (SELECT token_id, max(last_used_at) AS last_used_at FROM ${this.storage.tables.apiTokenUsage} GROUP BY token_id) AS u ON u.token_id = t.token_id
       ORDER BY t.created_at DESC, t.token_id
       SETTINGS join_use_nulls = 1`,
    );
  }

  async noteUse(tokenId: string, at: Date): Promise<void> {
    await this.storage.insert(this.storage.tables.apiTokenUsage, [{ token_id: tokenId, last_used_at: formatMillis(at) }]);
  }

  async revoke(row: TokenRow): Promise<void> {
    await this.storage.insert(this.storage.tables.apiTokens, [
      { ...row, revoked: true, revoked_at: formatMillis(), version: nextVersion() },
    ]);
  }
}
