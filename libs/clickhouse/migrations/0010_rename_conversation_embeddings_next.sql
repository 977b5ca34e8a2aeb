RENAME TABLE IF EXISTS {db}.conversation_embeddings_next TO {db}.conversation_embeddings {on_cluster}
