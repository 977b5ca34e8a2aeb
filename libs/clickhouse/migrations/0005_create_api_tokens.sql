-- API tokens, stored as SHA-256 hashes: the token itself is shown once and never kept.
CREATE TABLE IF NOT EXISTS {db}.api_tokens {on_cluster}
(
    token_hash String,
    token_id String,
    namespaces Array(String),
    role LowCardinality(String),
    read_scope LowCardinality(String),
    read_user_id String,
    label String,
    created_at DateTime64(3, 'UTC'),
    revoked Bool DEFAULT false,
    revoked_at Nullable(DateTime64(3, 'UTC')),
    version UInt64
)
ENGINE = {replacing}(version)
ORDER BY token_hash
