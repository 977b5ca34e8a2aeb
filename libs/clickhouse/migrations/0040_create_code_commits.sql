-- code_commits: the mainline (first-parent) commits of an indexed repository. `seq` counts them
-- from the oldest, so "newer than" is a number; a merge's change is its diff to the first parent,
-- which is what the pull request it names brought in. pr_number 0: the commit names none.
CREATE TABLE IF NOT EXISTS {db}.code_commits {on_cluster}
(
    namespace String,
    repo String,
    sha String,
    seq UInt32,
    parents Array(String),
    author_name String,
    author_email String,
    authored_at DateTime('UTC'),
    committed_at DateTime('UTC'),
    subject String,
    body String,
    pr_number UInt32,
    files UInt32,
    additions UInt32,
    deletions UInt32,
    -- Distinct terms of the changed lines (code files only; capped): what the change touched in
    -- words, for the duplicate check and bisect.
    code_terms Array(String) CODEC(ZSTD(3))
)
ENGINE = {replacing}
ORDER BY (namespace, repo, sha)
