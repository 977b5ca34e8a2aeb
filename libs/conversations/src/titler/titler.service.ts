import { formatMillis, type Storage } from '@loom/clickhouse';
import type { Logger, LoomMetrics } from '@loom/platform';
import type { LlmProvider } from '@loom/providers';
import { readsAsHigh } from '@loom/sensitivity';
import { parseMetadata } from '../read/views';
import type { ThreadMetaRepository, ThreadMetaRow } from '../threads/thread-meta.repository';
import { cleanTitle, titleRequest, type TitleTurn } from './title-prompt';

/** How many opening user/assistant turns decide a thread's title (and its refusal). */
export const TITLE_OPENING_TURNS = 8;
/** The metadata mark of a thread the titler will not title. */
export const TITLE_REFUSED = 'title_refused';
/** A thread whose LLM call failed or answered nothing waits this long before it is asked again. */
const RETRY_AFTER_MS = 15 * 60_000;

export interface TitlerOptions {
  windowHours: number;
  minTurns: number;
  maxThreadsPerPass: number;
}

export type TitleOutcome = 'titled' | 'refused' | 'waiting' | 'empty' | 'failed' | 'superseded';

export interface TitlerPassReport {
  /** Threads the pass looked at, with what it did to each. */
  threads: Array<{ namespace: string; thread_id: string; outcome: TitleOutcome }>;
  llmCalls: number;
}

interface Candidate {
  namespace: string;
  thread_id: string;
}

interface OpeningTurn extends TitleTurn {
  is_high: boolean;
}

/**
 * The conversation_titler pass: untitled threads of recording namespaces, active within the
 * window and long enough, get a short LLM-written title. A high turn never reaches the model;
 * a thread whose opening turns are all high, or whose title reads as high, is marked
 * `title_refused` and not asked again until new metadata replaces the mark.
 */
export class ConversationTitler {
  /** Threads whose last call failed or answered nothing, with when to ask again. */
  private readonly retryAt = new Map<string, number>();

  constructor(
    private readonly storage: Storage,
    private readonly meta: ThreadMetaRepository,
    private readonly llm: LlmProvider,
    private readonly options: TitlerOptions,
    private readonly observe: { metrics?: LoomMetrics | undefined; logger?: Logger | undefined } = {},
  ) {}

  async pass(now = new Date(), signal?: AbortSignal): Promise<TitlerPassReport> {
    const report: TitlerPassReport = { threads: [], llmCalls: 0 };
    for (const [key, at] of this.retryAt) if (at <= now.getTime()) this.retryAt.delete(key);
    const candidates = await this.candidates(now);
    for (const candidate of candidates) {
      // A lost lease means another replica runs passes now: stop writing.
      if (signal?.aborted) break;
      const outcome = await this.titleOne(candidate, now, report);
      report.threads.push({ ...candidate, outcome });
      this.observe.metrics?.titlerOutcomes.inc({ outcome });
    }
    return report;
  }

  /** Untitled, unrefused threads of recording namespaces, active in the window, newest first. */
  private async candidates(now: Date): Promise<Candidate[]> {
    const { tables } = this.storage;
    const since = formatMillis(new Date(now.getTime() - this.options.windowHours * 3_600_000));
    return this.storage.query<Candidate>(
      `SELECT namespace, thread_id
       FROM ${tables.conversations} FINAL
       WHERE namespace IN (SELECT namespace FROM ${tables.namespaces} FINAL WHERE conversation_logging_enabled)
         AND deleted = 0
         AND (namespace, thread_id) IN (
           SELECT DISTINCT namespace, thread_id FROM ${tables.conversations} WHERE ts >= {since:DateTime64(3, 'UTC')})
         AND (namespace, thread_id) NOT IN (
           SELECT namespace, thread_id FROM ${tables.conversationThreads} FINAL
           WHERE deleted = 0 AND (title != '' OR JSONExtractBool(metadata, {refused:String})))
         AND concat(namespace, '\\0', thread_id) NOT IN {waiting:Array(String)}
       GROUP BY namespace, thread_id
       HAVING uniqExact(msg_id) >= {minTurns:UInt32} AND max(ts) >= {since:DateTime64(3, 'UTC')}
       ORDER BY max(ts) DESC, namespace, thread_id
       LIMIT {limit:UInt32}`,
      {
        since,
        refused: TITLE_REFUSED,
        waiting: [...this.retryAt.keys()],
        minTurns: this.options.minTurns,
        limit: this.options.maxThreadsPerPass,
      },
    );
  }

