import type { Storage } from '@loom/clickhouse';
import { normOf, PostingsBuilder, type HeldDoc, type HeldVector, type TermPostings } from './saved-ranking';
import { savedLiveDocsStatement, savedMessagePostingsStatement, savedPostingsStatement, savedSignatureStatement, savedVectorsStatement } from './saved-statements';

/** One user's live saved messages [in one conversation] as last read, with their BM25 statistics. */
export interface SavedCorpus {
  /** `keyOf(message)` -> the version that is live (a posting or vector of any other version is stale). */
  live: Map<string, string>;
  /** Live messages that have terms, and their mean length in terms. */
  docs: number;
  avgLength: number;
  /** Document frequency (over live messages) of each term asked so far, or of every term once `complete`. */
  df: Map<string, number>;
  signature: string;
  /**
   * Each live message's vector at its live version (ADR 0037), or undefined when the corpus was
   * over the vector budget: then the vector leg ranks in the engine. Vectors only: no text is
   * kept, and a high turn is never embedded, so nothing here reads as high.
   */
  vectors: Map<string, HeldVector> | undefined;
  /** Each live message by slot (postings name messages by slot), and its length in terms. */
  docList: HeldDoc[];
  lengths: Uint32Array;
  slots: Map<string, number>;
  /** The live postings of each term asked so far (every term once `complete`), or undefined once over the postings budget (BM25 then ranks in the engine). */
  postings: Map<string, TermPostings> | undefined;
  /**
   * Whether `postings` holds every live posting of every term: then a term it lacks is in no
   * live message (df 0) and counting it costs no statement. Read in the background after a
   * first read, carried over (with the versions written since) when the signature changes.
   */
  complete: boolean;
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
 * model's dimensions). Postings: a corpus holds every live posting once read (ADR 0037
 * addendum); the bench's user of 10,000 messages has 463,144, held as 8 bytes each (a slot and a
 * count, 3.7 MB), so 5,000,000 (about 40 MB) holds the same ten users.
 */
export interface SavedCorpusBudget {
  maxVectors: number;
  maxPostings: number;
}

export const DEFAULT_SAVED_CORPUS_BUDGET: SavedCorpusBudget = { maxVectors: 100_000, maxPostings: 5_000_000 };

/** Rows of `saved_docs` one statement of a vector read returns (about 250 ms of JSON at 384 dimensions), and messages one statement of a postings read returns (60-130 ms). */
export const VECTOR_PAGE = 1_000;

/** How many corpora are kept at most, whatever they hold. */
const MAX_ENTRIES = 64;

