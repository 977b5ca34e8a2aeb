import type { Storage } from '@loom/clickhouse';
import { normOf, type HeldPosting, type HeldVector } from './saved-ranking';
import { savedLiveDocsStatement, savedPostingsStatement, savedSignatureStatement, savedVectorsStatement } from './saved-statements';

/** One user's live saved messages [in one conversation] as last read, with their BM25 statistics. */
export interface SavedCorpus {
  /** `keyOf(message)` -> the version that is live (a posting or vector of any other version is stale). */
  live: Map<string, string>;
  /** Live messages that have terms, and their mean length in terms. */
  docs: number;
  avgLength: number;
  /** Document frequency (over live messages) of each term asked so far. */
  df: Map<string, number>;
  signature: string;
  /**
   * Each live message's vector at its live version (ADR 0037), or undefined when the corpus was
   * over the vector budget: then the vector leg ranks in the engine. Vectors only: no text is
   * kept, and a high turn is never embedded, so nothing here reads as high.
   */
  vectors: Map<string, HeldVector> | undefined;
  /** The live postings of each term asked so far, or undefined once over the postings budget (BM25 then ranks in the engine). */
  postings: Map<string, HeldPosting[]> | undefined;
  /** What this corpus counts against the budget. */
  heldVectors: number;
  heldPostings: number;
}

export interface SavedScope {
  ns: string;
  user: string;
  conv?: string;
}

/**
 * What the kept corpora may hold together. Vectors: 100,000 is ten users at the 10,000 saved
 * messages issue 10 sizes for, about 154 MB of Float32 at 384 dimensions (200,000 would be about
 * 300 MB, too much beside the engine in one gateway process; note the figure scales with the
 * model's dimensions). Postings: 2,000,000 (a few tens of MB) holds every term of several such
 * users; a user whose vocabulary is small has thousands of postings per term.
 */
export interface SavedCorpusBudget {
  maxVectors: number;
  maxPostings: number;
}

export const DEFAULT_SAVED_CORPUS_BUDGET: SavedCorpusBudget = { maxVectors: 100_000, maxPostings: 2_000_000 };

/** Rows of `saved_docs` one statement of a vector read returns (about 250 ms of JSON at 384 dimensions). */
export const VECTOR_PAGE = 1_000;

/** How many corpora are kept at most, whatever they hold. */
const MAX_ENTRIES = 64;

export const keyOf = (d: { thread_id: string; msg_id: string }): string => JSON.stringify([d.thread_id, d.msg_id]);

/**
 * The live set, BM25 statistics, live vectors and live postings of each user's saved messages,
 * read once and reused while the user's rows in saved_docs are unchanged (ADR 0024, ADR 0037):
 * reading them costs more than a search, and with them held a search ranks both legs in this
 * process with no leg statement. Whether they are current is checked on every search
 * (`signature`); when it fails, the caller reads them again and searches again, so a search never
 * answers from a corpus older than the signature it checked. Saved messages have no retention
 * TTL, so no maximum age is needed.
 *
 * Memory is bounded by `SavedCorpusBudget` across all corpora: the least recently used corpora
 * are dropped to make room, and a corpus that alone does not fit keeps no vectors (or no
 * postings) and ranks that leg in the engine, as before ADR 0037.
 */
export class SavedCorpusCache {
  /** In least recently used order (oldest first). */
  private readonly entries = new Map<string, SavedCorpus>();
  private readonly budget: SavedCorpusBudget;
  private heldVectors = 0;
  private heldPostings = 0;
  /** Background loads of vectors still running, by corpus key. */
  private readonly loads = new Map<string, Promise<void>>();

  constructor(
    private readonly storage: Storage,
    budget: Partial<SavedCorpusBudget> = {},
    /** Rows per statement of a vector read (tests make it small). */
    private readonly vectorPage = VECTOR_PAGE,
  ) {
    this.budget = { ...DEFAULT_SAVED_CORPUS_BUDGET, ...budget };
  }

  /** The current signature of the user's rows (one range read of two columns). */
  async signature(scope: SavedScope): Promise<string> {
    const [row] = await this.storage.query<{ n: string; v: string }>(savedSignatureStatement(this.storage.tables.savedDocs), { ns: scope.ns, user: scope.user });
    return `${row?.n ?? 0}@${row?.v ?? 0}`;
  }

  /** The kept corpus of `scope`, if any (it may be stale: check `signature`); marked as used now. */
  cached(scope: SavedScope): SavedCorpus | undefined {
    const key = entryKey(scope);
    const corpus = this.entries.get(key);
    if (corpus) {
      this.entries.delete(key);
      this.entries.set(key, corpus);
    }
    return corpus;
  }

  /** What all kept corpora hold, against the budget. */
  held(): { corpora: number; vectors: number; postings: number } {
    return { corpora: this.entries.size, vectors: this.heldVectors, postings: this.heldPostings };
  }

