import { LoomError } from '@loom/contracts';

/**
 * A renewable, fenced lease on one key: while a holder keeps renewing it, nobody else can take
 * it; a holder that dies loses it after the TTL. `token` grows with every acquisition of a key,
 * so a write can carry it and a stale holder's late write can be told apart.
 */
export interface Lease {
  readonly key: string;
  /** Fencing token: strictly greater than the token of every earlier holder of this key. */
  readonly token: number;
  /** Aborted once the lease is known lost (a renewal failed or the TTL ran out) or released. */
  readonly signal: AbortSignal;
  /** Extends the lease by a full TTL; throws LeaseLostError when someone else holds it now. */
  renew(): Promise<void>;
  /** Gives the lease up at once. Releasing a lease already lost is a no-op. */
  release(): Promise<void>;
}

export interface AcquireOptions {
  /** How long to keep trying while another holder has it; 0 (the default) tries once. */
  waitMs?: number;
  /** Pause between tries while waiting. */
  pollMs?: number;
}

export interface LeaseManager {
  /** The lease, or undefined when another holder kept it for the whole wait. */
  acquire(key: string, options?: AcquireOptions): Promise<Lease | undefined>;
  /**
   * Whether someone holds the lease on `key` now (a live holder, renewing it). Reading only: it
   * never takes the lease, so a status view can ask without getting in a worker's way.
   */
  isHeld(key: string): Promise<boolean>;
  /** How long an unrenewed lease lasts. */
  readonly ttlMs: number;
  close(): Promise<void>;
}

/**
 * The lease store could not be asked at all (NATS down or not answering), as opposed to a key
 * another holder has. A 503 for ops that need the lease; the few writers that are safe without
 * it (append's, ADR 0026) tell the two apart and go on unfenced.
 */
export class LeasesUnreachableError extends LoomError {
  constructor(message: string, cause?: unknown) {
    super('unavailable', message, cause === undefined ? {} : { cause });
    this.name = 'LeasesUnreachableError';
  }
}

export class LeaseLostError extends Error {
  constructor(key: string) {
    super(`the lease on "${key}" was lost: another holder took it after it expired`);
    this.name = 'LeaseLostError';
  }
}

/**
 * Runs `work` under the lease on `key`, renewing it every third of the TTL. Answers
 * `{ acquired: false }` when the lease could not be taken within the wait; the work sees the
 * lease's signal and should stop writing once it aborts.
 */
export async function withLease<T>(
  leases: LeaseManager,
  key: string,
  work: (lease: Lease) => Promise<T>,
  options: AcquireOptions = {},
): Promise<{ acquired: true; value: T } | { acquired: false }> {
  const lease = await leases.acquire(key, options);
  if (!lease) return { acquired: false };
  const renewal = setInterval(() => {
    // A failed renewal aborts lease.signal; the work decides how to stop.
    lease.renew().catch(() => undefined);
  }, Math.max(10, Math.floor(leases.ttlMs / 3)));
  renewal.unref();
  try {
    return { acquired: true, value: await work(lease) };
  } finally {
    clearInterval(renewal);
    await lease.release();
  }
}

/**
 * A lease's abort signal, made only when someone asks for it: a release that aborts an
 * AbortController builds a DOMException with a stack, which measurably costs a hot path that
 * takes and releases a lease per batch and never looks at the signal.
 */
export class LazyAbort {
  private controller: AbortController | undefined;
  private reason: { value: unknown } | undefined;

  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.reason) this.controller.abort(this.reason.value);
    }
    return this.controller.signal;
  }

  get aborted(): boolean {
    return this.reason !== undefined;
  }

  abort(reason?: unknown): void {
    if (this.reason) return;
    this.reason = { value: reason };
    this.controller?.abort(reason);
  }
}

export async function pollUntil<T>(attempt: () => Promise<T | undefined>, options: AcquireOptions): Promise<T | undefined> {
  const deadline = Date.now() + (options.waitMs ?? 0);
  for (;;) {
    const value = await attempt();
    if (value !== undefined) return value;
    if (Date.now() >= deadline) return undefined;
    await new Promise((r) => setTimeout(r, Math.min(options.pollMs ?? 50, Math.max(1, deadline - Date.now()))));
  }
}

/** One key from several free-text parts (a namespace, a thread id), never ambiguous. */
export function leaseKey(...parts: string[]): string {
  return parts.map((p) => p.replace(/[%/]/g, (c) => (c === '%' ? '%25' : '%2F'))).join('/');
}
