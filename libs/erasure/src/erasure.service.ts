import { formatMillis, toIso, type Storage } from '@loom/clickhouse';
import { Limits, LoomError, principalKeyPrefix, type ErasedCounts, type ErasureRequestedEvent, type ErasureExportRequest, type ErasureExportResponse, type ErasureRequest, type ErasureResponse, type TurnRole } from '@loom/contracts';
import { decodePosition, encodePosition, takeWithinBudget, type ThreadFence } from '@loom/conversations';
import { StoredJobQueue, type JobState, type JobTable, type StoredJobQueueOptions } from '@loom/jobs';
import { InMemoryLeaseManager, type LeaseManager } from '@loom/leases';
import { newId, nextVersion, type Logger, type LoomMetrics } from '@loom/platform';

/** The namespaces an erasure or export covers: a list, or every namespace (an every-namespace token). */
export type NamespaceScope = { all: true } | { all: false; namespaces: string[] };

/** One erasure_requests row. */
export interface ErasureRow extends JobState {
  erasure_id: string;
  subject: 'user' | 'namespace_list';
  user_id: string;
  namespaces: string[];
  all_namespaces: boolean;
  purge: boolean;
  /** The counts as JSON once done, '' before. */
  erased: string;
}

export type ErasureQueueOptions = StoredJobQueueOptions & {
  /** How long a waiting erasure.request waits for a replica (or the erasure service) that took the request. */
  waitMs: number;
  /**
   * `here`: this process runs erasures (a waiting request at once, the rest from its queue).
   * `elsewhere`: it only stores requests and reads their records; the erasure service runs them.
   */
  runs: 'here' | 'elsewhere';
};

export const DefaultErasureQueueOptions: ErasureQueueOptions = { pollMs: 15_000, retryBaseMs: 30_000, maxAttempts: 5, batch: 20, waitMs: 120_000, runs: 'here' };

function erasureTable(storage: Storage): JobTable<ErasureRow> {
  return {
    table: storage.tables.erasureRequests,
    idColumn: 'erasure_id',
    columns: ['namespace', 'erasure_id', 'subject', 'user_id', 'namespaces', 'all_namespaces', 'purge', 'status', 'erased', 'attempts', 'last_error', 'next_attempt_at', 'created_at', 'updated_at'],
    leaseKind: 'erasure',
    messages: {
      done: 'erasure done',
      retry: 'erasure failed part-way; it is retried later, and every step is safe to run again',
      failed: 'erasure failed for the last time; send erasure.request again once the cause (see last_error) is fixed',
      lookFailed: 'looking for pending erasures failed; the next poll retries',
    },
    fromStorage: (row) => ({ ...row, all_namespaces: Boolean(row.all_namespaces), purge: Boolean(row.purge) }),
  };
}

const NO_COUNTS: ErasedCounts = { turns: 0, embeddings: 0, threads: 0, memories: 0, evidence: 0, briefs: 0, runs: 0, observations: 0 };

/**
 * erasure.request, erasure.status and erasure.export. A person's erasure tombstones every
 * conversation row carrying their user_id (saved messages too), their memories, evidence and
 * bounded briefs; a namespace erasure does so for everything in the namespaces, and with `purge`
 * removes the rows from disk. Embedding rows are erased with their subject but never exported.
 *
 * A request is stored before any row is touched and run under its lease (ADR 0011): a crash
 * part-way leaves it pending, and any replica's queue finishes it. Every step selects only what
 * is still live, so running a request again is safe.
 */
export class ErasureService {
  readonly queue: StoredJobQueue<ErasureRow>;
  private readonly waitMs: number;
  private readonly runsHere: boolean;
  private readonly notify: ((event: ErasureRequestedEvent) => void) | undefined;

  constructor(
    private readonly storage: Storage,
    private readonly fence: ThreadFence,
    logger?: Logger,
    queue: {
      leases?: LeaseManager;
      options?: Partial<ErasureQueueOptions>;
      metrics?: LoomMetrics;
      /** Tells the process that runs erasures that one was stored (when it runs elsewhere). */
      notify?: (event: ErasureRequestedEvent) => void;
    } = {},
  ) {
    const { waitMs, runs, ...options } = { ...DefaultErasureQueueOptions, ...queue.options };
    this.waitMs = waitMs;
    this.runsHere = runs === 'here';
    this.notify = queue.notify;
    this.queue = new StoredJobQueue(storage, queue.leases ?? new InMemoryLeaseManager(), erasureTable(storage), (row) => this.perform(row), options, logger, queue.metrics);
  }

  /** Starts finishing erasures, first those a crash or a stop left pending (unless they run elsewhere). */
  start(): void {
    if (this.runsHere) this.queue.start();
  }

