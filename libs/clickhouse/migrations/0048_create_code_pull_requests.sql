-- code_pull_requests: a repository's pull requests from its GitHub source (open, closed and
-- merged), newest version of each winning by GitHub's updated_at. merged_at and
-- merge_commit_sha say whether and how it landed; linked_issues come from "Fixes #N",
-- "Closes #N" and "Resolves #N" in its title and body.
CREATE TABLE IF NOT EXISTS {db}.code_pull_requests {on_cluster}
(
    namespace String,
    repo String,
    number UInt32,
    state LowCardinality(String),
    draft Bool,
    title String,
    body String CODEC(ZSTD(3)),
    author String,
    labels Array(String),
    linked_issues Array(UInt32),
    base_ref String,
    head_ref String,
    head_sha String,
    merge_commit_sha String,
    created_at DateTime64(3, 'UTC'),
    updated_at DateTime64(3, 'UTC'),
    closed_at Nullable(DateTime64(3, 'UTC')),
    merged_at Nullable(DateTime64(3, 'UTC'))
)
ENGINE = {replacing}(updated_at)
ORDER BY (namespace, repo, number)
