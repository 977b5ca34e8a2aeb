DROP TABLE IF EXISTS {db}.conversation_embeddings_v1 {on_cluster}
