-- One embedding row per turn of a thread, shared by every agent that logged the same turn.
-- `text` keeps what the vector was built from (up to 2,048 characters): re-embeds start there.
CREATE TABLE IF NOT EXISTS {db}.conversation_embeddings {on_cluster}
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