  /** Reads the corpus of `scope` again, with the frequencies of `terms` (signature first, so a write in between shows at the next check). */
  async refresh(scope: SavedScope, terms: readonly string[]): Promise<SavedCorpus> {
    const signature = await this.signature(scope);
    const rows = await this.storage.query<{ thread_id: string; msg_id: string; version: string; doc_len: number }>(
      savedLiveDocsStatement(this.storage.tables.savedDocs, scope.conv !== undefined),
      { ...scope },
    );
    const live = new Map<string, string>();
    let docs = 0;
    let length = 0;
    for (const r of rows) {
      live.set(keyOf(r), r.version);
      // A message without terms ("?") is found by meaning only; BM25 never counted it.
      if (Number(r.doc_len) > 0) {
        docs += 1;
        length += Number(r.doc_len);
      }
    }
    const key = entryKey(scope);
    const previous = this.entries.get(key);
    // Over the budget on its own: the vector leg of this corpus stays in the engine.
    const fits = live.size <= this.budget.maxVectors;
    // With the previous corpus's vectors only the versions written since are read (a few rows), so
    // this search waits for them. With none (this user's first search in this process, or a load
    // still running), reading every vector takes seconds at 10,000 messages: this search ranks its
    // vector leg in the engine, as before ADR 0037, and the vectors load in the background.
    const vectors = fits && previous?.vectors ? await this.readVectors(scope, live, previous.vectors) : undefined;
    const corpus: SavedCorpus = {
      live,
      docs,
      avgLength: docs > 0 ? length / docs : 0,
      df: new Map(),
      signature,
      vectors,
      postings: new Map(),
      heldVectors: vectors ? countVectors(vectors) : 0,
      heldPostings: 0,
    };
    this.admit(key, corpus);
    if (fits && !vectors) this.loadVectors(scope, key);
    await this.countFrequencies(scope, corpus, terms);
    return corpus;
  }

  /** Resolves when every background load of vectors started so far has ended (tests, and a clean shutdown). */
  async settled(): Promise<void> {
    while (this.loads.size > 0) await Promise.all([...this.loads.values()]);
  }

  /**
   * Reads every vector of the kept corpus of `key` off the request path, at most one read per
   * key at a time (concurrent first searches of one user start one), and holds them in whatever
   * corpus is kept for `key` when it ends: versions written meanwhile are read then (a few rows).
   * A failure leaves the vector leg in the engine until the next refresh tries again.
   */
  private loadVectors(scope: SavedScope, key: string): void {
    if (this.loads.has(key)) return;
    const load = (async () => {
      const start = this.entries.get(key);
      if (!start) return;
      let vectors = await this.readVectors(scope, start.live, undefined);
      for (;;) {
        const corpus = this.entries.get(key);
        if (!corpus || corpus.vectors || corpus.live.size > this.budget.maxVectors) return;
        // Those of its live versions the read lacks (written since it started); none read when none.
        const current = await this.readVectors(scope, corpus.live, vectors);
        if (this.entries.get(key) !== corpus || corpus.vectors) {
          vectors = current;
          continue;
        }
        const count = countVectors(current);
        this.makeRoom(key, count, corpus.heldPostings);
        corpus.vectors = current;
        corpus.heldVectors = count;
        this.heldVectors += count;
        return;
      }
    })()
      .catch(() => undefined)
      .finally(() => this.loads.delete(key));
    this.loads.set(key, load);
  }

  /** Counts the document frequencies of the terms `corpus` has not counted yet, over its live messages, and keeps their live postings while they fit. */
  async countFrequencies(scope: SavedScope, corpus: SavedCorpus, terms: readonly string[]): Promise<void> {
    const unknown = [...new Set(terms)].filter((t) => !corpus.df.has(t));
    if (unknown.length === 0) return;
    if (corpus.docs === 0) {
      for (const t of unknown) {
        corpus.df.set(t, 0);
        corpus.postings?.set(t, []);
      }
      return;
    }
    const rows = await this.storage.query<{ term: string; thread_id: string; msg_id: string; version: string; tf: number; doc_len: number }>(
      savedPostingsStatement(this.storage.tables.savedTerms, scope.conv !== undefined),
      { ...scope, terms: unknown },
    );
    const found = new Map<string, HeldPosting[]>(unknown.map((t) => [t, []]));
    for (const p of rows) {
      const key = keyOf(p);
      if (corpus.live.get(key) !== p.version) continue;
      // One object per message, shared with its vector when held.
      const doc = corpus.vectors?.get(key) ?? { key, thread_id: p.thread_id, msg_id: p.msg_id };
      found.get(p.term)?.push({ doc, tf: Number(p.tf), dl: Number(p.doc_len) });
    }
    // A search beside this one may have counted some of them meanwhile: theirs stand.
    for (const t of found.keys()) if (corpus.df.has(t)) found.delete(t);
    let added = 0;
    for (const [t, list] of found) {
      corpus.df.set(t, list.length);
      added += list.length;
    }
    this.keepPostings(scope, corpus, found, added);
  }

