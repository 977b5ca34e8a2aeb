-- Steps 0009-0011 are each safe to repeat: IF EXISTS makes a repeated rename or drop a no-op.
RENAME TABLE IF EXISTS {db}.conversation_embeddings TO {db}.conversation_embeddings_v1 {on_cluster}
