import type { Tables } from '../tables';

/** The tables an append writes on every call, through the write-behind queue; every other table is written directly. */
export function writeBehindTables(tables: Tables): Set<string> {
  return new Set([tables.conversations, tables.conversationEmbeddings]);
}

/**
 * Tables whose rows come from the write-behind tables: the materialized views over
 * `conversation_embeddings` write the lexical postings and the saved-search corpus. A migration
 * that adds such a view adds its target here (a test compares this list with the engine's views).
 */
export function appendFedTables(tables: Tables): Set<string> {
  return new Set([...writeBehindTables(tables), tables.conversationTerms, tables.savedTerms, tables.savedDocs]);
}

/**
 * Whether a read can see rows the write-behind queue acknowledged but has not flushed yet. It
 * can unless it is a plain SELECT that names no table the append path feeds and none of the
 * engine's system tables (parts, merges). Only a read that can see them waits for the flush.
 * Any other reads tables written directly, whose inserts their callers awaited, so a flush adds
 * nothing to what it sees. And it must not wait: the reloads of per-call caches (the recording
 * switch every second, a token every five) held every append in flight behind a flush, and
 * each forced a flush early, a part more for the engine to merge.
 */
export function readSeesAppends(tables: Tables): (sql: string) => boolean {
  const names = [...appendFedTables(tables)].map((name) => name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  // A name counts whole: `db.conversations` is not `db.conversations_archive`.
  const seen = new RegExp(`(?:${names.join('|')})(?![\\w])|\\bsystem\\.`, 'i');
  const plainRead = /^\s*(?:SELECT|WITH)\b/i;
  return (sql) => !plainRead.test(sql) || seen.test(sql);
}
