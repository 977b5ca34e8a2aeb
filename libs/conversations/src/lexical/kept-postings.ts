import type { Storage } from '@loom/clickhouse';
import type { Logger } from '@loom/platform';
import { Corpus, SOURCE_COLUMNS, type SourceRow } from './kept-corpus';
import { neighbours, rank, type Bm25Shape, type KeptLexicalFilters, type KeptLexicalRow, type KeptNeighbour } from './kept-ranking';
import { catchUpLimit, type CatchUp, type SharedCatchUp } from '../search/shared-catch-up';

/**
 * Every posting of a namespace, kept in this process so that the lexical (BM25) leg ranks here
 * (ADR 0039, ADR 0041) instead of in the engine, where it cost a statistics check and a scoring
 * statement on every search.
 *
 * What is kept, per namespace: every turn's latest embedding row as its header posting says it
 * (liveness, filters, time, length in terms; a row without terms too, for neighbours) and the
 * postings of every term of that row, in compact per-term arrays, read in pages in the
 * background on the namespace's first search. No text. A term the copy has no postings of is a
 * term no live turn holds, so every search whose namespaces are read ranks here, whatever words
 * it asks (ADR 0041: before it, only the terms asked earlier were held, and a first ask ranked in
 * the engine, five to ten times slower).
 *
 * Why it stays correct:
 * - A turn counts, and a posting of it scores, only at its latest version: a tombstone, thread
 *   delete, compaction, erasure or hand-over writes a new version of the turn's embedding row,
 *   hence of its header and every posting, as the engine's FINAL resolves them. Each posting
 *   carries the epoch of the turn's version that wrote it; an older epoch never scores.
 * - A copy can only miss rows written since it was read: every search first reads the embedding
 *   rows whose version is above the wall-clock time of the copy's previous read less
 *   `marginMicros` (as `KeptVectors`) and derives their headers and postings as
 *   `conversation_terms_writer` does. So a search sees every write acknowledged before it.
 * - A row landing later than the margin allows (a write-behind replay) is found by the count
 *   backstop off the request path, which reads the copy again.
 * - A purge or the retention TTL's merge removes rows without a version: the retention TTL is
 *   applied here on each turn's time; a purged turn is dropped from answers by the caller,
 *   whose read of the hits' texts finds nothing for it (`suspect`, which also reads the copy
 *   again).
 * Scores are BM25 over every live posting of a term (the engine statement keeps the best
 * `POSTINGS_PER_TERM` of each), so they equal the engine's where a term has fewer postings.
 */
export interface KeptPostingsOptions {
  /** At most how many postings (headers included) all kept namespaces hold together; 0 keeps none. */
  maxPostings: number;
  /** Embedding rows per statement of a full read. */
  page: number;
  /** How far below a copy's previous read a catch-up starts (µs). */
  marginMicros: number;
  /** How often (at most) a copy's header rows are counted in the engine (the late-row backstop). */
  countEveryMs: number;
  /** A copy that changed since it was read is read again in the background after this long (sheds superseded postings). */
  reloadAfterMs: number;
  /** LOOM_RETENTION_CONVERSATIONS_DAYS (0: forever): postings of expired turns neither score nor count. */
  retentionDays: number;
  /** The catch-up statement shared with the kept vectors (ADR 0040); without it each catch-up is this copy's own statement. */
  catchUp?: SharedCatchUp | undefined;
  /** The least a search's catch-up reads before the copy counts as too far behind (`catchUpLimit`; tests lower it). */
  minCatchUp?: number;
  now?: () => number;
  logger?: Logger | undefined;
}

export const DEFAULT_KEPT_POSTINGS: KeptPostingsOptions = {
  maxPostings: 64_000_000,
  page: 5_000,
  marginMicros: 10_000_000,
  countEveryMs: 30_000,
  reloadAfterMs: 10 * 60_000,
  retentionDays: 0,
};


export type { Bm25Shape, KeptLexicalFilters, KeptLexicalRow, KeptNeighbour };

