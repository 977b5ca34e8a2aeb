import type { AppendTurnResponse, BriefSaveResponse, BriefSectionsInput, SetFromMessagesResponse, TurnRole } from '@loom/contracts';
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

export interface SessionOptions {
  user_id?: string;
  /** Appended turns are handed to memory.set_from_messages every this many turns (default 20). */
  flush_every?: number;
}

/** `bot.briefs`: session briefs written by the calling agent itself (author "model"). */
export class Briefs {
  constructor(private readonly agent: Agent) {}

  /** Saves sections under `brief_key`, else `auto/<project>/<branch>`. */
  save(input: { project?: string; branch?: string; brief_key?: string; session_id?: string; sections: BriefSectionsInput }): Promise<BriefSaveResponse> {
    return this.agent.client.call<BriefSaveResponse>('session.brief_save', { namespace: this.agent.namespace, agent: this.agent.name, ...input });
  }
}

/**
 * One agent's handle on Loom: `new Agent(namespace, environment, agentName, options)`. The
 * namespace scopes everything, the agent name is the `agent` of every op, and the environment
 * ("local", "staging") goes into each turn's metadata. Close it when done (or `await using`).
 */
export class Agent {
  readonly client: OpsClient;
  readonly briefs: Briefs;
  private readonly sessions = new Set<Session>();

  constructor(
    readonly namespace: string,
    readonly environment: string,
    readonly name: string,
    private readonly options: AgentOptions,
  ) {
    this.client = new OpsClient(options);
    this.briefs = new Briefs(this);
  }

  /** A Session bound to one (user, session) scope: one thread and one user. */
  session(threadId: string, options: SessionOptions = {}): Session {
    const session = new Session(this, threadId, options.user_id, options.flush_every ?? 20);
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
 * Writes one thread's turns through `conversation.append`, and every `flush_every` turns hands
 * them to `memory.set_from_messages` (deferred), whether or not the namespace records: facts are
 * extracted either way. `transcript_stored` says whether the last append was kept: false when
 * the namespace does not record conversations (the owner's switch), so a client can tell its user.
 */
export class Session {
  private stored: boolean | undefined;
  private closed = false;
  private buffered: Message[] = [];
  /** What memory.set_from_messages answered for each hand-off. */
  readonly extractions: SetFromMessagesResponse[] = [];

  constructor(
    readonly agent: Agent,
    readonly threadId: string,
    readonly userId: string | undefined,
    readonly flushEvery: number,
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
      this.buffered.push(message);
      if (this.buffered.length >= this.flushEvery) await this.flush();
    }
    return answers;
  }

  /** Sends the buffered turns to extraction now. */
  async flush(): Promise<void> {
    if (this.buffered.length === 0) return;
    const messages = this.buffered.map(({ role, content }) => ({ role, content }));
    this.buffered = [];
    this.extractions.push(
      await this.agent.client.call<SetFromMessagesResponse>('memory.set_from_messages', {
        namespace: this.agent.namespace,
        messages,
        session_id: this.threadId,
        defer: true,
        ...(this.userId ? { user_id: this.userId } : {}),
      }),
    );
  }

  /** Hands any remaining turns to extraction; the session takes no more appends. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.flush();
  }
}