/** A signature row (`savedSignatureStatement`'s n and v) as the string corpora are compared by. */
export const signatureOf = (row: { n: string; v: string } | undefined): string => `${row?.n ?? 0}@${row?.v ?? 0}`;

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
  /** Background loads of complete postings still running, by corpus key. */
  private readonly postingLoads = new Map<string, Promise<void>>();
  /** Corpora whose complete postings were over the budget: not read again until the corpus is read afresh. */
  private readonly tooManyPostings = new Set<string>();

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
    return signatureOf(row);
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
    const table = slotTable(rows);
    const key = entryKey(scope);
    const previous = this.entries.get(key);
    if (!previous) this.tooManyPostings.delete(key);
    // Over the budget on its own: the vector leg of this corpus stays in the engine.
    const fits = table.live.size <= this.budget.maxVectors;
    // With the previous corpus's vectors only the versions written since are read (a few rows), so
    // this search waits for them. With none (this user's first search in this process, or a load
    // still running), reading every vector takes seconds at 10,000 messages: this search ranks its
    // vector leg in the engine, as before ADR 0037, and the vectors load in the background.
    const vectors = fits && previous?.vectors ? await this.readVectors(scope, table.live, previous.vectors) : undefined;
    // The same for the complete postings: carried over with the versions written since (one statement).
    const carried = previous?.complete && previous.postings ? await this.carryPostings(scope, previous, previous.postings, table) : undefined;
    if (previous?.complete && !carried) this.tooManyPostings.add(key);
    const corpus: SavedCorpus = {
      ...table,
      signature,
      vectors,
      df: carried ? frequencies(carried) : new Map(),
      postings: carried ?? new Map(),
      complete: carried !== undefined,
      heldVectors: vectors ? countVectors(vectors) : 0,
      heldPostings: carried ? countPostings(carried) : 0,
    };
    this.admit(key, corpus);
    if (fits && !vectors) this.loadVectors(scope, key);
    if (!corpus.complete) this.loadPostings(scope, key);
    await this.countFrequencies(scope, corpus, terms);
    return corpus;
  }

  /** Corpora whose vectors or complete postings are being read in the background now. */
  loading(): number {
    return new Set([...this.loads.keys(), ...this.postingLoads.keys()]).size;
  }

  /** Resolves when every background load of vectors started so far has ended (tests, and a clean shutdown). */
  async settled(): Promise<void> {
    while (this.loads.size + this.postingLoads.size > 0) await Promise.all([...this.loads.values(), ...this.postingLoads.values()]);
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
      let vectors = await this.readVectors(scope, start.live, undefined, true);
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

  /**
   * Reads every live posting of the kept corpus of `key` off the request path, as
   * `loadVectors` reads its vectors, and holds them in whatever corpus is kept for `key` when it
   * ends (carried over to it, with the versions written meanwhile). Until then, and for good
   * when they are over the budget, the corpus holds the postings of the terms asked. Not for a
   * corpus of one conversation: saved_terms orders a user's postings by term before thread, so
   * that read scans every posting of the user (60-130 ms at 10,000 messages) for a corpus whose
   * asked terms cost a few milliseconds each.
   */
  private loadPostings(scope: SavedScope, key: string): void {
    if (scope.conv !== undefined || this.postingLoads.has(key) || this.tooManyPostings.has(key)) return;
    const load = (async () => {
      let base = this.entries.get(key);
      if (!base) return;
      let read = await this.readMessagePostings(scope, base, 0n, new PostingsBuilder(), new Uint8Array(base.docList.length), true);
      for (;;) {
        if (!read) {
          this.tooManyPostings.add(key);
          return;
        }
        const corpus = this.entries.get(key);
        if (!corpus || corpus.complete) return;
        if (corpus !== base) {
          read = await this.carryPostings(scope, base, read, corpus);
          base = corpus;
          continue;
        }
        this.holdComplete(key, corpus, read);
        return;
      }
    })()
      .catch(() => undefined)
      .finally(() => this.postingLoads.delete(key));
    this.postingLoads.set(key, load);
  }

  /** Makes `postings` (every live posting of `corpus`) what `corpus` holds, in place of the postings of the terms asked. */
  private holdComplete(key: string, corpus: SavedCorpus, postings: Map<string, TermPostings>): void {
    const count = countPostings(postings);
    this.makeRoom(key, corpus.heldVectors, count);
    this.heldPostings += count - corpus.heldPostings;
    corpus.df = frequencies(postings);
    corpus.postings = postings;
    corpus.complete = true;
    corpus.heldPostings = count;
  }

  /**
   * The postings `from` (every live posting of the corpus `previous`, by its slots) that are still
   * live in `next`, by `next`'s slots, with those of the versions `previous` lacks read (from the
   * lowest of them up): a version's postings never change. Undefined when over the budget.
   */
  private async carryPostings(scope: SavedScope, previous: SlotCorpus, from: ReadonlyMap<string, TermPostings>, next: SlotCorpus): Promise<Map<string, TermPostings> | undefined> {
    const moved = new Int32Array(previous.docList.length).fill(-1);
    const done = new Uint8Array(next.docList.length);
    previous.docList.forEach((doc, slot) => {
      const to = next.slots.get(doc.key);
      if (to !== undefined && next.live.get(doc.key) === previous.live.get(doc.key)) {
        moved[slot] = to;
        done[to] = 1;
      }
    });
    const builder = new PostingsBuilder();
    for (const [term, held] of from) {
      builder.touch(term);
      for (let i = 0; i < held.slots.length; i += 1) {
        const to = moved[held.slots[i]!]!;
        if (to >= 0) builder.add(term, to, held.tfs[i]!);
      }
    }
    let lowest: bigint | undefined;
    for (const [key, version] of next.live) if (done[next.slots.get(key)!] === 0 && (lowest === undefined || BigInt(version) < lowest)) lowest = BigInt(version);
    if (lowest === undefined) return builder.count > this.budget.maxPostings ? undefined : builder.build();
    return this.readMessagePostings(scope, next, lowest, builder, done);
  }

  /**
   * Adds to `builder` the postings of `corpus`'s live versions from `from` up whose slot is not
   * `done`, in pages; `done` marks each slot once read, so a message returned on two pages (the
   * inclusive cursor) or at two versions counts once, at its live version. Undefined once over
   * the budget (the read stops there). `background`: a full read off the request path, whose
   * statements let searches' go first (`Storage.backgroundQuery`).
   */
  private async readMessagePostings(scope: SavedScope, corpus: SlotCorpus, from: bigint, builder: PostingsBuilder, done: Uint8Array, background = false): Promise<Map<string, TermPostings> | undefined> {
    let after = { thread: '', msg: '' };
    for (;;) {
      const rows = await this.storage[background ? 'backgroundQuery' : 'query']<{ thread_id: string; msg_id: string; row_version: string; terms: string[]; tfs: number[] }>(
        savedMessagePostingsStatement(this.storage.tables.savedTerms, scope.conv !== undefined),
        { ...scope, from: from.toString(), after_thread: after.thread, after_msg: after.msg, page: this.vectorPage },
      );
      for (const r of rows) {
        const key = keyOf(r);
        const slot = corpus.slots.get(key);
        if (slot === undefined || done[slot] === 1 || corpus.live.get(key) !== r.row_version) continue;
        done[slot] = 1;
        addMessage(builder, slot, r.terms, r.tfs);
      }
      if (builder.count > this.budget.maxPostings) return undefined;
      const last = rows[rows.length - 1];
      if (!last || rows.length < this.vectorPage || (last.thread_id === after.thread && last.msg_id === after.msg)) break;
      after = { thread: last.thread_id, msg: last.msg_id };
    }
    return builder.build();
  }

  /**
   * Counts the document frequencies of the terms `corpus` has not counted yet, over its live
   * messages, and keeps their live postings while they fit. A complete corpus has counted every
   * term: one it lacks is in no live message.
   */
  async countFrequencies(scope: SavedScope, corpus: SavedCorpus, terms: readonly string[]): Promise<void> {
    if (corpus.complete) return;
    const unknown = [...new Set(terms)].filter((t) => !corpus.df.has(t));
    if (unknown.length === 0) return;
    if (corpus.docs === 0) {
      for (const t of unknown) {
        corpus.df.set(t, 0);
        corpus.postings?.set(t, EMPTY);
      }
      return;
    }
    const rows = await this.storage.query<{ term: string; thread_id: string; msg_id: string; version: string; tf: number; doc_len: number }>(
      savedPostingsStatement(this.storage.tables.savedTerms, scope.conv !== undefined),
      { ...scope, terms: unknown },
    );
    // The complete postings arrived meanwhile: they count every term.
    if (corpus.complete) return;
    const builder = new PostingsBuilder();
    for (const t of unknown) builder.touch(t);
    // One row per (term, message, version): at most one at the live version.
    for (const p of rows) {
      const key = keyOf(p);
      const slot = corpus.slots.get(key);
      if (slot !== undefined && corpus.live.get(key) === p.version) builder.add(p.term, slot, Number(p.tf));
    }
    const found = builder.build();
    // A search beside this one may have counted some of them meanwhile: theirs stand.
    let added = 0;
    for (const [t, held] of found) {
      if (corpus.df.has(t)) found.delete(t);
      else {
        corpus.df.set(t, held.slots.length);
        added += held.slots.length;
      }
    }
    this.keepPostings(scope, corpus, found, added);
  }

  /**
   * The vectors of the live versions in `live`: those `previous` holds at the same version are
   * reused (a version's vector never changes), the rest read from the lowest version missing up.
   */
  private async readVectors(scope: SavedScope, live: ReadonlyMap<string, string>, previous: ReadonlyMap<string, HeldVector> | undefined, background = false): Promise<Map<string, HeldVector>> {
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
      const rows = await this.storage[background ? 'backgroundQuery' : 'query']<{ thread_id: string; msg_id: string; row_version: string; model: string; f32: string }>(
        savedVectorsStatement(this.storage.tables.savedDocs, scope.conv !== undefined),
        { ...scope, from: from.toString(), after_thread: after.thread, after_msg: after.msg, page: this.vectorPage },
      );
      for (const r of rows) {
        const key = keyOf(r);
        if (live.get(key) !== r.row_version || vectors.has(key)) continue;
        const vector = r.f32.length > 0 ? float32Of(r.f32) : undefined;
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
  private keepPostings(scope: SavedScope, corpus: SavedCorpus, found: ReadonlyMap<string, TermPostings>, added: number): void {
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

/** A corpus's live set and slots: what postings are read and carried against. */
type SlotCorpus = Pick<SavedCorpus, 'live' | 'slots' | 'docList'>;

const EMPTY: TermPostings = { slots: new Uint32Array(0), tfs: new Uint32Array(0) };

/** The live set, slots and BM25 statistics of the live docs read. */
function slotTable(rows: ReadonlyArray<{ thread_id: string; msg_id: string; version: string; doc_len: number }>): Pick<SavedCorpus, 'live' | 'slots' | 'docList' | 'lengths' | 'docs' | 'avgLength'> {
  const live = new Map<string, string>();
  const slots = new Map<string, number>();
  const docList: HeldDoc[] = [];
  const lengths = new Uint32Array(rows.length);
  let docs = 0;
  let length = 0;
  for (const r of rows) {
    const key = keyOf(r);
    if (live.has(key)) continue;
    live.set(key, r.version);
    slots.set(key, docList.length);
    lengths[docList.length] = Number(r.doc_len);
    docList.push({ key, thread_id: r.thread_id, msg_id: r.msg_id });
    // A message without terms ("?") is found by meaning only; BM25 never counted it.
    if (Number(r.doc_len) > 0) {
      docs += 1;
      length += Number(r.doc_len);
    }
  }
  return { live, slots, docList, lengths, docs, avgLength: docs > 0 ? length / docs : 0 };
}

/** One message's terms as a page returns them; a posting inserted twice at its version counts once (`any` in the statements). */
function addMessage(builder: PostingsBuilder, slot: number, terms: readonly string[], tfs: readonly number[]): void {
  const seen = new Set<string>();
  terms.forEach((term, i) => {
    if (seen.has(term)) return;
    seen.add(term);
    builder.add(term, slot, Number(tfs[i]));
  });
}

function frequencies(postings: ReadonlyMap<string, TermPostings>): Map<string, number> {
  return new Map([...postings].map(([term, held]) => [term, held.slots.length]));
}

function countPostings(postings: ReadonlyMap<string, TermPostings>): number {
  let n = 0;
  for (const held of postings.values()) n += held.slots.length;
  return n;
}

function countVectors(vectors: ReadonlyMap<string, HeldVector>): number {
  let n = 0;
  for (const v of vectors.values()) if (v.vector) n += 1;
  return n;
}

/** A vector from the hex of its Float32 bytes, copied into its own aligned buffer. */
function float32Of(hex: string): Float32Array {
  const bytes = Buffer.from(hex, 'hex');
  const vector = new Float32Array(bytes.length >> 2);
  new Uint8Array(vector.buffer).set(bytes.subarray(0, vector.length * 4));
  return vector;
}

function entryKey(scope: SavedScope): string {
  return JSON.stringify([scope.ns, scope.user, scope.conv ?? null]);
}
