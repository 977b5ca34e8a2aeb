-- code_hunks: the hunks of each file change (no context lines), in the file's line numbers before
-- and after. Line history walks them back from a line; `symbols` are the definitions each hunk
-- touched, on either side, from the parser (or git's hunk header when no grammar reads the file).
CREATE TABLE IF NOT EXISTS {db}.code_hunks {on_cluster}
(
    namespace String,
    repo String,
    path String,
    seq UInt32,
    hunk UInt32,
    sha String,
    old_path String,
    old_start UInt32,
    old_lines UInt32,
    new_start UInt32,
    new_lines UInt32,
    header String,
    symbols Array(String)
)
ENGINE = {replacing}
ORDER BY (namespace, repo, path, seq, hunk)
