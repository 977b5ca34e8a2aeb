-- code_issues: a repository's GitHub issues (pull requests left out), newest version of each
-- winning by GitHub's updated_at. state_reason: completed, not_planned, duplicate, reopened or ''.
CREATE TABLE IF NOT EXISTS {db}.code_issues {on_cluster}
(
    namespace String,
    repo String,
    number UInt32,
    state LowCardinality(String),
    state_reason LowCardinality(String),
    title String,
    body String CODEC(ZSTD(3)),
    author String,
    labels Array(String),
    created_at DateTime64(3, 'UTC'),
    updated_at DateTime64(3, 'UTC'),
    closed_at Nullable(DateTime64(3, 'UTC'))
)
ENGINE = {replacing}(updated_at)
ORDER BY (namespace, repo, number)
