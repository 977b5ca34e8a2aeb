import { formatMicros, formatMillis } from '@loom/clickhouse';
import { Limits, LoomError, type AppendTurnRequest, type AppendTurnResponse } from '@loom/contracts';
import { nextVersion, sha256Hex, type LoomMetrics } from '@loom/platform';
import { readsAsHigh } from '@loom/sensitivity';
import type { EmbeddingClient } from '../embedding/embedding.client';
import { embeddingColumns } from '../embedding/embedding-columns';
import type { ThreadFence } from '../fencing/thread-fence';
import type { RecordingService } from '../recording/recording.service';
import { turnKey, type EmbeddingRow, type TranscriptRow } from '../rows';
import { lexicalColumns } from '../lexical/lexical-columns';
import { firstChars } from '../text';
import type { EmbeddingWriter } from './embedding.writer';
import type { TranscriptWriter } from './transcript.writer';

/** Only user and assistant turns are embedded (and compaction summaries, written elsewhere). */
const EMBEDDED_ROLES = new Set(['user', 'assistant']);

/**
 * conversation.append: the recording switch, idempotency, the sensitivity gate and the
 * fail-open embed, in that order. The provider call happens before the embedding write and
 * outside any write batch, so a slow embedder never holds up other writers.
 */
export class AppendService {
  /** Appends in flight in this process, by turn key: a concurrent retry waits for the first. */
  private readonly inFlight = new Map<string, Promise<unknown>>();

  constructor(
    private readonly recording: RecordingService,
    private readonly transcripts: TranscriptWriter,
    private readonly embeddings: EmbeddingWriter,
    private readonly embedder: EmbeddingClient,
    private readonly fence: ThreadFence,
    private readonly metrics?: LoomMetrics,
  ) {}

  /** The id a turn without `msg_id` gets: re-sending the same turn to the same thread is a duplicate. */
  static deriveMsgId(threadId: string, role: string, content: string): string {
    return 'h_' + sha256Hex(threadId, role, content).slice(0, 32);
  }

  async append(namespace: string, agent: string, input: AppendTurnRequest): Promise<AppendTurnResponse> {
    if (Buffer.byteLength(input.content, 'utf8') > Limits.maxContentBytes) {
      throw new LoomError('payload_too_large', `content is over ${Limits.maxContentBytes} bytes; split the turn or store it elsewhere`, {
        fields: [{ field: 'content', message: 'over 1 MiB' }],
      });
    }
    const msgId = input.msg_id ?? AppendService.deriveMsgId(input.thread_id, input.role, input.content);
    const answer = (stored: boolean, reason?: AppendTurnResponse['reason']): AppendTurnResponse => {
      this.metrics?.appendOutcomes.inc({ outcome: reason ?? 'stored' });
      return reason ? { stored, reason, thread_id: input.thread_id, msg_id: msgId } : { stored, thread_id: input.thread_id, msg_id: msgId };
    };

    // Nothing the caller sends can override the owner's choice.
    if (!(await this.recording.isRecording(namespace))) return answer(false, 'logging_disabled');

    // One append per turn at a time in this process: a retry that arrives while the first is
    // still embedding waits for it and is a duplicate, rather than racing it to the vector.
    const key = turnKey({ namespace, thread_id: input.thread_id, agent, msg_id: msgId });
    const flight = this.inFlight.get(key);
    if (flight) {
      await flight.catch(() => undefined);
      return answer(false, 'duplicate');
    }
    const work = this.store(namespace, agent, msgId, input, answer);
    this.inFlight.set(key, work);
    try {
      return await work;
    } finally {
      this.inFlight.delete(key);
    }
  }

  private async store(
    namespace: string,
    agent: string,
    msgId: string,
    input: AppendTurnRequest,
    answer: (stored: boolean, reason?: AppendTurnResponse['reason']) => AppendTurnResponse,
  ): Promise<AppendTurnResponse> {
    const isHigh = readsAsHigh(input.content);
    const now = nextVersion();
    const row: TranscriptRow = {
      namespace,
      thread_id: input.thread_id,
      agent,
      msg_id: msgId,
      ts: formatMicros(now),
      role: input.role,
      content: input.content,
      reasoning: input.reasoning ?? '',
      user_id: input.user_id ?? '',
      run_id: input.run_id ?? '',
      metadata: JSON.stringify(input.metadata ?? {}),
      tokens: input.tokens ?? null,
      is_high: isHigh,
      is_summary: false,
      is_saved: false,
      saved_at: null,
      deleted: false,
      deleted_at: null,
      created_at: formatMillis(),
      version: now,
    };
    const fenceToken = this.fence.mark(namespace, row.thread_id);
    const written = await this.transcripts.write(row);
    if (written.outcome === 'duplicate') return answer(false, 'duplicate');
    if (written.outcome === 'duplicate_unindexed') {
      // The earlier attempt stored the turn but not its vector (it died between the two
      // inserts): this retry finishes that work, from the stored text, and is still a duplicate.
      const stored = await this.transcripts.storedTurn(row);
      if (stored) await this.embedAndWrite(stored, agent, { sharedVectorExists: false, fenceToken });
      return answer(false, 'duplicate');
    }

    // A high turn is stored as written but never embedded: its text goes nowhere.
    if (isHigh || !EMBEDDED_ROLES.has(input.role)) return answer(true);
    const outcome = await this.embedAndWrite(row, agent, { sharedVectorExists: written.sharedVectorExists, fenceToken });
    return outcome === 'deleted' ? answer(false, 'deleted') : answer(true);
  }

  /** Embeds a stored turn's first 2,048 characters (fail-open) and writes its embedding row. */
  private async embedAndWrite(row: TranscriptRow, agent: string, state: { sharedVectorExists: boolean; fenceToken: number }): Promise<'written' | 'deleted'> {
    const text = firstChars(row.content, Limits.embedChars);
    const embedded = await this.embedder.embed([text]);
    const embeddingRow: EmbeddingRow = {
      namespace: row.namespace,
      thread_id: row.thread_id,
      msg_id: row.msg_id,
      agent,
      role: row.role,
      run_id: row.run_id,
      user_id: row.user_id,
      ts: row.ts,
      text,
      // Fail-open: the turn is kept, the error (or why the vector was unusable) stays on its
      // embedding row, and nothing retries it.
      ...embeddingColumns(embedded),
      // The lexical leg indexes the whole text, and a failed embed leaves it searchable by words.
      ...lexicalColumns(row.content),
      is_summary: false,
      is_saved: false,
      saved_at: null,
      deleted: false,
      deleted_at: null,
      created_at: formatMillis(),
      version: nextVersion(),
    };
    return this.embeddings.write({ row: embeddingRow, agent, ...state, turnVersion: Number(row.version) });
  }
}
