import type { AppendTurnResponse, TurnRole } from '@loom/contracts';
import { OpsClient, type ClientOptions } from './client';

export interface Message {
  role: TurnRole;
  content: string;
  msg_id?: string;
}

export interface AgentOptions extends ClientOptions {
  /** Extra metadata on every turn this agent appends. */
  metadata?: Record<string, unknown>;
}

/**
 * One agent's handle on Loom: `new Agent(namespace, environment, agentName, options)`. The
 * namespace scopes everything, the agent name is the `agent` of every op, and the environment
 * ("local", "staging") goes into each turn's metadata. Close it when done (or `await using`).
 */
export class Agent {
  readonly client: OpsClient;
  private readonly sessions = new Set<Session>();

  constructor(
    readonly namespace: string,
    readonly environment: string,
    readonly name: string,
    private readonly options: AgentOptions,
  ) {
    this.client = new OpsClient(options);
  }

  /** A Session bound to one (user, session) scope: one thread and one user. */
  session(threadId: string, options: { user_id?: string } = {}): Session {
    const session = new Session(this, threadId, options.user_id);
    this.sessions.add(session);
    return session;
  }

  /** @internal */
  metadata(): Record<string, unknown> {
    return { environment: this.environment, ...this.options.metadata };
  }

  async close(): Promise<void> {
    await Promise.all([...this.sessions].map((s) => s.close()));
    this.sessions.clear();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}

/**
 * Writes one thread's turns through `conversation.append`. `transcript_stored` says whether the
 * last append was kept: false when the namespace does not record conversations (the owner's
 * switch), so a client can tell its user.
 */
export class Session {
  private stored: boolean | undefined;
  private closed = false;

  constructor(
    readonly agent: Agent,
    readonly threadId: string,
    readonly userId: string | undefined,
  ) {}

  /** False when the namespace does not record; undefined before the first append. */
  get transcript_stored(): boolean | undefined {
    return this.stored;
  }

  /** Appends each message in order; answers what Loom said of each. */
  async append(...messages: Message[]): Promise<AppendTurnResponse[]> {
    if (this.closed) throw new Error(`session ${this.threadId} is closed`);
    const answers: AppendTurnResponse[] = [];
    for (const message of messages) {
      const answer = await this.agent.client.call<AppendTurnResponse>('conversation.append', {
        namespace: this.agent.namespace,
        agent: this.agent.name,
        thread_id: this.threadId,
        role: message.role,
        content: message.content,
        metadata: this.agent.metadata(),
        ...(message.msg_id ? { msg_id: message.msg_id } : {}),
        ...(this.userId ? { user_id: this.userId } : {}),
      });
      // A duplicate was stored by an earlier call; only "logging_disabled" means not kept.
      this.stored = answer.stored || answer.reason === 'duplicate';
      answers.push(answer);
    }
    return answers;
  }

  async close(): Promise<void> {
    this.closed = true;
  }
}
