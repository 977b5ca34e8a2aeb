import type { Storage } from '@loom/clickhouse';
import { FLOAT32_BYTES_SQL } from './exact-vectors';

/**
 * One statement for the catch-ups of both kept copies (ADR 0040). The kept vectors (ADR 0038)
 * and the kept postings (ADR 0039) each bring themselves up to date on every search by reading
 * the embedding rows written since their last read; a hybrid search asked both, and chDB runs one
 * statement at a time, so the second waited for the first (about 6 ms each at 100k turns).
 *
 * A read here takes every column either copy derives its rows from, from the asking copy's read
 * position. A later request reuses a read when that read began after the request's search began
 * (so it holds every write acknowledged before the search), covers its namespaces and starts at or
 * below its position. Each copy still takes only the rows above its own position, and marks itself
 * read as of the statement's start. Under hybrid searches both copies apply the same reads, so
 * their positions stay equal and one statement serves both.
 *
 * Not from the lowest position of any copy (ADR 0040 as first built): a copy that no search asks
 * (the postings under vector-only searches) never moves, and every read then re-read all rows
 * since it, Float32 vectors included: 200-400 ms a search at 100k turns after a burst of appends
 * (ADR 0041).
 */
export interface CatchUpRow {
  namespace: string;
  thread_id: string;
  msg_id: string;
  agent: string;
  role: string;
  run_id: string;
  user_id: string;
  ts: string;
  deleted: boolean | number;
  /** The version as text (named apart from the column: an alias would shadow it in WHERE). */
  v: string;
  doc_len: number;
  terms: string[];
  tfs: number[];
  model: string;
  embed_error: string;
  filters_changed: boolean | number;
  q8: string;
  scale: number;
  f32: string;
}

const COLUMNS = `namespace, thread_id, msg_id, agent, role, run_id, user_id, toString(ts) AS ts, deleted, toString(version) AS v,
  lex_len AS doc_len, lex_terms AS terms, lex_tfs AS tfs, model, embed_error, filters_changed,
  base64Encode(arrayStringConcat(arrayMap(x -> char(x + 128), embedding_q8))) AS q8, embedding_scale AS scale,
  ${FLOAT32_BYTES_SQL} AS f32`;

/**
 * What a catch-up brings back. `complete` is false when more rows landed since the position than
 * the request's limit: `rows` is then an arbitrary part of them, and the copies must be read again
 * in full (in the background) rather than caught up on a search's time.
 */
export interface CatchUp<Row = CatchUpRow> {
  rows: Row[];
  at: number;
  complete: boolean;
}

/** The bound for copies of up to 200,000 rows (about 2 s of a search's time at worst). */
export const MIN_CATCH_UP_LIMIT = 20_000;

/**
 * The most rows one search's catch-up reads, for copies holding `keptRows` rows together. A burst
 * of appends (an import, or the bench's 900,000 turns into a namespace kept at 100,000) once made
 * the next search read every one of them in the foreground: about 0.1 ms a row, 10 s at 90,000 and
 * past the HTTP server's 300 s timeout at 900,000. Beyond the bound the copy is read again in the
 * background while the engine ranks, as for a namespace never searched. A tenth of the copy, so
 * that what lands during a full read (about 66 s at 1M) does not send the next search back to one.
 */
export function catchUpLimit(keptRows: number, min: number = MIN_CATCH_UP_LIMIT): number {
  return Math.max(min, Math.ceil(keptRows / 10));
}

interface Read {
  namespaces: ReadonlySet<string>;
  from: number;
  limit: number;
  /** performance.now() when the statement was sent. */
  startedAt: number;
  result: Promise<CatchUp>;
}

/** How long a read stays reusable (ms): only requests of searches that began before it started reuse it, so this only bounds the list. */
const REUSE_MS = 2_000;

export class SharedCatchUp {
  private reads: Read[] = [];

  constructor(
    private readonly storage: Storage,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * The embedding rows of `namespaces` with a version above `since` (and perhaps some at or below
   * it), and the wall-clock µs at which their statement began. `notBefore` (performance.now() when
   * the asking search began): a read that began earlier is not reused. At most `limit` rows: past
   * it the answer is not `complete`.
   */
  async read(namespaces: readonly string[], since: number, notBefore: number = performance.now(), limit: number = MIN_CATCH_UP_LIMIT): Promise<CatchUp> {
    const reusable = this.reads.find((r) => r.startedAt >= notBefore && r.from <= since && namespaces.every((ns) => r.namespaces.has(ns)));
    if (reusable) {
      const got = await reusable.result;
      // A read cut at a smaller limit cannot answer a larger one; anything else it can.
      if (got.complete || reusable.limit >= limit) return got;
    }
    const from = Math.max(0, since);
    const at = this.now() * 1000;
    const startedAt = performance.now();
    const result = this.storage
      .query<CatchUpRow>(
        `SELECT ${COLUMNS} FROM ${this.storage.tables.conversationEmbeddings} WHERE namespace IN {cu_ns:Array(String)} AND version > {cu_since:UInt64} LIMIT {cu_limit:UInt32}`,
        { cu_ns: [...new Set(namespaces)], cu_since: from, cu_limit: limit + 1 },
      )
      .then((rows) => ({ rows, at, complete: rows.length <= limit }));
    const read: Read = { namespaces: new Set(namespaces), from, limit, startedAt, result };
    // A failed read is not reused: the next request sends its own.
    result.catch(() => (this.reads = this.reads.filter((r) => r !== read)));
    this.reads = [read, ...this.reads.filter((r) => startedAt - r.startedAt < REUSE_MS)].slice(0, 16);
    return result;
  }
}
