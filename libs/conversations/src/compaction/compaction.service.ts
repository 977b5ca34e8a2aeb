import { formatMillis, type Storage } from '@loom/clickhouse';
import { CompactionBudget, Defaults, Limits, LoomError, type CompactThreadRequest, type CompactThreadResponse } from '@loom/contracts';
import { nextVersion, sha256Hex, type Logger, type LoomMetrics } from '@loom/platform';
import type { LlmProvider } from '@loom/providers';
import { readsAsHigh } from '@loom/sensitivity';
import type { EmbeddingClient } from '../embedding/embedding.client';
import { embeddingColumns } from '../embedding/embedding-columns';
import type { ThreadFence } from '../fencing/thread-fence';
import type { ThreadLeases } from '../leases/thread-leases';
import { lexicalColumns } from '../lexical/lexical-columns';
import { parseMetadata } from '../read/views';
import type { EmbeddingRow, TranscriptRow } from '../rows';
import { readLiveTurns } from '../stored-rows';
import { firstChars } from '../text';
import { planCompaction, type WindowTurn } from './compaction-window';
import { embeddingRetirements } from './embedding-retirement';
import { summaryRequest } from './summary-prompt';

/**
 * conversation.compact: the oldest turns before the kept tail become one embedded `system`
 * summary turn, and they and their embedding rows are tombstoned. The summarizer and the
 * summary's embedding run first, outside the thread lease; the writes run under it.
 */
export class CompactionService {
  constructor(
    private readonly storage: Storage,
    private readonly embedder: EmbeddingClient,
    private readonly llm: LlmProvider,
    private readonly leases: ThreadLeases,
    private readonly fence: ThreadFence,
    private readonly observe: { metrics?: LoomMetrics | undefined; logger?: Logger | undefined } = {},
  ) {}

