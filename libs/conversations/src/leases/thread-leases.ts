import { LoomError } from '@loom/contracts';
import { LeasesUnreachableError, leaseKey, withLease, type Lease, type LeaseManager } from '@loom/leases';

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
   * Runs a batch writer's `work` under the leases of the batch's threads: the threads free now
   * together, then each thread another writer held, one at a time once it is free. It never
   * waits while it holds a lease, so two batch writers cannot deadlock. Answers in input order.
   *
   * `unfenced`, where given, is what the writer does for items whose leases cannot be asked for
   * at all (NATS unreachable: LeasesUnreachableError); without it that is a 503. Only writers
   * that stay correct without the lease pass one (append's, ADR 0026). A failure of the work
   * itself is never turned into an unfenced write.
   */
  async forBatch<T, R>(items: T[], refOf: (item: T) => ThreadRef, work: (items: T[]) => Promise<R[]>, unfenced?: (items: T[]) => Promise<R[]>): Promise<R[]> {
    let taken: { held: Map<string, Lease>; busy: Set<string> };
    try {
      taken = await this.tryMany(items.map(refOf));
    } catch (error) {
      if (unfenced && error instanceof LeasesUnreachableError) return unfenced(items);
      throw error;
    }
    const { held, busy } = taken;
    const results = new Map<T, R>();
    try {
      const free = items.filter((i) => !busy.has(threadRefKey(refOf(i))));
      const done = await work(free);
      free.forEach((item, n) => results.set(item, done[n]!));
    } finally {
      await Promise.all([...held.values()].map((lease) => lease.release().catch(() => undefined)));
    }
    for (const key of busy) {
      const waiting = items.filter((i) => threadRefKey(refOf(i)) === key);
      const done = await this.withThreadOr(refOf(waiting[0]!), () => work(waiting), unfenced && (() => unfenced(waiting)));
      waiting.forEach((item, n) => results.set(item, done[n]!));
    }
    return items.map((item) => results.get(item)!);
  }

  /** withThread, or `unfenced` when the lease store cannot be asked (before or while waiting). */
  private async withThreadOr<R>(ref: ThreadRef, work: () => Promise<R>, unfenced: (() => Promise<R>) | undefined): Promise<R> {
    let started = false;
    try {
      return await this.withThread(ref, () => {
        started = true;
        return work();
      });
    } catch (error) {
      if (!started && unfenced && error instanceof LeasesUnreachableError) return unfenced();
      throw error;
    }
  }

  /** Takes the leases of these threads that are free now, without waiting; if any cannot be asked for, none is kept. */
  async tryMany(refs: ThreadRef[]): Promise<{ held: Map<string, Lease>; busy: Set<string> }> {
    const keys = [...new Set(refs.map(threadRefKey))];
    const taken = await Promise.allSettled(keys.map(async (key) => [key, await this.leases.acquire(key)] as const));
    const failure = taken.find((t): t is PromiseRejectedResult => t.status === 'rejected');
    if (failure) {
      const kept = taken.flatMap((t) => (t.status === 'fulfilled' && t.value[1] ? [t.value[1]] : []));
      await Promise.all(kept.map((lease) => lease.release().catch(() => undefined)));
      throw failure.reason;
    }
    const held = new Map<string, Lease>();
    const busy = new Set<string>();
    for (const t of taken) {
      if (t.status !== 'fulfilled') continue;
      const [key, lease] = t.value;
      if (lease) held.set(key, lease);
      else busy.add(key);
    }
    return { held, busy };
  }
}
