-- code_review_comments: what reviewers said on a pull request, from its GitHub source: line
-- comments on the diff (kind 'comment': path, line, in_reply_to for a thread's replies) and
-- reviews (kind 'review': state APPROVED, CHANGES_REQUESTED, COMMENTED or DISMISSED). A line
-- comment whose `line` is 0 while `original_line` is set is outdated: a later commit of the pull
-- request changed the lines it was about.
CREATE TABLE IF NOT EXISTS {db}.code_review_comments {on_cluster}
(
    namespace String,
    repo String,
    pr_number UInt32,
    kind LowCardinality(String),
    id UInt64,
    review_id UInt64,
    in_reply_to UInt64,
    author String,
    body String CODEC(ZSTD(3)),
    path String,
    line UInt32,
    original_line UInt32,
    state LowCardinality(String),
    commit_id String,
    original_commit_id String,
    created_at DateTime64(3, 'UTC'),
    updated_at DateTime64(3, 'UTC')
)
ENGINE = {replacing}(updated_at)
ORDER BY (namespace, repo, pr_number, kind, id)
