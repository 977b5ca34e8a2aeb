import { formatMillis, type Storage } from '@loom/clickhouse';
import { LoomError, type DeleteThreadRequest, type DeleteThreadResponse } from '@loom/contracts';
import { nextVersion } from '@loom/platform';
import { settleEmbeddingRows } from '../compaction/embedding-retirement';
import type { ThreadFence } from '../fencing/thread-fence';
import type { ThreadLeases } from '../leases/thread-leases';
import { readLiveTurns } from '../stored-rows';
import type { ThreadMetaRepository } from '../threads/thread-meta.repository';

/**
 * conversation.delete: tombstones the calling agent's turns of one thread, the thread row and
 * the embedding rows, under the thread lease. A shared embedding row passes to another agent's
 * live copy of the turn instead, and rows of the thread whose own agent no longer holds the
 * turn are settled on the way (see `settleEmbeddingRows`).
 */
export class ThreadDeleteService {
  constructor(
    private readonly storage: Storage,
    private readonly meta: ThreadMetaRepository,
    private readonly leases: ThreadLeases,
    private readonly fence: ThreadFence,
  ) {}

  async delete(namespace: string, agent: string, input: DeleteThreadRequest): Promise<DeleteThreadResponse> {
    if (input.confirm_thread_id !== input.thread_id) {
      throw new LoomError('invalid_input', 'confirm_thread_id must equal thread_id; nothing was deleted', {
        fields: [{ field: 'confirm_thread_id', message: `must be "${input.thread_id}"` }],
      });
    }
    const threadId = input.thread_id;
    return this.leases.withThread({ namespace, thread_id: threadId }, async () => {
      const [turns, meta] = await Promise.all([readLiveTurns(this.storage, namespace, threadId, agent), this.meta.find(namespace, threadId)]);
      if (turns.length === 0 && !meta) throw new LoomError('not_found', `thread "${threadId}" has nothing of agent "${agent}" to delete in namespace "${namespace}"`);
      // An append of this thread mid-embed re-reads, finds its turn gone and writes no vector.
      this.fence.bump(namespace, threadId);
      const settled = await settleEmbeddingRows(this.storage, { namespace, threadId, agent, turns, orphans: true });
      const now = formatMillis();
      await this.storage.insert(
        this.storage.tables.conversations,
        turns.map((t) => ({ ...t, deleted: true, deleted_at: now, version: nextVersion() })),
      );
      if (meta) await this.meta.tombstone(meta);
      await this.storage.insert(this.storage.tables.conversationEmbeddings, settled);
      return {
        thread_id: threadId,
        deleted: true,
        turns_deleted: turns.length,
        embeddings_kept: settled.filter((r) => !r.deleted).length,
      };
    });
  }

}
