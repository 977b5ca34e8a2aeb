import { toIso } from '@loom/clickhouse';
import type { JsonObject, ThreadView, TurnView } from '@loom/contracts';
import type { TranscriptRow } from '../rows';
import type { ThreadMetaRow } from '../threads/thread-meta.repository';
import type { ThreadStats } from './turns.repository';

export function parseMetadata(text: string | undefined): JsonObject {
  if (!text) return {};
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as JsonObject) : {};
  } catch {
    return {};
  }
}

export function toTurnView(row: TranscriptRow): TurnView {
  return {
    thread_id: row.thread_id,
    msg_id: row.msg_id,
    agent: row.agent,
    role: row.role,
    content: row.content,
    reasoning: row.reasoning,
    user_id: row.user_id || null,
    run_id: row.run_id || null,
    metadata: parseMetadata(row.metadata),
    tokens: row.tokens === null || row.tokens === undefined ? null : Number(row.tokens),
    ts: toIso(row.ts)!,
    is_saved: Boolean(row.is_saved),
    saved_at: toIso(row.saved_at),
  };
}

export function toThreadView(namespace: string, threadId: string, meta: ThreadMetaRow | undefined, stats: ThreadStats): ThreadView {
  return {
    namespace,
    thread_id: threadId,
    title: meta?.title || null,
    metadata: parseMetadata(meta?.metadata),
    run_id: meta?.run_id || null,
    created_at: toIso(meta?.created_at) ?? toIso(stats.first_ts),
    last_activity_at: toIso(stats.last_ts) ?? toIso(meta?.updated_at),
    turn_count: stats.turn_count,
  };
}
