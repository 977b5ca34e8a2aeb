import { formatMillis, toIso, type Storage } from '@loom/clickhouse';
import { LoomError, type ErasureExportRequest, type ErasureExportResponse, type ErasureRequest, type ErasureResponse, type TurnRole } from '@loom/contracts';
import { decodePosition, EMBEDDING_COLUMNS, encodePosition, TRANSCRIPT_COLUMNS, type ThreadFence } from '@loom/conversations';
import { newId, nextVersion, type Logger } from '@loom/platform';

/** The namespaces an erasure or export covers: a list, or every namespace (an every-namespace token). */
export type NamespaceScope = { all: true } | { all: false; namespaces: string[] };


/**
 * erasure.request and erasure.export. A person's erasure tombstones every conversation row
 * carrying their user_id (saved messages too), their memories, evidence and bounded briefs;
 * a namespace erasure does so for everything in the namespaces, and with `purge` removes the
 * rows from disk. Embedding rows are erased with their subject but never exported.
 */
export class ErasureService {
  constructor(
    private readonly storage: Storage,
    private readonly fence: ThreadFence,
    private readonly logger?: Logger,
  ) {}

  async erase(scope: NamespaceScope, input: ErasureRequest): Promise<ErasureResponse> {
    const byUser = input.user_id !== undefined;
    if (byUser === (input.namespace_list !== undefined)) {
      throw new LoomError('invalid_input', 'give exactly one of user_id (a person) or namespace_list (whole namespaces)', {
        fields: [{ field: byUser ? 'namespace_list' : 'user_id', message: 'exactly one of user_id, namespace_list' }],
      });
    }
    if (input.purge && byUser) {
      throw new LoomError('invalid_input', 'purge goes with a namespace_list erasure; a person\'s erasure tombstones', { fields: [{ field: 'purge', message: 'only with namespace_list' }] });
    }
    const erasureId = newId('era_');
    const namespaces: NamespaceScope = byUser ? scope : { all: false, namespaces: input.namespace_list! };
    const where = byUser ? 'user_id = {user:String}' : '1';
    const params = { user: input.user_id ?? '', namespaces: namespaces.all ? [] : namespaces.namespaces };
    const inScope = namespaces.all ? '1' : 'namespace IN {namespaces:Array(String)}';
    const erased = { turns: 0, embeddings: 0, threads: 0, memories: 0, evidence: 0, briefs: 0, runs: 0, observations: 0 };
    const { tables } = this.storage;

    if (input.purge) {
      // Gone from disk: mutations that rewrite the parts, waited for.
      const purged = [tables.conversations, tables.conversationEmbeddings, tables.conversationThreads, tables.memories, tables.memoryEvidence, tables.sessionBriefs, tables.sessionBriefRevisions, tables.runs, tables.runUsage, tables.memoryExtractions, tables.observations, tables.mcpSessions];
      const counts = await Promise.all(
        purged.map(async (t) => {
          const [row] = await this.storage.query<{ n: string }>(`SELECT count() AS n FROM ${t} WHERE ${inScope}`, params);
          return Number(row?.n ?? 0);
        }),
      );
      for (const t of purged) {
        await this.storage.command(`ALTER TABLE ${t} ${this.onCluster()} DELETE WHERE ${inScope} SETTINGS mutations_sync = 2`, params);
      }
      [erased.turns, erased.embeddings, erased.threads, erased.memories, erased.evidence, erased.briefs] = [counts[0]!, counts[1]!, counts[2]!, counts[3]!, counts[4]!, counts[5]!];
      erased.runs = counts[7]! + counts[8]!;
      erased.observations = counts[10]!;
      this.logger?.warn({ erasure_id: erasureId, namespaces: namespaces.all ? '*' : namespaces.namespaces, ...erased }, 'namespaces purged');
      return { erasure_id: erasureId, subject: 'namespace_list', namespaces: namespaces.all ? '*' : namespaces.namespaces, erased, purged: true };
    }

    const now = formatMillis();
    const turns = await this.storage.query<Record<string, unknown> & { namespace: string; thread_id: string }>(
      `SELECT ${TRANSCRIPT_COLUMNS} FROM ${tables.conversations} FINAL WHERE ${inScope} AND ${where} AND deleted = 0`,
      params,
    );
    // Appends of these threads mid-embed re-read and write no vector for a turn that went.
    for (const key of new Set(turns.map((t) => `${t.namespace}\u0000${t.thread_id}`))) {
      const [ns, thread] = key.split('\u0000') as [string, string];
      this.fence.bump(ns, thread);
    }
    await this.storage.insert(tables.conversations, turns.map((t) => ({ ...t, deleted: true, deleted_at: now, version: nextVersion() })));
    erased.turns = turns.length;
    // Their vectors, and vectors whose transcript row is gone (expired): the user_id is on the row itself.
    const embeddings = await this.storage.query<Record<string, unknown>>(
      `SELECT ${EMBEDDING_COLUMNS} FROM ${tables.conversationEmbeddings} FINAL WHERE ${inScope} AND ${where} AND deleted = 0`,
      params,
    );
    await this.storage.insert(tables.conversationEmbeddings, embeddings.map((e) => ({ ...e, deleted: true, deleted_at: now, version: nextVersion() })));
    erased.embeddings = embeddings.length;
    if (!byUser) {
      const threads = await this.storage.query<Record<string, unknown>>(
        `SELECT namespace, thread_id, title, metadata, run_id, created_at FROM ${tables.conversationThreads} FINAL WHERE ${inScope} AND deleted = 0`,
        params,
      );
      await this.storage.insert(tables.conversationThreads, threads.map((t) => ({ ...t, updated_at: now, deleted: true, version: nextVersion() })));
      erased.threads = threads.length;
    }
    const memories = await this.storage.query<Record<string, unknown>>(
      `SELECT namespace, memory_id, user_id, text, source, extraction_id, model, embedding, created_at FROM ${tables.memories} FINAL WHERE ${inScope} AND ${where} AND deleted = 0`,
      params,
    );
    await this.storage.insert(tables.memories, memories.map((m) => ({ ...m, deleted: true, version: nextVersion() })));
    erased.memories = memories.length;
    const [evidence] = await this.storage.query<{ n: string }>(`SELECT count() AS n FROM ${tables.memoryEvidence} WHERE ${inScope} AND ${where}`, params);
    erased.evidence = Number(evidence?.n ?? 0);
    if (erased.evidence > 0) await this.storage.command(`DELETE FROM ${tables.memoryEvidence} WHERE ${inScope} AND ${where}`, params);
    // A person's tool actions go with their evidence: what they did is theirs as much as what they said.
    const [observed] = await this.storage.query<{ n: string }>(`SELECT count() AS n FROM ${tables.observations} WHERE ${inScope} AND ${where}`, params);
    erased.observations = Number(observed?.n ?? 0);
    if (erased.observations > 0) await this.storage.command(`DELETE FROM ${tables.observations} WHERE ${inScope} AND ${where}`, params);
    const briefWhere = byUser ? 'startsWith(brief_key, {prefix:String})' : '1';
    const briefs = await this.storage.query<Record<string, unknown>>(
      `SELECT * EXCEPT (version, deleted) FROM ${tables.sessionBriefs} FINAL WHERE ${inScope} AND ${briefWhere} AND deleted = 0`,
      { ...params, prefix: `~${input.user_id ?? ''}~` },
    );
    await this.storage.insert(tables.sessionBriefs, briefs.map((b) => ({ ...b, deleted: true, updated_at: now, version: nextVersion() })));
    erased.briefs = briefs.length;
    this.logger?.warn({ erasure_id: erasureId, subject: byUser ? 'user' : 'namespace_list', ...erased }, 'erasure done');
    return {
      erasure_id: erasureId,
      subject: byUser ? 'user' : 'namespace_list',
      namespaces: namespaces.all ? '*' : namespaces.namespaces,
      erased,
      purged: false,
    };
  }

