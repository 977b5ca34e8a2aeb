/**
 * What a search asks of kept postings: BM25 ranking and neighbours, in the process, answering what
 * the engine statements (`bm25ScoringStatement`, `neighbourStatement`) answer.
 */
import type { KeptHit } from '../rows';
import { totals, type Corpus, type TermPostings, type Turn } from './kept-corpus';

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

/** A turn next to a hit in its thread, and the hit. */
export interface KeptNeighbour {
  hit: { namespace: string; thread_id: string; msg_id: string };
  turn: Omit<KeptLexicalRow, 'score' | 'matched'>;
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
 *
 * Terms are weighed rarest first (highest possible weight first), and a common word (`fix`,
 * `error`: most of a namespace's turns) stops adding turns once the best `limit` partial scores
 * are above what every term left could give a turn not yet scored (max-score pruning, ADR 0044):
 * it then adds its weight only to the turns already scored. So the answer is the one every
 * posting scored gives, at a fraction of the work; every posting of a term still counts for its
 * document frequency and for the turns it adds to.
 */
export function rank(corpora: readonly Corpus[], terms: readonly string[], filters: KeptLexicalFilters, limit: number, { k1, b }: Bm25Shape, fresh: ((at: number) => boolean) | undefined): KeptLexicalRow[] {
  const top = new TopHits(limit);
  if (limit <= 0) return top.rows;
  for (const corpus of corpora) {
    const { docs, length } = totals(corpus, fresh);
    if (docs === 0) continue;
    const avgdl = length / docs;
    const list = corpus.turnList;
    const { epochs, lens, agents } = corpus;
    const agent = filters.agent === undefined ? -1 : (corpus.agentIds.get(filters.agent) ?? -2);
    if (agent === -2) continue;
    const byTurn = filters.thread_id !== undefined || filters.run_id !== undefined || filters.role !== undefined;
    const scratch = corpus.scratchFor(list.length);
    const { scores, stamp, generation } = scratch;
    const matched = scratch.terms;
    const touched: number[] = [];
    // A posting is live when it is of its turn's latest version (a tombstone or a retired version adds none) and unexpired.
    const live = (slot: number, epoch: number): boolean => epochs[slot] === epoch && (!fresh || fresh(list[slot]!.at));
    const weighed = terms
      .map((term, index) => {
        const postings = corpus.terms.get(term);
        const df = postings ? documentFrequency(corpus, postings, fresh, live) : 0;
        const idf = Math.log(1 + (docs - df + 0.5) / (df + 0.5));
        return { index, postings, df, idf, most: idf * (k1 + 1) };
      })
      // A term with no live posting scores nothing, and must not count in what the others could add.
      .filter((t) => t.df > 0)
      .sort((x, y) => y.most - x.most || x.index - y.index);
    // What the terms after each one could add at most to a turn (a weight is below idf x (k1 + 1)).
    const rest = new Array<number>(weighed.length).fill(0);
    for (let j = weighed.length - 2; j >= 0; j -= 1) rest[j] = rest[j + 1]! + weighed[j + 1]!.most;
    let adding = true;
    for (const [j, { index, postings, idf }] of weighed.entries()) {
      const data = postings!.data;
      const end = postings!.size * 3;
      const bit = index < 32 ? 2 ** index : 0;
      for (let i = 0; i < end; i += 3) {
        const slot = data[i]!;
        const scored = stamp[slot] === generation;
        if (!scored && !adding) continue;
        if (!live(slot, data[i + 2]!)) continue;
        if (!scored && ((agent >= 0 && agents[slot] !== agent) || (byTurn && !passes(list[slot]!, filters)))) continue;
        const tf = data[i + 1]!;
        const weight = (idf * tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * lens[slot]!) / avgdl));
        if (scored) {
          scores[slot] = scores[slot]! + weight;
          matched[slot] = (matched[slot]! | bit) >>> 0;
        } else {
          stamp[slot] = generation;
          scores[slot] = weight;
          matched[slot] = bit;
          touched.push(slot);
        }
      }
      // Strictly above, with room for rounding: a turn tied with the last hit could still win on time.
      if (adding && j < weighed.length - 1 && touched.length >= limit) adding = Math.max(top.floor(), kthLargest(scores, touched, limit)) <= rest[j]! * (1 + 1e-9);
    }
    const chosen: Array<{ slot: number; row: KeptLexicalRow }> = [];
    for (const slot of touched) {
      const score = scores[slot]!;
      // Most touched turns are refused by their score alone, without reading their objects.
      if (score < top.floor()) continue;
      const turn = list[slot]!;
      if (!top.admits(score, turn.ts)) continue;
      const row = { namespace: corpus.namespace, thread_id: turn.thread_id, msg_id: turn.msg_id, agent: turn.agent, role: turn.role, run_id: turn.run_id, user_id: turn.user_id, ts: turn.ts, score, matched: [] };
      top.add(row);
      chosen.push({ slot, row });
    }
    const kept = new Set(top.rows);
    const hits = chosen.filter(({ row }) => kept.has(row));
    const late = laterTermsHeld(corpus, terms, hits, live);
    // The terms each hit holds, in the query's order: from the bits, and past the 32nd from `late`.
    for (const { slot, row } of hits) {
      for (const [index, term] of terms.entries()) {
        if (index < 32 ? (matched[slot]! & (2 ** index)) !== 0 : late.get(slot)?.has(index)) row.matched.push(term);
      }
    }
  }
  return top.rows;
}

