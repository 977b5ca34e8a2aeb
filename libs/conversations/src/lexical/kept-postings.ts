import type { Storage } from '@loom/clickhouse';
import type { TurnRole } from '@loom/contracts';
import type { Logger } from '@loom/platform';
import { keptTurnKey, type KeptHit } from '../rows';
import type { SharedCatchUp } from '../search/shared-catch-up';

/**
 * The postings of a namespace's asked terms, kept in this process so that the lexical (BM25)
 * leg ranks here (ADR 0039) instead of in the engine, where it cost a statistics check and a
 * scoring statement on every search.
 *
 * What is kept, per namespace: every turn's latest embedding row as its header posting says it
 * (liveness, filters, time, length in terms; a row without terms too, for neighbours), read in
 * pages in the background on the namespace's first search; and every posting of each term a
 * search asked, read in the background once the engine is idle. No text.
 *
 * Why it stays correct:
 * - A turn counts, and a posting of it scores, only at its latest version: a tombstone, thread
 *   delete, compaction, erasure or hand-over writes a new version of the turn's embedding row,
 *   hence of its header and every posting, as the engine's FINAL resolves them.
 * - A copy can only miss rows written since it was read: every search first reads the embedding
 *   rows whose version is above the wall-clock time of the copy's previous read less
 *   `marginMicros` (as `KeptVectors`) and derives their headers and postings of held terms as
 *   `conversation_terms_writer` does. So a search sees every write acknowledged before it. A
 *   term's full read lowers that point to when the read began, so the next catch-up covers it.
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
  /**
   * A term with more postings than this in a namespace is not kept there: searches naming it rank
   * in the engine, whose statement scores only its best-weighted postings (ADR 0027). At 1M turns
   * a common word has 700k postings, a second or two of engine time to read.
   */
  maxTermPostings: number;
  /** Header rows per statement of a full read. */
  page: number;
  /** How far below a term's previous read a catch-up starts (µs). */
  marginMicros: number;
  /** How often (at most) a copy's header rows are counted in the engine (the late-row backstop). */
  countEveryMs: number;
  /** A copy that changed since it was read is read again in the background after this long (sheds superseded state). */
  reloadAfterMs: number;
  /** LOOM_RETENTION_CONVERSATIONS_DAYS (0: forever): postings of expired turns neither score nor count. */
  retentionDays: number;
  /** The catch-up statement shared with the kept vectors (ADR 0040); without it each catch-up is this copy's own statement. */
  catchUp?: SharedCatchUp | undefined;
  now?: () => number;
  logger?: Logger | undefined;
}

export const DEFAULT_KEPT_POSTINGS: KeptPostingsOptions = {
  maxPostings: 5_000_000,
  maxTermPostings: 250_000,
  page: 20_000,
  marginMicros: 10_000_000,
  countEveryMs: 30_000,
  reloadAfterMs: 10 * 60_000,
  retentionDays: 0,
};

/** One posting as read. */
interface PostingRow {
  namespace: string;
  term: string;
  thread_id: string;
  msg_id: string;
  tf: number;
  doc_len: number;
  agent: string;
  role: TurnRole;
  run_id: string;
  user_id: string;
  ts: string;
  deleted: boolean | number;
  v: string;
}

/** A turn's latest header version held. */
interface Turn {
  thread_id: string;
  msg_id: string;
  version: number;
  deleted: boolean;
  agent: string;
  role: TurnRole;
  run_id: string;
  user_id: string;
  ts: string;
  /** `ts` as ms since epoch, for the retention TTL. */
  at: number;
  len: number;
}

/** A term's posting of a turn at one version. */
interface Posting {
  version: number;
  tf: number;
}

/** The filters of a lexical search, applied to a turn's latest version. */
export interface KeptLexicalFilters {
  agent?: string | undefined;
  thread_id?: string | undefined;
  run_id?: string | undefined;
  role?: string | undefined;
}

/** A BM25 hit ranked here, in the shape the engine statement returns. */
export type KeptLexicalRow = KeptHit & { matched: string[] };

export interface Bm25Shape {
  k1: number;
  b: number;
}

