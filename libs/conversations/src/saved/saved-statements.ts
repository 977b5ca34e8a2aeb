/**
 * The statements of saved-message search (ADR 0016, made fast by ADR 0024, ranked in memory by
 * ADR 0037): one user's saved messages in one namespace, read from two tables whose primary keys
 * put that user's rows in one contiguous range each:
 * - `saved_docs` (namespace, user_id, thread_id, msg_id): one row per version of each of the
 *   user's messages, saying whether it is a live saved message, its length in terms and, when
 *   live, its vectors;
 * - `saved_terms` (namespace, user_id, term, ...): the postings of live saved messages, each
 *   carrying the version of the message it was written from.
 *
 * None uses FINAL on the hot path and none matches a posting against the live set in the
 * engine: measured at 10,000 saved messages, a `(thread_id, msg_id, version) IN (live set)`
 * cost 150-300 ms and a JOIN to it 15-50 ms. Instead `SavedCorpusCache` reads the live set (each
 * live message's version), the BM25 statistics, the live vectors and the live postings of the
 * terms asked, and keeps them, checked by `savedSignatureStatement` on every search. chDB runs
 * one parameterised statement at a time per process (ADR 0030), so a warm search whose corpus is
 * current ranks both legs in this process (saved-ranking.ts) and runs one statement: the hits'
 * transcript rows with the signature (ADR 0037 addendum 2). The two leg statements below are kept for a corpus over the memory
 * budget: they return each row's version, and the service keeps a row only when that version is
 * the live one.
 *
 * Parameters of all: ns, user, and conv when `conversation` is set.
 */

const scope = (conversation: boolean): string =>
  `namespace = {ns:String} AND user_id = {user:String}${conversation ? ' AND thread_id = {conv:String}' : ''}`;

/**
 * The user's rows in saved_docs, without FINAL: how many and the highest version. Every write
 * that can change what search finds writes a version of the message's embedding row, hence a
 * row here (a save, unsave, tombstone, erasure, re-save); a purge deletes rows. So an unchanged
 * signature means an unchanged corpus. (A merge that collapses versions lowers the count: that
 * only costs a re-read.)
 */
export function savedSignatureStatement(docs: string): string {
  return `SELECT toString(count()) AS n, toString(max(version)) AS v FROM ${docs} WHERE namespace = {ns:String} AND user_id = {user:String}`;
}

/**
 * The hits' transcript rows: the latest version of each row, without FINAL (over the
 * namespace's transcript FINAL cost about fifteen times as much for ten rows), kept when that
 * version is still the user's saved message and not deleted. Only the columns shown: `SELECT *`
 * also decompressed `reasoning` and `metadata` (ZSTD), measured at 10 hits p50/p95
 * 14.3-15.4/18.6-21.6 ms against 14.1-14.3/15.3-16.2.
 * Parameters: ns, user, threads, ids.
 */
export function savedHitRowsStatement(conversations: string): string {
  return `SELECT thread_id, msg_id, agent, role, content, is_high, ts, ifNull(saved_at, toDateTime64(ts, 3, 'UTC')) AS sort_ts
       FROM (
         SELECT thread_id, msg_id, agent, role, content, is_high, ts, saved_at, user_id, is_saved, deleted, version FROM ${conversations}
         WHERE namespace = {ns:String} AND thread_id IN {threads:Array(String)} AND msg_id IN {ids:Array(String)}
         ORDER BY version DESC
         LIMIT 1 BY thread_id, agent, msg_id
       )
       WHERE user_id = {user:String} AND is_saved AND deleted = 0
       LIMIT 1 BY thread_id, msg_id`;
}

/**
 * The hits' transcript rows (`part` 0) and the user's signature (`part` 1, in `n` and `v`) in
 * one statement: a warm search ranks on the kept corpus first and checks it with the rows it
 * shows. chDB runs one statement at a time, each with a fixed cost of a few milliseconds, so
 * this saves one (ADR 0037, addendum 2). The rows are read no earlier than the signature, as
 * when the signature went first.
 */
