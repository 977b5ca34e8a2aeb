import { formatMicros, formatMillis, toIso, type Storage } from '@loom/clickhouse';
import {
  Limits,
  LoomError,
  type ListSavedMessagesRequest,
  type ListSavedMessagesResponse,
  type SavedStatusRequest,
  type SavedStatusResponse,
  type SaveMessageRequest,
  type SaveMessageResponse,
  type SaveReason,
  type UnsaveMessageRequest,
  type UnsaveMessageResponse,
} from '@loom/contracts';
import { nextVersion, type LoomMetrics } from '@loom/platform';
import { readsAsHigh } from '@loom/sensitivity';
import type { EmbedOutcome, EmbeddingClient } from '../embedding/embedding.client';
import { embeddingColumns } from '../embedding/embedding-columns';
import { safeExcerpt } from '../excerpt';
import type { ThreadFence } from '../fencing/thread-fence';
import type { ThreadLeases } from '../leases/thread-leases';
import type { RecordingService } from '../recording/recording.service';
import type { EmbeddingRow, TranscriptRow } from '../rows';
import type { LiveSettingsService } from '../settings/live-settings.service';
import { lexicalColumns } from '../lexical/lexical-columns';
import { firstChars } from '../text';
import { decodePosition, encodePosition } from '../cursor';
import { readEmbeddingRow, readTranscriptRow, type MessageRef } from '../stored-rows';

const SAVABLE_ROLES = new Set(['user', 'assistant']);
const LIST_DEFAULT = 50;
const LIST_MAX = 200;

/**
 * conversation.save_message, unsave_message, list_saved_messages and saved_status: one user's
 * opt-in to keep single messages findable, whether or not the namespace records transcripts.
 * A saved message is a transcript row (and its embedding row) flagged `is_saved`; the
 * transcript row's `user_id` owns it. Saves and unsaves run under the thread lease, so the
 * ownership check and the flag are one step no other writer of the thread can split.
 */
export class SavedMessagesService {
  constructor(
    private readonly storage: Storage,
    private readonly embedder: EmbeddingClient,
    private readonly leases: ThreadLeases,
    private readonly fence: ThreadFence,
    private readonly recording: RecordingService,
    private readonly settings: LiveSettingsService,
    private readonly metrics?: LoomMetrics,
  ) {}

  async save(namespace: string, agent: string, userId: string, input: SaveMessageRequest): Promise<SaveMessageResponse> {
    if (input.content !== undefined && Buffer.byteLength(input.content, 'utf8') > Limits.maxContentBytes) {
      throw new LoomError('payload_too_large', `content is over ${Limits.maxContentBytes} bytes`, { fields: [{ field: 'content', message: 'over 1 MiB' }] });
    }
    const ref: MessageRef = { namespace, thread_id: input.conversation_id, agent, msg_id: input.message_id };
    const refuse = (reason: SaveReason, saved = false): SaveMessageResponse => {
      this.metrics?.savedOutcomes.inc({ op: 'save', outcome: reason });
      return { indexed: false, reason, saved, conversation_id: ref.thread_id, message_id: ref.msg_id };
    };

    // Before the lease: the checks that need no lock, and the embedding (provider work never runs under it).
    const seen = await readTranscriptRow(this.storage, ref);
    const early = seen ? this.refusal(seen, userId) : this.newMessageRefusal(input);
    if (early) return refuse(early);
    const text = firstChars(seen ? seen.content : input.content!, Limits.embedChars);
    const vectorBefore = await readEmbeddingRow(this.storage, ref);
    let embedded: EmbedOutcome | undefined = needsVector(vectorBefore) ? await this.embedder.embed([text]) : undefined;

    return this.leases.withThread(ref, async () => {
      const row = await readTranscriptRow(this.storage, ref);
      const reason = row ? this.refusal(row, userId) : this.newMessageRefusal(input);
      if (reason) return refuse(reason);
      // An append mid-embed on this thread re-reads, and flags its own vector (SAVE-RETRY-06).
      this.fence.bump(ref.namespace, ref.thread_id);
      const savedAt = row?.is_saved && row.user_id === userId && row.saved_at ? row.saved_at : formatMillis();
      if (!row) {
        await this.storage.insert(this.storage.tables.conversations, [this.newRow(ref, userId, input, savedAt)]);
      } else if (!row.is_saved || row.user_id !== userId || !row.saved_at) {
        // Flagged in place: content and run_id stay as recorded; an unowned row is claimed.
        await this.storage.insert(this.storage.tables.conversations, [{ ...row, user_id: userId, is_saved: true, saved_at: savedAt, version: nextVersion() }]);
      }
      // The embedding row is flagged only once the transcript row reads back as this user's.
      const stored = await readTranscriptRow(this.storage, ref);
      if (!stored || stored.deleted || stored.user_id !== userId || !stored.is_saved) return refuse('owner_mismatch');

      const vector = await readEmbeddingRow(this.storage, ref);
      if (needsVector(vector)) {
        // The state changed since the first read (rare): embed now.
        embedded ??= await this.embedder.embed([firstChars(stored.content, Limits.embedChars)]);
        await this.storage.insert(this.storage.tables.conversationEmbeddings, [this.embeddingRow(stored, embedded, vector)]);
        if (!embedded.ok) return refuse('embed_failed', true);
      } else if (vector && (!vector.is_saved || vector.saved_at !== stored.saved_at || vector.user_id !== userId)) {
        await this.storage.insert(this.storage.tables.conversationEmbeddings, [
          { ...vector, is_saved: true, saved_at: stored.saved_at, user_id: userId, version: nextVersion() },
        ]);
      }
      this.metrics?.savedOutcomes.inc({ op: 'save', outcome: 'saved' });
      return { indexed: true, saved: true, conversation_id: ref.thread_id, message_id: ref.msg_id, saved_at: toIso(stored.saved_at)! };
    });
  }

