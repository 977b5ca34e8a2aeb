import { tmpdir } from 'node:os';
import type { Storage } from '@loom/clickhouse';
import type { TurnRole } from '@loom/contracts';
import { keptTurnKey, type KeptHit } from '../rows';
import type { Logger } from '@loom/platform';
import { Int8Matrix } from './int8-dot';
import { FLOAT32_BYTES_SQL, Float32File, Float32Rows, float32Bytes, type ExactVectors } from './exact-vectors';
import { catchUpLimit, type CatchUp, type SharedCatchUp } from './shared-catch-up';
import { candidatesFor, rankExact, type HandOverFilters } from './vector-ranking';

/**
 * The Int8 copies of a namespace's embedding rows, kept in this process so that the vector
 * leg's first stage ranks them here (ADR 0038) instead of scanning them in the engine.
 *
 * What is kept: every row of `conversation_embeddings` of the namespace with the corpus's model
 * and no embed error, every version (as the engine's stage 1 sees the table without FINAL): its
 * key, version, the hand-over filters (agent, run, role, filters_changed) and its Int8 vector
 * with its scale. No text: nothing here can read as high or outlive an erasure as words.
 *
 * Why it stays correct without being exact about the engine's rows:
 * - Stage 1 here only proposes candidates. Stage 2 reads every version of the candidate turns
 *   from the engine (`keptCandidatesStatement`) and keeps the latest live one, as the engine path
 *   does. A turn deleted, handed over, compacted, erased or purged since it was kept is dropped
 *   there, whatever this copy still holds.
 * - What a copy can miss is a row written since it was read: every search first reads the rows
 *   whose version is above the wall-clock time of the copy's previous read, less `marginMicros`
 *   (a version is the writer's clock when it built the row, taken before the row lands; rows
 *   already held are not added twice). So a search sees every write acknowledged before it.
 * - A row that lands later than the margin allows (a write-behind replay after an outage, a
 *   writer whose clock is behind) is found by the backstop: at most every `countEveryMs`, off the
 *   request path, the engine's rows are counted, and a copy holding fewer is read again.
 * - Superseded versions stay held until the copy is read again (`reloadAfterMs` after it was
 *   read, when it has changed); stage 2 resolves versions, so they only cost memory.
 *
 * Exact copies (ADR 0040): a copy that fits `maxExactRows` also holds each row's Float32 vector,
 * its header (user, time, tombstone) and which of its rows is each turn's latest. Its searches
 * then need no stage 2 in the engine: stage 1 ranks only the latest live version of each turn
 * (which is what stage 2 keeps) and the candidates are re-scored exactly here, in Float64 as the
 * engine's statements score them. At 100k turns stage 2 read about 220 granules of Float32
 * vectors, 25-40 ms, most of a hybrid search. What such a copy cannot see is a row removed
 * without a new version (a purge, the retention TTL): the caller reads each hit's excerpt, and a
 * hit with none left makes it drop the copy (`suspect`) and answer from the engine.
 */
export interface KeptVectorsOptions {
  /** At most how many rows all kept namespaces hold together (LOOM_SEARCH_KEPT_VECTORS); 0 keeps none. */
  maxRows: number;
  /** Rows per statement of a full read. */
  page: number;
  /** How far below the time of a copy's previous read a catch-up starts (µs): longer than a row spends between taking its version and landing. */
  marginMicros: number;
  /** A copy that changed since it was read is read again in the background after this long. */
  reloadAfterMs: number;
  /** How often (at most) a copy's rows are counted in the engine, to find rows that landed too late for a catch-up. */
  countEveryMs: number;
  /** At most how many rows all exact copies hold together (LOOM_SEARCH_KEPT_EXACT_VECTORS): a copy that fits also keeps Float32 vectors. */
  maxExactRows: number;
  /**
   * At most how many rows all exact copies kept on file hold together (LOOM_SEARCH_KEPT_FILE_VECTORS,
   * ADR 0043): a copy over `maxExactRows` that fits keeps its Float32 vectors in a file of `fileDir`.
   */
  maxFileRows: number;
  /** Where file copies keep their Float32 vectors (LOOM_SEARCH_KEPT_FILE_DIR); the files are unlinked at once. */
  fileDir: string;
  /** How long a dropped copy's file stays open, for a search that took its ranker just before the drop. */
  releaseAfterMs: number;
  /** The catch-up statement shared with the kept postings (ADR 0040); without it each catch-up is this copy's own statement. */
  catchUp?: SharedCatchUp | undefined;
  /** The least a search's catch-up reads before the copy counts as too far behind (`catchUpLimit`; tests lower it). */
  minCatchUp?: number;
  now?: () => number;
  logger?: Logger | undefined;
}

