-- Which revision of the tokenizer wrote a row's lexical columns: 0 for rows written before this
-- column (some before Porter stemming, whose terms are words as typed), 1 for Porter stems.
-- The lexical backfill re-derives the terms of live rows below the current revision, through
-- the append path's own function, so their postings follow (ADR 0024).
ALTER TABLE {db}.conversation_embeddings {on_cluster}
    ADD COLUMN IF NOT EXISTS lex_rev UInt8 DEFAULT 0
