import { LoomError } from '@loom/contracts';
import { leaseKey, withLease, type Lease, type LeaseManager } from '@loom/leases';

export interface ThreadRef {
  namespace: string;
  thread_id: string;
}

export function threadRefKey(ref: ThreadRef): string {
  return leaseKey('thread', ref.namespace, ref.thread_id);
}

/**
 * The renewable per-thread lease that append's embedding write, compaction's retirement step,
 * save, unsave and delete share, so their writes on one thread never interleave. Provider
 * calls (embedding, the summarizer) happen before it is taken, never under it.
 */
export class ThreadLeases {
  constructor(
    private readonly leases: LeaseManager,
    /** How long a writer waits for a thread another writer holds. */
    private readonly waitMs = 30_000,
  ) {}

  /** Runs `work` holding the thread's lease, waiting for it; 503 when it stays held. */
  async withThread<T>(ref: ThreadRef, work: (lease: Lease) => Promise<T>): Promise<T> {
    const outcome = await withLease(this.leases, threadRefKey(ref), work, { waitMs: this.waitMs, pollMs: 10 });
    if (!outcome.acquired) {
      throw new LoomError('unavailable', `thread "${ref.thread_id}" stayed busy for ${this.waitMs} ms (another write holds it); retry`);
    }
    return outcome.value;
  }

  /**
   * Takes the leases of these threads that are free now, without waiting: a batch writer never
   * waits while it holds others, so two batch writers cannot deadlock.
   */
  async tryMany(refs: ThreadRef[]): Promise<{ held: Map<string, Lease>; busy: Set<string> }> {
    const keys = [...new Set(refs.map(threadRefKey))];
    const taken = await Promise.all(keys.map(async (key) => [key, await this.leases.acquire(key)] as const));
    const held = new Map<string, Lease>();
    const busy = new Set<string>();
    for (const [key, lease] of taken) {
      if (lease) held.set(key, lease);
      else busy.add(key);
    }
    return { held, busy };
  }
}