/**
 * Of the query's terms past the 32nd (they have no bit), the ones each hit holds: one pass over
 * each such term's postings for all the hits, whatever their number.
 */
function laterTermsHeld(corpus: Corpus, terms: readonly string[], hits: ReadonlyArray<{ slot: number }>, live: (slot: number, epoch: number) => boolean): Map<number, Set<number>> {
  const held = new Map<number, Set<number>>();
  if (terms.length <= 32 || hits.length === 0) return held;
  for (const { slot } of hits) held.set(slot, new Set());
  for (let index = 32; index < terms.length; index += 1) {
    const postings = corpus.terms.get(terms[index]!);
    if (!postings) continue;
    const data = postings.data;
    for (let i = 0, end = postings.size * 3; i < end; i += 3) if (live(data[i]!, data[i + 2]!)) held.get(data[i]!)?.add(index);
  }
  return held;
}

/** Live postings of a term (cached while the copy's headers are unchanged and no retention TTL applies). */
function documentFrequency(corpus: Corpus, postings: TermPostings, fresh: ((at: number) => boolean) | undefined, live: (slot: number, epoch: number) => boolean): number {
  if (!fresh && postings.dfAt === corpus.changes) return postings.df;
  const data = postings.data;
  let df = 0;
  for (let i = 0, end = postings.size * 3; i < end; i += 3) if (live(data[i]!, data[i + 2]!)) df += 1;
  if (!fresh) {
    postings.df = df;
    postings.dfAt = corpus.changes;
  }
  return df;
}

/** The `k`th largest partial score among the touched slots (a min-heap of the best k). */
function kthLargest(scores: Float64Array, touched: readonly number[], k: number): number {
  const heap = new Float64Array(k);
  let size = 0;
  for (const slot of touched) {
    const score = scores[slot]!;
    if (size < k) {
      let at = size++;
      heap[at] = score;
      while (at > 0) {
        const parent = (at - 1) >> 1;
        if (heap[parent]! <= heap[at]!) break;
        [heap[parent], heap[at]] = [heap[at]!, heap[parent]!];
        at = parent;
      }
    } else if (score > heap[0]!) {
      heap[0] = score;
      for (let at = 0; ; ) {
        const l = 2 * at + 1;
        const r = l + 1;
        let least = at;
        if (l < k && heap[l]! < heap[least]!) least = l;
        if (r < k && heap[r]! < heap[least]!) least = r;
        if (least === at) break;
        [heap[least], heap[at]] = [heap[at]!, heap[least]!];
        at = least;
      }
    }
  }
  return size < k ? -Infinity : heap[0]!;
}

/** Whether a turn's latest version passes a search's filters (the namespace is the caller's). */
function passes(turn: Turn, filters: KeptLexicalFilters): boolean {
  return !((filters.agent !== undefined && turn.agent !== filters.agent) || (filters.thread_id !== undefined && turn.thread_id !== filters.thread_id) || (filters.run_id !== undefined && turn.run_id !== filters.run_id) || (filters.role !== undefined && turn.role !== filters.role));
}

/**
 * `neighbourStatement` over the copy: per hit, the live turns of its thread that pass the
 * filters, in (ts, msg_id) order, and the one on either side of the hit.
 */
export function neighbours(corpora: readonly Corpus[], hits: ReadonlyArray<{ namespace: string; thread_id: string; msg_id: string }>, filters: KeptLexicalFilters): KeptNeighbour[] {
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

  /** The score a row must beat to enter once full (-Infinity until then). */
  floor(): number {
    return this.rows.length < this.size ? -Infinity : this.rows[this.rows.length - 1]!.score;
  }

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
