-- Episodic observations: the tool actions of a session (observe.record), one line each: the tool,
-- what it was asked to do, and whether it failed. Never a tool's output. Kept whether or not the
-- namespace records conversations, as memory evidence is; summaries that read as high are never
-- stored. observe.crystallize hands a session's new observations to memory extraction and stamps
-- crystallized_at.
CREATE TABLE IF NOT EXISTS {db}.observations {on_cluster}
(
    namespace String,
    session_id String,
    obs_id String,
    agent LowCardinality(String),
    user_id String,
    tool LowCardinality(String),
    summary String CODEC(ZSTD(3)),
    path String,
    outcome LowCardinality(String),
    ts DateTime64(3, 'UTC'),
    crystallized_at Nullable(DateTime64(3, 'UTC')),
    version UInt64
)
ENGINE = {replacing}(version)
ORDER BY (namespace, session_id, obs_id)
