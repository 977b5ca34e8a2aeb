-- MCP sessions (POST /mcp), so any gateway replica can serve a session another one started: a
-- client behind a load balancer keeps its Mcp-Session-Id wherever its next request lands. Keyed
-- by the session id alone, the only thing such a request names; each call still authenticates
-- its token and the ops check the namespace. A session is a pointer to its implicit run.
CREATE TABLE IF NOT EXISTS {db}.mcp_sessions {on_cluster}
(
    session_id String,
    namespace String,
    run_id String,
    toolset LowCardinality(String),
    created_at DateTime64(3, 'UTC'),
    version UInt64
)
ENGINE = {replacing}(version)
ORDER BY session_id
