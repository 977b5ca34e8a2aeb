/**
 * The turns just before and after each of some hits in their threads, for hybrid search's
 * neighbour share (score-fusion.ts). Neighbours are counted among the rows the search may return:
 * live embedding rows (FINAL: a hand-over's latest version) under the caller's filters, so a
 * retired, high, system or tool turn is never a neighbour and never becomes a hit this way.
 *
 * Only the hits' threads are read (the table is ordered by namespace, thread_id), and only the
 * columns that order and filter them: the text of every turn of those threads is not read here
 * (latestTextStatement reads it for the hits that make the answer). Each row returned is a
 * neighbour: its own columns and the ids of the turns on either side, which the caller matches
 * against the hits.
 *
 * Parameters: hit_namespaces, hit_threads, hit_ids, plus those of `filters` (which name the
 * embedding rows' own columns and include `deleted = 0`).
 */
export function neighbourStatement(table: string, filters: readonly string[]): string {
  const filtered = filters.length > 0 ? `AND ${filters.join(' AND ')}` : '';
  return `SELECT namespace, thread_id, msg_id, agent, role, run_id, user_id, ts, prev_id, next_id
     FROM (
       SELECT namespace, thread_id, msg_id, agent, role, run_id, user_id, ts,
              lagInFrame(msg_id) OVER w AS prev_id, leadInFrame(msg_id) OVER w AS next_id
       FROM ${table} FINAL
       WHERE namespace IN {hit_namespaces:Array(String)} AND thread_id IN {hit_threads:Array(String)} ${filtered}
       WINDOW w AS (PARTITION BY namespace, thread_id ORDER BY ts, msg_id ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING)
     )
     WHERE prev_id IN {hit_ids:Array(String)} OR next_id IN {hit_ids:Array(String)}`;
}

/**
 * The text of some turns' latest embedding rows, and whether that row is a tombstone, by key:
 * each key's latest version by argMax instead of FINAL, which reads only the few granules of
 * these keys. The IN lists cross: the caller keeps the keys it asked.
 *
 * Parameters: namespaces, threads, ids.
 */
export function latestTextStatement(table: string): string {
  return `SELECT namespace, thread_id, msg_id, argMax(text, version) AS text, argMax(deleted, version) AS deleted
     FROM ${table}
     WHERE namespace IN {namespaces:Array(String)} AND thread_id IN {threads:Array(String)} AND msg_id IN {ids:Array(String)}
     GROUP BY namespace, thread_id, msg_id`;
}