export const DEFAULT_KEPT_VECTORS: KeptVectorsOptions = {
  maxRows: 1_000_000,
  page: 5_000,
  marginMicros: 10_000_000,
  reloadAfterMs: 10 * 60_000,
  countEveryMs: 5_000,
  maxExactRows: 250_000,
  maxFileRows: 1_000_000,
  fileDir: tmpdir(),
  releaseAfterMs: 30_000,
};

/** A stage-1 candidate: a row of the copy (one version of a turn). */
export interface KeptCandidate {
  namespace: string;
  thread_id: string;
  msg_id: string;
}

/** One kept row as read. */
interface KeptRow {
  kind?: string;
  namespace: string;
  thread_id: string;
  msg_id: string;
  agent: string;
  role: TurnRole;
  run_id: string;
  filters_changed: boolean | number;
  /** The version as text (named apart from the column: an alias would shadow it in WHERE). */
  v: string;
  q8: string;
  scale: number;
  user_id: string;
  ts: string;
  deleted: boolean | number;
  /** An exact copy's read only: the Float32 vector's bytes (`FLOAT32_BYTES_SQL`). */
  f32?: string;
}

/** The row columns a copy reads: the vector as base64 of its bytes shifted by 128 (a third of the JSON of an array). */
const ROW_COLUMNS = `namespace, thread_id, msg_id, agent, role, run_id, filters_changed, toString(version) AS v,
  base64Encode(arrayStringConcat(arrayMap(x -> char(x + 128), embedding_q8))) AS q8, embedding_scale AS scale,
  user_id, toString(ts) AS ts, deleted`;
/** An exact copy's rows also carry the Float32 vector's bytes (`FLOAT32_BYTES_SQL`). */
const EXACT_COLUMNS = `${ROW_COLUMNS}, ${FLOAT32_BYTES_SQL} AS f32`;


class Corpus {
  readonly threads: string[] = [];
  readonly ids: string[] = [];
  readonly agents: string[] = [];
  readonly roles: TurnRole[] = [];
  readonly runs: string[] = [];
  readonly handOver: boolean[] = [];
  readonly versions: number[] = [];
  readonly scales: number[] = [];
  readonly users: string[] = [];
  readonly stamps: string[] = [];
  readonly deleted: boolean[] = [];
  /** Rows that are not their turn's latest version here (an exact copy ranks only the others). */
  readonly superseded: boolean[] = [];
  /** Each turn's latest row. */
  private readonly latest = new Map<string, number>();
  /** key@version of the held rows a catch-up can return again (version above `since()`). */
  private recent = new Map<string, number>();
  private readonly strings = new Map<string, string>();
  matrix: Int8Matrix | undefined;
  /**
   * Wall-clock µs at which the last read of this copy's rows began (the full read's first
   * statement, then each catch-up's). A version is a writer's clock when it built the row, so a
   * row that landed after that read has a version above it less the time rows spend in flight.
   */
  caughtUpAt: number;
  /** When the copy was read in full (ms), and whether a catch-up added rows since. */
  readAt: number;
  changed = false;
  /** When the engine's rows were last counted against this copy (ms). */
  countedAt: number;
  /** Rows read that could not be kept (a vector of other dimensions): counted, so the engine's count still matches. */
  skipped = 0;

  constructor(
    readonly namespace: string,
    readonly model: string,
    now: number,
    private readonly marginMicros: number,
    /**
     * An exact copy's Float32 vectors: in memory (it fit LOOM_SEARCH_KEPT_EXACT_VECTORS when read)
     * or in a file (it fit LOOM_SEARCH_KEPT_FILE_VECTORS, ADR 0043); none, not an exact copy.
     */
    readonly exact: ExactVectors | undefined = undefined,
  ) {
    this.readAt = now;
    this.countedAt = now;
    this.caughtUpAt = now * 1000;
  }