/** Ranks a search's terms over the kept postings of its namespaces; see `KeptPostings.ranker`. */
export interface KeptLexicalRanker {
  rank(filters: KeptLexicalFilters, limit: number): KeptLexicalRow[];
  /** The turns on either side of each hit in its thread among those the search may return, as `neighbourStatement` finds them. */
  neighbours(hits: ReadonlyArray<{ namespace: string; thread_id: string; msg_id: string }>, filters: KeptLexicalFilters): KeptNeighbour[];
}

export class KeptPostings {
  private readonly corpora = new Map<string, Corpus>();
  private readonly loads = new Map<string, Promise<void>>();
  private readonly checks = new Set<Promise<void>>();
  /** Namespaces not kept, until when (ms): more postings than the budget holds. */
  private readonly refused = new Map<string, number>();
  private readonly options: KeptPostingsOptions;
  private readonly now: () => number;
  private closed = false;

  constructor(
    private readonly storage: Storage,
    options: Partial<KeptPostingsOptions> = {},
  ) {
    this.options = { ...DEFAULT_KEPT_POSTINGS, ...options };
    this.now = this.options.now ?? Date.now;
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.settled();
    this.corpora.clear();
  }

  loading(): number {
    return this.loads.size;
  }

  holds(namespace: string): boolean {
    return this.corpora.has(namespace);
  }

  /** Postings held by all copies (headers included), and how many copies. */
  held(): { namespaces: number; postings: number } {
    let postings = 0;
    for (const c of this.corpora.values()) postings += c.postings;
    return { namespaces: this.corpora.size, postings };
  }

  async settled(): Promise<void> {
    while (this.loads.size > 0 || this.checks.size > 0) await Promise.allSettled([...this.loads.values(), ...this.checks]);
  }

  /** A hit of this namespace was found gone (purged): the copy is read again in the background. */
  suspect(namespace: string): void {
    const corpus = this.corpora.get(namespace);
    if (!corpus) return;
    this.drop(corpus);
    this.startLoad(namespace);
  }

  /**
   * A BM25 ranker of `terms` over the kept postings of `namespaces`, brought up to date first
   * (one statement: the rows written since their last read), or undefined when a namespace is
   * not kept (yet): the caller ranks in the engine, and a full read of the missing ones starts
   * in the background.
   */
  async ranker(namespaces: readonly string[], terms: readonly string[], bm25: Bm25Shape, notBefore?: number): Promise<KeptLexicalRanker | undefined> {
    if (this.options.maxPostings <= 0 || namespaces.length === 0) return undefined;
    const corpora: Corpus[] = [];
    for (const ns of namespaces) {
      const corpus = this.corpora.get(ns);
      if (!corpus) {
        this.startLoad(ns);
        continue;
      }
      this.corpora.delete(ns);
      this.corpora.set(ns, corpus);
      corpora.push(corpus);
    }
    if (corpora.length < namespaces.length) return undefined;
    if (!(await this.catchUp(corpora, notBefore))) {
      // Too far behind to catch up on a search's time: read again in the background, the engine ranks meanwhile.
      for (const corpus of corpora) {
        this.drop(corpus);
        this.startLoad(corpus.namespace);
      }
      return undefined;
    }
    // Dropped by the budget while catching up (it grew past it): the engine ranks this search.
    if (!corpora.every((c) => this.corpora.get(c.namespace) === c)) return undefined;
    const asked = [...new Set(terms)];
    const retentionMs = this.options.retentionDays > 0 ? Math.floor(this.options.retentionDays) * 86_400_000 : 0;
    const now = this.now();
    const fresh = retentionMs > 0 ? (at: number) => at + retentionMs > now : undefined;
    return {
      rank: (filters, limit) => rank(corpora, asked, filters, limit, bm25, fresh),
      neighbours: (hits, filters) => neighbours(corpora, hits, filters),
    };
  }

