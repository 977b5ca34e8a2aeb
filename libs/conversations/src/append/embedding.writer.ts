import type { Storage } from '@loom/clickhouse';
import { MicroBatcher } from '@loom/platform';
import type { ThreadFence } from '../fencing/thread-fence';
import type { ThreadLeases } from '../leases/thread-leases';
import { embeddingKey, turnKey, type EmbeddingRow } from '../rows';
import { unindexedPlaceholder } from './unindexed-turns';

interface SavedFlags {
  is_saved: boolean;
  saved_at: string | null;
  user_id: string;
}

/** `written`: the row landed (or a live shared row already covers the turn); `deleted`: the turn went away meanwhile. */
export type EmbeddingOutcome = 'written' | 'deleted';

export interface PendingEmbedding {
  row: EmbeddingRow;
  /** The transcript row the vector belongs to: it must still be live when the vector lands. */
  agent: string;
  /** A live shared row already existed when the transcript row was written. */
  sharedVectorExists: boolean;
  /** The thread fence's token taken when the transcript row was written. */
  fenceToken: number;
  /** The transcript row's version: a placeholder written without the lease carries it. */
  turnVersion: number;
}

/**
 * Writes embedding rows after the provider call, in shared inserts. A turn tombstoned while its
 * embedding ran gets no vector (the append answers "deleted"), and a turn whose shared row
 * another agent already wrote keeps that row. The re-read that finds both is skipped for turns
 * whose thread fence says no tombstone can have happened meanwhile.
 */
export class EmbeddingWriter {
  private readonly batcher: MicroBatcher<PendingEmbedding, EmbeddingOutcome>;

  constructor(
    private readonly storage: Storage,
    private readonly fence: ThreadFence,
    private readonly threadLeases: ThreadLeases,
    options: { lingerMs: number; maxRows: number },
  ) {
    this.batcher = new MicroBatcher((items) => this.writeBatch(items), { maxItems: options.maxRows, lingerMs: options.lingerMs, maxConcurrent: 1 });
  }

  write(pending: PendingEmbedding): Promise<EmbeddingOutcome> {
    return this.batcher.submit(pending);
  }

  /**
   * Under the thread leases of the batch (see ThreadLeases.forBatch). While the leases cannot
   * be asked for (NATS unreachable), no live row is written: without the lease a delete could
   * tombstone the turn between the re-read and the insert, and the row would bring its text
   * back. A placeholder is written instead, and the deferred-embeds sweep writes the live row
   * under the lease once it is back (ADR 0026). The embed itself could not have run then
   * either: the embedder is reached over NATS.
   */
  private async writeBatch(items: PendingEmbedding[]): Promise<EmbeddingOutcome[]> {
    return this.threadLeases.forBatch(items, (item) => item.row, (held) => this.writeHeld(held), (unfenced) => this.writePlaceholders(unfenced));
  }

  private async writePlaceholders(items: PendingEmbedding[]): Promise<EmbeddingOutcome[]> {
    const placeholders = new Map<string, EmbeddingRow>();
    for (const item of items) {
      // A live shared row (another agent's copy of the turn) already covers it.
      if (!item.sharedVectorExists) placeholders.set(embeddingKey(item.row), unindexedPlaceholder(item.row, item.turnVersion));
    }
    await this.storage.insert(this.storage.tables.conversationEmbeddings, [...placeholders.values()]);
    return items.map(() => 'written');
  }

  private async writeHeld(items: PendingEmbedding[]): Promise<EmbeddingOutcome[]> {
    if (items.length === 0) return [];
    const unsure = items.filter((i) => this.fence.mayHaveChanged(i.row.namespace, i.row.thread_id, i.fenceToken));
    const { liveTurns, sharedRows } = unsure.length > 0 ? await this.reread(unsure) : { liveTurns: undefined, sharedRows: new Set<string>() };
    const savedFlags = liveTurns ?? new Map<string, SavedFlags>();
    const outcomes: EmbeddingOutcome[] = [];
    const toInsert: EmbeddingRow[] = [];
    const claimed = new Set<string>();
    for (const item of items) {
      const turn = turnKey({ ...item.row, agent: item.agent });
      const live = liveTurns === undefined || !unsure.includes(item) || liveTurns.has(turn);
      if (!live) {
        outcomes.push('deleted');
        continue;
      }
      const key = embeddingKey(item.row);
      if (!item.sharedVectorExists && !sharedRows.has(key) && !claimed.has(key)) {
        claimed.add(key);
        // Saved while its vector was being made: the vector carries the flag too (SAVE-RETRY-06).
        const saved = savedFlags.get(turn);
        toInsert.push(saved?.is_saved ? { ...item.row, is_saved: true, saved_at: saved.saved_at, user_id: saved.user_id } : item.row);
      }
      outcomes.push('written');
    }
    await this.storage.insert(this.storage.tables.conversationEmbeddings, toInsert);
    return outcomes;
  }

  /** Which of these turns are still live (with their saved flags), and which already have a live shared row. */
  private async reread(items: PendingEmbedding[]): Promise<{ liveTurns: Map<string, SavedFlags>; sharedRows: Set<string> }> {
    const { tables } = this.storage;
    const rows = items.map((i) => i.row);
    const params = {
      namespaces: [...new Set(rows.map((r) => r.namespace))],
      threads: [...new Set(rows.map((r) => r.thread_id))],
      ids: [...new Set(rows.map((r) => r.msg_id))],
    };
    // One round trip for both checks: which transcript rows are live, which shared rows exist.
    const state = await this.storage.query<{ kind: 'turn' | 'shared'; namespace: string; thread_id: string; agent: string; msg_id: string } & SavedFlags>(
      `SELECT 'turn' AS kind, namespace, thread_id, agent, msg_id, is_saved, saved_at, user_id FROM ${tables.conversations} FINAL
         WHERE namespace IN {namespaces:Array(String)} AND thread_id IN {threads:Array(String)} AND msg_id IN {ids:Array(String)} AND deleted = 0
       UNION ALL
       SELECT 'shared' AS kind, namespace, thread_id, agent, msg_id, is_saved, saved_at, user_id FROM ${tables.conversationEmbeddings} FINAL
         WHERE namespace IN {namespaces:Array(String)} AND thread_id IN {threads:Array(String)} AND msg_id IN {ids:Array(String)} AND deleted = 0`,
      params,
    );
    return {
      liveTurns: new Map(state.filter((s) => s.kind === 'turn').map((s) => [turnKey(s), { is_saved: Boolean(s.is_saved), saved_at: s.saved_at, user_id: s.user_id }])),
      sharedRows: new Set(state.filter((s) => s.kind === 'shared').map(embeddingKey)),
    };
  }
}
