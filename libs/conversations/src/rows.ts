import type { TurnRole } from '@loom/contracts';

/** A transcript row of `loom.conversations` as stored. */
export interface TranscriptRow {
  namespace: string;
  thread_id: string;
  agent: string;
  msg_id: string;
  ts: string;
  role: TurnRole;
  content: string;
  reasoning: string;
  user_id: string;
  run_id: string;
  metadata: string;
  tokens: number | null;
  is_high: boolean;
  is_summary: boolean;
  is_saved: boolean;
  saved_at: string | null;
  deleted: boolean;
  deleted_at: string | null;
  created_at: string;
  version: number;
}

/** A turn's key within a namespace in the kept copies: length-prefixed, since ids may hold any character and no separator alone keeps two keys apart. */
export const keptTurnKey = (thread: string, msg: string): string => `${thread.length}:${thread}${msg.length}:${msg}`;

/** A search hit ranked on a kept copy (ADR 0038-0040): the turn's columns as its embedding row says them, and its score. */
export type KeptHit = Pick<EmbeddingRow, 'namespace' | 'thread_id' | 'msg_id' | 'agent' | 'role' | 'run_id' | 'user_id' | 'ts'> & { score: number };

/** An embedding row of `loom.conversation_embeddings` as stored. */
export interface EmbeddingRow {
  namespace: string;
  thread_id: string;
  msg_id: string;
  agent: string;
  role: TurnRole;
  run_id: string;
  user_id: string;
  ts: string;
  text: string;
  model: string;
  embedding: number[];
  embed_error: string;
  is_summary: boolean;
  is_saved: boolean;
  saved_at: string | null;
  deleted: boolean;
  deleted_at: string | null;
  created_at: string;
  version: number;
  /** This version's agent, role, run or user differ from an earlier version's (a hand-over). */
  filters_changed?: boolean;
  /** The lexical index of the turn's whole text (see `lexicalColumns`); empty on rows written before it. */
  lex_terms: string[];
  lex_tfs: number[];
  lex_len: number;
  /** Which tokenizer revision wrote the lexical columns (`LEXICAL_REVISION`); 0 on rows written before it was recorded. */
  lex_rev?: number;
}

/** Every stored column of a transcript row, for reads that write a new version of it. */
export const TRANSCRIPT_COLUMNS =
  'namespace, thread_id, agent, msg_id, ts, role, content, reasoning, user_id, run_id, metadata, tokens, is_high, is_summary, is_saved, saved_at, deleted, deleted_at, created_at, version';
/** Every stored column of an embedding row (the MATERIALIZED Int8 copy excluded: it is derived). */
export const EMBEDDING_COLUMNS =
  'namespace, thread_id, msg_id, agent, role, run_id, user_id, ts, text, model, embedding, embed_error, is_summary, is_saved, saved_at, deleted, deleted_at, created_at, version, filters_changed, lex_terms, lex_tfs, lex_len, lex_rev';

export function turnKey(row: { namespace: string; thread_id: string; agent: string; msg_id: string }): string {
  return JSON.stringify([row.namespace, row.thread_id, row.agent, row.msg_id]);
}

export function embeddingKey(row: { namespace: string; thread_id: string; msg_id: string }): string {
  return JSON.stringify([row.namespace, row.thread_id, row.msg_id]);
}
