import { formatMillis, type Storage } from '@loom/clickhouse';
import { Limits } from '@loom/contracts';
import { nextVersion } from '@loom/platform';
import { EMBEDDING_COLUMNS, type EmbeddingRow } from '../rows';
import { firstChars, LEGACY_EMBED_CUT } from '../text';


/** A turn of the retiring agent whose embedding row may be shared with another agent's copy. */
export interface RetiringTurn {
  msg_id: string;
  content: string;
}

interface CopyRow {
  agent: string;
  msg_id: string;
  role: EmbeddingRow['role'];
  content: string;
  run_id: string;
  user_id: string;
  is_high: boolean | number;
  is_summary: boolean | number;
  deleted: boolean | number;
}

/**
 * The new versions of the embedding rows of turns one agent retires (compaction). See
 * `settleEmbeddingRows` for the rule.
 */
export function embeddingRetirements(storage: Storage, namespace: string, threadId: string, agent: string, turns: RetiringTurn[]): Promise<EmbeddingRow[]> {
  if (turns.length === 0) return Promise.resolve([]);
  return settleEmbeddingRows(storage, { namespace, threadId, agent, turns, orphans: false });
}

/**
 * Two agents that log one turn share its embedding row. When one agent's copy goes (compaction,
 * thread delete), a row it owns passes to another agent's live copy of the turn if that copy is
 * of a kind search indexes (a plain user or assistant turn, or a summary) and has the same text:
 * its first 2,048 characters equal the owner's turn. The row then carries that copy's agent,
 * role, run and user (flagged `filters_changed`), so the retiring agent's search drops it.
 * Otherwise the row is tombstoned.
 *
 * With `orphans` (thread delete), rows whose own agent holds no live message for the turn any
 * more (deleted or compacted earlier, or expired) are settled the same way. A row of exactly 240
 * characters whose owner's message is gone altogether cannot be matched to a copy, and is
 * tombstoned.
 */
export async function settleEmbeddingRows(
  storage: Storage,
  scope: { namespace: string; threadId: string; agent: string; turns: RetiringTurn[]; orphans: boolean },
): Promise<EmbeddingRow[]> {
  const { tables } = storage;
  const ids = scope.turns.map((t) => t.msg_id);
  const params = { ns: scope.namespace, thread: scope.threadId, ids };
  const onlyTurns = scope.orphans ? '' : 'AND msg_id IN {ids:Array(String)}';
  const [rows, transcript] = await Promise.all([
    storage.query<EmbeddingRow>(
      `SELECT ${EMBEDDING_COLUMNS} FROM ${tables.conversationEmbeddings} FINAL
       WHERE namespace = {ns:String} AND thread_id = {thread:String} ${onlyTurns} AND deleted = 0`,
      params,
    ),
    storage.query<CopyRow>(
      `SELECT agent, msg_id, role, content, run_id, user_id, is_high, is_summary, deleted FROM ${tables.conversations} FINAL
       WHERE namespace = {ns:String} AND thread_id = {thread:String} ${onlyTurns}
       ORDER BY agent`,
      params,
    ),
  ]);
  const retiring = new Map(scope.turns.map((t) => [t.msg_id, t.content]));
  const live = (agent: string, msgId: string): boolean =>
    !(agent === scope.agent && retiring.has(msgId)) && transcript.some((c) => c.agent === agent && c.msg_id === msgId && !c.deleted);
  const now = formatMillis();
  const out: EmbeddingRow[] = [];
  for (const row of rows) {
    let reference: string | undefined;
    if (row.agent === scope.agent && retiring.has(row.msg_id)) reference = retiring.get(row.msg_id);
    else if (scope.orphans && !live(row.agent, row.msg_id)) reference = transcript.find((c) => c.agent === row.agent && c.msg_id === row.msg_id)?.content;
    else continue;
    const text = reference !== undefined ? firstChars(reference, Limits.embedChars) : Array.from(row.text).length === LEGACY_EMBED_CUT ? undefined : row.text;
    const heir =
      text === undefined
        ? undefined
        : transcript.find(
            (c) =>
              c.msg_id === row.msg_id &&
              c.agent !== row.agent &&
              live(c.agent, c.msg_id) &&
              (Boolean(c.is_summary) || ((c.role === 'user' || c.role === 'assistant') && !c.is_high)) &&
              firstChars(c.content, Limits.embedChars) === text,
          );
    const version = nextVersion();
    out.push(
      heir
        ? { ...row, agent: heir.agent, role: heir.role, run_id: heir.run_id, user_id: heir.user_id, filters_changed: true, version }
        : { ...row, deleted: true, deleted_at: now, version },
    );
  }
  return out;
}