  /** Transcript turns of a person (or of the namespace), tombstoned ones included unless asked not to. */
  async export(scope: NamespaceScope, namespace: string, input: ErasureExportRequest): Promise<ErasureExportResponse> {
    const limit = input.limit ?? 500;
    const after = input.cursor !== undefined ? decodePosition(input.cursor, 4) : undefined;
    const conditions = [
      input.user_id !== undefined ? (scope.all ? '1' : 'namespace IN {namespaces:Array(String)}') : 'namespace = {ns:String}',
      ...(input.user_id !== undefined ? ['user_id = {user:String}'] : []),
      ...(input.include_tombstoned === false ? ['deleted = 0'] : []),
      ...(after ? ['(namespace, thread_id, agent, msg_id) > ({a0:String}, {a1:String}, {a2:String}, {a3:String})'] : []),
    ];
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
       ORDER BY namespace, thread_id, agent, msg_id
       LIMIT {limit:UInt32}`,
      {
        ns: namespace,
        namespaces: scope.all ? [] : scope.namespaces,
        user: input.user_id ?? '',
        limit: limit + 1,
        ...(after ? { a0: after[0], a1: after[1], a2: after[2], a3: after[3] } : {}),
      },
    );
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return {
      turns: page.map((r) => ({
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
      next_cursor: rows.length > limit && last ? encodePosition([last.namespace, last.thread_id, last.agent, last.msg_id]) : null,
    };
  }

  private onCluster(): string {
    return this.storage.cluster ? `ON CLUSTER ${this.storage.cluster}` : '';
  }
}
