-- Every version of an embedding row that carries terms becomes that version of its postings
-- (plus the header row, term ''), inside the engine: the write path sends one row per turn.
CREATE MATERIALIZED VIEW IF NOT EXISTS {db}.conversation_terms_writer {on_cluster}
TO {db}.conversation_terms
AS SELECT
    namespace,
    posting.1 AS term,
    thread_id,
    msg_id,
    posting.2 AS tf,
    lex_len AS doc_len,
    agent,
    role,
    run_id,
    user_id,
    ts,
    deleted,
    deleted_at,
    version
FROM {db}.conversation_embeddings
ARRAY JOIN arrayZip(arrayConcat([''], lex_terms), arrayConcat([lex_len], lex_tfs)) AS posting
WHERE lex_len > 0
