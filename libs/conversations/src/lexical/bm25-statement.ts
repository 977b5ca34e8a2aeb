/**
 * The lexical leg's statement: BM25 over `conversation_terms`, inside the engine.
 *
 * - Only the query's terms' postings are read (the table is ordered by term), with FINAL: a
 *   tombstone or hand-over of the turn's embedding row is the latest version of each of its
 *   postings, so a retired turn drops out and a handed-over one carries its new filters.
 * - Document frequency counts the live turns holding the term in each namespace, before the
 *   caller's filters: BM25 statistics are per namespace, not per filtered subset.
 * - The document count and average length come from the header postings (term ''), also per
 *   namespace, so a turn scores the same whichever other namespaces a search covers.
 *
 * Parameters: terms, limit, k1, b, plus those of the scope condition and of the filters.
 * `scope` names the postings' own columns; `filters` name them on `p` (p.thread_id, p.agent, …).
 */
export function bm25Statement(table: string, scope: readonly string[], filters: readonly string[]): string {
  const inScope = scope.length > 0 ? `${scope.join(' AND ')} AND ` : '';
  const filtered = filters.length > 0 ? `WHERE ${filters.join(' AND ')}` : '';
  return `SELECT namespace, thread_id, msg_id, agent, role, run_id, user_id, ts, score, matched
     FROM (
       SELECT p.namespace AS namespace, p.thread_id AS thread_id, p.msg_id AS msg_id,
              any(p.agent) AS agent, any(p.role) AS role, any(p.run_id) AS run_id, any(p.user_id) AS user_id, any(p.ts) AS ts,
              sum(log(1 + (st.n - p.df + 0.5) / (p.df + 0.5)) * p.tf * ({k1:Float64} + 1)
                  / (p.tf + {k1:Float64} * (1 - {b:Float64} + {b:Float64} * p.doc_len / st.avgdl))) AS score,
              groupArray(p.term) AS matched
       FROM (
         SELECT namespace, term, thread_id, msg_id, tf, doc_len, agent, role, run_id, user_id, ts,
                count() OVER (PARTITION BY namespace, term) AS df
         FROM ${table} FINAL
         WHERE ${inScope}term IN {terms:Array(String)} AND deleted = 0
       ) AS p
       INNER JOIN (
         SELECT namespace, count() AS n, avg(doc_len) AS avgdl
         FROM ${table} FINAL
         WHERE ${inScope}term = '' AND deleted = 0
         GROUP BY namespace
       ) AS st ON st.namespace = p.namespace
       ${filtered}
       GROUP BY p.namespace, p.thread_id, p.msg_id
     )
     ORDER BY score DESC, ts DESC, namespace, thread_id, msg_id
     LIMIT {limit:UInt32}`;
}
