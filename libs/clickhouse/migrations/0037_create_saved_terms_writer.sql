-- Every version of an embedding row that belongs to a user becomes that version of its header
-- row in saved_terms, and, when the version is a live saved message, of its postings too.
-- Recorded turns of a user cost one header row each; only saved messages carry postings.
-- Saved messages whose embedding rows were all written before this view (or before 0032's
-- terms) have no entry until they are saved again (ADR 0016).
CREATE MATERIALIZED VIEW IF NOT EXISTS {db}.saved_terms_writer {on_cluster}
TO {db}.saved_terms
AS SELECT
    namespace,
    user_id,
    posting.1 AS term,
    thread_id,
    msg_id,
    posting.2 AS tf,
    lex_len AS doc_len,
    is_saved,
    deleted,
    version
FROM {db}.conversation_embeddings
ARRAY JOIN arrayZip(
    arrayConcat([''], if(is_saved AND NOT deleted, lex_terms, [])),
    arrayConcat([lex_len], if(is_saved AND NOT deleted, lex_tfs, []))
) AS posting
WHERE lex_len > 0 AND user_id != ''
