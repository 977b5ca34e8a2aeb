/**
 * One namespace's kept postings (ADR 0039, 0041): each turn's latest header and the postings of
 * its terms, applied from embedding rows read by a full read or a catch-up. `KeptPostings`
 * decides when to read; `rank` and `neighbours` read what this holds.
 */
import type { TurnRole } from '@loom/contracts';
import { keptTurnKey } from '../rows';

/** A turn's latest header version held. */
export interface Turn {
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

/** An embedding row as a full read and a catch-up take it: its header posting's columns and its terms (conversation_terms_writer makes its postings of them). */
export interface SourceRow {
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
export const SOURCE_COLUMNS = 'namespace, thread_id, msg_id, lex_len AS doc_len, agent, role, run_id, user_id, toString(ts) AS ts, deleted, toString(version) AS v, lex_terms AS terms, lex_tfs AS tfs';

/**
 * One term's postings in a copy: (slot, tf, epoch) triples in one growable Int32Array. A
 * namespace of 100k turns holds millions of postings; as objects in maps they cost about 100
 * bytes each, here 12 (plus growth room).
 */
export class TermPostings {
  data = new Int32Array(6);
  size = 0;
  /** Live postings (document frequency) as counted at the copy's `changes` of `dfAt`; -1: not counted. */
  df = 0;
  dfAt = -1;

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

/** A search's per-slot buffers: partial scores, the generation that wrote them, and which query terms (bits) matched. */
export interface RankScratch {
  scores: Float64Array;
  stamp: Uint32Array;
  terms: Uint32Array;
  generation: number;
}

export class Corpus {
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
  /**
   * Per slot, what the ranking reads of every posting it weighs, in typed arrays rather than the
   * turn's object (a common word has most of a namespace's turns: at 1M, one object read per
   * posting was most of the ranking's time): the turn's epoch, its length in terms, and its agent
   * as an index into `agentIds`.
   */
  epochs = new Int32Array(1024);
  lens = new Int32Array(1024);
  agents = new Int32Array(1024);
  readonly agentIds = new Map<string, number>();
  /** Counts the changes applied to the copy's headers: its cached totals and document frequencies are valid while it stands. */
  changes = 0;
  private scratch: RankScratch | undefined;

  /** Per-slot buffers reused across searches; a slot's score and terms count only when its stamp is this search's generation. */
  scratchFor(slots: number): RankScratch {
    if (!this.scratch || this.scratch.scores.length < slots || this.scratch.generation >= 0xfffffffe) {
      const size = Math.ceil(slots * 1.25) + 1024;
      this.scratch = { scores: new Float64Array(size), stamp: new Uint32Array(size), terms: new Uint32Array(size), generation: 0 };
    }
    this.scratch.generation += 1;
    return this.scratch;
  }

  /** Live turns and their total length, as counted at `changes` of `at` (unused under the retention TTL, which moves with the clock). */
  totals: { docs: number; length: number; at: number } | undefined;
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
      this.index(slot, turn);
      if (version === newest.get(key) && !turn.deleted && turn.len > 0) this.addPostings(slot, turn.epoch, row.terms, row.tfs);
      this.changes += 1;
      changed += 1;
    }
    return changed;
  }

  /** Writes a turn's epoch, length and agent into the slot-indexed arrays, growing them as slots are added. */
  private index(slot: number, turn: Turn): void {
    if (slot >= this.epochs.length) {
      const size = Math.max(slot + 1, this.epochs.length * 2);
      const grow = (a: Int32Array) => {
        const grown = new Int32Array(size);
        grown.set(a);
        return grown;
      };
      this.epochs = grow(this.epochs);
      this.lens = grow(this.lens);
      this.agents = grow(this.agents);
    }
    let agent = this.agentIds.get(turn.agent);
    if (agent === undefined) {
      agent = this.agentIds.size;
      this.agentIds.set(turn.agent, agent);
    }
    this.epochs[slot] = turn.epoch;
    this.lens[slot] = turn.len;
    this.agents[slot] = agent;
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

/** Live turns of a copy and their total length (cached while no header changes and no retention TTL applies). */
export function totals(corpus: Corpus, fresh: ((at: number) => boolean) | undefined): { docs: number; length: number } {
  if (!fresh && corpus.totals?.at === corpus.changes) return corpus.totals;
  let docs = 0;
  let length = 0;
  for (const turn of corpus.turnList) {
    if (turn.deleted || turn.len === 0 || (fresh && !fresh(turn.at))) continue;
    docs += 1;
    length += turn.len;
  }
  if (!fresh) corpus.totals = { docs, length, at: corpus.changes };
  return { docs, length };
}