export function savedHitRowsWithSignatureStatement(conversations: string, docs: string): string {
  return `SELECT 0 AS part, thread_id, msg_id, agent, role, content, is_high, ts, sort_ts, '' AS n, '' AS v
     FROM (${savedHitRowsStatement(conversations)})
     UNION ALL
     SELECT 1 AS part, '' AS thread_id, '' AS msg_id, '' AS agent, '' AS role, '' AS content, false AS is_high,
            toDateTime64(0, 6, 'UTC') AS ts, toDateTime64(0, 3, 'UTC') AS sort_ts, toString(count()) AS n, toString(max(version)) AS v
     FROM ${docs} WHERE namespace = {ns:String} AND user_id = {user:String}`;
}

/**
 * The live saved messages [of one conversation] with their versions and lengths: the latest
 * version of each of the user's rows (FINAL over the user's range only), kept when live.
 */
export function savedLiveDocsStatement(docs: string, conversation: boolean): string {
  return `SELECT thread_id, msg_id, toString(version) AS version, doc_len FROM ${docs} FINAL WHERE ${scope(conversation)} AND live`;
}

/**
 * The vectors of the user's live rows [in one conversation] at versions from `from` up: the
 * corpus keeps the vector of a message whose live version it already held, so after a save it
 * reads the few new versions, not every vector again (`from` 0 reads them all). Without FINAL:
 * the cache keeps a row only at the version the live set names, and a row's vector at one
 * version never changes. PREWHERE reads `embedding` only in the granules that hold such rows.
 * (`row_version`: an alias `version` would stand for the column in PREWHERE.) The vector comes as
 * the hex of its Float32 bytes (`hex` of a Float32 is its little-endian memory, as `KeptVectors`
 * reads it): a page of 1,000 as JSON arrays of numbers cost 126-200 ms, most of it parsing them.
 * Extra parameters: from, after_thread, after_msg (the cursor; empty strings for the first page), page.
 */
export function savedVectorsStatement(docs: string, conversation: boolean): string {
  // A page in key order from a cursor (inclusive: the cursor's message may have more versions on
  // the next page): chDB runs one parameterised statement at a time, so reading 10,000 vectors in
  // one statement held every other search of the process for seconds.
  // `thread_id >= …` repeats the cursor's first column: the primary key does not prune on a tuple
  // comparison (ClickHouse #75086).
  return `SELECT thread_id, msg_id, toString(version) AS row_version, model, arrayStringConcat(arrayMap(x -> hex(x), embedding)) AS f32 FROM ${docs}
     PREWHERE ${scope(conversation)} AND live AND version >= {from:UInt64} AND thread_id >= {after_thread:String} AND (thread_id, msg_id) >= ({after_thread:String}, {after_msg:String})
     ORDER BY thread_id, msg_id
     LIMIT {page:UInt32}`;
}

/**
 * Every posting of `terms` [in one conversation], one row per (term, message, version), with
 * its term count and the message's length: the cache counts document frequencies over the live
 * ones and keeps those for BM25 in this process. Read only for terms not yet counted. A posting
 * inserted twice at one version counts once (`any`), as in `savedBm25Statement`.
 * Extra parameter: terms.
 */
export function savedPostingsStatement(terms: string, conversation: boolean): string {
  return `SELECT term, thread_id, msg_id, toString(version) AS version, any(tf) AS tf, any(doc_len) AS doc_len FROM ${terms}
     WHERE ${scope(conversation)} AND term IN {terms:Array(String)}
     GROUP BY term, thread_id, msg_id, version`;
}

