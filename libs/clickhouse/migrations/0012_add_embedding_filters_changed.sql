-- A version of an embedding row whose search-filter columns (agent, role, run_id, user_id)
-- differ from earlier versions: a shared row handed over to another agent's copy of the turn
-- (compaction, thread delete). Search ranks such rows whatever the filters, so stage 2 sees the
-- latest version of every candidate and applies those filters to it (ADR 0005, amended by 0006).
-- Every later version is written from this one, so the flag stays.
ALTER TABLE {db}.conversation_embeddings {on_cluster} ADD COLUMN IF NOT EXISTS filters_changed Bool DEFAULT false