  async close(): Promise<void> {
    await this.queue.close();
  }

  /** Stores the request, then (unless `wait` is false) runs it and answers when it is done. */
  async erase(scope: NamespaceScope, namespace: string, input: ErasureRequest): Promise<ErasureResponse> {
    const byUser = input.user_id !== undefined;
    if (byUser === (input.namespace_list !== undefined)) {
      throw new LoomError('invalid_input', 'give exactly one of user_id (a person) or namespace_list (whole namespaces)', {
        fields: [{ field: byUser ? 'namespace_list' : 'user_id', message: 'exactly one of user_id, namespace_list' }],
      });
    }
    if (input.purge && byUser) {
      throw new LoomError('invalid_input', 'purge goes with a namespace_list erasure; a person\'s erasure tombstones', { fields: [{ field: 'purge', message: 'only with namespace_list' }] });
    }
    const covered: NamespaceScope = byUser ? scope : { all: false, namespaces: input.namespace_list! };
    const background = input.wait === false;
    const row = await this.queue.record(
      {
        namespace,
        erasure_id: newId('era_'),
        subject: byUser ? 'user' : 'namespace_list',
        user_id: input.user_id ?? '',
        namespaces: covered.all ? [] : covered.namespaces,
        all_namespaces: covered.all,
        purge: input.purge === true,
        status: 'pending',
        erased: '',
      },
      // Run in the background here only when this process runs erasures at all.
      { background: background && this.runsHere },
    );
    if (!this.runsHere) this.notify?.({ namespace, erasure_id: row.erasure_id });
    if (background) return toResponse(row);
    if (!this.runsHere) return toResponse(await this.finishedElsewhere(namespace, row));
    const outcome = await this.queue.runNow(namespace, row.erasure_id, this.waitMs);
    // Failed part-way: the request stays pending and is retried; the caller hears why now.
    if (outcome.error !== undefined) throw outcome.error;
    return toResponse(outcome.row ?? row);
  }

  /** The record once the erasure service has finished it (or failed it), or as it stands after the wait. */
  private async finishedElsewhere(namespace: string, row: ErasureRow): Promise<ErasureRow> {
    const deadline = Date.now() + this.waitMs;
    let latest = row;
    while (latest.status === 'pending' && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      latest = (await this.queue.find(namespace, row.erasure_id)) ?? latest;
      // A failed attempt the service will retry: the caller hears why now, as when it runs here.
      if (latest.status === 'pending' && latest.attempts > 0 && latest.last_error) break;
    }
    if (latest.status === 'pending' && latest.last_error) throw new LoomError('unavailable', `the erasure failed part-way and is retried in the background (${latest.erasure_id}): ${latest.last_error}`);
    return latest;
  }

  async status(namespace: string, erasureId: string): Promise<ErasureResponse> {
    const row = await this.queue.find(namespace, erasureId);
    if (!row) throw new LoomError('not_found', `no erasure ${erasureId} in namespace ${namespace}`);
    return toResponse(row);
  }