/**
 * Every posting of the user's rows [in one conversation] at versions from `from` up, one row
 * per (message, version) with its terms and their counts as arrays: what `SavedCorpusCache`
 * holds as a corpus's complete postings (`from` 0), or adds to the postings it carries over
 * after a save (the few versions written since). Per message, not per term: the ids come once
 * per message, about a quarter of the bytes (5.7 of 23.7 MB at 10,000 messages). A page in key
 * order from a cursor, inclusive as in `savedVectorsStatement`, so the other searches of the
 * process run between pages (a page of 1,000 messages cost 60-130 ms, the whole read in one
 * statement 190-250 ms). A posting inserted twice at one version appears twice in `terms`: the
 * cache counts it once. Header rows (term '') are left out. (`row_version`: see
 * `savedVectorsStatement`.)
 * Extra parameters: from, after_thread, after_msg, page.
 */
export function savedMessagePostingsStatement(terms: string, conversation: boolean): string {
  return `SELECT thread_id, msg_id, toString(version) AS row_version, groupArray(term) AS terms, groupArray(tf) AS tfs FROM ${terms}
     PREWHERE ${scope(conversation)} AND version >= {from:UInt64} AND (thread_id, msg_id) >= ({after_thread:String}, {after_msg:String})
     WHERE term != ''
     GROUP BY thread_id, msg_id, version
     ORDER BY thread_id, msg_id
     LIMIT {page:UInt32}`;
}

/**
 * For a corpus whose postings are over the budget (ADR 0037): BM25 (k1, b) of every (message,
 * version) holding a query term, with the corpus's statistics
 * as parameters (idf per term, mean length): the best `limit` of them. A posting inserted twice
 * at one version counts once (`any`). Stale versions are among them and are dropped by the
 * service; when that leaves fewer than it needs, it asks again with a larger limit.
 * Extra parameters: terms, idf (same order), avgdl, k1, b, limit.
 */
export function savedBm25Statement(terms: string, conversation: boolean): string {
  return `SELECT thread_id, msg_id, toString(version) AS version,
            sum(idf * tf * ({k1:Float64} + 1) / (tf + {k1:Float64} * (1 - {b:Float64} + {b:Float64} * dl / {avgdl:Float64}))) AS score
     FROM (
       SELECT thread_id, msg_id, version, arrayElement({idf:Array(Float64)}, indexOf({terms:Array(String)}, term)) AS idf, any(tf) AS tf, any(doc_len) AS dl
       FROM ${terms}
       WHERE ${scope(conversation)} AND term IN {terms:Array(String)}
       GROUP BY term, thread_id, msg_id, version
     )
     GROUP BY thread_id, msg_id, version
     ORDER BY score DESC, thread_id, msg_id
     LIMIT {limit:UInt32}`;
}

/**
 * For a corpus whose vectors are over the budget (ADR 0037): cosine over the vectors of the
 * user's live versions [in one conversation], floor applied:
 * the best `limit` rows (stale versions among them, dropped by the service). Two stages, as in
 * conversation search (ADR 0005), over the user's range only: every live row is ranked on its
 * Int8 copy (3.8 MB of Int8 at 10,000 messages of 384 dimensions, against 15 MB of
 * Float32), and the best `candidates` are re-scored exactly, their Float32 vectors read lazily
 * (index_granularity 64). Measured at 10,000 saved messages: the Int8 ranking alone a third of
 * the exact scan, the two stages about three quarters of it.
 * Extra parameters: q, q16 (the query on the Int8 scale, as Int16 so sums cannot overflow), candidates, model, floor, limit.
 */
export function savedVectorStatement(docs: string, conversation: boolean): string {
  return `SELECT thread_id, msg_id, toString(version) AS version, 1 - cosineDistance(embedding, {q:Array(Float32)}) AS score
     FROM (
       SELECT thread_id, msg_id, version, embedding
       FROM ${docs}
       PREWHERE ${scope(conversation)} AND live AND model = {model:String} AND notEmpty(embedding_q8)
       ORDER BY dotProduct(embedding_q8, {q16:Array(Int16)}) * embedding_scale DESC
       LIMIT {candidates:UInt32}
     )
     WHERE score >= {floor:Float64}
     ORDER BY score DESC, thread_id, msg_id
     LIMIT {limit:UInt32}`;
}
