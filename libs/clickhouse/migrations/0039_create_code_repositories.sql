-- code_repositories: the repositories whose history Loom indexes (`loom code add`), one row per
-- (namespace, name), newest version wins. `last_sha` is the ingest's checkpoint: the newest
-- mainline commit whose rows are all written. A rerun after a crash starts after it, and rewrites
-- at most one batch, which the Replacing tables below fold into the rows already there.
CREATE TABLE IF NOT EXISTS {db}.code_repositories {on_cluster}
(
    namespace String,
    name String,
    path String,
    ref String,
    state LowCardinality(String),
    error String,
    last_sha String,
    commits UInt32,
    commits_total UInt32,
    started_at DateTime64(3, 'UTC'),
    updated_at DateTime64(3, 'UTC')
)
ENGINE = {replacing}(updated_at)
ORDER BY (namespace, name)
