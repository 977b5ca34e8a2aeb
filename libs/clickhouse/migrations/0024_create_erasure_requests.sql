-- Erasure requests, written before any row is touched, so an accepted erasure is never lost: a
-- crash part-way leaves the request pending, and any replica's erasure queue finishes it under
-- its lease (ADR 0011). It is also the record that the erasure happened, so no erasure or purge
-- removes it. `namespace` is the namespace the request was made in (whose admins may ask for its
-- status); `namespaces` / `all_namespaces` is what it covers. `erased` holds the counts as JSON.
CREATE TABLE IF NOT EXISTS {db}.erasure_requests {on_cluster}
(
    namespace String,
    erasure_id String,
    subject LowCardinality(String),
    user_id String,
    namespaces Array(String),
    all_namespaces Bool,
    purge Bool,
    status LowCardinality(String),
    erased String,
    attempts UInt32,
    last_error String,
    next_attempt_at DateTime64(3, 'UTC'),
    created_at DateTime64(3, 'UTC'),
    updated_at DateTime64(3, 'UTC'),
    version UInt64
)
ENGINE = {replacing}(version)
ORDER BY (namespace, erasure_id)
