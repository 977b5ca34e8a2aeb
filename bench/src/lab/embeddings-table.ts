import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Session } from 'chdb';
import { MIGRATIONS_SRC } from '../util/paths';

/** A migration's statement for a single chDB session: database `db`, no cluster, a plain ReplacingMergeTree. */
function migration(file: string, db: string): string {
  return readFileSync(join(MIGRATIONS_SRC, file), 'utf8')
    .replace(/^--.*$/gm, '')
    .replace(/\{db\}/g, db)
    .replace(/\{on_cluster\}/g, '')
    .replace(/\{replacing\}/g, 'ReplacingMergeTree');
}

/**
 * Loom's `conversation_embeddings` table as its migrations leave it (columns, codecs, sort key,
 * granularity), in database `db` of a chDB session, for the labs that time statements on it.
 */
export function createEmbeddingsTable(session: Session, db = 'loom'): void {
  session.query(`CREATE DATABASE IF NOT EXISTS ${db}`);
  session.query(migration('0007_create_conversation_embeddings_next.sql', db).replace('conversation_embeddings_next', 'conversation_embeddings'));
  for (const f of ['0012_add_embedding_filters_changed.sql', '0020_embedding_scan_codecs.sql', '0031_embedding_q8_without_zero_division.sql', '0032_add_embedding_lexical_terms.sql']) {
    session.query(migration(f, db));
  }
}
