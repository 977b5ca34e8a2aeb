import { IsBoolean, IsIn, IsString, Matches, MaxLength, MinLength } from 'class-validator';
import { IdField, NamespacedRequest, Optional } from '../common.dto';
import { ALL_NAMESPACES, ReadScopes, Roles, type ReadScope, type Role } from '../roles';

const TOKEN_NAMESPACE_PATTERN = /^(\*|@me|[A-Za-z0-9][A-Za-z0-9_.:-]{0,127})$/;

/** Creates a token for a namespace and role (optionally bounded to one user or session). The secret is shown once. */
export class CreateTokenRequest extends NamespacedRequest {
  /**
   * The namespace the new token acts on; "*" for every namespace, which only a token for every
   * namespace may grant (deployment-wide ops such as settings.set need one).
   */
  @Optional()
  @IsString()
  @Matches(TOKEN_NAMESPACE_PATTERN, { message: `namespace must be 1-128 characters of letters, digits, _ . : - (or "@me", or "${ALL_NAMESPACES}" for every namespace)` })
  declare namespace?: string;

  @IsIn(Roles, { message: `role must be one of ${Roles.join(', ')}` }) role!: Role;
  @Optional() @IsIn(ReadScopes, { message: `read_scope must be one of ${ReadScopes.join(', ')}` })
  read_scope?: ReadScope;
  @Optional() @IdField() read_user_id?: string;
  /** With read_scope own_session: the one session the token acts for. */
  @Optional() @IdField() read_session_id?: string;
  @Optional() @IsString() @MaxLength(200) label?: string;

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

/** Revokes a token; calls with it answer 401 from then on. */
export class RevokeTokenRequest extends NamespacedRequest {
  @IsString() @MinLength(1) @MaxLength(200) token_id!: string;

  static readonly example: RevokeTokenRequest = Object.assign(new RevokeTokenRequest(), { token_id: 'tok_0123abcd' });
}
export interface RevokeTokenResponse {
  token_id: string;
  revoked: boolean;
}

/** The tokens the caller could revoke: id, label, role, namespaces, read scope, created and last used. Never a secret. */
export class ListTokensRequest extends NamespacedRequest {
  /** Also the revoked tokens (default: live tokens only). */
  @Optional() @IsBoolean() include_revoked?: boolean;

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

/** `token.whoami`: what the calling token is, so a client (the dashboard) can offer only what it may do. */
export class WhoamiRequest extends NamespacedRequest {
  static readonly example: WhoamiRequest = Object.assign(new WhoamiRequest(), { namespace: 'acme' });
}
export interface WhoamiResponse {
  token_id: string;
  role: Role;
  /** The namespaces it acts on; ["*"] for every namespace (deployment-wide ops such as settings.set need that). */
  namespaces: string[];
  /** The namespace this call resolved to (the one named, else the token's only one). */
  namespace: string;
  read_scope: ReadScope;
  read_user_id: string | null;
  read_session_id: string | null;
}
