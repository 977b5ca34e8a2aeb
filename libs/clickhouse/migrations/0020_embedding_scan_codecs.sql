-- Codecs for search speed (measured in chDB on 100,000 hashed-embedder turns; ADR 0005):
-- * embedding_q8, read for every row stage 1 ranks: uncompressed. Int8 vectors barely compress,
--   and decompressing them was about half of the scan (27 ms with LZ4, 15 ms without).
-- * embedding, read for the few rows stage 1 keeps: uncompressed. LZ4 saved 14% of it and
--   cost a block's decompression per kept row.
-- * text, read for the same rows (the excerpt): LZ4 instead of ZSTD(3). ZSTD decompression of
--   one block per kept row was the costliest part of stage 2 (statement p50 43 -> 37 ms with
--   both changes; the table grows by about 15%).
-- New parts are written this way at once; existing parts change when merges rewrite them.
ALTER TABLE {db}.conversation_embeddings {on_cluster}
    MODIFY COLUMN embedding_q8 CODEC(NONE),
    MODIFY COLUMN embedding CODEC(NONE),
    MODIFY COLUMN text CODEC(LZ4)
