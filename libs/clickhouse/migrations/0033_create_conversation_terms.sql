-- conversation_terms: the postings of lexical (BM25) search, one row per (turn, term), written
-- only by conversation_terms_writer from the embedding rows. ClickHouse's own `text` index
-- filters rows by token but gives no term frequency, document length or document frequency,
-- which BM25 needs, so Loom keeps them here.
-- * A header row per turn, term '', has tf = doc_len = the turn's length in terms: a
--   namespace's document count and average length are read from the header rows.
-- * Every row carries its embedding row's search filters (agent, role, run_id), liveness and
--   version: a tombstone or hand-over of the embedding row is a new version here too, so a
--   search reads postings with FINAL and needs no join.
-- * Ordered by term first: a query reads only its own terms' postings.
CREATE TABLE IF NOT EXISTS {db}.conversation_terms {on_cluster}
(
    namespace String,
    term String,
    thread_id String,
    msg_id String,
    tf UInt32,
    doc_len UInt32,
    agent LowCardinality(String),
    role LowCardinality(String),
    run_id String,
    user_id String,
    ts DateTime64(6, 'UTC'),
    deleted Bool DEFAULT false,
    deleted_at Nullable(DateTime64(3, 'UTC')),
    version UInt64
)
ENGINE = {replacing}(version)
ORDER BY (namespace, term, thread_id, msg_id)
