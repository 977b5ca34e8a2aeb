-- conversation_embeddings, rebuilt for search at scale (0007-0011 swap it in place of 0003's table):
-- * `embedding_q8` / `embedding_scale`: each vector quantised to Int8 with its own scale, four
--   times smaller than Float32. Search ranks every row on these, then re-scores the few best
--   with the exact Float32 vector (read lazily, only for those rows).
-- * index_granularity 64: a lazily read row costs a granule; at 8,192 rows of 1.5 KB vectors a
--   granule is 12 MB, at 64 it is 100 KB.
CREATE TABLE IF NOT EXISTS {db}.conversation_embeddings_next {on_cluster}
(
    namespace String,
    thread_id String,
    msg_id String,
    agent LowCardinality(String),
    role LowCardinality(String),
    run_id String,
    user_id String,
    ts DateTime64(6, 'UTC'),
    text String CODEC(ZSTD(3)),
    model LowCardinality(String),
    embedding Array(Float32),
    embedding_scale Float32 MATERIALIZED if(length(embedding) = 0, 0, arrayMax(arrayMap(x -> abs(x), embedding)) / 127),
    embedding_q8 Array(Int8) MATERIALIZED if(embedding_scale = 0, arrayMap(x -> toInt8(0), embedding), arrayMap(x -> toInt8(round(x / embedding_scale)), embedding)),
    embed_error String,
    is_summary Bool DEFAULT false,
    is_saved Bool DEFAULT false,
    saved_at Nullable(DateTime64(3, 'UTC')),
    deleted Bool DEFAULT false,
    deleted_at Nullable(DateTime64(3, 'UTC')),
    created_at DateTime64(3, 'UTC'),
    version UInt64
)
ENGINE = {replacing}(version)
ORDER BY (namespace, thread_id, msg_id)
SETTINGS index_granularity = 64
