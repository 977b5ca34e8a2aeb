import type { Storage } from '@loom/clickhouse';

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
  arrayStringConcat(arrayMap(x -> hex(x), embedding)) AS f32`;

interface Read {
  namespaces: ReadonlySet<string>;
  from: number;
  /** performance.now() when the statement was sent. */
  startedAt: number;
  result: Promise<{ rows: CatchUpRow[]; at: number }>;
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
   * the asking search began): a read that began earlier is not reused.
   */
  read(namespaces: readonly string[], since: number, notBefore: number = performance.now()): Promise<{ rows: CatchUpRow[]; at: number }> {
    const reusable = this.reads.find((r) => r.startedAt >= notBefore && r.from <= since && namespaces.every((ns) => r.namespaces.has(ns)));
    if (reusable) return reusable.result;
    const from = Math.max(0, since);
    const at = this.now() * 1000;
    const startedAt = performance.now();
    const result = this.storage
      .query<CatchUpRow>(`SELECT ${COLUMNS} FROM ${this.storage.tables.conversationEmbeddings} WHERE namespace IN {cu_ns:Array(String)} AND version > {cu_since:UInt64}`, {
        cu_ns: [...new Set(namespaces)],
        cu_since: from,
      })
      .then((rows) => ({ rows, at }));
    const read: Read = { namespaces: new Set(namespaces), from, startedAt, result };
    // A failed read is not reused: the next request sends its own.
    result.catch(() => (this.reads = this.reads.filter((r) => r !== read)));
    this.reads = [read, ...this.reads.filter((r) => startedAt - r.startedAt < REUSE_MS)].slice(0, 16);
    return result;
  }
}
