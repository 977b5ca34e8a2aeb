-- Session briefs: the resumable state of one line of work, one row per (namespace, brief_key),
-- its latest revision. Never embedded, never read by memory.search or recall.
CREATE TABLE IF NOT EXISTS {db}.session_briefs {on_cluster}
(
    namespace String,
    brief_key String,
    project String,
    branch String,
    session_id String,
    agent LowCardinality(String),
    author LowCardinality(String),
    sections String CODEC(ZSTD(3)),
    revision UInt32,
    event_cursor String,
    client_summary String CODEC(ZSTD(3)),
    created_at DateTime64(3, 'UTC'),
    updated_at DateTime64(3, 'UTC'),
    deleted Bool DEFAULT false,
    version UInt64
)
ENGINE = {replacing}(version)
ORDER BY (namespace, brief_key)