  get rows(): number {
    return this.versions.length;
  }

  /** Whether this copy holds Float32 vectors and headers, so that its searches need no stage 2 in the engine. */
  get exactCopy(): boolean {
    return this.exact !== undefined;
  }

  /** Whether this copy's Float32 vectors are in a file. */
  get onFile(): boolean {
    return this.exact instanceof Float32File;
  }

  /** Frees the Float32 vectors (a file's descriptor and disk blocks); the copy must not rank again. */
  release(): void {
    this.exact?.release();
  }

  /** The columns this copy's statements read. */
  get columns(): string {
    return this.exactCopy ? EXACT_COLUMNS : ROW_COLUMNS;
  }

  /** Versions at or below this were all read by an earlier read of this copy. */
  since(): number {
    return this.caughtUpAt - this.marginMicros;
  }

  /** Adds the rows not held yet: a catch-up returns again the rows of its margin that an earlier read held. */
  add(rows: readonly KeptRow[]): number {
    let added = 0;
    const since = this.since();
    for (const row of rows) {
      const version = Number(row.v);
      const turn = keptTurnKey(row.thread_id, row.msg_id);
      const key = `${turn}${row.v}`;
      if (this.recent.has(key)) continue;
      const bytes = Buffer.from(row.q8, 'base64');
      const vector = new Int8Array(bytes.length);
      for (let i = 0; i < bytes.length; i += 1) vector[i] = bytes[i]! - 128;
      this.matrix ??= new Int8Matrix(vector.length);
      // A row of other dimensions cannot be of this model: a corrupt row is not ranked.
      const f32 = this.exactCopy ? float32Bytes(row.f32 ?? '') : undefined;
      if (vector.length !== this.matrix.dimensions || (f32 && f32.length !== vector.length * 4)) {
        this.skipped += 1;
        continue;
      }
      const index = this.matrix.append(vector);
      if (f32) this.exact!.append(f32);
      // Only an exact copy answers without stage 2, so only it keeps headers and latest versions.
      if (this.exactCopy) this.keepHeader(row, turn, index, version);
      this.threads.push(this.intern(row.thread_id));
      this.ids.push(row.msg_id);
      this.agents.push(this.intern(row.agent));
      this.roles.push(row.role);
      this.runs.push(this.intern(row.run_id));
      this.handOver.push(Boolean(Number(row.filters_changed)));
      this.versions.push(version);
      // The engine multiplies by the Float32 value; JSON carries its shortest decimal, which fround restores exactly.
      this.scales.push(Math.fround(row.scale));
      if (version > since) this.recent.set(key, version);
      added += 1;
    }
    return added;
  }

  /** An exact copy's row header, and whether the row is its turn's latest: of two rows the higher version; of equal ones the first read (as stage 2 keeps them). */
  private keepHeader(row: KeptRow, turn: string, index: number, version: number): void {
    this.users.push(this.intern(row.user_id));
    this.stamps.push(row.ts);
    this.deleted.push(Boolean(Number(row.deleted)));
    const previous = this.latest.get(turn);
    if (previous === undefined || this.versions[previous]! < version) {
      this.superseded.push(false);
      if (previous !== undefined) this.superseded[previous] = true;
      this.latest.set(turn, index);
    } else this.superseded.push(true);
  }

  /** Marks a catch-up that began at `at` (µs) as read, forgetting the rows no later catch-up can return. */
  caughtUp(at: number): void {
    this.caughtUpAt = Math.max(this.caughtUpAt, at);
    const since = this.since();
    for (const [key, version] of this.recent) if (version <= since) this.recent.delete(key);
  }

  /** Whether row `i` passes the agent, run and role filters. */
  passes(i: number, filters: HandOverFilters): boolean {
    return !((filters.agent !== undefined && this.agents[i] !== filters.agent) || (filters.run_id !== undefined && this.runs[i] !== filters.run_id) || (filters.role !== undefined && this.roles[i] !== filters.role));
  }

