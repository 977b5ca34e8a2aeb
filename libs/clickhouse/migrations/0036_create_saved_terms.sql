-- saved_terms: the lexical (BM25) index of saved-message search, per user, written only by
-- saved_terms_writer from the embedding rows (ADR 0016). conversation_terms is ordered by
-- namespace and term and counts statistics per namespace; saved-message search needs one
-- user's messages and that user's statistics (SAVE-SEARCH-10), so it reads a table that puts
-- the user right after the namespace.
-- * A header row per turn, term '', for every version of a user's embedding row: it says
--   whether that version is a live saved message, its length in terms, and its version.
-- * Postings (one row per term) only for versions that are live saved messages. A posting
--   counts only when its version is the header's latest version, so an unsave, a tombstone
--   or a re-save with other text retires the old postings with no write of their own.
CREATE TABLE IF NOT EXISTS {db}.saved_terms {on_cluster}
(
    namespace String,
    user_id String,
    term String,
    thread_id String,
    msg_id String,
    tf UInt32,
    doc_len UInt32,
    is_saved Bool,
    deleted Bool DEFAULT false,
    version UInt64
)
ENGINE = {replacing}(version)
ORDER BY (namespace, user_id, term, thread_id, msg_id)
