/**
 * How many postings of each query term (per namespace) a search scores: the ones with the
 * highest BM25 weight, after the filters. A term held by more turns than this (a common word:
 * "fix", "error") adds its small weight only to its best-weighted turns; a turn past them loses
 * at most that term's weight at the cut. Aggregating every posting of such a term per turn was
 * most of the lexical leg's time (ADR 0027): at 100k turns a query's terms have 15k postings
 * (median) to 63k (p95).
 */
export const POSTINGS_PER_TERM = 1000;

/**
 * The lexical leg's statement when the BM25 statistics come as parameters (`Bm25Statistics`):
 * it reads only the query terms' postings, with FINAL (a tombstone or hand-over of the turn's
 * embedding row is the latest version of each of its postings), weighs each posting, keeps the
 * best-weighted `per_term` of each term that pass the filters (an impact-ordered top k
 * computed in the statement), and sums the weights per turn. Counting the statistics in the
 * statement (a FINAL pass over every header posting of the namespaces, and a window over the
 * postings for document frequencies) cost more than the scoring at 1M turns.
 *
 * The statistics stay exact: they come from every live posting (`Bm25Statistics`), not from the
 * ones kept. A posting of a namespace the statistics do not cover (`stat_ns`; possible only with
 * statistics the caller's check then finds out of date, and re-runs) weighs 0.
 *
 * Parameters: terms, stat_ns, avgdl (per stat_ns), idf (per stat_ns, per term), limit, per_term
 * (`POSTINGS_PER_TERM`), k1, b,
 * plus those of the scope condition and of the filters. `scope` and `filters` name the
 * postings' own columns (namespace, thread_id, agent, run_id, role, ts).
 */
export function bm25ScoringStatement(table: string, scope: readonly string[], filters: readonly string[]): string {
  const conditions = [...scope, 'term IN {terms:Array(String)}', 'deleted = 0'];
  const filtered = filters.length > 0 ? `AND ${filters.join(' AND ')}` : '';
  return `SELECT namespace, thread_id, msg_id, any(agent) AS agent, any(role) AS role, any(run_id) AS run_id, any(user_id) AS user_id, any(ts) AS ts,
            sum(weight) AS score, groupArray(term) AS matched
     FROM (
       -- The filters apply to each posting's latest version (a hand-over changes agent, role,
       -- run), and below the aggregation, whose aliases would otherwise shadow the columns.
       SELECT namespace, term, thread_id, msg_id, agent, role, run_id, user_id, ts,
              if(ni = 0, 0, {idf:Array(Array(Float64))}[ni][indexOf({terms:Array(String)}, term)] * tf * ({k1:Float64} + 1)
                / (tf + {k1:Float64} * (1 - {b:Float64} + {b:Float64} * doc_len / {avgdl:Array(Float64)}[ni]))) AS weight
       FROM (
         SELECT namespace, term, thread_id, msg_id, tf, doc_len, agent, role, run_id, user_id, ts, indexOf({stat_ns:Array(String)}, namespace) AS ni
         FROM ${table} FINAL
         WHERE ${conditions.join(' AND ')}
       )
       WHERE 1 ${filtered}
       ORDER BY weight DESC, thread_id, msg_id
       LIMIT {per_term:UInt32} BY namespace, term
     )
     GROUP BY namespace, thread_id, msg_id
     ORDER BY score DESC, ts DESC, namespace, thread_id, msg_id
     LIMIT {limit:UInt32}`;
}
