import { IsBoolean, IsIn, IsOptional, IsString, MaxLength, MinLength } from 'class-validator';
import { IdField, NamespacedRequest } from '../common.dto';
import { ReadScopes, Roles, type ReadScope, type Role } from '../roles';

export class CreateTokenRequest extends NamespacedRequest {
  @IsIn(Roles, { message: `role must be one of ${Roles.join(', ')}` }) role!: Role;
  @IsOptional() @IsIn(ReadScopes, { message: `read_scope must be one of ${ReadScopes.join(', ')}` })
  read_scope?: ReadScope;
  @IsOptional() @IdField() read_user_id?: string;
  /** With read_scope own_session: the one session the token acts for. */
  @IsOptional() @IdField() read_session_id?: string;
  @IsOptional() @IsString() @MaxLength(200) label?: string;

  static readonly example: CreateTokenRequest = Object.assign(new CreateTokenRequest(), {
    namespace: 'acme',
    role: 'writer',
    label: 'claude-code on laptop',
  });
}
export interface CreateTokenResponse {
  /** Shown once; only its hash is stored. */
  token: string;
  token_id: string;
  namespace: string;
  role: Role;
}

export class RevokeTokenRequest extends NamespacedRequest {
  @IsString() @MinLength(1) @MaxLength(200) token_id!: string;

  static readonly example: RevokeTokenRequest = Object.assign(new RevokeTokenRequest(), { token_id: 'tok_0123abcd' });
}
export interface RevokeTokenResponse {
  token_id: string;
  revoked: boolean;
}

export class ListTokensRequest extends NamespacedRequest {
  /** Also the revoked tokens (default: live tokens only). */
  @IsOptional() @IsBoolean() include_revoked?: boolean;

  static readonly example: ListTokensRequest = Object.assign(new ListTokensRequest(), { namespace: 'acme' });
}
/** What `token.list` says of a token: never the token itself, nor its hash. */
export interface TokenInfo {
  token_id: string;
  label: string;
  role: Role;
  /** The namespaces it acts on; ["*"] for every namespace. */
  namespaces: string[];
  read_scope: ReadScope;
  read_user_id: string | null;
  read_session_id: string | null;
  created_at: string;
  /** When it last authenticated a call (tracked to the minute); null if never. */
  last_used_at: string | null;
  revoked: boolean;
  revoked_at: string | null;
}
export interface ListTokensResponse {
  /** Newest first: the tokens the caller could revoke, of the namespace the request names (every one it covers when it names none). */
  tokens: TokenInfo[];
}
