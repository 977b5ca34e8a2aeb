/**
 * Tells an append whether anything may have tombstoned turns of its thread while its embedding
 * ran, so that the re-read before the vector is written can be skipped when nothing could have.
 *
 * Every write that tombstones turns (delete, compaction's retirement, unsave, erasure) must
 * `bump` the thread first. In one process (the embedded topology) this is exact. Where other
 * processes write too (the split topology), use `StorageCheckedFence`, which always asks
 * storage; the NATS KV thread lease will carry the same fence across processes.
 */
export interface ThreadFence {
  /** A token for the thread's state now. */
  mark(namespace: string, threadId: string): number;
  /** True when the thread may have been tombstoned since `mark` returned `token`. */
  mayHaveChanged(namespace: string, threadId: string, token: number): boolean;
  /** Records that turns of the thread are being tombstoned. */
  bump(namespace: string, threadId: string): void;
}

/** Exact when this process is the only writer. */
export class InProcessThreadFence implements ThreadFence {
  private readonly epochs = new Map<string, number>();

  mark(namespace: string, threadId: string): number {
    return this.epochs.get(key(namespace, threadId)) ?? 0;
  }

  mayHaveChanged(namespace: string, threadId: string, token: number): boolean {
    return this.mark(namespace, threadId) !== token;
  }

  bump(namespace: string, threadId: string): void {
    const k = key(namespace, threadId);
    this.epochs.set(k, (this.epochs.get(k) ?? 0) + 1);
  }
}

/** For topologies with more than one writer: always re-read. */
export class StorageCheckedFence implements ThreadFence {
  mark(): number {
    return 0;
  }
  mayHaveChanged(): boolean {
    return true;
  }
  bump(): void {}
}

function key(namespace: string, threadId: string): string {
  return `${namespace}\u0000${threadId}`;
}