/**
 * A turn's columns as the full read takes them from its embedding rows: what its header posting
 * holds (a row with no terms, lex_len 0, has no header there but is still a turn the search may
 * return, hence a neighbour). `ts` is aliased: no statement here filters on it.
 */
const HEADER_COLUMNS = "namespace, '' AS term, thread_id, msg_id, lex_len AS tf, lex_len AS doc_len, agent, role, run_id, user_id, toString(ts) AS ts, deleted, toString(version) AS v";

/** An embedding row of a catch-up: its header posting's columns and its terms (conversation_terms_writer makes its postings of them). */
const SOURCE_COLUMNS = "namespace, thread_id, msg_id, lex_len AS doc_len, agent, role, run_id, user_id, toString(ts) AS ts, deleted, toString(version) AS v, lex_terms AS terms, lex_tfs AS tfs";

/** An embedding row as a catch-up reads it. */
type SourceRow = Omit<PostingRow, 'term' | 'tf'> & { terms: string[]; tfs: number[] };

/**
 * Every posting of a term in a namespace, read in full: only what the turn's header does not
 * say, as parallel arrays (a common term has tens of thousands of postings: arrays parse about
 * three times faster than as many JSON rows).
 */
interface TermPostings {
  namespace: string;
  term: string;
  threads: string[];
  ids: string[];
  tfs: number[];
  versions: string[];
}

/** How long no search must have asked before a queued term read runs (ms). */
const TERM_READ_IDLE_MS = 200;
/** At most how long a queued term read waits for idleness (ms). */
const TERM_READ_MAX_WAIT_MS = 5_000;

/** A term used this recently and dropped for room is not read again for a while (`refusedTerms`). */
const TERM_HOLD_MS = 60_000;


class Corpus {
  /** Each turn's slot in `turnList` (postings name turns by slot: integer keys rank several times faster). */
  readonly slots = new Map<string, number>();
  /** Turns by slot; one whose header has not been read yet has version -1 and never scores. */
  readonly turnList: Turn[] = [];
  readonly terms = new Map<string, Map<number, Posting>>();
  /** The slots of each thread's turns whose row was read (for neighbours). */
  readonly threadSlots = new Map<string, number[]>();
  /** Wall-clock µs at which the last read of the copy's rows began (the full read's, then each catch-up's). */
  caughtUpAt: number;
  /** key@version of header rows a catch-up can return again (within the margin), so each row is counted once. */
  private recent = new Map<string, number>();
  /** The version of every header row read (each once), against the engine's count for the backstop. */
  readonly headerVersions: number[] = [];
  private scratch: { scores: Float64Array; stamp: Uint32Array; generation: number } | undefined;

  /** Per-slot score buffers reused across searches; a slot's score counts only when its stamp is this search's generation. */
  scratchFor(slots: number): { scores: Float64Array; stamp: Uint32Array; generation: number } {
    if (!this.scratch || this.scratch.scores.length < slots || this.scratch.generation >= 0xfffffffe) {
      const size = Math.ceil(slots * 1.25) + 1024;
      this.scratch = { scores: new Float64Array(size), stamp: new Uint32Array(size), generation: 0 };
    }
    this.scratch.generation += 1;
    return this.scratch;
  }

  /** Live turns and their total length, while no header changed (unused under the retention TTL, which moves with the clock). */
  totals: { docs: number; length: number } | undefined;
  postings = 0;
  readAt: number;
  changed = false;
  countedAt: number;

  constructor(
    readonly namespace: string,
    now: number,
    private readonly marginMicros: number,
  ) {
    this.readAt = now;
    this.countedAt = now;
    this.caughtUpAt = now * 1000;
  }

  /** Versions at or below this were all read by an earlier read of this copy. */
  since(): number {
    return Math.max(0, this.caughtUpAt - this.marginMicros);
  }

