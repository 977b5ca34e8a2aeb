import { formatMillis } from '@loom/clickhouse';
import {
  LoomError,
  type CreateThreadRequest,
  type CreateThreadResponse,
  type GetThreadResponse,
  type UpdateThreadRequest,
} from '@loom/contracts';
import { newId } from '@loom/platform';
import type { ThreadLeases } from '../leases/thread-leases';
import type { RecordingService } from '../recording/recording.service';
import type { TurnsRepository } from '../read/turns.repository';
import { toThreadView } from '../read/views';
import type { ThreadMetaRepository } from './thread-meta.repository';

/** conversation.create and conversation.update: a thread's title, metadata and run_id. */
export class ThreadsService {
  constructor(
    private readonly meta: ThreadMetaRepository,
    private readonly turns: TurnsRepository,
    private readonly recording: RecordingService,
    private readonly leases: ThreadLeases,
  ) {}

  async create(namespace: string, input: CreateThreadRequest): Promise<CreateThreadResponse> {
    const threadId = input.thread_id ?? newId('thr_');
    // Like append: a namespace that does not record keeps nothing, not even a thread's title.
    if (!(await this.recording.isRecording(namespace))) return { created: false, reason: 'logging_disabled', thread_id: threadId };
    // Check and write under the thread's lease: of creates racing on one id exactly one writes,
    // and the others see its row and answer 409 (its title is never overwritten).
    return this.leases.withThread({ namespace, thread_id: threadId }, () => this.createHeld(namespace, threadId, input));
  }

  private async createHeld(namespace: string, threadId: string, input: CreateThreadRequest): Promise<CreateThreadResponse> {
    const [existing, stats] = await Promise.all([this.meta.find(namespace, threadId), this.turns.stats(namespace, threadId, '*')]);
    if (existing || stats.turn_count > 0) {
      throw new LoomError('conflict', `thread "${threadId}" already exists; change it with conversation.update`);
    }
    await this.meta.write({
      namespace,
      thread_id: threadId,
      title: input.title ?? '',
      metadata: JSON.stringify(input.metadata ?? {}),
      run_id: input.run_id ?? '',
      created_at: formatMillis(),
    });
    return { created: true, thread_id: threadId };
  }

  async update(namespace: string, input: UpdateThreadRequest): Promise<GetThreadResponse> {
    if (input.title === undefined && input.metadata === undefined && input.run_id === undefined) {
      throw new LoomError('invalid_input', 'give at least one of title, metadata, run_id', {
        fields: [{ field: 'title', message: 'nothing to update' }],
      });
    }
    // Under the lease, as create: an update never lands between a create's check and its write.
    return this.leases.withThread({ namespace, thread_id: input.thread_id }, () => this.updateHeld(namespace, input));
  }

  private async updateHeld(namespace: string, input: UpdateThreadRequest): Promise<GetThreadResponse> {
    const [existing, stats] = await Promise.all([this.meta.find(namespace, input.thread_id), this.turns.stats(namespace, input.thread_id, '*')]);
    if (!existing && stats.turn_count === 0) throw new LoomError('not_found', `thread "${input.thread_id}" does not exist in namespace "${namespace}"`);
    const row = {
      namespace,
      thread_id: input.thread_id,
      title: input.title ?? existing?.title ?? '',
      // New metadata replaces the old as a whole, and with it any mark a worker left there.
      metadata: input.metadata !== undefined ? JSON.stringify(input.metadata) : (existing?.metadata ?? '{}'),
      run_id: input.run_id ?? existing?.run_id ?? '',
      created_at: existing?.created_at ?? formatMillis(),
    };
    await this.meta.write(row);
    return { thread: toThreadView(namespace, input.thread_id, { ...row, updated_at: formatMillis(), deleted: false }, stats) };
  }
}
