-- conversations, rebuilt for reads of one thread (0025-0029 swap it in place of 0002's table):
-- * index_granularity_bytes 512 KiB: a granule ends at 512 KiB of row data (or 8,192 rows). At
--   the default 10 MiB, a granule held 8,192 turns of about 1 KB, and reading one thread of 20
--   turns decompressed one such granule per part. Measured on 100,000 turns in chDB: one
--   thread's page 6.2 -> 3.4 ms in one part (19 ms in five), the last turns of a page of
--   threads 9.4 -> 4.6 ms. The primary index grows from 14 to about 200 marks per 100,000 rows.
CREATE TABLE IF NOT EXISTS {db}.conversations_next {on_cluster}
(
    namespace String,
    thread_id String,
    agent LowCardinality(String),
    msg_id String,
    ts DateTime64(6, 'UTC'),
    role LowCardinality(String),
    content String CODEC(ZSTD(3)),
    reasoning String CODEC(ZSTD(3)),
    user_id String,
    run_id String,
    metadata String,
    tokens Nullable(UInt32),
    is_high Bool,
    is_summary Bool DEFAULT false,
    is_saved Bool DEFAULT false,
    saved_at Nullable(DateTime64(3, 'UTC')),
    deleted Bool DEFAULT false,
    deleted_at Nullable(DateTime64(3, 'UTC')),
    created_at DateTime64(3, 'UTC'),
    version UInt64
)
ENGINE = {replacing}(version)
ORDER BY (namespace, thread_id, agent, msg_id)
SETTINGS index_granularity_bytes = 524288
