import type { Role } from './roles';
import {
  AppendTurnRequest,
  CompactThreadRequest,
  CreateThreadRequest,
  GetThreadRequest,
  ListThreadsRequest,
  ListTurnsRequest,
  SearchTurnsRequest,
  SetLoggingRequest,
  UpdateThreadRequest,
} from './conversations/conversation.dto';
import { CreateTokenRequest, RevokeTokenRequest } from './auth/token.dto';
import { GetSettingsRequest, SetSettingRequest } from './settings/settings.dto';

/**
 * The public ops: `POST /v1/ops/<name>`. Each names its request class (validated with
 * class-validator) and the least role that may call it. Tokens bounded to one user or session
 * are refused by every op here: they serve only the saved-message ops (added with those).
 */
export const Ops = {
  'conversation.set_logging': { role: 'admin', request: SetLoggingRequest },
  'conversation.append': { role: 'writer', request: AppendTurnRequest },
  'conversation.create': { role: 'writer', request: CreateThreadRequest },
  'conversation.update': { role: 'writer', request: UpdateThreadRequest },
  'conversation.get': { role: 'viewer', request: GetThreadRequest },
  'conversation.list': { role: 'viewer', request: ListTurnsRequest },
  'conversation.threads': { role: 'viewer', request: ListThreadsRequest },
  'conversation.search': { role: 'viewer', request: SearchTurnsRequest },
  'conversation.compact': { role: 'writer', request: CompactThreadRequest },
  'token.create': { role: 'admin', request: CreateTokenRequest },
  'token.revoke': { role: 'admin', request: RevokeTokenRequest },
  'settings.get': { role: 'viewer', request: GetSettingsRequest },
  'settings.set': { role: 'admin', request: SetSettingRequest },
} as const satisfies Record<string, { role: Role; request: new () => object }>;

export type OpName = keyof typeof Ops;
export const OpNames = Object.keys(Ops) as OpName[];

export function isOpName(value: string): value is OpName {
  return Object.prototype.hasOwnProperty.call(Ops, value);
}
