DROP TABLE IF EXISTS {db}.conversations_v1 {on_cluster}
