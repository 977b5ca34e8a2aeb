-- The Int8 copy of a vector divided each component by the vector's scale. For a zero vector
-- (hashed text with no words: "?", "👍", "") the scale is 0, and `if` evaluates both branches,
-- so the division ran anyway and the insert failed with "Unexpected inf or nan to integer
-- conversion" (issue 9). It now divides by 1 where the scale is not a positive finite number,
-- and maps any component that is not finite to 0. Stored rows keep their values: only the
-- expression for new rows changes.
ALTER TABLE {db}.conversation_embeddings {on_cluster}
    MODIFY COLUMN embedding_q8 Array(Int8) MATERIALIZED arrayMap(
        x -> toInt8(if(embedding_scale > 0 AND isFinite(embedding_scale) AND isFinite(x), round(x / if(embedding_scale > 0 AND isFinite(embedding_scale), embedding_scale, 1)), 0)),
        embedding) CODEC(NONE)
