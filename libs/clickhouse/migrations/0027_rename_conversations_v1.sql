-- Steps 0027-0029 are each safe to repeat: IF EXISTS makes a repeated rename or drop a no-op.
-- A retention TTL (LOOM_RETENTION_CONVERSATIONS_DAYS) is set again on the new table at start.
RENAME TABLE IF EXISTS {db}.conversations TO {db}.conversations_v1 {on_cluster}
