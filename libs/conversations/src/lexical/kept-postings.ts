import type { Storage } from '@loom/clickhouse';
import type { TurnRole } from '@loom/contracts';
import type { Logger } from '@loom/platform';
import { keptTurnKey, type KeptHit } from '../rows';
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

/** A turn's latest header version held. */
interface Turn {
  thread_id: string;
  msg_id: string;
  version: number;
  /** Counts the versions whose postings were applied: a posting scores only at its turn's epoch. */
  epoch: number;
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

/** An embedding row as a full read and a catch-up take it: its header posting's columns and its terms (conversation_terms_writer makes its postings of them). */
interface SourceRow {
  namespace: string;
  thread_id: string;
  msg_id: string;
  doc_len: number;
  agent: string;
  role: TurnRole;
  run_id: string;
  user_id: string;
  ts: string;
  deleted: boolean | number;
  v: string;
  terms: string[];
  tfs: number[];
}

/** `ts` is aliased: no statement here filters on it. */
const SOURCE_COLUMNS = 'namespace, thread_id, msg_id, lex_len AS doc_len, agent, role, run_id, user_id, toString(ts) AS ts, deleted, toString(version) AS v, lex_terms AS terms, lex_tfs AS tfs';

/**
 * One term's postings in a copy: (slot, tf, epoch) triples in one growable Int32Array. A
 * namespace of 100k turns holds millions of postings; as objects in maps they cost about 100
 * bytes each, here 12 (plus growth room).
 */
class TermPostings {
  data = new Int32Array(6);
  size = 0;

  push(slot: number, tf: number, epoch: number): void {
    const at = this.size * 3;
    if (at + 3 > this.data.length) {
      const grown = new Int32Array(Math.max(6, this.data.length * 2));
      grown.set(this.data);
      this.data = grown;
    }
    this.data[at] = slot;
    this.data[at + 1] = tf;
    this.data[at + 2] = epoch;
    this.size += 1;
  }
}

class Corpus {
  /** Each turn's slot in `turnList` (postings name turns by slot: integer keys rank several times faster). */
  readonly slots = new Map<string, number>();
  readonly turnList: Turn[] = [];
  readonly terms = new Map<string, TermPostings>();
  /** The slots of each thread's turns (for neighbours). */
  readonly threadSlots = new Map<string, number[]>();
  /** Wall-clock µs at which the last read of the copy's rows began (the full read's, then each catch-up's). */
  caughtUpAt: number;
  /** key@version of rows a catch-up can return again (within the margin), so each row is counted once. */
  private recent = new Map<string, number>();
  /** The version of every embedding row read (each once), against the engine's count for the backstop. */
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
  /** Headers and postings held, superseded ones included (the budget counts what memory holds). */
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

  /** Applies a catch-up that began at `at` (µs). */
  catchUp(rows: readonly SourceRow[], at: number): number {
    const changed = this.apply(rows, at);
    this.caughtUpAt = Math.max(this.caughtUpAt, at);
    const since = this.since();
    for (const [k, v] of this.recent) if (v <= since) this.recent.delete(k);
    return changed;
  }