  /** Applies a catch-up that began at `at` (µs): each row's header posting and its postings of held terms. */
  catchUp(rows: readonly SourceRow[], at: number): number {
    let changed = this.apply(rows.map((r) => ({ ...r, term: '', tf: r.doc_len })), at);
    for (const row of rows) {
      const key = keptTurnKey(row.thread_id, row.msg_id);
      const version = Number(row.v);
      for (let i = 0; i < row.terms.length; i += 1) {
        const postings = this.terms.get(row.terms[i]!);
        if (postings && this.put(postings, key, version, Number(row.tfs[i]))) changed += 1;
      }
    }
    this.caughtUpAt = Math.max(this.caughtUpAt, at);
    const since = this.since();
    for (const [k, v] of this.recent) if (v <= since) this.recent.delete(k);
    return changed;
  }

  /** Holds a term read in full (every posting, every version). */
  addTerm(term: string, read: TermPostings | undefined): void {
    const postings = this.terms.get(term) ?? new Map<number, Posting>();
    this.terms.set(term, postings);
    if (!read) return;
    for (let i = 0; i < read.ids.length; i += 1) this.put(postings, keptTurnKey(read.threads[i]!, read.ids[i]!), Number(read.versions[i]), Number(read.tfs[i]));
  }

  private put(postings: Map<number, Posting>, key: string, version: number, tf: number): boolean {
    const slot = this.slotOf(key);
    const held = postings.get(slot);
    if (held && held.version >= version) return false;
    if (!held) this.postings += 1;
    postings.set(slot, { version, tf });
    return true;
  }

  private slotOf(key: string, thread = '', msg = ''): number {
    let slot = this.slots.get(key);
    if (slot === undefined) {
      slot = this.turnList.length;
      this.slots.set(key, slot);
      this.turnList.push({ thread_id: thread, msg_id: msg, version: -1, deleted: true, agent: '', role: 'user', run_id: '', user_id: '', ts: '', at: 0, len: 0 });
    }
    return slot;
  }

  /** Applies header rows of a read that began at `at` (µs); returns how many changed the copy. */
  apply(rows: readonly PostingRow[], at: number): number {
    let changed = 0;
    for (const row of rows) {
      const version = Number(row.v);
      const key = keptTurnKey(row.thread_id, row.msg_id);
      const recentKey = `${key}${row.v}`;
      if (this.recent.has(recentKey)) continue;
      // Only a row within the margin of this read can come back in the next catch-up.
      if (version > at - this.marginMicros) this.recent.set(recentKey, version);
      const slot = this.slotOf(key, row.thread_id, row.msg_id);
      const held = this.turnList[slot]!.version < 0 ? undefined : this.turnList[slot];
      if (!held) {
        const slots = this.threadSlots.get(row.thread_id);
        if (slots) slots.push(slot);
        else this.threadSlots.set(row.thread_id, [slot]);
      }
      // The same version again (a catch-up re-reading after a term's read) was counted already.
      if (held?.version !== version) this.headerVersions.push(version);
      if (held && held.version >= version) continue;
      if (!held) this.postings += 1;
      this.turnList[slot] = {
        thread_id: row.thread_id,
        msg_id: row.msg_id,
        version,
        deleted: Boolean(Number(row.deleted)),
        agent: row.agent,
        role: row.role,
        run_id: row.run_id,
        user_id: row.user_id,
        ts: row.ts,
        at: Date.parse(`${row.ts.replace(' ', 'T')}Z`),
        len: Number(row.doc_len),
      };
      this.totals = undefined;
      changed += 1;
    }
    return changed;
  }

  dropTerm(term: string): void {
    const postings = this.terms.get(term);
    if (!postings) return;
    this.postings -= postings.size;
    this.terms.delete(term);
  }
}

