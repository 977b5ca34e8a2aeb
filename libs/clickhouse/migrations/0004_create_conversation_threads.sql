-- Thread metadata set by conversation.create / update (and later the titler). A thread built
-- by appends alone has no row here until one of those writes it.
CREATE TABLE IF NOT EXISTS {db}.conversation_threads {on_cluster}
(
    namespace String,
    thread_id String,
    title String,
    metadata String,
    run_id String,
    created_at DateTime64(3, 'UTC'),
    updated_at DateTime64(3, 'UTC'),
    deleted Bool DEFAULT false,
    version UInt64
)
ENGINE = {replacing}(version)
ORDER BY (namespace, thread_id)