  async unsave(namespace: string, agent: string, userId: string, input: UnsaveMessageRequest): Promise<UnsaveMessageResponse> {
    const ref: MessageRef = { namespace, thread_id: input.conversation_id, agent, msg_id: input.message_id };
    const answer = (found: boolean, removed?: boolean): UnsaveMessageResponse => {
      this.metrics?.savedOutcomes.inc({ op: 'unsave', outcome: !found ? 'not_found' : removed ? 'removed' : 'unsaved' });
      return {
      found,
      ...(removed === undefined ? {} : { removed }),
      conversation_id: ref.thread_id,
      message_id: ref.msg_id,
      };
    };
    return this.leases.withThread(ref, async () => {
      const row = await readTranscriptRow(this.storage, ref);
      // Never saved, or saved by someone else: the same answer, so it never says which.
      if (!row || row.deleted || !row.is_saved || row.user_id !== userId) return answer(false);
      const recording = await this.recording.isRecording(namespace);
      const vector = await readEmbeddingRow(this.storage, ref);
      this.fence.bump(ref.namespace, ref.thread_id);
      if (recording) {
        // The owner chose to record: the turn stays, unflagged, and its vector stays for conversation.search.
        await this.storage.insert(this.storage.tables.conversations, [{ ...row, is_saved: false, saved_at: null, version: nextVersion() }]);
        if (vector && !vector.deleted) {
          await this.storage.insert(this.storage.tables.conversationEmbeddings, [{ ...vector, is_saved: false, saved_at: null, version: nextVersion() }]);
        }
        return answer(true, false);
      }
      // The turn existed only because of the save: it leaves the transcript (a lightweight
      // delete, so saving it again stores it afresh), and its vector keeps a tombstone so no
      // older version of the row can come back.
      await this.storage.command(
        `DELETE FROM ${this.storage.tables.conversations}
         WHERE namespace = {ns:String} AND thread_id = {thread:String} AND agent = {agent:String} AND msg_id = {msg:String}`,
        { ns: ref.namespace, thread: ref.thread_id, agent: ref.agent, msg: ref.msg_id },
      );
      if (vector && !vector.deleted) {
        await this.storage.insert(this.storage.tables.conversationEmbeddings, [
          { ...vector, is_saved: false, saved_at: null, deleted: true, deleted_at: formatMillis(), version: nextVersion() },
        ]);
      }
      return answer(true, true);
    });
  }

  async list(namespace: string, userId: string, input: ListSavedMessagesRequest): Promise<ListSavedMessagesResponse> {
    const limit = Math.min(input.limit ?? LIST_DEFAULT, LIST_MAX);
    const chars = await this.settings.get('conversation_search_excerpt_chars');
    const after = input.cursor !== undefined ? (decodePosition(input.cursor, 4, /^\d{4}-\d{2}-\d{2} /) as [string, string, string, string]) : undefined;
    const rows = await this.storage.query<{
      thread_id: string;
      msg_id: string;
      agent: string;
      role: TranscriptRow['role'];
      head: string;
      is_high: boolean | number;
      ts: string;
      sort_ts: string;
    }>(
      `SELECT thread_id, msg_id, agent, role, substringUTF8(content, 1, {head:UInt32}) AS head, is_high, ts, sort_ts
       FROM (
         SELECT *, ifNull(saved_at, toDateTime64(ts, 3, 'UTC')) AS sort_ts
         FROM ${this.storage.tables.conversations} FINAL
         WHERE namespace = {ns:String} AND user_id = {user:String} AND is_saved AND deleted = 0
           ${input.conversation_id !== undefined ? 'AND thread_id = {conv:String}' : ''}
       )
       ${after ? "WHERE (sort_ts, thread_id, agent, msg_id) < ({a0:DateTime64(3, 'UTC')}, {a1:String}, {a2:String}, {a3:String})" : ''}
       ORDER BY sort_ts DESC, thread_id DESC, agent DESC, msg_id DESC
       LIMIT {limit:UInt32}`,
      {
        ns: namespace,
        user: userId,
        conv: input.conversation_id ?? '',
        head: chars + Limits.excerptLookaheadChars,
        limit: limit + 1,
        ...(after ? { a0: after[0], a1: after[1], a2: after[2], a3: after[3] } : {}),
      },
    );
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return {
      messages: page.map((r) => ({
        conversation_id: r.thread_id,
        message_id: r.msg_id,
        agent: r.agent,
        role: r.role,
        ts: toIso(r.sort_ts)!,
        message_ts: toIso(r.ts)!,
        // A high message an earlier build saved is listed, but never shows its text.
        excerpt: r.is_high ? '' : safeExcerpt(r.head, chars),
      })),
      next_cursor: rows.length > limit && last ? encodePosition([last.sort_ts, last.thread_id, last.agent, last.msg_id]) : null,
    };
  }

