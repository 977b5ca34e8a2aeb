-- Live settings changed by settings.set; the environment gives the defaults.
CREATE TABLE IF NOT EXISTS {db}.settings {on_cluster}
(
    key String,
    value String,
    updated_at DateTime64(3, 'UTC'),
    version UInt64
)
ENGINE = {replacing}(version)
ORDER BY key
