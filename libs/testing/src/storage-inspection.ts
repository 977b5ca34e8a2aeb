import type { Storage } from '@loom/clickhouse';
import { formatMillis } from '@loom/clickhouse';
import { nextVersion } from '@loom/platform';
import type { ThreadFence } from '@loom/conversations';

/**
 * Tombstones one turn and its embedding row as a delete or compaction would (those ops come
 * later); tests use it to check that reads hide tombstoned turns and that a late vector is dropped.
 */
export async function tombstoneTurn(
  storage: Storage,
  key: { namespace: string; thread_id: string; msg_id: string; agent?: string },
  fence?: ThreadFence,
): Promise<void> {
  // As every tombstoning write must: tell the fence first, so an append mid-embed re-reads.
  fence?.bump(key.namespace, key.thread_id);
  const { tables } = storage;
  const params = { ns: key.namespace, thread: key.thread_id, msg: key.msg_id, agent: key.agent ?? 'default' };
  const turns = await storage.query<Record<string, unknown>>(
    `SELECT * EXCEPT (version, deleted, deleted_at) FROM ${tables.conversations} FINAL
     WHERE namespace = {ns:String} AND thread_id = {thread:String} AND msg_id = {msg:String} AND agent = {agent:String}`,
    params,
  );
  const embeddings = await storage.query<Record<string, unknown>>(
    `SELECT * EXCEPT (version, deleted, deleted_at) FROM ${tables.conversationEmbeddings} FINAL
     WHERE namespace = {ns:String} AND thread_id = {thread:String} AND msg_id = {msg:String}`,
    params,
  );
  const tomb = () => ({ deleted: true, deleted_at: formatMillis(), version: nextVersion() });
  await storage.insert(tables.conversations, turns.map((row) => ({ ...row, ...tomb() })));
  await storage.insert(tables.conversationEmbeddings, embeddings.map((row) => ({ ...row, ...tomb() })));
}

export async function embeddingRows(storage: Storage, namespace: string): Promise<Array<{ thread_id: string; msg_id: string; text: string; embed_error: string; model: string; dims: number; role: string }>> {
  return storage.query(
    `SELECT thread_id, msg_id, text, embed_error, model, length(embedding) AS dims, role FROM ${storage.tables.conversationEmbeddings} FINAL
     WHERE namespace = {ns:String} ORDER BY ts`,
    { ns: namespace },
  );
}

/**
 * How many rows each data table holds (every version, tombstones included): a refused request
 * must leave every count as it was. The migrations ledger is left out.
 */
export async function rowCounts(storage: Storage): Promise<Record<string, number>> {
  const { database, migrations, ...tables } = storage.tables;
  void database;
  void migrations;
  const counts: Record<string, number> = {};
  for (const [name, table] of Object.entries(tables)) {
    const [row] = await storage.query<{ n: string | number }>(`SELECT count() AS n FROM ${table}`, {});
    counts[name] = Number(row?.n ?? 0);
  }
  return counts;
}