/** A turn next to a hit in its thread, and the hit. */
export interface KeptNeighbour {
  hit: { namespace: string; thread_id: string; msg_id: string };
  turn: Omit<KeptLexicalRow, 'score' | 'matched'>;
}

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
  /** Background reads of newly asked terms, by (namespaces, terms). */
  private readonly termReads = new Map<string, Promise<void>>();
  /** Term reads waiting for the engine to be idle, by (namespaces, terms). */
  private readonly pendingTerms = new Map<string, { corpora: readonly Corpus[]; terms: readonly string[]; queuedAt: number }>();
  private idleTimer: NodeJS.Timeout | undefined;
  /** When a search last asked for a ranker (performance.now(), not the injectable clock: this times real idleness). */
  private lastAsk = 0;
  /** Terms by last use, across corpora: the budget drops the oldest first. */
  private readonly termUse = new Map<string, { corpus: Corpus; term: string; at: number }>();
  /** Terms not kept, by (namespace, term), until when (ms): too many postings, or dropped while still in use (reading them again would thrash). */
  private readonly refusedTerms = new Map<string, number>();
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
    this.options.catchUp?.register((namespace) => this.corpora.get(namespace)?.since());
  }

  async close(): Promise<void> {
    this.closed = true;
    this.pendingTerms.clear();
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
    await this.settled();
    this.corpora.clear();
    this.termUse.clear();
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
    for (;;) {
      if (this.loads.size > 0 || this.checks.size > 0 || this.termReads.size > 0) await Promise.allSettled([...this.loads.values(), ...this.checks, ...this.termReads.values()]);
      // Term reads waiting for the engine to be idle start within `TERM_READ_IDLE_MS` of the last search.
      else if (this.pendingTerms.size > 0) await new Promise((resolve) => setTimeout(resolve, TERM_READ_IDLE_MS / 4));
      else return;
    }
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
   * (one statement: the header's and the terms' rows since their last read, a new term's all),
   * or undefined when a namespace is not kept (yet): the caller ranks in the engine, and a full
   * read of the missing ones starts in the background.
   */
  async ranker(namespaces: readonly string[], terms: readonly string[], bm25: Bm25Shape, notBefore?: number): Promise<KeptLexicalRanker | undefined> {
    if (this.options.maxPostings <= 0 || namespaces.length === 0) return undefined;
    this.lastAsk = performance.now();
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
    const asked = [...new Set(terms)];
    await this.catchUp(corpora, asked, notBefore);
    // A term not held yet (being read), or dropped by the budget: the engine ranks this search.
    if (!corpora.every((c) => this.corpora.get(c.namespace) === c && asked.every((t) => c.terms.has(t)))) return undefined;
    const retentionMs = this.options.retentionDays > 0 ? Math.floor(this.options.retentionDays) * 86_400_000 : 0;
    const now = this.now();
    const fresh = retentionMs > 0 ? (at: number) => at + retentionMs > now : undefined;
    return {
      rank: (filters, limit) => rank(corpora, asked, filters, limit, bm25, fresh),
      neighbours: (hits, filters) => neighbours(corpora, hits, filters),
    };
  }

  /**
   * Brings the copies up to date: the embedding rows written since each was read (their header
   * and their postings of held terms, as conversation_terms_writer derives them), then every
   * posting of each asked term a copy does not hold yet.
   */
  private async catchUp(corpora: readonly Corpus[], terms: readonly string[], notBefore?: number): Promise<void> {
    const { rows, at } = await this.readSince(corpora, notBefore);
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
    }
    // A term a copy does not hold yet is read in the background: every posting of a common term
    // is tens of thousands of rows, longer to read than the engine takes to rank this search.
    const lacks = (c: Corpus, t: string): boolean => !c.terms.has(t) && (this.refusedTerms.get(JSON.stringify([c.namespace, t])) ?? 0) <= this.now();
    const missing = corpora.filter((c) => terms.some((t) => lacks(c, t)));
    if (missing.length > 0) this.queueTermRead(missing, terms.filter((t) => missing.some((c) => lacks(c, t))));
    for (const corpus of corpora) {
      for (const t of terms) {
        if (!corpus.terms.has(t)) continue;
        const k = JSON.stringify([corpus.namespace, t]);
        this.termUse.delete(k);
        this.termUse.set(k, { corpus, term: t, at: this.now() });
      }
      if (corpus.changed && this.now() - corpus.readAt > this.options.reloadAfterMs) {
        corpus.readAt = this.now();
        this.startLoad(corpus.namespace);
      }
    }
    this.fitBudget();
    this.checkCounts(corpora);
  }

  /** The embedding rows written since the copies were read (the shared statement's, when there is one), and when their statement began (µs). */
  private async readSince(corpora: readonly Corpus[], notBefore?: number): Promise<{ rows: SourceRow[]; at: number }> {
    const since = Math.min(...corpora.map((c) => c.since()));
    if (this.options.catchUp) return this.options.catchUp.read(corpora.map((c) => c.namespace), since, notBefore) as Promise<{ rows: SourceRow[]; at: number }>;
    const at = this.now() * 1000;
    const rows = await this.storage.query<SourceRow>(
      `SELECT ${SOURCE_COLUMNS} FROM ${this.storage.tables.conversationEmbeddings}
         WHERE namespace IN {kp_ns:Array(String)} AND version > {kp_since:UInt64}`,
      { kp_ns: corpora.map((c) => c.namespace), kp_since: since },
    );
    return { rows, at };
  }

  /**
   * Queues a read of every posting of `terms` into the copies lacking them, to run once no
   * search has asked for `TERM_READ_IDLE_MS`: chDB runs one statement at a time, and a common
   * term's read, run between searches, delays each search after it by its length.
   */
  private queueTermRead(corpora: readonly Corpus[], terms: readonly string[]): void {
    const key = JSON.stringify([corpora.map((c) => c.namespace), terms]);
    if (this.closed || this.termReads.has(key) || this.pendingTerms.has(key)) return;
    this.pendingTerms.set(key, { corpora, terms, queuedAt: performance.now() });
    this.scheduleIdleReads(TERM_READ_IDLE_MS);
  }

  private scheduleIdleReads(delay: number): void {
    if (this.idleTimer || this.closed) return;
    this.idleTimer = setTimeout(() => {
      this.idleTimer = undefined;
      const quiet = performance.now() - this.lastAsk;
      const [key, next] = this.pendingTerms.entries().next().value ?? [];
      if (key === undefined || !next) return;
      // Under steady searching the engine is never idle: a read waits at most TERM_READ_MAX_WAIT_MS.
      const overdue = performance.now() - next.queuedAt >= TERM_READ_MAX_WAIT_MS;
      if (this.termReads.size > 0 || (quiet < TERM_READ_IDLE_MS && !overdue)) return this.scheduleIdleReads(Math.max(10, TERM_READ_IDLE_MS - quiet));
      this.pendingTerms.delete(key);
      this.startTermRead(key, next.corpora, next.terms);
      // One read at a time; the next waits for it and for the engine to be idle again.
      void this.termReads.get(key)?.finally(() => {
        if (this.pendingTerms.size > 0) this.scheduleIdleReads(TERM_READ_IDLE_MS);
      });
    }, delay);
    this.idleTimer.unref?.();
  }

  /** Reads every posting of `terms` into the copies lacking them, off the request path. */
  private startTermRead(key: string, corpora: readonly Corpus[], terms: readonly string[]): void {
    if (this.closed || this.termReads.has(key)) return;
    const at = this.now() * 1000;
    const read = (async () => {
      const namespaces = corpora.map((c) => c.namespace);
      // Counted first: a term too common to keep is never read.
      const counts = await this.storage.query<{ namespace: string; term: string; n: string }>(
        `SELECT namespace, term, toString(count()) AS n FROM ${this.storage.tables.conversationTerms}
           WHERE namespace IN {kp_ns:Array(String)} AND term IN {kp_terms:Array(String)} GROUP BY namespace, term`,
        { kp_ns: namespaces, kp_terms: terms },
      );
      const cap = Math.min(this.options.maxTermPostings, this.options.maxPostings);
      for (const c of counts) if (Number(c.n) > cap) this.refusedTerms.set(JSON.stringify([c.namespace, c.term]), this.now() + this.options.reloadAfterMs);
      const wanted = terms.filter((t) => corpora.some((c) => (this.refusedTerms.get(JSON.stringify([c.namespace, t])) ?? 0) <= this.now()));
      if (wanted.length === 0) return;
      const postings = await this.storage.query<TermPostings>(
        `SELECT namespace, term, groupArray(thread_id) AS threads, groupArray(msg_id) AS ids, groupArray(tf) AS tfs, groupArray(toString(version)) AS versions
           FROM ${this.storage.tables.conversationTerms}
           WHERE namespace IN {kp_ns:Array(String)} AND term IN {kp_terms:Array(String)}
           GROUP BY namespace, term`,
        { kp_ns: namespaces, kp_terms: wanted },
      );
      const grouped = new Map(postings.map((p) => [JSON.stringify([p.namespace, p.term]), p]));
      for (const corpus of corpora) {
        // A copy read again meanwhile is not this one: it reads the terms when asked.
        if (this.corpora.get(corpus.namespace) !== corpus) continue;
        for (const term of wanted) {
          const k = JSON.stringify([corpus.namespace, term]);
          if (corpus.terms.has(term) || (this.refusedTerms.get(k) ?? 0) > this.now()) continue;
          corpus.addTerm(term, grouped.get(k));
          this.termUse.delete(k);
          this.termUse.set(k, { corpus, term, at: this.now() });
          // Catch-ups since the read began skipped this term's new postings: the next one reads from then again.
          corpus.caughtUpAt = Math.min(corpus.caughtUpAt, at);
        }
      }
      this.fitBudget();
    })()
      .catch((error: unknown) => this.options.logger?.warn({ err: error }, 'reading postings of search terms failed; lexical search ranks them in the engine and the next one tries again'))
      .finally(() => this.termReads.delete(key));
    this.termReads.set(key, read);
  }

  /** Drops the least recently asked terms (then whole copies) until the held postings fit. */
  private fitBudget(): void {
    let held = this.held().postings;
    for (const [k, { corpus, term, at }] of this.termUse) {
      if (held <= this.options.maxPostings) return;
      this.termUse.delete(k);
      const size = corpus.terms.get(term)?.size ?? 0;
      corpus.dropTerm(term);
      held -= size;
      // Dropped within a minute of its last use: the terms in use do not fit together, and reading it again at once would thrash.
      if (this.now() - at < TERM_HOLD_MS) this.refusedTerms.set(k, this.now() + this.options.reloadAfterMs);
    }
    for (const corpus of [...this.corpora.values()]) {
      if (held <= this.options.maxPostings) return;
      this.drop(corpus);
      held -= corpus.postings;
    }
  }

  /**
   * The late-row backstop, off the request path: the engine's header rows at or below a copy's
   * catch-up point (no catch-up will read them again) against those the copy read; more there
   * means a row landed later than the margin allowed, and the copy is read again. Merges only
   * lower the engine's count.
   */
  private checkCounts(corpora: readonly Corpus[]): void {
    const due = corpora.filter((c) => this.now() - c.countedAt >= this.options.countEveryMs);
    if (due.length === 0 || this.closed) return;
    for (const c of due) c.countedAt = this.now();
    const upTo = due.map((c) => c.since());
    const check = this.storage
      .query<{ namespace: string; n: string }>(
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
    for (const [k, use] of this.termUse) if (use.corpus === corpus) this.termUse.delete(k);
  }

  private startLoad(namespace: string): void {
    if (this.closed || this.loads.has(namespace) || (this.refused.get(namespace) ?? 0) > this.now()) return;
    const started = this.now();
    const load = this.load(namespace)
      .then((corpus) => {
        const log = this.options.logger;
        if (this.closed) return;
        if (!corpus) {
          log?.warn({ namespace, max_postings: this.options.maxPostings }, 'namespace has more turns than the kept postings budget: its lexical search ranks in the engine');
          return;
        }
        const old = this.corpora.get(namespace);
        if (old) this.drop(old);
        this.corpora.set(namespace, corpus);
        this.fitBudget();
        log?.info({ namespace, turns: corpus.slots.size, ms: this.now() - started }, 'search keeps the namespace postings in memory');
      })
      .catch((error: unknown) => this.options.logger?.warn({ err: error, namespace }, 'reading namespace postings for search failed; lexical search ranks in the engine and the next one tries again'))
      .finally(() => this.loads.delete(namespace));
    this.loads.set(namespace, load);
  }

  /** Reads a namespace's header postings in pages; undefined when they alone exceed the budget. */
  private async load(namespace: string): Promise<Corpus | undefined> {
    const table = this.storage.tables.conversationEmbeddings;
    const at = this.now() * 1000;
    const corpus = new Corpus(namespace, this.now(), this.options.marginMicros);
    const [head] = await this.storage.query<{ n: string }>(`SELECT toString(count()) AS n FROM ${table} WHERE namespace = {kp_ns:String}`, { kp_ns: namespace });
    if (Number(head?.n ?? 0) > this.options.maxPostings) {
      this.refused.set(namespace, this.now() + this.options.reloadAfterMs);
      return undefined;
    }
    const rows: PostingRow[] = [];
    let after: PostingRow | undefined;
    for (;;) {
      if (this.closed) return undefined;
      const page = await this.storage.query<PostingRow>(
        `SELECT ${HEADER_COLUMNS} FROM ${table}
           WHERE namespace = {kp_ns:String}
             ${after ? 'AND (thread_id, msg_id, version) > ({kp_thread:String}, {kp_msg:String}, {kp_version:UInt64})' : ''}
           ORDER BY thread_id, msg_id, version
           LIMIT {kp_page:UInt32}`,
        { kp_ns: namespace, kp_page: this.options.page, ...(after ? { kp_thread: after.thread_id, kp_msg: after.msg_id, kp_version: after.v } : {}) },
      );
      rows.push(...page);
      if (page.length < this.options.page) break;
      after = page[page.length - 1];
    }
    corpus.apply(rows, at);
    corpus.caughtUpAt = at;
    return corpus;
  }
}

/** Live turns of a copy and their total length (cached while no header changes and no retention TTL applies). */
function totals(corpus: Corpus, fresh: ((at: number) => boolean) | undefined): { docs: number; length: number } {
  if (!fresh && corpus.totals) return corpus.totals;
  let docs = 0;
  let length = 0;
  for (const turn of corpus.turnList) {
    if (turn.deleted || turn.len === 0 || (fresh && !fresh(turn.at))) continue;
    docs += 1;
    length += turn.len;
  }
  if (!fresh) corpus.totals = { docs, length };
  return { docs, length };
}

/** Bytewise order of two strings, as the engine compares String values. */
function compareBytes(a: string, b: string): number {
  return a === b ? 0 : Buffer.compare(Buffer.from(a), Buffer.from(b));
}

/**
 * BM25 as `bm25ScoringStatement` scores it: per namespace, idf from the live turns holding the
 * term among all live turns, k1/b with the namespace's mean length; a posting counts only at its
 * turn's latest version, the filters apply to that version. Ordered by score, then time
 * (newest first), then namespace, thread and id.
 */
function rank(corpora: readonly Corpus[], terms: readonly string[], filters: KeptLexicalFilters, limit: number, { k1, b }: Bm25Shape, fresh: ((at: number) => boolean) | undefined): KeptLexicalRow[] {
  const top = new TopHits(limit);
  const chosen: Array<{ corpus: Corpus; slot: number; row: KeptLexicalRow }> = [];
  for (const corpus of corpora) {
    const { docs, length } = totals(corpus, fresh);
    if (docs === 0) continue;
    const avgdl = length / docs;
    const list = corpus.turnList;
    const { scores, stamp, generation } = corpus.scratchFor(list.length);
    const touched: number[] = [];
    const live = (turn: Turn, posting: Posting): boolean => !turn.deleted && turn.version === posting.version && (!fresh || fresh(turn.at));
    for (const term of terms) {
      const postings = corpus.terms.get(term);
      if (!postings || postings.size === 0) continue;
      // Two passes (count, then weigh) allocate nothing per posting: at 100k turns a common term has tens of thousands.
      let df = 0;
      postings.forEach((posting, slot) => {
        if (live(list[slot]!, posting)) df += 1;
      });
      const idf = Math.log(1 + (docs - df + 0.5) / (df + 0.5));
      postings.forEach((posting, slot) => {
        const turn = list[slot]!;
        if (!live(turn, posting) || !passes(turn, filters)) return;
        const tf = posting.tf;
        const weight = (idf * tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * turn.len) / avgdl));
        if (stamp[slot] === generation) scores[slot] = scores[slot]! + weight;
        else {
          stamp[slot] = generation;
          scores[slot] = weight;
          touched.push(slot);
        }
      });
    }
    for (const slot of touched) {
      const turn = list[slot]!;
      const score = scores[slot]!;
      if (!top.admits(score, turn.ts)) continue;
      const row = { namespace: corpus.namespace, thread_id: turn.thread_id, msg_id: turn.msg_id, agent: turn.agent, role: turn.role, run_id: turn.run_id, user_id: turn.user_id, ts: turn.ts, score, matched: [] };
      top.add(row);
      chosen.push({ corpus, slot, row });
    }
  }
  // The terms each hit holds, for the rows kept only.
  const kept = new Set(top.rows);
  for (const { corpus, slot, row } of chosen) {
    if (!kept.has(row)) continue;
    const turn = corpus.turnList[slot]!;
    for (const term of terms) {
      const posting = corpus.terms.get(term)?.get(slot);
      if (posting && posting.version === turn.version) row.matched.push(term);
    }
  }
  return top.rows;
}

