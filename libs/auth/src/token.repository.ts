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

  async revoke(row: TokenRow): Promise<void> {
    await this.storage.insert(this.storage.tables.apiTokens, [
      { ...row, revoked: true, revoked_at: formatMillis(), version: nextVersion() },
    ]);
  }
}
