-- code_github_sources: the GitHub source of an indexed repository (`code.github_sync`), one row
-- per (namespace, repo), newest version wins. It holds no token: a token given with the op lives
-- in the syncing process's memory only, and LOOM_GITHUB_TOKEN in its environment; `token_source`
-- says which one the last sync used. Each resource has its own checkpoint, the updated_at of the
-- newest item whose rows are all written; a rerun (or a resume after a pause or a crash) asks
-- GitHub only for items updated since then, and the Replacing tables fold a rewritten page away.
-- state: syncing | ready | paused (rate limit or refused token: `reason` says what to do,
-- `resume_at` when a rate limit ends) | failed.
CREATE TABLE IF NOT EXISTS {db}.code_github_sources {on_cluster}
(
    namespace String,
    repo String,
    github String,
    api_url String,
    token_source LowCardinality(String),
    state LowCardinality(String),
    reason String,
    resume_at Nullable(DateTime64(3, 'UTC')),
    pulls_since String,
    review_comments_since String,
    issues_since String,
    pull_requests UInt32,
    review_comments UInt32,
    issues UInt32,
    requests UInt32,
    synced_at Nullable(DateTime64(3, 'UTC')),
    updated_at DateTime64(3, 'UTC')
)
ENGINE = {replacing}(updated_at)
ORDER BY (namespace, repo)