  private async titleOne(thread: Candidate, now: Date, report: TitlerPassReport): Promise<TitleOutcome> {
    const before = await this.meta.find(thread.namespace, thread.thread_id);
    const opening = await this.openingTurns(thread);
    // Judged again here: a detector that learned a shape since the append still keeps the turn out.
    const plain = opening.filter((t) => !t.is_high && !readsAsHigh(t.content));
    if (plain.length === 0) {
      // All eight opening turns are high: no title can be made without them. Fewer: wait for a plain one.
      return opening.length >= TITLE_OPENING_TURNS ? this.refuse(thread, before) : 'waiting';
    }
    let title: string;
    try {
      report.llmCalls += 1;
      const answer = await this.llm.complete(titleRequest(plain.map(({ role, content }) => ({ role, content }))));
      title = cleanTitle(answer.text);
    } catch (error) {
      // The error names the provider and status only (LlmProviderError never carries the prompt).
      this.observe.logger?.warn({ err: error, namespace: thread.namespace, thread_id: thread.thread_id }, 'the titler LLM call failed; the thread is asked again later');
      this.retryLater(thread, now);
      return 'failed';
    }
    if (title === '') {
      this.retryLater(thread, now);
      return 'empty';
    }
    if (readsAsHigh(title)) return this.refuse(thread, before);
    return (await this.write(thread, before, (row) => ({ ...row, title }))) ? 'titled' : 'superseded';
  }

  private async refuse(thread: Candidate, before: ThreadMetaRow | undefined): Promise<TitleOutcome> {
    const written = await this.write(thread, before, (row) => ({
      ...row,
      metadata: JSON.stringify({ ...parseMetadata(row.metadata), [TITLE_REFUSED]: true }),
    }));
    return written ? 'refused' : 'superseded';
  }

  /**
   * Writes the thread row unless someone changed it since `before` was read. The write carries
   * `before`'s version plus one, so a person's create or update made meanwhile (a fresh, greater
   * version) wins even if it lands first.
   */
  private async write(
    thread: Candidate,
    before: ThreadMetaRow | undefined,
    change: (row: Omit<ThreadMetaRow, 'updated_at' | 'deleted' | 'version'>) => Omit<ThreadMetaRow, 'updated_at' | 'deleted' | 'version'>,
  ): Promise<boolean> {
    const current = await this.meta.find(thread.namespace, thread.thread_id);
    if (String(current?.version ?? 0) !== String(before?.version ?? 0)) return false;
    const base = {
      namespace: thread.namespace,
      thread_id: thread.thread_id,
      title: before?.title ?? '',
      metadata: before?.metadata ?? '{}',
      run_id: before?.run_id ?? '',
      created_at: before?.created_at ?? formatMillis(),
    };
    await this.meta.write(change(base), { version: Number(before?.version ?? 0) + 1 });
    return true;
  }

  /** The thread's first eight live user/assistant turns in thread order (one per msg_id). */
  private async openingTurns(thread: Candidate): Promise<OpeningTurn[]> {
    const rows = await this.storage.query<{ role: string; content: string; is_high: boolean | number }>(
      `SELECT role, content, is_high
       FROM ${this.storage.tables.conversations} FINAL
       WHERE namespace = {ns:String} AND thread_id = {thread:String} AND deleted = 0
         AND role IN ('user', 'assistant') AND NOT is_summary
       ORDER BY ts, msg_id
       LIMIT 1 BY msg_id
       LIMIT {n:UInt32}`,
      { ns: thread.namespace, thread: thread.thread_id, n: TITLE_OPENING_TURNS },
    );
    return rows.map((r) => ({ role: r.role, content: r.content, is_high: Boolean(r.is_high) }));
  }

  private retryLater(thread: Candidate, now: Date): void {
    this.retryAt.set(`${thread.namespace}\0${thread.thread_id}`, now.getTime() + RETRY_AFTER_MS);
  }
}