  async compact(namespace: string, agent: string, input: CompactThreadRequest): Promise<CompactThreadResponse> {
    if (this.llm.name === 'fake') {
      throw new LoomError('not_configured', 'conversation.compact needs an LLM provider to write the summary; set LOOM_LLM_BASE_URL and LOOM_LLM_MODEL (nothing was changed)');
    }
    const threadId = input.thread_id;
    const answer = (compacted: boolean, extra: Partial<CompactThreadResponse> = {}): CompactThreadResponse => ({
      thread_id: threadId,
      compacted,
      messages_summarized: 0,
      ...extra,
    });
    const rows = await readLiveTurns(this.storage, namespace, threadId, agent);
    if (rows.length === 0) throw new LoomError('not_found', `thread "${threadId}" has no live turns of agent "${agent}" in namespace "${namespace}"`);
    const plan = planCompaction(rows.map(toWindowTurn), {
      keepRecent: input.keep_recent ?? Defaults.compactKeepRecent,
      minToCompact: input.min_to_compact ?? Defaults.compactMinToCompact,
      promptChars: CompactionBudget.promptChars,
      summaryAllowanceChars: CompactionBudget.summaryAllowanceChars,
    });
    if (plan.kind === 'nothing-to-compact') return answer(false, { reason: 'nothing-to-compact' });
    if (plan.kind === 'below-min') return answer(false);

    // Provider work first, with no lease held: a slow LLM or embedder blocks no save or delete.
    const summary = await this.summarize(plan.folded, plan.body);
    // Never embedded, so never compacted: the same window would give the same summary, so no retry helps.
    if (readsAsHigh(summary)) return answer(false, { reason: 'summary-high-sensitivity' });
    const text = firstChars(summary, Limits.embedChars);
    const embedded = await this.embedder.embed([text]);
    if (!embedded.ok) return answer(false, { reason: 'embed-failed' });

    const byId = new Map(rows.map((r) => [r.msg_id, r]));
    const retiring = plan.retire.map((t) => byId.get(t.msg_id)!);
    const first = retiring.reduce((a, b) => (a.ts <= b.ts ? a : b));
    const summaryId = 'sum_' + sha256Hex(namespace, threadId, agent, ...retiring.map((r) => r.msg_id)).slice(0, 32);
    const version = nextVersion();
    const now = formatMillis();
    const summaryRow: TranscriptRow = {
      namespace,
      thread_id: threadId,
      agent,
      msg_id: summaryId,
      // At the window's first turn, so it reads in the thread where its turns did.
      ts: first.ts,
      role: 'system',
      content: summary,
      reasoning: '',
      user_id: '',
      run_id: first.run_id,
      metadata: JSON.stringify({
        compacted_from: plan.summarized.map((t) => t.msg_id),
        ...(plan.folded.length + plan.replacedUnread.length + plan.body.length > plan.summarized.length
          ? { replaced_summaries: retiring.filter((r) => r.is_summary).map((r) => r.msg_id) }
          : {}),
      }),
      tokens: null,
      is_high: false,
      is_summary: true,
      is_saved: false,
      saved_at: null,
      deleted: false,
      deleted_at: null,
      created_at: now,
      version,
    };
    const summaryEmbedding: EmbeddingRow = {
      namespace,
      thread_id: threadId,
      msg_id: summaryId,
      agent,
      role: 'system',
      run_id: summaryRow.run_id,
      user_id: '',
      ts: summaryRow.ts,
      text,
      ...embeddingColumns(embedded),
      // Summaries are searched by words too, over their whole text.
      ...lexicalColumns(summary),
      is_summary: true,
      is_saved: false,
      saved_at: null,
      deleted: false,
      deleted_at: null,
      created_at: now,
      version,
    };

    await this.leases.withThread({ namespace, thread_id: threadId }, async () => {
      // The window as it is now: a turn saved or removed while the summary was written must not be retired.
      const current = new Map((await readLiveTurns(this.storage, namespace, threadId, agent)).map((r) => [r.msg_id, r]));
      const changed = retiring.filter((r) => {
        const live = current.get(r.msg_id);
        return !live || Boolean(live.is_saved) || String(live.version) !== String(r.version);
      });
      if (changed.length > 0) {
        throw new LoomError('conflict', `${changed.length} turn(s) of the window changed while the summary was written (saved, removed or rewritten); nothing was compacted; run conversation.compact again`);
      }
      this.fence.bump(namespace, threadId);
      // The summary lands before the originals go: a run that dies between the two leaves a
      // summary whose turns are all live, which the next run replaces unread.
      await this.storage.insert(this.storage.tables.conversations, [summaryRow]);
      await this.storage.insert(this.storage.tables.conversationEmbeddings, [summaryEmbedding]);
      const handedOver = await embeddingRetirements(this.storage, namespace, threadId, agent, retiring);
      await this.storage.insert(
        this.storage.tables.conversations,
        retiring.map((r) => ({ ...r, deleted: true, deleted_at: now, version: nextVersion() })),
      );
      await this.storage.insert(this.storage.tables.conversationEmbeddings, handedOver);
    });
    this.observe.logger?.info({ namespace, thread_id: threadId, agent, summarized: plan.summarized.length, replaced_summaries: retiring.length - plan.summarized.length }, 'thread compacted');
    return answer(true, { messages_summarized: plan.summarized.length, summary_msg_id: summaryId });
  }

  private async summarize(folded: WindowTurn[], body: WindowTurn[]): Promise<string> {
    try {
      const response = await this.llm.complete(summaryRequest(folded, body, CompactionBudget.promptChars));
      const text = response.text.trim();
      if (text === '') throw new LoomError('unavailable', 'the summarizer LLM answered nothing; nothing was compacted; retry later', { retryable: true });
      return text;
    } catch (error) {
      if (LoomError.isLoomError(error)) throw error;
      throw new LoomError('unavailable', `the summarizer LLM failed (${(error as Error).message}); nothing was compacted; retry later`, { cause: error });
    }
  }

}

function toWindowTurn(row: TranscriptRow): WindowTurn {
  const from = parseMetadata(row.metadata)['compacted_from'];
  return {
    msg_id: row.msg_id,
    ts: row.ts,
    role: row.role,
    content: row.content,
    is_high: Boolean(row.is_high),
    is_summary: Boolean(row.is_summary),
    is_saved: Boolean(row.is_saved),
    compacted_from: Array.isArray(from) ? from.filter((x): x is string => typeof x === 'string') : [],
  };
}