  async status(namespace: string, userId: string, input: SavedStatusRequest): Promise<SavedStatusResponse> {
    const rows = await this.storage.query<{ msg_id: string }>(
      `SELECT DISTINCT msg_id FROM ${this.storage.tables.conversations} FINAL
       WHERE namespace = {ns:String} AND thread_id = {conv:String} AND msg_id IN {ids:Array(String)}
         AND user_id = {user:String} AND is_saved AND deleted = 0`,
      { ns: namespace, conv: input.conversation_id, ids: input.message_ids, user: userId },
    );
    const saved = new Set(rows.map((r) => r.msg_id));
    return { conversation_id: input.conversation_id, saved: Object.fromEntries(input.message_ids.map((id) => [id, saved.has(id)])) };
  }

  /** The checks every save runs, on a stored row, in the spec's order. */
  private refusal(row: TranscriptRow, userId: string): SaveReason | undefined {
    if (row.deleted) return 'deleted';
    if (row.user_id !== '' && row.user_id !== userId) return 'owner_mismatch';
    if (!SAVABLE_ROLES.has(row.role)) return 'unsupported_role';
    if (row.is_high || readsAsHigh(row.content)) return 'high_sensitivity';
    return undefined;
  }

  /** A message the transcript does not hold: it needs its role and content, and the same checks. */
  private newMessageRefusal(input: SaveMessageRequest): SaveReason | undefined {
    const missing = [...(input.role === undefined ? ['role'] : []), ...(input.content === undefined ? ['content'] : [])];
    if (missing.length > 0) {
      throw new LoomError('invalid_input', `message "${input.message_id}" is not stored in "${input.conversation_id}": send its role and content to save it`, {
        fields: missing.map((field) => ({ field, message: 'required for a message not yet stored' })),
      });
    }
    if (!SAVABLE_ROLES.has(input.role!)) return 'unsupported_role';
    if (readsAsHigh(input.content!)) return 'high_sensitivity';
    return undefined;
  }

  private newRow(ref: MessageRef, userId: string, input: SaveMessageRequest, savedAt: string): TranscriptRow {
    const version = nextVersion();
    return {
      namespace: ref.namespace,
      thread_id: ref.thread_id,
      agent: ref.agent,
      msg_id: ref.msg_id,
      ts: formatMicros(version),
      role: input.role!,
      content: input.content!,
      reasoning: '',
      user_id: userId,
      run_id: input.run_id ?? '',
      metadata: '{}',
      tokens: null,
      is_high: false,
      is_summary: false,
      is_saved: true,
      saved_at: savedAt,
      deleted: false,
      deleted_at: null,
      created_at: formatMillis(),
      version,
    };
  }

  private embeddingRow(row: TranscriptRow, embedded: EmbedOutcome, previous: EmbeddingRow | undefined): EmbeddingRow {
    return {
      namespace: row.namespace,
      thread_id: row.thread_id,
      msg_id: row.msg_id,
      agent: row.agent,
      role: row.role,
      run_id: row.run_id,
      user_id: row.user_id,
      ts: row.ts,
      text: firstChars(row.content, Limits.embedChars),
      ...embeddingColumns(embedded),
      ...lexicalColumns(row.content),
      is_summary: false,
      is_saved: true,
      saved_at: row.saved_at,
      deleted: false,
      deleted_at: null,
      created_at: formatMillis(),
      version: nextVersion(),
      // A new version over a row another agent owned changes its filter columns.
      filters_changed: Boolean(previous?.filters_changed) || (previous !== undefined && previous.agent !== row.agent),
    };
  }
}

/** A save writes a vector when the row is missing, tombstoned (re-saved after an unsave) or failed. */
function needsVector(row: EmbeddingRow | undefined): boolean {
  return !row || Boolean(row.deleted) || row.embed_error !== '';
}
