-- The recording switch and other per-namespace state. A namespace with no row does not record.
CREATE TABLE IF NOT EXISTS {db}.namespaces {on_cluster}
(
    namespace String,
    conversation_logging_enabled Bool DEFAULT false,
    updated_at DateTime64(3, 'UTC'),
    version UInt64
)
ENGINE = {replacing}(version)
ORDER BY namespace
