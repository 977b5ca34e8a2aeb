import { formatMillis, type Storage } from '@loom/clickhouse';
import { Limits } from '@loom/contracts';
import { nextVersion } from '@loom/platform';
import type { EmbeddingRow } from '../rows';
import { firstChars } from '../text';

const EMBEDDING_COLUMNS =
  'namespace, thread_id, msg_id, agent, role, run_id, user_id, ts, text, model, embedding, embed_error, is_summary, is_saved, saved_at, deleted, deleted_at, created_at, version, filters_changed';

/** A turn of the retiring agent whose embedding row may be shared with another agent's copy. */
export interface RetiringTurn {
  msg_id: string;
  content: string;
}

interface LiveCopy {
  agent: string;
  msg_id: string;
  role: EmbeddingRow['role'];
  content: string;
  run_id: string;
  user_id: string;
  is_high: boolean | number;
  is_summary: boolean | number;
}

/**
 * The new versions of the embedding rows of turns one agent retires (compaction; thread
 * delete uses the same rule). Two agents that log one turn share its embedding row. A row this
 * agent owns passes to another agent's live copy of the turn when that copy is of a kind search
 * indexes (a plain user or assistant turn, or a summary) and has the same text (its first
 * 2,048 characters equal the retiring turn's). The row then carries that copy's agent, role,
 * run and user, so the retiring agent's search drops it. Otherwise the row is tombstoned. Rows
 * another agent owns are left alone.
 */
export async function embeddingRetirements(storage: Storage, namespace: string, threadId: string, agent: string, turns: RetiringTurn[]): Promise<EmbeddingRow[]> {
  if (turns.length === 0) return [];
  const { tables } = storage;
  const ids = turns.map((t) => t.msg_id);
  const params = { ns: namespace, thread: threadId, ids, agent };
  const [rows, copies] = await Promise.all([
    storage.query<EmbeddingRow>(
      `SELECT ${EMBEDDING_COLUMNS} FROM ${tables.conversationEmbeddings} FINAL
       WHERE namespace = {ns:String} AND thread_id = {thread:String} AND msg_id IN {ids:Array(String)} AND deleted = 0`,
      params,
    ),
    storage.query<LiveCopy>(
      `SELECT agent, msg_id, role, content, run_id, user_id, is_high, is_summary FROM ${tables.conversations} FINAL
       WHERE namespace = {ns:String} AND thread_id = {thread:String} AND msg_id IN {ids:Array(String)} AND agent != {agent:String} AND deleted = 0
       ORDER BY agent`,
      params,
    ),
  ]);
  const ownText = new Map(turns.map((t) => [t.msg_id, firstChars(t.content, Limits.embedChars)]));
  const now = formatMillis();
  return rows
    .filter((row) => row.agent === agent)
    .map((row) => {
      const heir = copies.find(
        (c) =>
          c.msg_id === row.msg_id &&
          (Boolean(c.is_summary) || ((c.role === 'user' || c.role === 'assistant') && !c.is_high)) &&
          firstChars(c.content, Limits.embedChars) === ownText.get(row.msg_id),
      );
      const version = nextVersion();
      return heir
        ? { ...row, agent: heir.agent, role: heir.role, run_id: heir.run_id, user_id: heir.user_id, filters_changed: true, version }
        : { ...row, deleted: true, deleted_at: now, version };
    });
}
