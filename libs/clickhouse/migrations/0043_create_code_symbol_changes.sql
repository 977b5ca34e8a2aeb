-- code_symbol_changes: which commits changed which symbol, ordered by the symbol's last name part
-- (`query` of `Client.query`) so a question about a method finds it whatever class holds it.
-- source: 'parser' (a grammar's definition) or 'header' (git's hunk header, the fallback).
CREATE TABLE IF NOT EXISTS {db}.code_symbol_changes {on_cluster}
(
    namespace String,
    repo String,
    leaf String,
    symbol String,
    seq UInt32,
    sha String,
    path String,
    kind LowCardinality(String),
    source LowCardinality(String),
    lines_added UInt32,
    lines_removed UInt32,
    pr_number UInt32
)
ENGINE = {replacing}
ORDER BY (namespace, repo, leaf, symbol, seq, path)
