-- Copies 0002's rows into the rebuilt table. Re-running after a partial copy repeats rows with
-- the same key and version, which the ReplacingMergeTree collapses.
INSERT INTO {db}.conversations_next (namespace, thread_id, agent, msg_id, ts, role, content, reasoning, user_id, run_id, metadata, tokens, is_high, is_summary, is_saved, saved_at, deleted, deleted_at, created_at, version)
SELECT namespace, thread_id, agent, msg_id, ts, role, content, reasoning, user_id, run_id, metadata, tokens, is_high, is_summary, is_saved, saved_at, deleted, deleted_at, created_at, version
FROM {db}.conversations