  /** The erasure itself; each step reads only what is still there, so a second run is safe. */
  private async perform(row: ErasureRow): Promise<Partial<ErasureRow>> {
    const byUser = row.subject === 'user';
    const where = byUser ? 'user_id = {user:String}' : '1';
    // A person's briefs: those of their user and session tokens, under the escaped prefix, and any
    // written before ids were escaped under the raw one (the same unless the id holds % or ~). A
    // raw prefix holding ~ may be someone else's, so it is left to a namespace-wide erasure.
    const prefix = principalKeyPrefix({ user: row.user_id });
    const params = { user: row.user_id, namespaces: row.namespaces, prefix, legacyPrefix: row.user_id.includes('~') ? prefix : `~${row.user_id}~` };
    const inScope = row.all_namespaces ? '1' : 'namespace IN {namespaces:Array(String)}';
    const erased: ErasedCounts = { ...NO_COUNTS };
    const { tables } = this.storage;
    const done = (): Partial<ErasureRow> => ({ erased: JSON.stringify(erased) });

    if (row.purge) {
      // Gone from disk: mutations that rewrite the parts, waited for. erasure_requests stays: it is the record.
      const purged = [tables.conversations, tables.conversationEmbeddings, tables.conversationThreads, tables.memories, tables.memoryEvidence, tables.sessionBriefs, tables.sessionBriefRevisions, tables.runs, tables.runUsage, tables.memoryExtractions, tables.observations, tables.mcpSessions, tables.conversationTerms, tables.savedTerms, tables.savedDocs];
      const counts = await Promise.all(
        purged.map(async (t) => {
          const [n] = await this.storage.query<{ n: string }>(`SELECT count() AS n FROM ${t} WHERE ${inScope}`, params);
          return Number(n?.n ?? 0);
        }),
      );
      for (const t of purged) {
        await this.storage.command(`ALTER TABLE ${t} ${this.onCluster()} DELETE WHERE ${inScope} SETTINGS mutations_sync = 2`, params);
      }
      [erased.turns, erased.embeddings, erased.threads, erased.memories, erased.evidence, erased.briefs] = [counts[0]!, counts[1]!, counts[2]!, counts[3]!, counts[4]!, counts[5]!];
      erased.runs = counts[7]! + counts[8]!;
      erased.observations = counts[10]!;
      await this.eraseQuarantined(row, params);
      return done();
    }

    const version = nextVersion();
    const stamp = { now: formatMillis(), version };
    // Tombstones are written inside the engine (INSERT … SELECT): a person's or a namespace's
    // rows never pass through this process, however many there are.
    const tombstone = async (table: string, where: string, replace: string): Promise<number> => {
      const [n] = await this.storage.query<{ n: string }>(`SELECT count() AS n FROM ${table} FINAL WHERE ${where} AND deleted = 0`, params);
      const count = Number(n?.n ?? 0);
      if (count > 0) {
        // The filter runs in a subquery: at the outer level `deleted` would name the replacement.
        await this.storage.insertSelect(table, `SELECT * REPLACE (${replace}, {version:UInt64} AS version) FROM (SELECT * FROM ${table} FINAL WHERE ${where} AND deleted = 0)`, { ...params, ...stamp });
      }
      return count;
    };
    const deletedNow = "true AS deleted, {now:DateTime64(3, 'UTC')} AS deleted_at";
    // Appends of these threads mid-embed re-read and write no vector for a turn that goes.
    const threads = await this.storage.query<{ namespace: string; thread_id: string }>(
      `SELECT DISTINCT namespace, thread_id FROM ${tables.conversations} FINAL WHERE ${inScope} AND ${where} AND deleted = 0`,
      params,
    );
    for (const t of threads) this.fence.bump(t.namespace, t.thread_id);
    erased.turns = await tombstone(tables.conversations, `${inScope} AND ${where}`, deletedNow);
    // Their vectors, and vectors whose transcript row is gone (expired): the user_id is on the row itself.
    erased.embeddings = await tombstone(tables.conversationEmbeddings, `${inScope} AND ${where}`, deletedNow);
    if (!byUser) erased.threads = await tombstone(tables.conversationThreads, inScope, "true AS deleted, {now:DateTime64(3, 'UTC')} AS updated_at");
    erased.memories = await tombstone(tables.memories, `${inScope} AND ${where}`, 'true AS deleted');
    const [evidence] = await this.storage.query<{ n: string }>(`SELECT count() AS n FROM ${tables.memoryEvidence} WHERE ${inScope} AND ${where}`, params);
    erased.evidence = Number(evidence?.n ?? 0);
    if (erased.evidence > 0) await this.storage.command(`DELETE FROM ${tables.memoryEvidence} WHERE ${inScope} AND ${where}`, params);
    // A person's tool actions go with their evidence: what they did is theirs as much as what they said.
    const [observed] = await this.storage.query<{ n: string }>(`SELECT count() AS n FROM ${tables.observations} WHERE ${inScope} AND ${where}`, params);
    erased.observations = Number(observed?.n ?? 0);
    if (erased.observations > 0) await this.storage.command(`DELETE FROM ${tables.observations} WHERE ${inScope} AND ${where}`, params);
    const briefWhere = byUser ? '(startsWith(brief_key, {prefix:String}) OR startsWith(brief_key, {legacyPrefix:String}))' : '1';
    erased.briefs = await tombstone(tables.sessionBriefs, `${inScope} AND ${briefWhere}`, "true AS deleted, {now:DateTime64(3, 'UTC')} AS updated_at");
    await this.eraseQuarantined(row, params);
    return done();
  }

  /**
   * Quarantined rows (ADR 0013) are a person's or a namespace's rows too, kept as JSON text: they
   * are deleted from disk with the rest, whatever table they were bound for.
   */
  private async eraseQuarantined(row: ErasureRow, params: Record<string, unknown>): Promise<void> {
    const inScope = row.all_namespaces ? '1' : "JSONExtractString(row_json, 'namespace') IN {namespaces:Array(String)}";
    const where = row.subject === 'user' ? "JSONExtractString(row_json, 'user_id') = {user:String}" : '1';
    const table = this.storage.tables.writeQuarantine;
    const [n] = await this.storage.query<{ n: string }>(`SELECT count() AS n FROM ${table} WHERE ${inScope} AND ${where}`, params);
    if (Number(n?.n ?? 0) > 0) await this.storage.command(`DELETE FROM ${table} WHERE ${inScope} AND ${where}`, params);
  }

