import { formatMillis, type Storage } from '@loom/clickhouse';
import { nextVersion } from '@loom/platform';
import type { ThreadFence } from '../fencing/thread-fence';
import { embeddingKey, type EmbeddingRow } from '../rows';
import { LEXICAL_REVISION, lexicalColumns } from './lexical-columns';

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

/**
 * Which live embedding rows a run re-derives:
 * - `terms`: rows with no terms (stored before the lexical index, migrations 0032-0034) or with
 *   terms of an older tokenizer revision (before Porter stemming: words as typed);
 * - `saved`: live saved messages with no row at their version in saved_docs (saved before
 *   migrations 0037 and 0045 gave saved-message search its index). Word-less ones are written
 *   too: saved search finds them by meaning, from saved_docs.
 */
export type LexicalBackfillSelection = 'terms' | 'saved';

export interface LexicalBackfillOptions {
  batchSize?: number;
  onProgress?: (progress: LexicalBackfillProgress) => void;
}

/**
 * Gives the lexical indexes the turns written before them (see `LexicalBackfillSelection`): a
 * live embedding row selected gets a new version carrying the terms of the turn's whole text,
 * derived by `lexicalColumns` (the append path's own function),
 * read from its transcript row (the owner's), or from the embedding row itself where the
 * retention TTL has expired the transcript. The materialized views write their postings
 * (conversation_terms, saved_terms) and saved_docs, so the backfill follows whatever shape the
 * postings have: it only writes the row the append path writes.
 *
 * Resumable by construction: a row once re-derived no longer matches, so a run stopped part-way
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
    private readonly selection: LexicalBackfillSelection = 'terms',
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
    const where =
      this.selection === 'terms'
        ? 'deleted = 0 AND (lex_len = 0 OR lex_rev < {rev:UInt8})'
        : `deleted = 0 AND is_saved AND user_id != ''
           AND (namespace, user_id, thread_id, msg_id, version) NOT IN (SELECT namespace, user_id, thread_id, msg_id, version FROM ${this.storage.tables.savedDocs})`;
    const params = { rev: LEXICAL_REVISION };
    // Most starts find nothing to do: a read without FINAL says so cheaply.
    const [any] = await this.storage.query<{ n: string }>(`SELECT count() AS n FROM ${table} WHERE ${where}`, params);
    const progress: LexicalBackfillProgress = { total: Number(any?.n ?? 0), done: 0, indexed: 0, skipped: 0 };
    if (progress.total === 0) return progress;
    const [live] = await this.storage.query<{ n: string }>(`SELECT count() AS n FROM ${table} FINAL WHERE ${where}`, params);
    progress.total = Number(live?.n ?? 0);
    options.onProgress?.({ ...progress });
    let after: [string, string, string] = ['', '', ''];
    while (progress.total > 0 && !this.stopping) {
      // The (namespace, thread_id) bound repeats the cursor's leading columns: the primary key does not
      // prune on a tuple comparison (ClickHouse #75086), so without it every page scans from the table's start.
      const rows = await this.storage.query<EmbeddingRow>(
        `SELECT * FROM ${table} FINAL
         WHERE ${where} AND (namespace > {a0:String} OR (namespace = {a0:String} AND thread_id >= {a1:String}))
           AND (namespace, thread_id, msg_id) > ({a0:String}, {a1:String}, {a2:String})
         ORDER BY namespace, thread_id, msg_id
         LIMIT {batch:UInt32}`,
        { ...params, a0: after[0], a1: after[1], a2: after[2], batch: batchSize },
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
    // A word-less turn gains nothing from a new version, unless saved search needs its row.
    const withTerms = indexed.filter(({ columns }) => columns.lex_len > 0 || this.selection === 'saved');
    const unsure = withTerms.filter(({ row, token }) => this.fence.mayHaveChanged(row.namespace, row.thread_id, token)).map(({ row }) => row);
    const unchanged = unsure.length > 0 ? await this.stillAsRead(unsure) : undefined;
    const kept = withTerms.filter(({ row }) => !unchanged || !unsure.includes(row) || unchanged.has(`${embeddingKey(row)}@${row.version}`));
    const out = kept.flatMap(({ row, columns }) => [...retirement(row, columns.lex_terms), { ...row, ...columns, version: nextVersion() }]);
    // One insert: a reader sees both versions or neither.
    if (out.length > 0) await this.storage.insert(this.storage.tables.conversationEmbeddings, out);
    return kept.length;
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

/**
 * Postings are keyed by term, so a term the old row held and the new one does not (a word as
 * typed, now held by its stem) would keep its live posting beside the new ones. A tombstone
 * version carrying the old terms, just below the new version, retires exactly those postings,
 * the way every removal path retires a turn's postings.
 */
function retirement(row: EmbeddingRow, terms: readonly string[]): EmbeddingRow[] {
  const kept = new Set(terms);
  if (!row.lex_terms.some((t) => !kept.has(t))) return [];
  return [{ ...row, deleted: true, deleted_at: formatMillis(), version: nextVersion() }];
}

function keyParams(rows: ReadonlyArray<{ namespace: string; thread_id: string; msg_id: string }>): Record<string, unknown> {
  return {
    namespaces: [...new Set(rows.map((r) => r.namespace))],
    threads: [...new Set(rows.map((r) => r.thread_id))],
    ids: [...new Set(rows.map((r) => r.msg_id))],
  };
}
