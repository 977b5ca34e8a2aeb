-- The lexical (BM25) index of a turn rides on its embedding row: the distinct terms of the
-- turn's whole text (not only the 2,048 characters the row keeps), each term's frequency, and
-- the text's length in terms. Every version of the row (tombstone, hand-over, save, re-embed)
-- copies them, and conversation_terms_writer turns each inserted version into postings, so the
-- lexical leg follows exactly the lifecycle of the vector leg. Rows written before this change
-- have no terms (lex_len 0) and are found by the vector leg only until they are re-written.
ALTER TABLE {db}.conversation_embeddings {on_cluster}
    ADD COLUMN IF NOT EXISTS lex_terms Array(String) CODEC(ZSTD(1)),
    ADD COLUMN IF NOT EXISTS lex_tfs Array(UInt32) CODEC(ZSTD(1)),
    ADD COLUMN IF NOT EXISTS lex_len UInt32 DEFAULT 0