  private intern(s: string): string {
    const held = this.strings.get(s);
    if (held !== undefined) return held;
    this.strings.set(s, s);
    return s;
  }
}

/** A best-first bounded list of (score, version, row). */
class TopRows {
  readonly scores: number[] = [];
  readonly versions: number[] = [];
  readonly rows: Array<{ corpus: Corpus; index: number }> = [];

  constructor(private readonly size: number) {}

  /** The lowest score that still gets in (with its version for ties), once full. */
  admits(score: number, version: number): boolean {
    const n = this.scores.length;
    if (n < this.size) return true;
    const lastScore = this.scores[n - 1]!;
    return score > lastScore || (score === lastScore && version > this.versions[n - 1]!);
  }

  add(score: number, version: number, corpus: Corpus, index: number): void {
    // Insertion into a sorted array: the list is a few hundred long and most rows are refused by `admits`.
    let at = this.scores.length;
    while (at > 0 && (this.scores[at - 1]! < score || (this.scores[at - 1] === score && this.versions[at - 1]! < version))) at -= 1;
    this.scores.splice(at, 0, score);
    this.versions.splice(at, 0, version);
    this.rows.splice(at, 0, { corpus, index });
    if (this.scores.length > this.size) {
      this.scores.pop();
      this.versions.pop();
      this.rows.pop();
    }
  }
}

/** Ranks the kept rows of a search's namespaces; see `KeptVectors.ranker`. */
export interface KeptRanker {
  /** Stage 1: the best `pool` rows (any version) on the Int8 query; stage 2 follows in the engine. */
  candidates(query: ArrayLike<number>, filters: HandOverFilters, pool: number): KeptCandidate[];
  /**
   * Both stages, when every copy is exact: the best `limit` live turns at or above `floor`, scored
   * exactly on `vector` (the Int8 `query` picks the candidates), in the engine path's order.
   */
  hits?: (query: ArrayLike<number>, vector: readonly number[], filters: HandOverFilters, limit: number, floor: number) => KeptHit[];
}

export class KeptVectors {
  /** Ready copies by (namespace, model), least recently used first. */
  private readonly corpora = new Map<string, Corpus>();
  /** Full reads running, by (namespace, model). */
  private readonly loads = new Map<string, Promise<void>>();
  private closed = false;
  /** Count checks running. */
  private readonly checks = new Set<Promise<void>>();
  /** Dropped copies whose files close after `releaseAfterMs`. */
  private readonly retiring = new Map<Corpus, ReturnType<typeof setTimeout>>();
  /** Until when (ms) no copy is kept on file: opening or writing one failed (a read-only or full disk). */
  private filesRefusedUntil = -Infinity;
  /** Namespaces too large to keep, until when (ms) not to try again. */
  private readonly refused = new Map<string, number>();
  private readonly options: KeptVectorsOptions;
  private readonly now: () => number;

  constructor(
    private readonly storage: Storage,
    options: Partial<KeptVectorsOptions> = {},
  ) {
    this.options = { ...DEFAULT_KEPT_VECTORS, ...options };
    this.now = this.options.now ?? Date.now;
  }

  /** Stops reading: no new read starts, a running one ends at its next page; resolves when none runs. */
  async close(): Promise<void> {
    this.closed = true;
    await this.settled();
    for (const corpus of this.corpora.values()) corpus.release();
    this.corpora.clear();
    for (const [corpus, timer] of this.retiring) {
      clearTimeout(timer);
      corpus.release();
    }
    this.retiring.clear();
  }

  /** Full reads running now. */
  loading(): number {
    return this.loads.size;
  }

  /** Whether a copy of the namespace's rows of `model` is held (a search of it ranks stage 1 here). */
  holds(namespace: string, model: string): boolean {
    return this.corpora.has(JSON.stringify([namespace, model]));
  }

  /** Rows held by all copies, how many copies, and of those rows how many keep their Float32 vectors in a file. */
  held(): { namespaces: number; rows: number; fileRows: number } {
    let rows = 0;
    let fileRows = 0;
    for (const c of this.corpora.values()) {
      rows += c.rows;
      if (c.onFile) fileRows += c.rows;
    }
    return { namespaces: this.corpora.size, rows, fileRows };
  }

