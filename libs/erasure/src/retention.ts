import type { Storage } from '@loom/clickhouse';

export interface RetentionSettings {
  /** LOOM_RETENTION_CONVERSATIONS_DAYS: transcript rows older than this leave the disk; 0 keeps them. */
  days: number;
  /** LOOM_TIERING_CONVERSATIONS_WARM_DAYS: older transcript rows move to the volume named "warm"; 0 never. */
  warmDays: number;
}

/**
 * The table TTL of `loom.conversations` for these settings, or undefined for none. Only the
 * transcript has one: an embedding row keeps its (at most 2,048-character) text until a delete
 * or an erasure settles it. The age is the message's time. Values are whole numbers checked at
 * config time, so they are written into the DDL (ClickHouse takes no parameters there).
 */
export function conversationsTtl(settings: RetentionSettings): string | undefined {
  const clauses: string[] = [];
  if (settings.warmDays > 0) clauses.push(`toDateTime(ts) + toIntervalDay(${Math.floor(settings.warmDays)}) TO VOLUME 'warm'`);
  if (settings.days > 0) clauses.push(`toDateTime(ts) + toIntervalDay(${Math.floor(settings.days)}) DELETE`);
  return clauses.length > 0 ? clauses.join(', ') : undefined;
}

/** Brings the transcript table's TTL in line with the settings; run at every start. */
export async function applyRetention(storage: Storage, settings: RetentionSettings): Promise<'set' | 'removed' | 'unchanged'> {
  if (settings.days > 0 && settings.warmDays >= settings.days) {
    throw new Error('LOOM_TIERING_CONVERSATIONS_WARM_DAYS must be less than LOOM_RETENTION_CONVERSATIONS_DAYS: rows would be deleted before they move');
  }
  await applyPostingsRetention(storage, settings.days);
  const onCluster = storage.cluster ? `ON CLUSTER ${storage.cluster}` : '';
  const ttl = conversationsTtl(settings);
  const [table] = await storage.query<{ query: string }>(
    `SELECT create_table_query AS query FROM system.tables WHERE database = {db:String} AND name = 'conversations'`,
    { db: storage.tables.database },
  );
  const hasTtl = /\bTTL\b/.test(table?.query ?? '');
  if (ttl) {
    try {
      await storage.command(`ALTER TABLE ${storage.tables.conversations} ${onCluster} MODIFY TTL ${ttl}`);
    } catch (error) {
      if (settings.warmDays > 0 && /volume|storage policy|warm/i.test((error as Error).message)) {
        throw new Error(
          "LOOM_TIERING_CONVERSATIONS_WARM_DAYS needs a ClickHouse storage policy with a volume named 'warm' on the conversations table; set one up, or unset the variable",
          { cause: error },
        );
      }
      throw error;
    }
    return 'set';
  }
  if (hasTtl) {
    await storage.command(`ALTER TABLE ${storage.tables.conversations} ${onCluster} REMOVE TTL`);
    return 'removed';
  }
  return 'unchanged';
}

/**
 * The lexical postings of an expired turn leave the disk with its transcript row: search
 * already skips them by the same expression (issue 10), this frees the space. The embedding
 * rows keep no TTL (CONV-RET-04).
 */
async function applyPostingsRetention(storage: Storage, days: number): Promise<void> {
  const onCluster = storage.cluster ? `ON CLUSTER ${storage.cluster}` : '';
  const [table] = await storage.query<{ query: string }>(
    `SELECT create_table_query AS query FROM system.tables WHERE database = {db:String} AND name = 'conversation_terms'`,
    { db: storage.tables.database },
  );
  const current = table?.query ?? '';
  // A TTL change rewrites every part of a large table: only when the setting changed.
  if (days > 0 && !current.includes(`TTL toDateTime(ts) + toIntervalDay(${Math.floor(days)})`)) {
    await storage.command(`ALTER TABLE ${storage.tables.conversationTerms} ${onCluster} MODIFY TTL toDateTime(ts) + toIntervalDay(${Math.floor(days)}) DELETE`);
  } else if (days <= 0 && /\bTTL\b/.test(current)) await storage.command(`ALTER TABLE ${storage.tables.conversationTerms} ${onCluster} REMOVE TTL`);
}