/** Whether a turn's latest version passes a search's filters (the namespace is the caller's). */
function passes(turn: Turn, filters: KeptLexicalFilters): boolean {
  return !((filters.agent !== undefined && turn.agent !== filters.agent) || (filters.thread_id !== undefined && turn.thread_id !== filters.thread_id) || (filters.run_id !== undefined && turn.run_id !== filters.run_id) || (filters.role !== undefined && turn.role !== filters.role));
}

/**
 * `neighbourStatement` over the copy: per hit, the live turns of its thread that pass the
 * filters, in (ts, msg_id) order, and the one on either side of the hit.
 */
function neighbours(corpora: readonly Corpus[], hits: ReadonlyArray<{ namespace: string; thread_id: string; msg_id: string }>, filters: KeptLexicalFilters): KeptNeighbour[] {
  const found: KeptNeighbour[] = [];
  const byNamespace = new Map(corpora.map((c) => [c.namespace, c]));
  const ordered = new Map<string, Turn[]>();
  for (const hit of hits) {
    const corpus = byNamespace.get(hit.namespace);
    if (!corpus) continue;
    const threadKey = JSON.stringify([hit.namespace, hit.thread_id]);
    let turns = ordered.get(threadKey);
    if (!turns) {
      turns = (corpus.threadSlots.get(hit.thread_id) ?? [])
        .map((slot) => corpus.turnList[slot]!)
        .filter((t) => t.version >= 0 && !t.deleted && passes(t, filters))
        .sort((x, y) => (x.ts < y.ts ? -1 : x.ts > y.ts ? 1 : compareBytes(x.msg_id, y.msg_id)));
      ordered.set(threadKey, turns);
    }
    const at = turns.findIndex((t) => t.msg_id === hit.msg_id);
    if (at < 0) continue;
    for (const side of [turns[at - 1], turns[at + 1]]) {
      if (!side) continue;
      const { thread_id, msg_id, agent, role, run_id, user_id, ts } = side;
      found.push({ hit, turn: { namespace: hit.namespace, thread_id, msg_id, agent, role, run_id, user_id, ts } });
    }
  }
  return found;
}

/** The order of the engine statement: score, then time (newest first), then namespace, thread and id (bytewise). */
function before(x: KeptLexicalRow, y: KeptLexicalRow): number {
  return y.score - x.score || (x.ts < y.ts ? 1 : x.ts > y.ts ? -1 : 0) || compareBytes(x.namespace, y.namespace) || compareBytes(x.thread_id, y.thread_id) || compareBytes(x.msg_id, y.msg_id);
}

/** The best `size` rows in the statement's order: most of a common term's turns are refused by score alone. */
class TopHits {
  readonly rows: KeptLexicalRow[] = [];

  constructor(private readonly size: number) {}

  admits(score: number, ts: string): boolean {
    if (this.rows.length < this.size) return true;
    if (this.size === 0) return false;
    const last = this.rows[this.rows.length - 1]!;
    return score > last.score || (score === last.score && ts >= last.ts);
  }

  add(row: KeptLexicalRow): void {
    let at = this.rows.length;
    while (at > 0 && before(row, this.rows[at - 1]!) < 0) at -= 1;
    this.rows.splice(at, 0, row);
    if (this.rows.length > this.size) this.rows.pop();
  }
}
