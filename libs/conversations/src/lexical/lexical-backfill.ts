import type { Storage } from '@loom/clickhouse';
import { nextVersion } from '@loom/platform';
import type { ThreadFence } from '../fencing/thread-fence';
import { embeddingKey, type EmbeddingRow } from '../rows';
import { lexicalColumns } from './lexical-columns';

export interface LexicalBackfillProgress {
  /** Live embedding rows with no terms when the run began (word-less turns included). */
  total: number;
  /** Rows looked at so far. */
  done: number;
  /** Rows given their terms (a new version of the embedding row, whose postings the engine writes). */
  indexed: number;
  /** Rows left as they were: word-less text, or a row deleted or changed while its page was read. */
  skipped: number;
}

export interface LexicalBackfillOptions {
  batchSize?: number;
  onProgress?: (progress: LexicalBackfillProgress) => void;
}

/**
 * Gives the lexical index the turns written before it existed (migrations 0032-0034): live
 * embedding rows with no terms get a new version carrying the terms of the turn's whole text,
 * read from its transcript row (the owner's), or from the embedding row itself where the
 * retention TTL has expired the transcript. The materialized view writes their postings.
 *
 * Resumable by construction: a row once indexed no longer matches, so a run stopped part-way
 * (a restart) picks up where it stopped; keyset paging keeps one run from looking at a row
 * twice. A word-less turn ("?") has no terms and is skipped, not rewritten, on every run.
 * A row deleted or changed while its page was read is left alone (as in a re-embed), so a
 * backfill never revives a tombstoned turn.
 */
export class LexicalBackfill {
  private stopping = false;
  private running: Promise<unknown> | undefined;

  constructor(
    private readonly storage: Storage,
    private readonly fence: ThreadFence,
  ) {}

  /** Runs it; a stopped run ends after its current page. */
  run(options: LexicalBackfillOptions = {}): Promise<LexicalBackfillProgress> {
    const running = this.pages(options);
    this.running = running.catch(() => undefined);
    return running;
  }

  /** Ends a run after its current page (before storage closes); the next start resumes it. */
  async stop(): Promise<void> {
    this.stopping = true;
    await this.running;
  }

  private async pages(options: LexicalBackfillOptions): Promise<LexicalBackfillProgress> {
    const batchSize = options.batchSize ?? 500;
    const table = this.storage.tables.conversationEmbeddings;
    const where = 'lex_len = 0 AND deleted = 0';
    // Most starts find nothing to do: a read without FINAL says so cheaply.
    const [any] = await this.storage.query<{ n: string }>(`SELECT count() AS n FROM ${table} WHERE ${where}`);
    const progress: LexicalBackfillProgress = { total: Number(any?.n ?? 0), done: 0, indexed: 0, skipped: 0 };
    if (progress.total === 0) return progress;
    const [live] = await this.storage.query<{ n: string }>(`SELECT count() AS n FROM ${table} FINAL WHERE ${where}`);
    progress.total = Number(live?.n ?? 0);
    options.onProgress?.({ ...progress });
    let after: [string, string, string] = ['', '', ''];
    while (progress.total > 0 && !this.stopping) {
      const rows = await this.storage.query<EmbeddingRow>(
        `SELECT * FROM ${table} FINAL
         WHERE ${where} AND (namespace, thread_id, msg_id) > ({a0:String}, {a1:String}, {a2:String})
         ORDER BY namespace, thread_id, msg_id
         LIMIT {batch:UInt32}`,
        { a0: after[0], a1: after[1], a2: after[2], batch: batchSize },
      );
      if (rows.length === 0) break;
      const last = rows[rows.length - 1]!;
      after = [last.namespace, last.thread_id, last.msg_id];
      const written = await this.indexBatch(rows);
      progress.done += rows.length;
      progress.indexed += written;
      progress.skipped += rows.length - written;
      options.onProgress?.({ ...progress });
    }
    return progress;
  }

  private async indexBatch(rows: EmbeddingRow[]): Promise<number> {
    const tokens = rows.map((r) => this.fence.mark(r.namespace, r.thread_id));
    const texts = await this.transcripts(rows);
    const indexed = rows.map((row, i) => ({ row, token: tokens[i]!, columns: lexicalColumns(texts.get(`${embeddingKey(row)}@${row.agent}`) ?? texts.get(embeddingKey(row)) ?? row.text) }));
    const withTerms = indexed.filter(({ columns }) => columns.lex_len > 0);
    const unsure = withTerms.filter(({ row, token }) => this.fence.mayHaveChanged(row.namespace, row.thread_id, token)).map(({ row }) => row);
    const unchanged = unsure.length > 0 ? await this.stillAsRead(unsure) : undefined;
    const out = withTerms
      .filter(({ row }) => !unchanged || !unsure.includes(row) || unchanged.has(`${embeddingKey(row)}@${row.version}`))
      .map(({ row, columns }) => ({ ...row, ...columns, version: nextVersion() }));
    if (out.length > 0) await this.storage.insert(this.storage.tables.conversationEmbeddings, out);
    return out.length;
  }

  /** The whole text of each turn from its live, non-high transcript rows: by key and owner, and by key alone. */
  private async transcripts(rows: EmbeddingRow[]): Promise<Map<string, string>> {
    const found = await this.storage.query<{ namespace: string; thread_id: string; msg_id: string; agent: string; content: string }>(
      `SELECT namespace, thread_id, msg_id, agent, content FROM ${this.storage.tables.conversations} FINAL
       WHERE namespace IN {namespaces:Array(String)} AND thread_id IN {threads:Array(String)} AND msg_id IN {ids:Array(String)} AND deleted = 0 AND is_high = 0`,
      keyParams(rows),
    );
    const texts = new Map<string, string>();
    for (const f of found) {
      texts.set(`${embeddingKey(f)}@${f.agent}`, f.content);
      if (!texts.has(embeddingKey(f))) texts.set(embeddingKey(f), f.content);
    }
    return texts;
  }

  /** Which rows are live with the same version as when read (a tombstone or another write changes it). */
  private async stillAsRead(rows: EmbeddingRow[]): Promise<Set<string>> {
    const current = await this.storage.query<{ namespace: string; thread_id: string; msg_id: string; version: string }>(
      `SELECT namespace, thread_id, msg_id, toString(version) AS version FROM ${this.storage.tables.conversationEmbeddings} FINAL
       WHERE namespace IN {namespaces:Array(String)} AND thread_id IN {threads:Array(String)} AND msg_id IN {ids:Array(String)} AND deleted = 0`,
      keyParams(rows),
    );
    return new Set(current.map((c) => `${embeddingKey(c)}@${c.version}`));
  }
}

function keyParams(rows: ReadonlyArray<{ namespace: string; thread_id: string; msg_id: string }>): Record<string, unknown> {
  return {
    namespaces: [...new Set(rows.map((r) => r.namespace))],
    threads: [...new Set(rows.map((r) => r.thread_id))],
    ids: [...new Set(rows.map((r) => r.msg_id))],
  };
}
