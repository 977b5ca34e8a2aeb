-- Every revision of every brief, so brief_get(revision=N) reads exactly revision N.
CREATE TABLE IF NOT EXISTS {db}.session_brief_revisions {on_cluster}
(
    namespace String,
    brief_key String,
    revision UInt32,
    sections String CODEC(ZSTD(3)),
    author LowCardinality(String),
    session_id String,
    agent LowCardinality(String),
    event_cursor String,
    created_at DateTime64(3, 'UTC'),
    version UInt64
)
ENGINE = {replacing}(version)
ORDER BY (namespace, brief_key, revision)
