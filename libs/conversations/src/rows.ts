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
}

export function turnKey(row: { namespace: string; thread_id: string; agent: string; msg_id: string }): string {
  return JSON.stringify([row.namespace, row.thread_id, row.agent, row.msg_id]);
}

export function embeddingKey(row: { namespace: string; thread_id: string; msg_id: string }): string {
  return JSON.stringify([row.namespace, row.thread_id, row.msg_id]);
}