  /**
   * The vectors of the live versions in `live`: those `previous` holds at the same version are
   * reused (a version's vector never changes), the rest read from the lowest version missing up.
   */
  private async readVectors(scope: SavedScope, live: ReadonlyMap<string, string>, previous: ReadonlyMap<string, HeldVector> | undefined): Promise<Map<string, HeldVector>> {
    const vectors = new Map<string, HeldVector>();
    let from: bigint | undefined;
    for (const [key, version] of live) {
      const held = previous?.get(key);
      if (held && held.version === version) vectors.set(key, held);
      else if (from === undefined || BigInt(version) < from) from = BigInt(version);
    }
    if (from === undefined) return vectors;
    // In pages, so the other searches of this process run between them (see the statement).
    let after = { thread: '', msg: '' };
    for (;;) {
      const rows = await this.storage.query<{ thread_id: string; msg_id: string; row_version: string; model: string; embedding: number[] }>(
        savedVectorsStatement(this.storage.tables.savedDocs, scope.conv !== undefined),
        { ...scope, from: from.toString(), after_thread: after.thread, after_msg: after.msg, page: this.vectorPage },
      );
      for (const r of rows) {
        const key = keyOf(r);
        if (live.get(key) !== r.row_version || vectors.has(key)) continue;
        const vector = r.embedding.length > 0 ? Float32Array.from(r.embedding) : undefined;
        vectors.set(key, { key, thread_id: r.thread_id, msg_id: r.msg_id, version: r.row_version, model: r.model, vector, norm: vector ? normOf(vector) : 0 });
      }
      const last = rows[rows.length - 1];
      // A short page is the last; a page of one message's versions alone cannot move the cursor.
      if (!last || rows.length < this.vectorPage || (last.thread_id === after.thread && last.msg_id === after.msg)) break;
      after = { thread: last.thread_id, msg: last.msg_id };
    }
    // A live version with no row read has no vector (the vector leg's statement would not find it either).
    return vectors;
  }

  /** Keeps `found` (new terms' postings) in `corpus` while the budget allows; past it the corpus's BM25 ranks in the engine. */
  private keepPostings(scope: SavedScope, corpus: SavedCorpus, found: ReadonlyMap<string, HeldPosting[]>, added: number): void {
    if (!corpus.postings) return;
    const key = entryKey(scope);
    const kept = this.entries.get(key) === corpus;
    if (corpus.heldPostings + added > this.budget.maxPostings) {
      if (kept) this.heldPostings -= corpus.heldPostings;
      corpus.postings = undefined;
      corpus.heldPostings = 0;
      return;
    }
    // A corpus no longer kept (replaced or dropped while a search used it) serves that search only.
    if (kept) {
      this.makeRoom(key, corpus.heldVectors, corpus.heldPostings + added);
      this.heldPostings += added;
    }
    for (const [t, list] of found) corpus.postings.set(t, list);
    corpus.heldPostings += added;
  }

  /** Keeps `corpus` as the entry of `key` (replacing any), dropping the least recently used others until the budget holds. */
  private admit(key: string, corpus: SavedCorpus): void {
    this.drop(key);
    this.makeRoom(key, corpus.heldVectors, corpus.heldPostings);
    this.entries.set(key, corpus);
    this.heldVectors += corpus.heldVectors;
    this.heldPostings += corpus.heldPostings;
    while (this.entries.size > MAX_ENTRIES) this.drop(this.entries.keys().next().value!);
  }

  /**
   * Drops the least recently used corpora other than `key` until one holding `vectors` and
   * `postings` fits beside the rest. `key`'s own entry is counted at what it holds now.
   */
  private makeRoom(key: string, vectors: number, postings: number): void {
    const own = this.entries.get(key);
    const fits = () =>
      this.heldVectors - (own?.heldVectors ?? 0) + vectors <= this.budget.maxVectors && this.heldPostings - (own?.heldPostings ?? 0) + postings <= this.budget.maxPostings;
    for (const other of [...this.entries.keys()]) {
      if (fits()) return;
      if (other !== key) this.drop(other);
    }
  }

  private drop(key: string): void {
    const corpus = this.entries.get(key);
    if (!corpus) return;
    this.entries.delete(key);
    this.heldVectors -= corpus.heldVectors;
    this.heldPostings -= corpus.heldPostings;
  }
}

function countVectors(vectors: ReadonlyMap<string, HeldVector>): number {
  let n = 0;
  for (const v of vectors.values()) if (v.vector) n += 1;
  return n;
}

function entryKey(scope: SavedScope): string {
  return JSON.stringify([scope.ns, scope.user, scope.conv ?? null]);
}
