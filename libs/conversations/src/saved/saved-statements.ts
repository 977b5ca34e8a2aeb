/**
 * The statements of saved-message search, both inside the engine over `saved_terms` (ADR 0016):
 * one user's saved messages in one namespace, never the user's whole corpus in this process.
 *
 * Which messages are live saved messages comes from the header rows (term ''), read with FINAL:
 * the latest version of each of the user's embedding rows, kept when it is saved and not
 * deleted. A posting counts only when it carries that same version, so the postings of an
 * unsaved, tombstoned or re-written message drop out with no write of their own.
 *
 * Parameters of both: ns, user, and conv when `conversation` is set.
 */
function liveSaved(table: string, conversation: boolean): string {
  return `SELECT thread_id, msg_id, version, doc_len FROM ${table} FINAL
       WHERE namespace = {ns:String} AND user_id = {user:String} AND term = ''
         ${conversation ? 'AND thread_id = {conv:String}' : ''}
         AND is_saved AND deleted = 0`;
}

/**
 * BM25 (k1, b) over the user's live saved messages [in one conversation]: document count,
 * average length and document frequencies are that corpus's own, so another user's saves never
 * move this user's scores (SAVE-SEARCH-10). Extra parameters: terms, limit, k1, b.
 *
 * Postings are read without FINAL: the version in the IN set already names the latest one, and
 * DISTINCT drops a posting inserted twice at one version. Each term's postings are grouped once
 * (its document frequency is their count) and unrolled to score. Measured on 2,000 saved
 * messages: about half the time of FINAL on the postings, a JOIN to the live set and a window
 * count per term, with the same scores.
 */
export function savedBm25Statement(table: string, conversation: boolean): string {
  const live = liveSaved(table, conversation);
  return `WITH (SELECT (toFloat64(count()), avg(doc_len)) FROM (${live})) AS stats
     SELECT posting.1 AS thread_id, posting.2 AS msg_id,
            sum(log(1 + (stats.1 - df + 0.5) / (df + 0.5)) * posting.3 * ({k1:Float64} + 1)
                / (posting.3 + {k1:Float64} * (1 - {b:Float64} + {b:Float64} * posting.4 / stats.2))) AS score,
            groupArray(term) AS matched
     FROM (
       SELECT term, groupArray((thread_id, msg_id, tf, doc_len)) AS postings, toFloat64(length(postings)) AS df
       FROM (
         SELECT DISTINCT term, thread_id, msg_id, tf, doc_len FROM ${table}
         WHERE namespace = {ns:String} AND user_id = {user:String} AND term IN {terms:Array(String)}
           ${conversation ? 'AND thread_id = {conv:String}' : ''}
           AND (thread_id, msg_id, version) IN (SELECT thread_id, msg_id, version FROM (${live}))
       )
       GROUP BY term
     )
     ARRAY JOIN postings AS posting
     GROUP BY thread_id, msg_id
     ORDER BY score DESC, thread_id, msg_id
     LIMIT {limit:UInt32}
     SETTINGS ${NO_KEY_ANALYSIS_FOR_IN}`;
}

/**
 * The live set is thousands of (thread, message, version) tuples: matched against the primary
 * key's ranges it cost more than the scan it was meant to save (on 10,000 saved messages the
 * vector statement took about three times as long with it).
 */
const NO_KEY_ANALYSIS_FOR_IN = 'use_index_for_in_with_subqueries = 0';

/**
 * Cosine over the vectors of the user's live saved messages, floor applied. The header's
 * version names the exact embedding row, so no FINAL over the namespace's embeddings is needed;
 * the user, saved and deleted conditions (true of that row) let the engine skip other rows
 * before the set lookup. As in conversation search (ADR 0005), every row is ranked on its Int8
 * copy and only the best `candidates` are scored exactly, so the Float32 vectors are read for
 * those rows only. Extra parameters: q, q16, candidates, model, floor, limit.
 */
export function savedVectorStatement(embeddings: string, terms: string, conversation: boolean): string {
  return `SELECT thread_id, msg_id, 1 - cosineDistance(embedding, {q:Array(Float32)}) AS score
     FROM (
       SELECT thread_id, msg_id, embedding
       FROM ${embeddings}
       WHERE namespace = {ns:String} AND user_id = {user:String} AND is_saved AND deleted = 0
         AND embed_error = '' AND model = {model:String}
         AND (thread_id, msg_id, version) IN (SELECT thread_id, msg_id, version FROM (${liveSaved(terms, conversation)}))
       ORDER BY dotProduct(embedding_q8, {q16:Array(Int16)}) * embedding_scale DESC
       LIMIT {candidates:UInt32}
     )
     WHERE score >= {floor:Float64}
     ORDER BY score DESC, thread_id, msg_id
     -- One row per message even if one version was inserted twice; after scoring, on three columns.
     LIMIT 1 BY thread_id, msg_id
     LIMIT {limit:UInt32}
     SETTINGS ${NO_KEY_ANALYSIS_FOR_IN}`;
}
