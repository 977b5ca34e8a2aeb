/**
 * The lexical leg's statement when the BM25 statistics come as parameters (`Bm25Statistics`):
 * it reads only the query terms' postings, with FINAL (a tombstone or hand-over of the turn's
 * embedding row is the latest version of each of its postings), and scores them. Counting the
 * statistics in the statement (a FINAL pass over every header posting of the namespaces, and a
 * window over the postings for document frequencies) cost more than the scoring at 1M turns.
 *
 * A posting of a namespace the statistics do not cover (`stat_ns`; possible only with
 * statistics the caller's check then finds out of date, and re-runs) scores 0.
 *
 * Parameters: terms, stat_ns, avgdl (per stat_ns), idf (per stat_ns, per term), limit, k1, b,
 * plus those of the scope condition and of the filters. `scope` and `filters` name the
 * postings' own columns (namespace, thread_id, agent, run_id, role, ts).
 */
export function bm25ScoringStatement(table: string, scope: readonly string[], filters: readonly string[]): string {
  const conditions = [...scope, 'term IN {terms:Array(String)}', 'deleted = 0'];
  const filtered = filters.length > 0 ? `AND ${filters.join(' AND ')}` : '';
  return `SELECT namespace, thread_id, msg_id, any(agent) AS agent, any(role) AS role, any(run_id) AS run_id, any(user_id) AS user_id, any(ts) AS ts,
            sum(if(ni = 0, 0, {idf:Array(Array(Float64))}[ni][indexOf({terms:Array(String)}, term)] * tf * ({k1:Float64} + 1)
                / (tf + {k1:Float64} * (1 - {b:Float64} + {b:Float64} * doc_len / {avgdl:Array(Float64)}[ni])))) AS score,
            groupArray(term) AS matched
     FROM (
       -- The filters apply to each posting's latest version (a hand-over changes agent, role,
       -- run), and below the aggregation, whose aliases would otherwise shadow the columns.
       SELECT *, indexOf({stat_ns:Array(String)}, namespace) AS ni FROM (
         SELECT namespace, term, thread_id, msg_id, tf, doc_len, agent, role, run_id, user_id, ts
         FROM ${table} FINAL
         WHERE ${conditions.join(' AND ')}
       )
       WHERE 1 ${filtered}
     )
     GROUP BY namespace, thread_id, msg_id
     ORDER BY score DESC, ts DESC, namespace, thread_id, msg_id
     LIMIT {limit:UInt32}`;
}
