-- Rows the engine refused on their own (a poison row: a value a column cannot take), set aside
-- so that one bad row never holds up the rows written with it (issue 9). The write path bisects
-- a refused batch, stores the good rows and moves each row refused alone here, with the
-- engine's error. `row_json` is the row as JSON text whose non-ASCII-safe parts (a lone
-- surrogate) are escapes, so that a quarantine row can always be written. `row_key` names the
-- row (its table's key columns, never its text) for logs and `loom quarantine list`.
-- `id` is derived from the table and the row, so quarantining one row twice keeps one entry.
-- A retry that stores the row, or a drop, writes a `deleted` version.
CREATE TABLE IF NOT EXISTS {db}.write_quarantine {on_cluster}
(
    id String,
    table_name String,
    row_key String,
    row_json String CODEC(ZSTD(3)),
    error String,
    quarantined_at DateTime64(3, 'UTC'),
    attempts UInt32,
    deleted Bool DEFAULT false,
    updated_at DateTime64(3, 'UTC'),
    version UInt64
)
ENGINE = {replacing}(version)
ORDER BY id
