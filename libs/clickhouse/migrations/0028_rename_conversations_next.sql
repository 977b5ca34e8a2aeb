RENAME TABLE IF EXISTS {db}.conversations_next TO {db}.conversations {on_cluster}
