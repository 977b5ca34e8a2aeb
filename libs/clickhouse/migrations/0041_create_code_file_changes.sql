-- code_file_changes: one row per file a mainline commit changed, ordered by path so a path's
-- history reads only its own rows. A rename has old_path, and a path's history follows it.
CREATE TABLE IF NOT EXISTS {db}.code_file_changes {on_cluster}
(
    namespace String,
    repo String,
    path String,
    seq UInt32,
    sha String,
    old_path String,
    change LowCardinality(String),
    additions UInt32,
    deletions UInt32,
    binary Bool,
    pr_number UInt32,
    committed_at DateTime('UTC')
)
ENGINE = {replacing}
ORDER BY (namespace, repo, path, seq)