  /** Brings the copies up to date: the embedding rows written since each was read, as conversation_terms_writer derives their postings. */
  private async catchUp(corpora: readonly Corpus[], notBefore?: number): Promise<boolean> {
    const { rows, at, complete } = await this.readSince(corpora, notBefore);
    if (!complete) return false;
    const byNamespace = new Map<string, SourceRow[]>();
    for (const row of rows) {
      const list = byNamespace.get(row.namespace);
      if (list) list.push(row);
      else byNamespace.set(row.namespace, [row]);
    }
    for (const corpus of corpora) {
      // One statement serves copies read at different times: each takes only what it has not read.
      const since = corpus.since();
      if (corpus.catchUp((byNamespace.get(corpus.namespace) ?? []).filter((r) => Number(r.v) > since), at) > 0) corpus.changed = true;
      if (corpus.changed && this.now() - corpus.readAt > this.options.reloadAfterMs) {
        corpus.readAt = this.now();
        this.startLoad(corpus.namespace);
      }
    }
    this.fitBudget();
    this.checkCounts(corpora);
    return true;
  }

  /** The embedding rows written since the copies were read (the shared statement's, when there is one), and when their statement began (µs). */
  private async readSince(corpora: readonly Corpus[], notBefore?: number): Promise<CatchUp<SourceRow>> {
    const since = Math.min(...corpora.map((c) => c.since()));
    const limit = catchUpLimit(corpora.reduce((n, c) => n + c.slots.size, 0), this.options.minCatchUp);
    if (this.options.catchUp) return this.options.catchUp.read(corpora.map((c) => c.namespace), since, notBefore, limit) as Promise<CatchUp<SourceRow>>;
    const at = this.now() * 1000;
    const rows = await this.storage.query<SourceRow>(
      `SELECT ${SOURCE_COLUMNS} FROM ${this.storage.tables.conversationEmbeddings}
         WHERE namespace IN {kp_ns:Array(String)} AND version > {kp_since:UInt64}
         LIMIT {kp_limit:UInt32}`,
      { kp_ns: corpora.map((c) => c.namespace), kp_since: since, kp_limit: limit + 1 },
    );
    return { rows, at, complete: rows.length <= limit };
  }

  /** Drops the least recently used copies until the held postings fit; a copy that alone does not fit is refused for a while. */
  private fitBudget(): void {
    let held = this.held().postings;
    for (const corpus of [...this.corpora.values()]) {
      if (held <= this.options.maxPostings) return;
      this.drop(corpus);
      held -= corpus.postings;
      if (corpus.postings > this.options.maxPostings) this.refuse(corpus.namespace, corpus.postings);
    }
  }

  private refuse(namespace: string, postings: number): void {
    this.refused.set(namespace, this.now() + this.options.reloadAfterMs);
    this.options.logger?.warn({ namespace, postings, max_postings: this.options.maxPostings }, 'namespace has more postings than LOOM_SEARCH_KEPT_POSTINGS holds: its lexical search ranks in the engine');
  }

  /**
   * The late-row backstop, off the request path: the engine's embedding rows at or below a
   * copy's catch-up point (no catch-up will read them again) against those the copy read; more
   * there means a row landed later than the margin allowed, and the copy is read again. Merges
   * only lower the engine's count.
   */
  private checkCounts(corpora: readonly Corpus[]): void {
    const due = corpora.filter((c) => this.now() - c.countedAt >= this.options.countEveryMs);
    if (due.length === 0 || this.closed) return;
    for (const c of due) c.countedAt = this.now();
    const upTo = due.map((c) => c.since());
    // A background statement (ADR 0042): at 1M rows it costs 0.3-0.5 s, which the search whose
    // statements queued behind it would otherwise wait for.
    const check = this.storage
      .backgroundQuery<{ namespace: string; n: string }>(
        `SELECT namespace, toString(count()) AS n FROM ${this.storage.tables.conversationEmbeddings}
           WHERE namespace IN {kp_ns:Array(String)}
             AND version <= arrayElement({kp_upto:Array(UInt64)}, indexOf({kp_ns:Array(String)}, namespace))
           GROUP BY namespace`,
        { kp_ns: due.map((c) => c.namespace), kp_upto: upTo },
      )
      .then((rows) => {
        const counts = new Map(rows.map((r) => [r.namespace, Number(r.n)]));
        for (const [i, corpus] of due.entries()) {
          let read = 0;
          for (const v of corpus.headerVersions) if (v <= upTo[i]!) read += 1;
          if ((counts.get(corpus.namespace) ?? 0) <= read) continue;
          this.drop(corpus);
          this.startLoad(corpus.namespace);
        }
      })
      .catch(() => undefined)
      .finally(() => this.checks.delete(check));
    this.checks.add(check);
  }

