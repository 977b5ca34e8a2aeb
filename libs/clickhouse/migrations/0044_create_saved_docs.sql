-- saved_docs: one row per version of each of a user's embedding rows, ordered so that one
-- user's messages in a namespace are one contiguous range of the primary key (ADR 0024).
-- Saved-message search reads that range, and only it, for both of its legs:
-- * which messages are live saved messages (`live`, at the latest version), their lengths in
--   terms (BM25's document count and mean length), and the version a posting in saved_terms
--   must carry to count;
-- * the vectors of the live ones, Int8 for the first stage and Float32 for the exact re-score.
--   A version that is not a live saved message keeps no vector (a recorded turn of the user
--   costs a few bytes).
-- index_granularity 64 as in conversation_embeddings: the re-score reads the Float32 vectors of
-- a few hundred rows lazily, a granule each.
CREATE TABLE IF NOT EXISTS {db}.saved_docs {on_cluster}
(
    namespace String,
    user_id String,
    thread_id String,
    msg_id String,
    live Bool,
    doc_len UInt32,
    model LowCardinality(String),
    embedding Array(Float32) CODEC(NONE),
    embedding_q8 Array(Int8) CODEC(NONE),
    embedding_scale Float32,
    version UInt64
)
ENGINE = {replacing}(version)
ORDER BY (namespace, user_id, thread_id, msg_id)
SETTINGS index_granularity = 64
