-- The extractions memory.set_from_messages started, so a deferred one outlives the process that
-- accepted it: its messages are in memory_evidence, and any replica's extraction queue picks up
-- a pending row (at start, after a crash, or when its retry is due) under the extraction's lease.
-- No text here: ids, counts, timestamps and the provider's error (which never quotes a prompt).
CREATE TABLE IF NOT EXISTS {db}.memory_extractions {on_cluster}
(
    namespace String,
    extraction_id String,
    user_id String,
    status LowCardinality(String),
    facts UInt32,
    attempts UInt32,
    last_error String,
    next_attempt_at DateTime64(3, 'UTC'),
    created_at DateTime64(3, 'UTC'),
    updated_at DateTime64(3, 'UTC'),
    version UInt64
)
ENGINE = {replacing}(version)
ORDER BY (namespace, extraction_id)