  /** Resolves when no full read or count check is running (tests and the bench wait for copies this way). */
  async settled(): Promise<void> {
    while (this.loads.size > 0 || this.checks.size > 0) await Promise.allSettled([...this.loads.values(), ...this.checks]);
  }

  /**
   * A ranker over the kept rows of `namespaces` for `model`, brought up to date with the engine
   * first (one statement), or undefined when one of them is not kept (yet): the caller ranks in
   * the engine, and a full read of the missing ones starts in the background.
   */
  async ranker(namespaces: readonly string[], model: string, notBefore?: number): Promise<KeptRanker | undefined> {
    if (this.options.maxRows <= 0 || namespaces.length === 0) return undefined;
    const corpora: Corpus[] = [];
    for (const ns of namespaces) {
      const key = JSON.stringify([ns, model]);
      const corpus = this.corpora.get(key);
      if (!corpus) {
        this.startLoad(ns, model);
        continue;
      }
      this.corpora.delete(key);
      this.corpora.set(key, corpus);
      corpora.push(corpus);
    }
    if (corpora.length < namespaces.length) return undefined;
    if (!(await this.catchUp(corpora, model, notBefore))) {
      // Too far behind to catch up on a search's time: read again in the background, the engine ranks meanwhile.
      for (const corpus of corpora) {
        this.drop(corpus);
        this.startLoad(corpus.namespace, model);
      }
      return undefined;
    }
    return {
      candidates: (query, filters, pool) => rank(corpora, query, filters, pool),
      ...(corpora.every((c) => c.exactCopy) ? { hits: (query: ArrayLike<number>, vector: readonly number[], filters: HandOverFilters, limit: number, floor: number) => rankLive(corpora, query, vector, filters, limit, floor) } : {}),
    };
  }

  /** Drops the copies of a namespace (a hit only they vouched for was removed without a version): the next search reads them again. */
  suspect(namespace: string): void {
    for (const corpus of [...this.corpora.values()]) if (corpus.namespace === namespace) this.drop(corpus);
  }

  /**
   * The rows of `model` that landed since each copy was last read (versions above its `since()`;
   * the shared statement's, when there is one), and when their statement began (µs).
   */
  private async readSince(corpora: readonly Corpus[], model: string, notBefore?: number): Promise<CatchUp<KeptRow>> {
    const since = Math.max(0, Math.min(...corpora.map((c) => c.since())));
    const limit = catchUpLimit(corpora.reduce((n, c) => n + c.rows, 0), this.options.minCatchUp);
    const shared = this.options.catchUp;
    if (shared) {
      const read = await shared.read(corpora.map((c) => c.namespace), since, notBefore, limit);
      return { rows: read.rows.filter((r) => r.model === model && r.embed_error === '') as KeptRow[], at: read.at, complete: read.complete };
    }
    const at = this.now() * 1000;
    const rows = await this.storage.query<KeptRow>(
      `SELECT ${corpora.some((c) => c.exactCopy) ? EXACT_COLUMNS : ROW_COLUMNS} FROM ${this.storage.tables.conversationEmbeddings}
         WHERE namespace IN {kept_ns:Array(String)} AND model = {kept_model:String} AND embed_error = '' AND version > {kept_since:UInt64}
         LIMIT {kept_limit:UInt32}`,
      { kept_ns: corpora.map((c) => c.namespace), kept_model: model, kept_since: since, kept_limit: limit + 1 },
    );
    return { rows, at, complete: rows.length <= limit };
  }

