/**
 * Vector ranking in two stages (ADR 0005), with no FINAL.
 *
 * Stage 1 runs in the engine. Every row matching the filters is ranked on its Int8 copy (a
 * quarter of the bytes of the Float32 scan). The best rows are re-scored exactly, and ClickHouse
 * reads `text` and the Float32 vector only for those rows (lazy materialisation).
 *
 * Stage 2 runs here. Of the versions of one turn among the candidates, the latest wins, and a
 * tombstone removes the turn; this is what FINAL would do, but FINAL over the whole namespace
 * costs more than the ranking itself.
 *
 * Why this is exact:
 * - The columns the filters read (namespace, thread, embed_error) never change between versions
 *   of an embedding row. Agent, run and role change only in a hand-over (compaction, delete),
 *   whose versions carry `filters_changed`: stage 1 ranks them whatever those filters say, so
 *   the latest version is always among the candidates, and stage 2 applies the filters to it.
 * - A re-embed's new version carries the current model, and old-model versions are filtered out.
 * - A tombstone copies the row and its vector, so it ranks beside the version it retires. The
 *   higher version wins the tie.
 * - When superseded versions crowd the candidates, `needsMoreCandidates` asks for a larger pool.
 */

import type { EmbeddingRow } from '../rows';

/** A stage-1 row: the hit's columns, its exact score, and what stage 2 needs to pick versions. */
export type CandidateRow = Pick<EmbeddingRow, 'namespace' | 'thread_id' | 'msg_id' | 'agent' | 'role' | 'run_id' | 'user_id' | 'ts'> & {
  excerpt: string;
  score: number;
  deleted: boolean | number;
  /**
   * UInt64 as text, as the client reads 64-bit integers. Selected as the column itself: a
   * `toString(version) AS version` in the outer query was pushed into the scan, which then
   * formatted every row's version before the sort (about 7% of the statement at 100k turns).
   */
  version: string;
};

/**
 * A candidate's columns (`CandidateRow`): its exact score and excerpt read only for the rows kept.
 * The score is summed in Float64 (the stored Float32 values widened, the query as given), as an
 * exact kept copy scores in this process (ADR 0040): in Float32 the two sums differed in the
 * sixth decimal the answer shows.
 * Without `excerpt` (hybrid's vector leg, which reads the excerpts of the few hits that rank),
 * the text column is not read: at 1M turns that was about 40% of stage 2.
 */
function candidateColumns(excerpt: boolean): string {
  return `namespace, thread_id, msg_id, agent, role, run_id, user_id, ts,
            ${excerpt ? 'substringUTF8(text, 1, {chars:UInt32})' : "''"} AS excerpt,
            1 - cosineDistance(CAST(embedding, 'Array(Float64)'), {q:Array(Float64)}) AS score,
            deleted, version`;
}

/** Whether a candidates statement reads each candidate's excerpt (default) or leaves it empty. */
export interface CandidateOptions {
  excerpt?: boolean;
}

/** The filters, with hand-over versions let through whatever agent, run and role they name. */
function candidateConditions(conditions: readonly string[], handOverConditions: readonly string[]): readonly string[] {
  return handOverConditions.length > 0 ? [...conditions, `((${handOverConditions.join(' AND ')}) OR filters_changed)`] : conditions;
}

/**
 * The stage-1 statement. Parameters: q, q16, candidates, chars, plus those of the conditions.
 * `handOverConditions` (agent, run, role) also let through versions flagged `filters_changed`.
 */
export function vectorCandidatesStatement(table: string, conditions: readonly string[], handOverConditions: readonly string[] = [], options: CandidateOptions = {}): string {
  const where = candidateConditions(conditions, handOverConditions);
  return `SELECT ${candidateColumns(options.excerpt ?? true)}
     FROM (
       SELECT namespace, thread_id, msg_id, agent, role, run_id, user_id, ts, ${options.excerpt ?? true ? 'text, ' : ''}embedding, deleted, version
       FROM ${table}
       WHERE ${where.join(' AND ')}
       ORDER BY dotProduct(embedding_q8, {q16:Array(Int16)}) * embedding_scale DESC, version DESC
       LIMIT {candidates:UInt32}
     )`;
}

