import { IsOptional, IsString, Matches, MaxLength, MinLength } from 'class-validator';
import { Limits } from './limits';

export const NAMESPACE_PATTERN = /^(@me|[A-Za-z0-9][A-Za-z0-9_.:-]{0,127})$/;
export const AGENT_PATTERN = /^(\*|[A-Za-z0-9][A-Za-z0-9_.:@-]{0,127})$/;

/** Fields every op accepts: which namespace it acts on and as which agent. */
export class NamespacedRequest {
  /** Defaults to the token's namespace when the token has exactly one. */
  @IsOptional()
  @IsString()
  @Matches(NAMESPACE_PATTERN, { message: 'namespace must be 1-128 characters of letters, digits, _ . : - (or "@me")' })
  namespace?: string;
}

export class AgentScopedRequest extends NamespacedRequest {
  /** The agent writing or reading; "default" when omitted. Reads accept "*" for every agent. */
  @IsOptional()
  @IsString()
  @Matches(AGENT_PATTERN, { message: 'agent must be 1-128 characters of letters, digits, _ . : @ - (or "*")' })
  agent?: string;
}

export function IdField(): PropertyDecorator {
  return (target, key) => {
    IsString()(target, key);
    MinLength(1)(target, key);
    MaxLength(Limits.maxIdLength)(target, key);
  };
}
