-- The memory plane's durable facts, written by memory.set and by extraction
-- (memory.set_from_messages). Never written by conversation.append: a recorded turn is not a
-- memory. Each fact keeps its vector for memory.search.
CREATE TABLE IF NOT EXISTS {db}.memories {on_cluster}
(
    namespace String,
    memory_id String,
    user_id String,
    text String CODEC(ZSTD(3)),
    source LowCardinality(String),
    extraction_id String,
    model LowCardinality(String),
    embedding Array(Float32),
    created_at DateTime64(3, 'UTC'),
    deleted Bool DEFAULT false,
    version UInt64
)
ENGINE = {replacing}(version)
ORDER BY (namespace, memory_id)
