import type { Principal } from '@loom/auth';

/** What an op handler gets besides its validated input. */
export interface OpContext {
  principal: Principal;
  /** The namespace the op acts on, already checked against the token. */
  namespace: string;
  /** The calling agent ("default" when the body names none). */
  agent: string;
}
