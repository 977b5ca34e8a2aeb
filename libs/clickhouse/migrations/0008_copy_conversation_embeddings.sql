-- Copies 0003's rows into the rebuilt table (the quantised columns are computed on the way).
-- Re-running after a partial copy repeats rows with the same key and version, which the
-- ReplacingMergeTree collapses.
INSERT INTO {db}.conversation_embeddings_next
    (namespace, thread_id, msg_id, agent, role, run_id, user_id, ts, text, model, embedding, embed_error,
     is_summary, is_saved, saved_at, deleted, deleted_at, created_at, version)
SELECT namespace, thread_id, msg_id, agent, role, run_id, user_id, ts, text, model, embedding, embed_error,
       is_summary, is_saved, saved_at, deleted, deleted_at, created_at, version
FROM {db}.conversation_embeddings
