/**
 * The turns just before and after each of some hits in their threads, for hybrid search's
 * neighbour share (score-fusion.ts). Neighbours are counted among the rows the search may return:
 * live embedding rows (FINAL: a hand-over's latest version) under the caller's filters, so a
 * retired, high, system or tool turn is never a neighbour and never becomes a hit this way.
 *
 * Only the hits' threads are read (the table is ordered by namespace, thread_id). Each row
 * returned is a neighbour: its own columns, an excerpt of its first `chars` characters, and the
 * ids of the turns on either side, which the caller matches against the hits.
 *
 * Parameters: hit_namespaces, hit_threads, hit_ids, chars, plus those of `filters` (which name
 * the embedding rows' own columns and include `deleted = 0`).
 */
export function neighbourStatement(table: string, filters: readonly string[]): string {
  const filtered = filters.length > 0 ? `AND ${filters.join(' AND ')}` : '';
  return `SELECT namespace, thread_id, msg_id, agent, role, run_id, user_id, ts, substringUTF8(text, 1, {chars:UInt32}) AS excerpt, prev_id, next_id
     FROM (
       SELECT namespace, thread_id, msg_id, agent, role, run_id, user_id, ts, text,
              lagInFrame(msg_id) OVER w AS prev_id, leadInFrame(msg_id) OVER w AS next_id
       FROM ${table} FINAL
       WHERE namespace IN {hit_namespaces:Array(String)} AND thread_id IN {hit_threads:Array(String)} ${filtered}
       WINDOW w AS (PARTITION BY namespace, thread_id ORDER BY ts, msg_id ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING)
     )
     WHERE prev_id IN {hit_ids:Array(String)} OR next_id IN {hit_ids:Array(String)}`;
}
