import type {
  AppendTurnResponse,
  BriefSaveResponse,
  BriefSectionsInput,
  ContextPackResponse,
  ListTurnsResponse,
  OpName,
  OpRequests,
  OpResponses,
  RunListResponse,
  RunReportUsageResponse,
  RunView,
  SearchTurnsRequest,
  SearchTurnsResponse,
  SetFromMessagesResponse,
  TurnView,
  UsageReport,
} from './wire.generated';
import { createLoomClient, LoomApiError, type ClientOptions, type LoomClient } from './client';

type TurnRole = OpRequests['conversation.append']['role'];
type RunStatus = NonNullable<OpRequests['run.list']['status']>;

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
  /** The run the session's turns belong to (their `run_id`). */
  run_id?: string;
  /** Appended turns are handed to memory.set_from_messages every this many turns (default 20). */
  flush_every?: number;
}

/** `bot.briefs`: session briefs written by the calling agent itself (author "model"). */
export class Briefs {
  constructor(private readonly agent: Agent) {}

  /** Saves sections under `brief_key`, else `auto/<project>/<branch>`. */
  save(input: { project?: string; branch?: string; brief_key?: string; session_id?: string; sections: BriefSectionsInput }): Promise<BriefSaveResponse> {
    return this.agent.client.call('session.brief_save', { namespace: this.agent.namespace, agent: this.agent.name, ...input });
  }
}

/** `bot.runs`: the run ledger, and the model usage that gives a run its cost. */
export class Runs {
  constructor(private readonly agent: Agent) {}

  begin(goal: string, options: { run_id?: string } = {}): Promise<RunView> {
    return this.call('run.begin', { goal, ...options }).then((r) => r.run);
  }

  complete(runId: string, outcome: { status: 'succeeded' | 'failed' | 'abandoned' | 'ended'; outcome?: string; memories_used?: string[]; wrote?: string[] }): Promise<RunView> {
    return this.call('run.complete', { run_id: runId, ...outcome }).then((r) => r.run);
  }

  get(runId: string): Promise<RunView> {
    return this.call('run.get', { run_id: runId }).then((r) => r.run);
  }

  /** This agent's runs, newest first (`agent: "*"` for every agent's). */
  list(options: { status?: RunStatus; since?: string; limit?: number; offset?: number; agent?: string } = {}): Promise<RunListResponse> {
    return this.call('run.list', options);
  }

  /** Model calls made for the run; a call reported again (same usage_id) is counted once. */
  reportUsage(runId: string, reports: UsageReport[], options: { goal?: string } = {}): Promise<RunReportUsageResponse> {
    return this.call('run.report_usage', { run_id: runId, reports, ...options });
  }

  /**
   * Runs `work` as a run: begun with `goal`, completed `succeeded` with what `work` returns as its
   * outcome, or `failed` with the error's message (and the error thrown on).
   */
  async track<T>(goal: string, work: (run: RunView) => Promise<T>, describe: (value: T) => string | undefined = () => undefined): Promise<T> {
    const run = await this.begin(goal);
    let value: T;
    try {
      value = await work(run);
    } catch (error) {
      await this.complete(run.run_id, { status: 'failed', outcome: error instanceof Error ? error.message : String(error) });
      throw error;
    }
    const outcome = describe(value);
    await this.complete(run.run_id, { status: 'succeeded', ...(outcome !== undefined ? { outcome } : {}) });
    return value;
  }

  private call<O extends OpName>(op: O, body: OpRequests[O]): Promise<OpResponses[O]> {
    return this.agent.client.call(op, { namespace: this.agent.namespace, agent: this.agent.name, ...body });
  }
}

/** What `Session.resume` answers: context.pack for the scope, and the thread's latest turns, oldest first. */
export interface Resumed {
  context: ContextPackResponse;
  tail: TurnView[];
}

/**
 * One agent's handle on Loom: `new Agent(namespace, environment, agentName, options)`. The
 * namespace scopes everything, the agent name is the `agent` of every op, and the environment
 * ("local", "staging") goes into each turn's metadata. Close it when done (or `await using`).
 */
export class Agent {
  /** Every op as a typed method (`bot.client.conversation.get({...})`), and `call(op, body)`. */
  readonly client: LoomClient;
  readonly briefs: Briefs;
  readonly runs: Runs;
  private readonly sessions = new Set<Session>();

  constructor(
    readonly namespace: string,
    readonly environment: string,
    readonly name: string,
    private readonly options: AgentOptions,
  ) {
    this.client = createLoomClient(options);
    this.briefs = new Briefs(this);
    this.runs = new Runs(this);
  }

  /** A Session bound to one (user, session) scope: one thread and one user. */
  session(threadId: string, options: SessionOptions = {}): Session {
    const session = new Session(this, threadId, options.user_id, options.flush_every ?? 20, options.run_id);
    this.sessions.add(session);
    return session;
  }

  /** @internal */
  metadata(): Record<string, unknown> {
    return { environment: this.environment, ...this.options.metadata };
  }

  /**
   * conversation.search as this agent: hybrid (meaning and words) unless `search_mode` says
   * otherwise; `agent: "*"` searches every agent's turns.
   */
  search(query: string, options: Omit<SearchTurnsRequest, 'query' | 'namespace'> = {}): Promise<SearchTurnsResponse> {
    return this.client.call('conversation.search', { namespace: this.namespace, agent: this.name, ...options, query });
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
    readonly runId?: string,
  ) {}

  /**
   * Where to pick the work up: context.pack for this (user, session) scope (facts, this
   * session's turns and past evidence that bear on `query`) and the thread's last `tail` turns.
   */
  async resume(options: { query: string; tail?: number; limit?: number; max_chars?: number }): Promise<Resumed> {
    const { query, tail = 20, ...rest } = options;
    const scope = { namespace: this.agent.namespace, agent: this.agent.name };
    const [context, latest] = await Promise.all([
      this.agent.client.call('context.pack', { ...scope, query, session_id: this.threadId, ...(this.userId ? { user_id: this.userId } : {}), ...rest }),
      this.agent.client
        .call('conversation.list', { ...scope, thread_id: this.threadId, order: 'desc', limit: tail })
        .catch((error: unknown) => {
          // A thread nothing was recorded in (recording off, or a new session) has no tail.
          if (error instanceof LoomApiError && error.status === 404) return { messages: [], next_cursor: null } satisfies ListTurnsResponse;
          throw error;
        }),
    ]);
    return { context, tail: [...latest.messages].reverse() };
  }

  /** False when the namespace does not record; undefined before the first append. */
  get transcript_stored(): boolean | undefined {
    return this.stored;
  }

  /** Appends each message in order; answers what Loom said of each. */
  async append(...messages: Message[]): Promise<AppendTurnResponse[]> {
    if (this.closed) throw new Error(`session ${this.threadId} is closed`);
    const answers: AppendTurnResponse[] = [];
    for (const message of messages) {
      const answer = await this.agent.client.call('conversation.append', {
        namespace: this.agent.namespace,
        agent: this.agent.name,
        thread_id: this.threadId,
        role: message.role,
        content: message.content,
        metadata: this.agent.metadata(),
        ...(message.msg_id ? { msg_id: message.msg_id } : {}),
        ...(this.userId ? { user_id: this.userId } : {}),
        ...(this.runId ? { run_id: this.runId } : {}),
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
      await this.agent.client.call('memory.set_from_messages', {
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
