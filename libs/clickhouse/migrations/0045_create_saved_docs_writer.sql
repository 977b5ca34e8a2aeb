-- Every version of an embedding row that belongs to a user becomes that version of its row in
-- saved_docs. `live` is what saved-message search means by a live saved message: saved, not
-- deleted. The vector columns are kept only then. Rows saved before this view have no row here
-- until the saved-index backfill gives their embedding row a new version (ADR 0024).
CREATE MATERIALIZED VIEW IF NOT EXISTS {db}.saved_docs_writer {on_cluster}
TO {db}.saved_docs
AS SELECT
    namespace,
    user_id,
    thread_id,
    msg_id,
    is_saved AND NOT deleted AS live,
    lex_len AS doc_len,
    model,
    if(live AND embed_error = '', embedding, []) AS embedding,
    if(live AND embed_error = '', embedding_q8, []) AS embedding_q8,
    embedding_scale,
    version
FROM {db}.conversation_embeddings
WHERE user_id != ''
