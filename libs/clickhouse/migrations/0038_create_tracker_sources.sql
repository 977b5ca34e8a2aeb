-- One tracker source per namespace: where the team's own ClickHouse is and how its issues, PR
-- links and CI runs tables map to what Loom reads. Loom reads those tables live and copies
-- nothing from them. The password is kept to connect and is never answered or logged.
CREATE TABLE IF NOT EXISTS {db}.tracker_sources {on_cluster}
(
    namespace String,
    connection_url String,
    connection_user String,
    connection_password String,
    source_database String,
    mapping String,
    issue_url_base String,
    registered_at DateTime64(3, 'UTC'),
    version UInt64
)
ENGINE = {replacing}(version)
ORDER BY namespace