  /**
   * Transcript turns of a person (or of the namespace), tombstoned ones included unless asked
   * not to. A page holds at most `limit` turns and Limits.pageBudgetBytes of content and
   * reasoning (always one turn): the keys and sizes are read first, without text.
   */
  async export(scope: NamespaceScope, namespace: string, input: ErasureExportRequest): Promise<ErasureExportResponse> {
    const limit = input.limit ?? 500;
    const after = input.cursor !== undefined ? decodePosition(input.cursor, 4) : undefined;
    const conditions = [
      input.user_id !== undefined ? (scope.all ? '1' : 'namespace IN {namespaces:Array(String)}') : 'namespace = {ns:String}',
      ...(input.user_id !== undefined ? ['user_id = {user:String}'] : []),
      ...(input.include_tombstoned === false ? ['deleted = 0'] : []),
    ];
    const params = { ns: namespace, namespaces: scope.all ? [] : scope.namespaces, user: input.user_id ?? '' };
    const KEY = '(namespace, thread_id, agent, msg_id)';
    type Key = { namespace: string; thread_id: string; agent: string; msg_id: string };
    const candidates = await this.storage.query<Key & { bytes: string | number }>(
      `SELECT namespace, thread_id, agent, msg_id, length(content) + length(reasoning) AS bytes
       FROM ${this.storage.tables.conversations} FINAL
       WHERE ${[...conditions, ...(after ? [`${KEY} > ({a0:String}, {a1:String}, {a2:String}, {a3:String})`] : [])].join(' AND ')}
       ORDER BY namespace, thread_id, agent, msg_id
       LIMIT {limit:UInt32}`,
      { ...params, limit: limit + 1, ...(after ? { a0: after[0], a1: after[1], a2: after[2], a3: after[3] } : {}) },
    );
    const taken = takeWithinBudget(candidates.slice(0, limit).map((c) => Number(c.bytes)), Limits.pageBudgetBytes);
    if (taken === 0) return { turns: [], next_cursor: null };
    const first = candidates[0]!;
    const lastChosen = candidates[taken - 1]!;
    const rows = await this.storage.query<{
      namespace: string;
      thread_id: string;
      agent: string;
      msg_id: string;
      role: TurnRole;
      content: string;
      reasoning: string;
      user_id: string;
      run_id: string;
      ts: string;
      is_saved: boolean | number;
      deleted: boolean | number;
      deleted_at: string | null;
    }>(
      `SELECT namespace, thread_id, agent, msg_id, role, content, reasoning, user_id, run_id, ts, is_saved, deleted, deleted_at
       FROM ${this.storage.tables.conversations} FINAL
       WHERE ${conditions.join(' AND ')}
         AND ${KEY} >= ({f0:String}, {f1:String}, {f2:String}, {f3:String})
         AND ${KEY} <= ({l0:String}, {l1:String}, {l2:String}, {l3:String})
       ORDER BY namespace, thread_id, agent, msg_id
       LIMIT {taken:UInt32}`,
      {
        ...params,
        f0: first.namespace, f1: first.thread_id, f2: first.agent, f3: first.msg_id,
        l0: lastChosen.namespace, l1: lastChosen.thread_id, l2: lastChosen.agent, l3: lastChosen.msg_id,
        taken,
      },
    );
    const last: Key = rows[rows.length - 1] ?? lastChosen;
    const more = candidates.length > taken || rows.length < taken;
    return {
      turns: rows.map((r) => ({
        namespace: r.namespace,
        thread_id: r.thread_id,
        agent: r.agent,
        msg_id: r.msg_id,
        role: r.role,
        content: r.content,
        reasoning: r.reasoning,
        user_id: r.user_id || null,
        run_id: r.run_id || null,
        ts: toIso(r.ts)!,
        is_saved: Boolean(r.is_saved),
        deleted: Boolean(r.deleted),
        deleted_at: toIso(r.deleted_at),
      })),
      next_cursor: more ? encodePosition([last.namespace, last.thread_id, last.agent, last.msg_id]) : null,
    };
  }

  private onCluster(): string {
    return this.storage.cluster ? `ON CLUSTER ${this.storage.cluster}` : '';
  }
}

function toResponse(row: ErasureRow): ErasureResponse {
  return {
    erasure_id: row.erasure_id,
    status: row.status,
    subject: row.subject,
    namespaces: row.all_namespaces ? '*' : row.namespaces,
    erased: row.status === 'done' && row.erased !== '' ? (JSON.parse(row.erased) as ErasedCounts) : null,
    purged: row.purge && row.status === 'done',
    attempts: row.attempts,
    last_error: row.last_error,
    created_at: toIso(row.created_at)!,
    updated_at: toIso(row.updated_at)!,
  };
}
