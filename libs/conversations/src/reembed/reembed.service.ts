import type { Storage } from '@loom/clickhouse';
import { LoomError } from '@loom/contracts';
import { nextVersion } from '@loom/platform';
import { readsAsHigh } from '@loom/sensitivity';
import { EMBED_DEFERRED, type EmbeddingClient } from '../embedding/embedding.client';
import { embeddingColumns } from '../embedding/embedding-columns';
import type { ThreadFence } from '../fencing/thread-fence';
import { embeddingKey, type EmbeddingRow } from '../rows';

export interface ReembedOptions {
  /** Only this namespace (default: every namespace). */
  namespace?: string | undefined;
  /** Re-embed rows of the current model too (default: only rows whose model differs). */
  all?: boolean | undefined;
  batchSize?: number | undefined;
  onProgress?: (progress: ReembedProgress) => void;
}

export interface ReembedProgress {
  model: string;
  total: number;
  done: number;
  reembedded: number;
  /** Rows left as they were: deleted or changed while their batch was embedded, or text that reads as high. */
  skipped: number;
}

type StoredEmbeddingRow = EmbeddingRow;

/**
 * Gives stored turns vectors of the current embedding model. After a provider switch, turns
 * embedded by the old model no longer match any query, because vectors of another model are
 * never compared. This brings them back.
 *
 * - The input is the embedding row's own `text`, the characters the old vector was built from,
 *   never the transcript. A row an earlier build kept at 240 characters stays at 240.
 * - Rows whose embed failed stay failed: the spec retries nothing.
 * - A row tombstoned while its batch was being embedded is not revived.
 */
export class ReembedService {
  constructor(
    private readonly storage: Storage,
    private readonly embedder: EmbeddingClient,
    private readonly fence: ThreadFence,
  ) {}

  async run(options: ReembedOptions = {}): Promise<ReembedProgress> {
    const batchSize = options.batchSize ?? 256;
    // The current model is whatever the embedder answers with; a probe learns it before any row is read.
    const probe = await this.embedder.embed(['loom re-embed: which model answers']);
    if (!probe.ok) throw new LoomError('unavailable', `the embedder cannot answer (${probe.message}); start it and run the re-embed again`);
    const model = probe.model;
    const table = this.storage.tables.conversationEmbeddings;
    const where = [
      'deleted = 0',
      "embed_error = ''",
      ...(options.all ? [] : ['model != {model:String}']),
      ...(options.namespace !== undefined ? ['namespace = {namespace:String}'] : []),
    ];
    const params: Record<string, unknown> = { model, namespace: options.namespace };
    const [count] = await this.storage.query<{ n: string }>(`SELECT count() AS n FROM ${table} FINAL WHERE ${where.join(' AND ')}`, params);
    const progress: ReembedProgress = { model, total: Number(count?.n ?? 0), done: 0, reembedded: 0, skipped: 0 };
    options.onProgress?.({ ...progress });
    // Keyset paging in key order: rows this run rewrites move to the new model and out of the
    // selection; the cursor keeps later pages from seeing them again under --all.
    let after: [string, string, string] = ['', '', ''];
    for (;;) {
      // The (namespace, thread_id) bound repeats the cursor's leading columns: the primary key does not
      // prune on a tuple comparison (ClickHouse #75086), so without it every page scans from the table's start.
      const rows = await this.storage.query<StoredEmbeddingRow>(
        `SELECT * FROM ${table} FINAL
         WHERE ${where.join(' AND ')} AND (namespace > {a0:String} OR (namespace = {a0:String} AND thread_id >= {a1:String}))
           AND (namespace, thread_id, msg_id) > ({a0:String}, {a1:String}, {a2:String})
         ORDER BY namespace, thread_id, msg_id
         LIMIT {batch:UInt32}`,
        { ...params, a0: after[0], a1: after[1], a2: after[2], batch: batchSize },
      );
      if (rows.length === 0) break;
      const last = rows[rows.length - 1]!;
      after = [last.namespace, last.thread_id, last.msg_id];
      const written = await this.reembedBatch(rows, model);
      progress.done += rows.length;
      progress.reembedded += written;
      progress.skipped += rows.length - written;
      options.onProgress?.({ ...progress });
    }
    return progress;
  }