  /**
   * Applies embedding rows read by a statement that began at `at` (µs): each newer version of a
   * turn becomes its header, and the newest of a turn among `rows` adds its postings at a new
   * epoch (an older one's would be superseded at once). Returns how many changed the copy.
   */
  apply(rows: readonly SourceRow[], at: number): number {
    const newest = new Map<string, number>();
    for (const row of rows) {
      const key = keptTurnKey(row.thread_id, row.msg_id);
      if (Number(row.v) > (newest.get(key) ?? -1)) newest.set(key, Number(row.v));
    }
    let changed = 0;
    for (const row of rows) {
      const version = Number(row.v);
      const key = keptTurnKey(row.thread_id, row.msg_id);
      const recentKey = `${key}${row.v}`;
      if (this.recent.has(recentKey)) continue;
      // Only a row within the margin of this read can come back in the next catch-up.
      if (version > at - this.marginMicros) this.recent.set(recentKey, version);
      let slot = this.slots.get(key);
      const held = slot === undefined ? undefined : this.turnList[slot]!;
      // The same version again (a catch-up re-reading within the margin) was counted already.
      if (held?.version !== version) this.headerVersions.push(version);
      if (held && held.version >= version) continue;
      const turn: Turn = {
        thread_id: row.thread_id,
        msg_id: row.msg_id,
        version,
        epoch: held?.epoch ?? 0,
        deleted: Boolean(Number(row.deleted)),
        agent: row.agent,
        role: row.role,
        run_id: row.run_id,
        user_id: row.user_id,
        ts: row.ts,
        at: Date.parse(`${row.ts.replace(' ', 'T')}Z`),
        len: Number(row.doc_len),
      };
      if (slot === undefined) {
        slot = this.turnList.length;
        this.slots.set(key, slot);
        this.turnList.push(turn);
        this.postings += 1;
        const thread = this.threadSlots.get(row.thread_id);
        if (thread) thread.push(slot);
        else this.threadSlots.set(row.thread_id, [slot]);
      } else this.turnList[slot] = turn;
      // This version supersedes every posting of the turn held so far; its own postings follow
      // unless a newer version is among these rows or the turn is retired (they would never score).
      turn.epoch += 1;
      if (version === newest.get(key) && !turn.deleted && turn.len > 0) this.addPostings(slot, turn.epoch, row.terms, row.tfs);
      this.totals = undefined;
      changed += 1;
    }
    return changed;
  }

  private addPostings(slot: number, epoch: number, terms: readonly string[], tfs: readonly number[]): void {
    for (let i = 0; i < terms.length; i += 1) {
      let postings = this.terms.get(terms[i]!);
      if (!postings) {
        postings = new TermPostings();
        this.terms.set(terms[i]!, postings);
      }
      postings.push(slot, Number(tfs[i]), epoch);
    }
    this.postings += terms.length;
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
 * turn's latest version (epoch), the filters apply to that version. Ordered by score, then time
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
    const live = (turn: Turn, epoch: number): boolean => turn.epoch === epoch && !turn.deleted && (!fresh || fresh(turn.at));
    for (const term of terms) {
      const postings = corpus.terms.get(term);
      if (!postings) continue;
      const data = postings.data;
      const end = postings.size * 3;
      // Two passes (count, then weigh) allocate nothing per posting: at 100k turns a common term has tens of thousands.
      let df = 0;
      for (let i = 0; i < end; i += 3) if (live(list[data[i]!]!, data[i + 2]!)) df += 1;
      if (df === 0) continue;
      const idf = Math.log(1 + (docs - df + 0.5) / (df + 0.5));
      for (let i = 0; i < end; i += 3) {
        const slot = data[i]!;
        const turn = list[slot]!;
        if (!live(turn, data[i + 2]!) || !passes(turn, filters)) continue;
        const tf = data[i + 1]!;
        const weight = (idf * tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * turn.len) / avgdl));
        if (stamp[slot] === generation) scores[slot] = scores[slot]! + weight;
        else {
          stamp[slot] = generation;
          scores[slot] = weight;
          touched.push(slot);
        }
      }
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
  // The terms each hit holds, for the rows kept only, in the query's order.
  const kept = new Set(top.rows);
  const byCorpus = new Map<Corpus, Map<number, KeptLexicalRow>>();
  for (const { corpus, slot, row } of chosen) {
    if (!kept.has(row)) continue;
    const rows = byCorpus.get(corpus) ?? new Map<number, KeptLexicalRow>();
    rows.set(slot, row);
    byCorpus.set(corpus, rows);
  }
  for (const [corpus, rows] of byCorpus) {
    for (const term of terms) {
      const postings = corpus.terms.get(term);
      if (!postings) continue;
      const data = postings.data;
      for (let i = 0, end = postings.size * 3; i < end; i += 3) {
        const row = rows.get(data[i]!);
        if (row && corpus.turnList[data[i]!]!.epoch === data[i + 2]) row.matched.push(term);
      }
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
        .filter((t) => !t.deleted && passes(t, filters))
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
