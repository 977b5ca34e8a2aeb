import type { Storage } from '@loom/clickhouse';
import { EMBEDDING_COLUMNS, TRANSCRIPT_COLUMNS, type EmbeddingRow, type TranscriptRow } from './rows';


export interface MessageRef {
  namespace: string;
  thread_id: string;
  agent: string;
  msg_id: string;
}

/** The latest version of one agent's transcript row, tombstoned or not; undefined when never stored. */
export async function readTranscriptRow(storage: Storage, ref: MessageRef): Promise<TranscriptRow | undefined> {
  const rows = await storage.query<TranscriptRow>(
    `SELECT ${TRANSCRIPT_COLUMNS} FROM ${storage.tables.conversations} FINAL
     WHERE namespace = {ns:String} AND thread_id = {thread:String} AND agent = {agent:String} AND msg_id = {msg:String}`,
    { ns: ref.namespace, thread: ref.thread_id, agent: ref.agent, msg: ref.msg_id },
  );
  return rows[0];
}

/** The latest version of a turn's (shared) embedding row, tombstoned or not. */
export async function readEmbeddingRow(storage: Storage, ref: MessageRef): Promise<EmbeddingRow | undefined> {
  const rows = await storage.query<EmbeddingRow>(
    `SELECT ${EMBEDDING_COLUMNS} FROM ${storage.tables.conversationEmbeddings} FINAL
     WHERE namespace = {ns:String} AND thread_id = {thread:String} AND msg_id = {msg:String}`,
    { ns: ref.namespace, thread: ref.thread_id, msg: ref.msg_id },
  );
  return rows[0];
}

/** One agent's live turns of a thread, in thread order, every column (for writers of new versions). */
export function readLiveTurns(storage: Storage, namespace: string, threadId: string, agent: string): Promise<TranscriptRow[]> {
  return storage.query<TranscriptRow>(
    `SELECT ${TRANSCRIPT_COLUMNS} FROM ${storage.tables.conversations} FINAL
     WHERE namespace = {ns:String} AND thread_id = {thread:String} AND agent = {agent:String} AND deleted = 0
     ORDER BY ts, msg_id`,
    { ns: namespace, thread: threadId, agent },
  );
}
