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
 * What each data table holds, as `rows:checksum` of its merged rows (FINAL, so a background
 * merge does not change it): a refused request must leave every entry as it was, an update of
 * an existing row included. The migrations ledger is left out.
 */
export async function rowCounts(storage: Storage): Promise<Record<string, string>> {
  const { database, migrations, ...tables } = storage.tables;
  void database;
  void migrations;
  const digests: Record<string, string> = {};
  // One statement for every table: this runs around each refused call of a fuzz run.
  const rows = await storage.query<{ t: string; n: string | number; h: string | number }>(
    Object.entries(tables)
      .map(([name, table]) => `SELECT '${name}' AS t, toString(count()) AS n, toString(sum(cityHash64(toString(tuple(*))))) AS h FROM ${table} FINAL`)
      .join(' UNION ALL '),
    {},
  );
  const byName = new Map(rows.map((row) => [row.t, `${row.n}:${row.h}`]));
  // In the tables' order, whatever order the engine answered in: callers compare digests.
  for (const name of Object.keys(tables)) digests[name] = byName.get(name) ?? '';
  return digests;
}