  /** Applies a catch-up's rows to the copies, and reads superseded versions away when it is time; false (nothing applied) when too many rows landed since. */
  private async catchUp(corpora: readonly Corpus[], model: string, notBefore?: number): Promise<boolean> {
    const { rows, at, complete } = await this.readSince(corpora, model, notBefore);
    if (!complete) return false;
    const byNamespace = new Map(corpora.map((c) => [c.namespace, c]));
    const fresh = new Map<Corpus, KeptRow[]>();
    for (const row of rows) {
      const corpus = byNamespace.get(row.namespace);
      // One statement serves copies read at different times: each takes only what it has not read.
      if (!corpus || Number(row.v) <= corpus.since()) continue;
      const list = fresh.get(corpus);
      if (list) list.push(row);
      else fresh.set(corpus, [row]);
    }
    for (const corpus of corpora) {
      try {
        if (corpus.add(fresh.get(corpus) ?? []) > 0) corpus.changed = true;
      } catch (error) {
        // A file copy's write failed (a full disk): the caller drops the copies and ranks in the engine.
        if (!KeptVectors.fileError(error)) throw error;
        this.refuseFiles(error);
        return false;
      }
      corpus.caughtUp(at);
      if (corpus.changed && this.now() - corpus.readAt > this.options.reloadAfterMs) {
        // Superseded versions pile up under writes: a fresh read sheds them (this copy serves meanwhile).
        corpus.readAt = this.now();
        this.startLoad(corpus.namespace, model);
      }
    }
    this.checkCounts(corpora, model);
    return true;
  }

  /**
   * The backstop for a row that landed later than the margin allows (a write-behind replay, a
   * writer whose clock is behind): the engine then counts more rows than the copy holds, and the
   * copy is dropped and read again. Off the request path, at most once per `countEveryMs` per
   * copy: at 1M rows the count costs more than the catch-up.
   */
  private checkCounts(corpora: readonly Corpus[], model: string): void {
    const due = corpora.filter((c) => this.now() - c.countedAt >= this.options.countEveryMs);
    if (due.length === 0 || this.closed) return;
    for (const c of due) c.countedAt = this.now();
    // A background statement (ADR 0042): at 1M rows it costs 0.3-0.5 s, which the search whose
    // statements queued behind it would otherwise wait for.
    const check = this.storage
      .backgroundQuery<{ namespace: string; n: string }>(
        `SELECT namespace, toString(count()) AS n FROM ${this.storage.tables.conversationEmbeddings}
           WHERE namespace IN {kept_ns:Array(String)} AND model = {kept_model:String} AND embed_error = '' GROUP BY namespace`,
        { kept_ns: due.map((c) => c.namespace), kept_model: model },
      )
      .then((rows) => {
        const counts = new Map(rows.map((r) => [r.namespace, Number(r.n)]));
        for (const corpus of due) {
          if ((counts.get(corpus.namespace) ?? 0) <= corpus.rows + corpus.skipped) continue;
          this.drop(corpus);
          this.startLoad(corpus.namespace, model);
        }
      })
      .catch(() => undefined)
      .finally(() => this.checks.delete(check));
    this.checks.add(check);
  }

  private drop(corpus: Corpus): void {
    const key = JSON.stringify([corpus.namespace, corpus.model]);
    if (this.corpora.get(key) !== corpus) return;
    this.corpora.delete(key);
    this.retire(corpus);
  }

  /**
   * Frees a dropped copy's file once no search can still hold it: a search takes its ranker and
   * ranks in one turn of the event loop, so a delay of seconds is ample.
   */
  private retire(corpus: Corpus): void {
    if (!corpus.onFile || this.retiring.has(corpus)) return;
    const timer = setTimeout(() => {
      this.retiring.delete(corpus);
      corpus.release();
    }, this.options.releaseAfterMs);
    timer.unref();
    this.retiring.set(corpus, timer);
  }

  private startLoad(namespace: string, model: string): void {
    const key = JSON.stringify([namespace, model]);
    if (this.closed || this.loads.has(key) || (this.refused.get(key) ?? 0) > this.now()) return;
    const started = this.now();
    const load = this.load(namespace, model)
      .then((corpus) => {
        const log = this.options.logger;
        if (this.closed) {
          corpus?.release();
          return;
        }
        if (!corpus) {
          log?.warn({ namespace, model, max_rows: this.options.maxRows }, 'namespace has more embedding rows than LOOM_SEARCH_KEPT_VECTORS: its vector search ranks in the engine (raise the setting to keep it)');
          return;
        }
        const kept = this.keep(key, corpus);
        const exact = corpus.onFile ? 'file' : corpus.exactCopy ? 'memory' : 'none';
        log?.info({ namespace, model, rows: corpus.rows, exact, ms: this.now() - started, kept }, kept ? `search keeps the namespace vectors in memory${corpus.onFile ? ', their Float32 values in a file' : ''}` : 'namespace vectors read but not kept: other namespaces fill LOOM_SEARCH_KEPT_VECTORS');
      })
      // A failed read (the engine restarting, the store closing) leaves the engine path in place; the next search tries again.
      .catch((error: unknown) => this.options.logger?.warn({ err: error, namespace }, 'reading namespace vectors for search failed; searches rank in the engine and the next one tries again'))
      .finally(() => this.loads.delete(key));
    this.loads.set(key, load);
  }

