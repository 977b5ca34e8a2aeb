import type { Storage } from '@loom/clickhouse';
import { MicroBatcher, type LoomMetrics } from '@loom/platform';
import { embeddingKey, turnKey, type TranscriptRow } from '../rows';
import type { StoredTurnKeys } from './stored-turn-keys';
import type { ThreadLeases } from '../leases/thread-leases';

/**
 * `duplicate_unindexed`: the turn was already stored, is live and indexable, but has no
 * embedding row (a crash or storage outage struck between the two inserts) — the caller repairs it.
 */
export type TranscriptOutcome = 'stored' | 'duplicate' | 'duplicate_unindexed';

export interface TranscriptWrite {
  outcome: TranscriptOutcome;
  /** A live embedding row for this (namespace, thread, msg_id) already exists (another agent's copy). */
  sharedVectorExists: boolean;
}

/**
 * Writes new transcript rows in shared inserts and answers "duplicate" for a turn whose
 * (namespace, thread, agent, msg_id) already landed. Identity comes from the data: one lookup per
 * batch finds the keys already stored. Two rows with one key in one batch are the caller's to
 * prevent (AppendService lets one append per key run at a time). Where other processes write too
 * (split), the lookup and the insert run under the threads' leases, so of two gateways racing on
 * one new turn the second sees the first's row and answers "duplicate".
 *
 * While the leases cannot be asked for (NATS unreachable) the same lookup and insert run
 * without them (ADR 0026): the lease never decided what is stored, only which racer hears
 * "duplicate". Rows are keyed by the turn (ReplacingMergeTree on namespace, thread, agent,
 * msg_id) and read with FINAL, so two racing inserts of one turn are one turn; different turns
 * never conflict; and a turn's place (ts) is taken before the lease was, so order never came
 * from it.
 */
export class TranscriptWriter {
  private readonly batcher: MicroBatcher<TranscriptRow, TranscriptWrite>;

  constructor(
    private readonly storage: Storage,
    options: { lingerMs: number; maxRows: number },
    metrics?: LoomMetrics,
    /** Where known (embedded), lets certainly-new turns skip the lookup. */
    private readonly storedKeys?: StoredTurnKeys,
    /** Where other processes write too: the lookup and the insert of a thread run under its lease. */
    private readonly threadLeases?: ThreadLeases,
  ) {
    this.batcher = new MicroBatcher((rows) => this.writeBatch(rows), { maxItems: options.maxRows, lingerMs: options.lingerMs, maxConcurrent: 1 }, (n) =>
      metrics?.appendBatchSize.observe(n),
    );
  }

  write(row: TranscriptRow): Promise<TranscriptWrite> {
    return this.batcher.submit(row);
  }

  private writeBatch(rows: TranscriptRow[]): Promise<TranscriptWrite[]> {
    return this.threadLeases ? this.threadLeases.forBatch(rows, (row) => row, (held) => this.writeHeld(held), (unfenced) => this.writeHeld(unfenced)) : this.writeHeld(rows);
  }

  private async writeHeld(rows: TranscriptRow[]): Promise<TranscriptWrite[]> {
    if (rows.length === 0) return [];
    const maybeStored = this.storedKeys ? rows.filter((row) => this.storedKeys!.mayBeStored(row)) : rows;
    const { turns, vectors } = maybeStored.length > 0 ? await this.existingKeys(maybeStored) : { turns: new Map<string, TranscriptOutcome>(), vectors: new Set<string>() };
    const fresh = rows.filter((row) => !turns.has(turnKey(row)));
    await this.storage.insert(this.storage.tables.conversations, fresh);
    return rows.map((row) => ({ outcome: turns.get(turnKey(row)) ?? 'stored', sharedVectorExists: vectors.has(embeddingKey(row)) }));
  }

  /**
   * Any stored version counts, tombstoned ones too: a re-sent turn that was deleted stays
   * deleted. In the same round trip: whether each stored turn still lacks the vector it should have.
   */
  private async existingKeys(rows: TranscriptRow[]): Promise<{ turns: Map<string, TranscriptOutcome>; vectors: Set<string> }> {
    const { tables } = this.storage;
    const scope = {
      namespaces: unique(rows.map((r) => r.namespace)),
      threads: unique(rows.map((r) => r.thread_id)),
      ids: unique(rows.map((r) => r.msg_id)),
    };
    const stored = await this.storage.query<{ namespace: string; thread_id: string; agent: string; msg_id: string; indexable: boolean }>(
      `SELECT namespace, thread_id, agent, msg_id,
              argMax(deleted, version) = 0 AND argMax(is_high, version) = 0 AND argMax(role, version) IN ('user', 'assistant') AS indexable
       FROM ${tables.conversations}
       WHERE namespace IN {namespaces:Array(String)} AND thread_id IN {threads:Array(String)} AND msg_id IN {ids:Array(String)}
       GROUP BY namespace, thread_id, agent, msg_id`,
      scope,
    );
    // Embedding rows come from transcript rows, so only a turn some agent already logged can
    // have one: brand-new turns (the common case) need no second lookup.
    const logged = stored.filter((s) => rows.some((r) => embeddingKey(r) === embeddingKey(s)));
    const vectors =
      logged.length === 0
        ? []
        : await this.storage.query<{ namespace: string; thread_id: string; msg_id: string; live: boolean }>(
            `SELECT namespace, thread_id, msg_id, argMax(deleted, version) = 0 AS live
             FROM ${tables.conversationEmbeddings}
             WHERE namespace IN {namespaces:Array(String)} AND thread_id IN {threads:Array(String)} AND msg_id IN {ids:Array(String)}
             GROUP BY namespace, thread_id, msg_id`,
            {
              namespaces: unique(logged.map((r) => r.namespace)),
              threads: unique(logged.map((r) => r.thread_id)),
              ids: unique(logged.map((r) => r.msg_id)),
            },
          );
    // Any row, even a tombstone, rules out a repair (a tombstone must not be revived); only a
    // live row counts as a shared vector.
    const anyVector = new Set(vectors.map(embeddingKey));
    const liveVector = new Set(vectors.filter((v) => v.live).map(embeddingKey));
    const outcomes = new Map<string, TranscriptOutcome>();
    for (const turn of stored) {
      outcomes.set(turnKey(turn), turn.indexable && !anyVector.has(embeddingKey(turn)) ? 'duplicate_unindexed' : 'duplicate');
    }
    return { turns: outcomes, vectors: liveVector };
  }

  /** The stored turn a repair embeds from (its own text, not whatever a retry re-sent). */
  async storedTurn(key: { namespace: string; thread_id: string; agent: string; msg_id: string }): Promise<TranscriptRow | undefined> {
    const rows = await this.storage.query<TranscriptRow>(
      `SELECT * FROM ${this.storage.tables.conversations} FINAL
       WHERE namespace = {namespace:String} AND thread_id = {thread_id:String} AND agent = {agent:String} AND msg_id = {msg_id:String} AND deleted = 0`,
      key,
    );
    return rows[0];
  }
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}
