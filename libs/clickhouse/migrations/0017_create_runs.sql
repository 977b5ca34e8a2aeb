-- The run ledger: a task's goal, status and outcome, the memories relied on and what was written.
-- Conversation turns link to a run through their run_id. An MCP session's implicit run is a row
-- with source 'mcp', closed by Loom after LOOM_MCP_SESSION_RUN_IDLE_SECONDS without a call.
CREATE TABLE IF NOT EXISTS {db}.runs {on_cluster}
(
    namespace String,
    run_id String,
    agent LowCardinality(String),
    goal String,
    status LowCardinality(String),
    outcome String,
    memories_used Array(String),
    wrote Array(String),
    source LowCardinality(String),
    started_at DateTime64(3, 'UTC'),
    last_activity_at DateTime64(3, 'UTC'),
    ended_at Nullable(DateTime64(3, 'UTC')),
    version UInt64
)
ENGINE = {replacing}(version)
ORDER BY (namespace, run_id)