  /**
   * Embeds the turns whose embed was deferred because NATS was down when they were appended
   * (their rows say EMBED_DEFERRED), oldest first, at most `limit`. Answers how many it found
   * and how many got a vector; while the embedder still cannot be reached it writes nothing.
   */
  async embedDeferred(options: { limit?: number; batchSize?: number } = {}): Promise<{ found: number; written: number }> {
    const table = this.storage.tables.conversationEmbeddings;
    const batchSize = options.batchSize ?? 256;
    let left = options.limit ?? 10_000;
    let written = 0;
    let found = 0;
    while (left > 0) {
      const rows = await this.storage.query<StoredEmbeddingRow>(
        `SELECT * FROM ${table} FINAL WHERE deleted = 0 AND startsWith(embed_error, {deferred:String}) ORDER BY version LIMIT {batch:UInt32}`,
        { deferred: EMBED_DEFERRED, batch: Math.min(batchSize, left) },
      );
      if (rows.length === 0) break;
      found += rows.length;
      const probe = await this.embedder.embed(['loom deferred embeds: is the embedder back']);
      if (!probe.ok) break;
      const done = await this.reembedBatch(rows, probe.model, { keepFailures: true });
      written += done;
      left -= rows.length;
      if (rows.length < batchSize) break;
    }
    return { found, written };
  }

  /** Embeds one page and writes the rows still as they were read; returns how many were written. */
  private async reembedBatch(rows: StoredEmbeddingRow[], model: string, options: { keepFailures?: boolean } = {}): Promise<number> {
    // Defence in depth: an embedding row never holds high text, but one from an earlier build might.
    const sendable = rows.filter((r) => !readsAsHigh(r.text));
    if (sendable.length === 0) return 0;
    const tokens = sendable.map((r) => this.fence.mark(r.namespace, r.thread_id));
    const embedded = await this.embedder.embed(sendable.map((r) => r.text));
    // Deferred turns that still cannot be embedded stay deferred: the next sweep tries again.
    if (!embedded.ok && options.keepFailures) return 0;
    if (!embedded.ok) {
      throw new LoomError('unavailable', `the embedder failed mid-run (${embedded.message}); rows done so far keep their new vectors, run again to finish`);
    }
    if (embedded.model !== model) throw new LoomError('conflict', `the embedder switched model during the run (${model} to ${embedded.model}); run again`);
    const unsure = sendable.filter((r, i) => this.fence.mayHaveChanged(r.namespace, r.thread_id, tokens[i]!));
    const unchanged = unsure.length > 0 ? await this.stillAsRead(unsure) : undefined;
    const out: EmbeddingRow[] = [];
    sendable.forEach((row, i) => {
      if (unchanged && unsure.includes(row) && !unchanged.has(`${embeddingKey(row)}@${row.version}`)) return;
      out.push({ ...row, ...embeddingColumns(embedded, i), version: nextVersion() });
    });
    await this.storage.insert(this.storage.tables.conversationEmbeddings, out);
    return out.length;
  }

  /** Which rows are live with the same version as when read (a tombstone or another write changes it). */
  private async stillAsRead(rows: StoredEmbeddingRow[]): Promise<Set<string>> {
    const current = await this.storage.query<{ namespace: string; thread_id: string; msg_id: string; version: string }>(
      `SELECT namespace, thread_id, msg_id, toString(version) AS version FROM ${this.storage.tables.conversationEmbeddings} FINAL
       WHERE namespace IN {namespaces:Array(String)} AND thread_id IN {threads:Array(String)} AND msg_id IN {ids:Array(String)} AND deleted = 0`,
      {
        namespaces: [...new Set(rows.map((r) => r.namespace))],
        threads: [...new Set(rows.map((r) => r.thread_id))],
        ids: [...new Set(rows.map((r) => r.msg_id))],
      },
    );
    return new Set(current.map((c) => `${embeddingKey(c)}@${c.version}`));
  }
}
