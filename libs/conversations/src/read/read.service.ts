import { toIso } from '@loom/clickhouse';
import {
  Defaults,
  Limits,
  LoomError,
  type GetThreadRequest,
  type GetThreadResponse,
  type ListThreadsRequest,
  type ListThreadsResponse,
  type ListTurnsRequest,
  type ListTurnsResponse,
  type TurnRole,
} from '@loom/contracts';
import { readsAsHigh } from '@loom/sensitivity';
import { decodeCursor, encodeCursor } from '../cursor';
import { safeExcerpt } from '../excerpt';
import type { LiveSettingsService } from '../settings/live-settings.service';
import type { ThreadMetaRepository } from '../threads/thread-meta.repository';
import type { TurnsRepository } from './turns.repository';
import { parseMetadata, toThreadView, toTurnView } from './views';

/** conversation.get, conversation.list and conversation.threads. */
export class ReadService {
  constructor(
    private readonly turns: TurnsRepository,
    private readonly threads: ThreadMetaRepository,
    private readonly settings: LiveSettingsService,
  ) {}

  async get(namespace: string, agent: string, input: GetThreadRequest): Promise<GetThreadResponse> {
    const [meta, stats] = await Promise.all([this.threads.find(namespace, input.thread_id), this.turns.stats(namespace, input.thread_id, agent)]);
    if (!meta && stats.turn_count === 0) throw new LoomError('not_found', `thread "${input.thread_id}" has no turns or metadata in namespace "${namespace}"`);
    const response: GetThreadResponse = { thread: toThreadView(namespace, input.thread_id, meta, stats) };
    if (input.include_messages) {
      const page = await this.list(namespace, agent, { thread_id: input.thread_id, order: input.order, limit: input.limit, cursor: input.cursor });
      response.messages = page.messages;
      response.next_cursor = page.next_cursor;
    }
    return response;
  }

  async list(namespace: string, agent: string, input: Pick<ListTurnsRequest, 'thread_id' | 'run_id' | 'order' | 'limit' | 'cursor'>): Promise<ListTurnsResponse> {
    const limit = input.limit ?? Defaults.pageSize;
    const page = await this.turns.page({
      namespace,
      threadId: input.thread_id,
      agent,
      runId: input.run_id,
      order: input.order ?? 'asc',
      limit,
      budgetBytes: Limits.pageBudgetBytes,
      after: input.cursor ? decodeCursor(input.cursor) : undefined,
    });
    return {
      messages: page.rows.map(toTurnView),
      next_cursor: page.more && page.last ? encodeCursor(page.last) : null,
    };
  }

  async recentThreads(namespace: string, agent: string, input: ListThreadsRequest): Promise<ListThreadsResponse> {
    const excerptChars = await this.settings.get('conversation_search_excerpt_chars');
    const activity = await this.turns.recentThreads({
      namespace,
      agent,
      windowDays: input.window_days ?? Defaults.threadsWindowDays,
      limit: input.limit ?? Defaults.threadsLimit,
      offset: input.offset ?? 0,
      textChars: excerptChars + Limits.excerptLookaheadChars,
    });
    const metas = await this.threads.findMany(
      namespace,
      activity.map((a) => a.thread_id),
    );
    return {
      threads: activity.map((a) => {
        const meta = metas.get(a.thread_id);
        const title = meta?.title ?? '';
        return {
          thread_id: a.thread_id,
          agents: [...a.agents].sort(),
          // A title or last turn that reads as high is shown empty, never partly.
          title: readsAsHigh(title) ? '' : title,
          excerpt: safeExcerpt(a.last_text, excerptChars),
          last_role: (a.last_role || null) as TurnRole | null,
          last_activity_at: toIso(a.last_ts)!,
          turn_count: a.turn_count,
          run_id: meta?.run_id || null,
          metadata: parseMetadata(meta?.metadata),
        };
      }),
    };
  }
}
