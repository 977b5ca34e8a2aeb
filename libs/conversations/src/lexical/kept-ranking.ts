import type { KeptHit } from '../rows';
import { totals, type Corpus, type Turn } from './kept-corpus';

/**
 * What a search asks of kept postings: BM25 ranking and neighbours, in the process, answering what
 * the engine statements (`bm25ScoringStatement`, `neighbourStatement`) answer.
 */
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
 */
export function rank(corpora: readonly Corpus[], terms: readonly string[], filters: KeptLexicalFilters, limit: number, { k1, b }: Bm25Shape, fresh: ((at: number) => boolean) | undefined): KeptLexicalRow[] {
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
