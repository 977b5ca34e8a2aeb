import { IsIn, IsString, MaxLength, MinLength } from 'class-validator';
import { IdField, NamespacedRequest, Optional } from '../common.dto';
import { ReadScopes, Roles, type ReadScope, type Role } from '../roles';

export class CreateTokenRequest extends NamespacedRequest {
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

export class RevokeTokenRequest extends NamespacedRequest {
  @IsString() @MinLength(1) @MaxLength(200) token_id!: string;

  static readonly example: RevokeTokenRequest = Object.assign(new RevokeTokenRequest(), { token_id: 'tok_0123abcd' });
}
export interface RevokeTokenResponse {
  token_id: string;
  revoked: boolean;
}