  private drop(corpus: Corpus): void {
    if (this.corpora.get(corpus.namespace) === corpus) this.corpora.delete(corpus.namespace);
  }

  private startLoad(namespace: string): void {
    if (this.closed || this.loads.has(namespace) || (this.refused.get(namespace) ?? 0) > this.now()) return;
    const started = this.now();
    const load = this.load(namespace)
      .then((corpus) => {
        if (this.closed || !corpus) return;
        const old = this.corpora.get(namespace);
        if (old) this.drop(old);
        this.corpora.set(namespace, corpus);
        this.fitBudget();
        this.options.logger?.info({ namespace, turns: corpus.slots.size, terms: corpus.terms.size, postings: corpus.postings, ms: this.now() - started }, 'search keeps the namespace postings in memory');
      })
      .catch((error: unknown) => this.options.logger?.warn({ err: error, namespace }, 'reading namespace postings for search failed; lexical search ranks in the engine and the next one tries again'))
      .finally(() => this.loads.delete(namespace));
    this.loads.set(namespace, load);
  }

  /**
   * Reads a namespace's embedding rows (headers and terms) in pages; undefined when they exceed
   * the budget. Counted first, from the rows' term counts, so a namespace too large is never read:
   * without FINAL (0.6-1.6 s over 1M rows in one part, more over many), since a search waits for
   * the background statement already running (ADR 0042). Versions not yet merged count too, so
   * the count errs on refusing; the pages count exactly and stop at the budget.
   */
  private async load(namespace: string): Promise<Corpus | undefined> {
    const table = this.storage.tables.conversationEmbeddings;
    const at = this.now() * 1000;
    const corpus = new Corpus(namespace, this.now(), this.options.marginMicros);
    const [head] = await this.storage.backgroundQuery<{ n: string }>(
      `SELECT toString(count() + sum(if(deleted = 0 AND lex_len > 0, length(lex_terms), 0))) AS n FROM ${table} WHERE namespace = {kp_ns:String}`,
      { kp_ns: namespace },
    );
    if (Number(head?.n ?? 0) > this.options.maxPostings) {
      this.refuse(namespace, Number(head?.n ?? 0));
      return undefined;
    }
    let after: SourceRow | undefined;
    for (;;) {
      if (this.closed) return undefined;
      // The leading thread_id >= … repeats the cursor's first column: the primary key does not prune on a
      // tuple comparison (ClickHouse #75086), so without it every page scans the namespace from its start.
      const page = await this.storage.backgroundQuery<SourceRow>(
        `SELECT ${SOURCE_COLUMNS} FROM ${table}
           WHERE namespace = {kp_ns:String}
             ${after ? 'AND thread_id >= {kp_thread:String} AND (thread_id, msg_id, version) > ({kp_thread:String}, {kp_msg:String}, {kp_version:UInt64})' : ''}
           ORDER BY thread_id, msg_id, version
           LIMIT {kp_page:UInt32}`,
        { kp_ns: namespace, kp_page: this.options.page, ...(after ? { kp_thread: after.thread_id, kp_msg: after.msg_id, kp_version: after.v } : {}) },
      );
      corpus.apply(page, at);
      if (corpus.postings > this.options.maxPostings) {
        this.refuse(namespace, corpus.postings);
        return undefined;
      }
      if (page.length < this.options.page) break;
      after = page[page.length - 1];
    }
    corpus.caughtUpAt = at;
    return corpus;
  }
}

