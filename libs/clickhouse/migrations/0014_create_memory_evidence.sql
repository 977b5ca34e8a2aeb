-- The turns an extraction read (memory.set_from_messages), kept whether or not the namespace
-- records conversations; memory.recall reads them, conversation.search never does. Turns that
-- read as high are never kept here.
CREATE TABLE IF NOT EXISTS {db}.memory_evidence {on_cluster}
(
    namespace String,
    extraction_id String,
    seq UInt32,
    session_id String,
    user_id String,
    role LowCardinality(String),
    content String CODEC(ZSTD(3)),
    ts DateTime64(3, 'UTC'),
    version UInt64
)
ENGINE = {replacing}(version)
ORDER BY (namespace, extraction_id, seq)