/**
 * The stage-1 statement for a few rows (one thread): the exact score of every row, no Int8
 * ranking. On a thread's rows the two-stage plan costs more than it saves: at 100k turns in the
 * namespace, a thread-scoped statement took 11.5 ms two-stage and 5.8 ms exact. Same parameters
 * and rows as `vectorCandidatesStatement`, without q16; the same stage 2 follows.
 */
export function exactCandidatesStatement(table: string, conditions: readonly string[], handOverConditions: readonly string[] = [], options: CandidateOptions = {}): string {
  const where = candidateConditions(conditions, handOverConditions);
  return `SELECT ${candidateColumns(options.excerpt ?? true)}
     FROM ${table}
     WHERE ${where.join(' AND ')}
     ORDER BY score DESC, version DESC
     LIMIT {candidates:UInt32}`;
}

/**
 * Stage 2 for candidates ranked in this process (kept-vectors.ts, ADR 0038): every version of the
 * candidate turns, with their exact scores, under the same filters as stage 1 in the engine.
 * Reading every version, not only the ones ranked, is what lets a kept copy be behind on removals:
 * a tombstone or hand-over written since the copy was read is here, and `latestLive` keeps it.
 * Parameters: q, chars, kept_threads, kept_ids, plus those of the conditions. The IN lists
 * cross (a candidate's msg_id in another candidate's thread): the caller keeps the candidates' keys.
 */
export function keptCandidatesStatement(table: string, conditions: readonly string[], handOverConditions: readonly string[] = [], options: CandidateOptions = {}): string {
  const where = [...candidateConditions(conditions, handOverConditions), 'thread_id IN {kept_threads:Array(String)}', 'msg_id IN {kept_ids:Array(String)}'];
  return `SELECT ${candidateColumns(options.excerpt ?? true)}
     FROM ${table}
     WHERE ${where.join(' AND ')}`;
}

/**
 * How many live turns the quantised ranking hands to the exact one. Int8 rounding moves a
 * score by well under 0.01, so the true top `limit` sits far inside this many (measured: 1.000
 * of the exact top 10 at 100k turns with 40 candidates).
 */
export function candidatesFor(limit: number): number {
  return 2 * limit + 20;
}

/** The query vector on the stored vectors' Int8 scale (as Int16, so the dot product cannot overflow Int16). */
export function quantize(vector: readonly number[]): number[] {
  const max = vector.reduce((m, x) => Math.max(m, Math.abs(x)), 0);
  // Rounded away from zero on halves, symmetric for negative values.
  return max === 0 ? vector.map(() => 0) : vector.map((x) => Math.sign(x) * Math.round((Math.abs(x) / max) * 127) + 0);
}

/** The filters a hand-over can change, checked in stage 2 on the latest version. */
export interface HandOverFilters {
  agent?: string | undefined;
  run_id?: string | undefined;
  role?: string | undefined;
}

/** Stage 2: the latest version of each turn among the candidates, tombstoned turns and hand-overs away dropped. */
export function latestLive(rows: readonly CandidateRow[], filters: HandOverFilters = {}): CandidateRow[] {
  const latest = new Map<string, CandidateRow>();
  for (const row of rows) {
    const key = JSON.stringify([row.namespace, row.thread_id, row.msg_id]);
    const seen = latest.get(key);
    if (!seen || BigInt(row.version) > BigInt(seen.version)) latest.set(key, row);
  }
  return [...latest.values()].filter(
    (row) =>
      !row.deleted &&
      (filters.agent === undefined || row.agent === filters.agent) &&
      (filters.run_id === undefined || row.run_id === filters.run_id) &&
      (filters.role === undefined || row.role === filters.role),
  );
}

/**
 * A full pool in which superseded versions or tombstones left fewer live turns than the
 * ranking needs: a larger pool may hold live turns that rank in the top `limit`.
 */
export function needsMoreCandidates(pool: number, returned: number, live: number, limit: number): boolean {
  return returned === pool && live < candidatesFor(limit);
}

/** Exact score order, newest first on ties, floor applied. */
export function rankExact<T extends { score: number; ts: string }>(rows: readonly T[], floor: number, limit: number): T[] {
  return rows
    .filter((row) => row.score >= floor)
    .sort((a, b) => b.score - a.score || (a.ts < b.ts ? 1 : a.ts > b.ts ? -1 : 0))
    .slice(0, limit);
}