  /** Reads a namespace's rows of `model` in pages, in key order; undefined when it is too large to keep. */
  private async load(namespace: string, model: string): Promise<Corpus | undefined> {
    const table = this.storage.tables.conversationEmbeddings;
    const params = { kept_ns: namespace, kept_model: model };
    const begun = this.now();
    const [head] = await this.storage.backgroundQuery<{ n: string }>(
      `SELECT toString(count()) AS n FROM ${table} WHERE namespace = {kept_ns:String} AND model = {kept_model:String} AND embed_error = ''`,
      params,
    );
    const count = Number(head?.n ?? 0);
    if (count > this.options.maxRows) {
      this.refused.set(JSON.stringify([namespace, model]), this.now() + this.options.reloadAfterMs);
      return undefined;
    }
    // Begun before the count: a row landing during the read is read again by the first catch-up.
    const corpus = new Corpus(namespace, model, begun, this.options.marginMicros, this.exactStoreFor(JSON.stringify([namespace, model]), count));
    if (await this.readPages(corpus, params)) return corpus;
    corpus.release();
    return undefined;
  }

  /**
   * Where a copy of `count` rows keeps Float32 vectors: in memory when it fits beside the other
   * exact copies in memory, else in a file when it fits beside the other file copies (the copy
   * it replaces aside in both), else nowhere.
   */
  private exactStoreFor(key: string, count: number): ExactVectors | undefined {
    let inMemory = 0;
    let onFile = 0;
    for (const [k, c] of this.corpora) {
      if (k === key) continue;
      if (c.onFile) onFile += c.rows;
      else if (c.exactCopy) inMemory += c.rows;
    }
    if (inMemory + count <= this.options.maxExactRows) return new Float32Rows();
    if (onFile + count > this.options.maxFileRows || this.now() < this.filesRefusedUntil) return undefined;
    try {
      return Float32File.create(this.options.fileDir);
    } catch (error) {
      this.refuseFiles(error);
      return undefined;
    }
  }

  /** A file copy could not be opened or written: none is tried for a while, and such copies re-score in the engine meanwhile, as a copy over every budget does. */
  private refuseFiles(error: unknown): void {
    this.filesRefusedUntil = this.now() + this.options.reloadAfterMs;
    this.options.logger?.warn({ err: error, dir: this.options.fileDir }, 'cannot keep Float32 vectors in a file (LOOM_SEARCH_KEPT_FILE_DIR, a read-only or full disk?): large namespaces re-score their vector candidates in the engine for the next 10 minutes');
  }

  /** Whether an error came from the file system (a file copy's write), not from the engine. */
  private static fileError(error: unknown): boolean {
    return typeof error === 'object' && error !== null && 'syscall' in error;
  }

  /** Reads a copy's rows in pages, in key order; false when the store closed meanwhile. A failure releases the copy's file. */
  private async readPages(corpus: Corpus, params: { kept_ns: string; kept_model: string }): Promise<boolean> {
    const table = this.storage.tables.conversationEmbeddings;
    try {
      let after: KeptRow | undefined;
      for (;;) {
        if (this.closed) return false;
        // The leading thread_id >= … repeats the cursor's first column: the primary key does not prune on a
        // tuple comparison (ClickHouse #75086), so without it every page scans the namespace from its start.
        const page = await this.storage.backgroundQuery<KeptRow>(
          `SELECT ${corpus.columns} FROM ${table}
             WHERE namespace = {kept_ns:String} AND model = {kept_model:String} AND embed_error = ''
               ${after ? 'AND thread_id >= {kept_thread:String} AND (thread_id, msg_id, version) > ({kept_thread:String}, {kept_msg:String}, {kept_version:UInt64})' : ''}
             ORDER BY thread_id, msg_id, version
             LIMIT {kept_page:UInt32}`,
          { ...params, kept_page: this.options.page, ...(after ? { kept_thread: after.thread_id, kept_msg: after.msg_id, kept_version: after.v } : {}) },
        );
        corpus.add(page);
        if (page.length < this.options.page) return true;
        after = page[page.length - 1];
      }
    } catch (error) {
      corpus.release();
      if (KeptVectors.fileError(error)) this.refuseFiles(error);
      throw error;
    }
  }

