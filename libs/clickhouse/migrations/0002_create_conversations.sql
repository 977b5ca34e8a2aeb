-- Transcript rows: one per (namespace, thread, agent, msg_id). Flags and tombstones are new
-- versions of the same row, so reads use FINAL.
CREATE TABLE IF NOT EXISTS {db}.conversations {on_cluster}
(
    namespace String,
    thread_id String,
    agent LowCardinality(String),
    msg_id String,
    ts DateTime64(6, 'UTC'),
    role LowCardinality(String),
    content String CODEC(ZSTD(3)),
    reasoning String CODEC(ZSTD(3)),
    user_id String,
    run_id String,
    metadata String,
    tokens Nullable(UInt32),
    is_high Bool,
    is_summary Bool DEFAULT false,
    is_saved Bool DEFAULT false,
    saved_at Nullable(DateTime64(3, 'UTC')),
    deleted Bool DEFAULT false,
    deleted_at Nullable(DateTime64(3, 'UTC')),
    created_at DateTime64(3, 'UTC'),
    version UInt64
)
ENGINE = {replacing}(version)
ORDER BY (namespace, thread_id, agent, msg_id)
