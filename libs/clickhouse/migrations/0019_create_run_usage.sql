-- Model usage a client reported for a run (the Claude Code plugin reads it from the session
-- transcript), one row per model call. usage_id is the client's id for the call: a report sent
-- again is a newer version of the same row, so a run's cost never counts a call twice.
-- cost_usd is priced on arrival (LOOM_MODEL_PRICES and the built-in list); NULL for a model
-- with no price, whose tokens still count.
CREATE TABLE IF NOT EXISTS {db}.run_usage {on_cluster}
(
    namespace String,
    run_id String,
    usage_id String,
    model LowCardinality(String),
    ts DateTime64(3, 'UTC'),
    input_tokens UInt64,
    output_tokens UInt64,
    cache_write_tokens UInt64,
    cache_write_1h_tokens UInt64,
    cache_read_tokens UInt64,
    cost_usd Nullable(Float64),
    version UInt64
)
ENGINE = {replacing}(version)
ORDER BY (namespace, run_id, usage_id)