  /** Keeps a copy read in full, dropping the least recently used ones to stay within the budget; false when it alone does not fit. */
  private keep(key: string, corpus: Corpus): boolean {
    const old = this.corpora.get(key);
    if (old) this.drop(old);
    let held = this.held().rows;
    for (const c of [...this.corpora.values()]) {
      if (held + corpus.rows <= this.options.maxRows) break;
      this.drop(c);
      held -= c.rows;
    }
    if (held + corpus.rows > this.options.maxRows) {
      corpus.release();
      return false;
    }
    this.corpora.set(key, corpus);
    return true;
  }
}

/**
 * Stage 1 over kept rows, as `vectorCandidatesStatement` ranks in the engine: Int8 dot product
 * times the row's scale, descending, then version descending; the agent/run/role filters apply
 * to a row unless it is a hand-over version. Returns the best `pool` rows.
 */
function rank(corpora: readonly Corpus[], query: ArrayLike<number>, filters: HandOverFilters, pool: number): KeptCandidate[] {
  const top = new TopRows(pool);
  for (const corpus of corpora) {
    if (!corpus.matrix || corpus.matrix.dimensions !== query.length) continue;
    const dots = corpus.matrix.dot(query);
    const { handOver, versions, scales } = corpus;
    for (let i = 0; i < dots.length; i += 1) {
      if (!handOver[i] && !corpus.passes(i, filters)) continue;
      const score = dots[i]! * scales[i]!;
      if (top.admits(score, versions[i]!)) top.add(score, versions[i]!, corpus, i);
    }
  }
  return top.rows.map(({ corpus, index }) => ({ namespace: corpus.namespace, thread_id: corpus.threads[index]!, msg_id: corpus.ids[index]! }));
}

/**
 * Both stages over exact copies: stage 1 on the Int8 rows that are their turn's latest live
 * version and pass the filters (the engine path lets hand-over versions through stage 1 and
 * applies the filters to the latest version in stage 2: the same turns), the best
 * `candidatesFor(limit)` of them re-scored exactly, then `rankExact` as in the engine path.
 */
function rankLive(corpora: readonly Corpus[], query: ArrayLike<number>, vector: readonly number[], filters: HandOverFilters, limit: number, floor: number): KeptHit[] {
  const top = new TopRows(candidatesFor(limit));
  for (const corpus of corpora) {
    if (!corpus.matrix || corpus.matrix.dimensions !== query.length) continue;
    const dots = corpus.matrix.dot(query);
    const { superseded, deleted, versions, scales } = corpus;
    for (let i = 0; i < dots.length; i += 1) {
      if (superseded[i] || deleted[i] || !corpus.passes(i, filters)) continue;
      const score = dots[i]! * scales[i]!;
      if (top.admits(score, versions[i]!)) top.add(score, versions[i]!, corpus, i);
    }
  }
  let queryNorm = 0;
  for (const x of vector) queryNorm += x * x;
  const scored = top.rows.map(({ corpus, index }) => ({
    namespace: corpus.namespace,
    thread_id: corpus.threads[index]!,
    msg_id: corpus.ids[index]!,
    agent: corpus.agents[index]!,
    role: corpus.roles[index]!,
    run_id: corpus.runs[index]!,
    user_id: corpus.users[index]!,
    ts: corpus.stamps[index]!,
    score: corpus.exact!.score(index, vector, queryNorm),
  }));
  return rankExact(scored, floor, limit);
}
