import type { KV, NatsConnection } from 'nats';
import { randomUUID } from 'node:crypto';
import { LazyAbort, LeaseLostError, LeasesUnreachableError, pollUntil, type AcquireOptions, type Lease, type LeaseManager } from './lease';

const encoder = new TextEncoder();

/** Every Loom lease lives in this bucket. Its TTL is fixed when the bucket is created, so all users share it. */
export const LEASE_BUCKET = 'loom_leases';
export const LEASE_TTL_MS = 30_000;

/**
 * Leases on a NATS KV bucket whose max age is the TTL: `create` succeeds for one caller only (the
 * acquire), `update` at the revision we hold is the renewal (a new message, so a new age), and a
 * holder that stops renewing loses the key when its message ages out. The stream sequence of
 * the holder's entry is the fencing token: it only grows.
 */
export class NatsKvLeaseManager implements LeaseManager {
  private kv: Promise<KV> | undefined;

  constructor(
    private readonly nc: NatsConnection,
    private readonly bucket = LEASE_BUCKET,
    readonly ttlMs = LEASE_TTL_MS,
    /**
     * Whether the connection is up now (the process's NatsLink knows). While it is not, an
     * acquire fails at once instead of waiting out JetStream's request timeout in the
     * reconnect buffer.
     */
    private readonly reachable: () => boolean = () => !nc.isClosed(),
  ) {}

  private bucketView(): Promise<KV> {
    this.kv ??= this.nc.jetstream().views.kv(this.bucket, { ttl: this.ttlMs, history: 1 });
    return this.kv;
  }

  acquire(key: string, options: AcquireOptions = {}): Promise<Lease | undefined> {
    return pollUntil(() => this.tryAcquire(key), { pollMs: 100, ...options });
  }

  async isHeld(key: string): Promise<boolean> {
    if (!this.reachable()) throw new LeasesUnreachableError('leases are unavailable: the connection to NATS is down; retry once it is back');
    try {
      const entry = await (await this.bucketView()).get(encodeKey(key));
      // A holder that stopped renewing has aged out of the bucket (no entry); a release deletes it.
      return entry !== null && entry.operation === 'PUT';
    } catch (error) {
      this.kv = undefined;
      throw new LeasesUnreachableError(`leases are unavailable: NATS did not answer (${(error as Error).message}); retry once it is back`, error);
    }
  }

  private async tryAcquire(key: string): Promise<Lease | undefined> {
    if (!this.reachable()) throw new LeasesUnreachableError('leases are unavailable: the connection to NATS is down; retry once it is back');
    const holder = encoder.encode(randomUUID());
    let revision: number;
    try {
      const kv = await this.bucketView();
      revision = await kv.create(encodeKey(key), holder);
    } catch (error) {
      if (isWrongSequence(error)) return undefined;
      // The bucket could not be asked (NATS down or not answering): a dependency is down, so
      // the op answers 503 and may be retried, never 500.
      this.kv = undefined;
      throw new LeasesUnreachableError(`leases are unavailable: NATS did not answer (${(error as Error).message}); retry once it is back`, error);
    }
    const kv = await this.bucketView();
    const token = revision;
    const controller = new LazyAbort();
    return {
      key,
      token,
      get signal() {
        return controller.signal;
      },
      renew: async () => {
        try {
          revision = await kv.update(encodeKey(key), holder, revision);
        } catch (error) {
          if (!isWrongSequence(error)) throw error;
          controller.abort(new LeaseLostError(key));
          throw new LeaseLostError(key);
        }
      },
      release: async () => {
        if (controller.aborted) return;
        controller.abort();
        // Only our own entry: after an expiry the key may be someone else's now.
        await kv.delete(encodeKey(key), { previousSeq: revision }).catch((error: unknown) => {
          if (!isWrongSequence(error)) throw error;
        });
      },
    };
  }

  async close(): Promise<void> {
    this.kv = undefined;
  }
}

/**
 * KV keys allow few characters and treat `.` as a token separator; lease keys hold free text
 * (thread ids), so every character outside [-_a-zA-Z0-9] becomes `=` and its UTF-8 bytes in hex.
 * A lone surrogate has no UTF-8 (Buffer would write U+FFFD's bytes, the same as for U+FFFD
 * itself), so it becomes `=u` and its code unit: two different ids never share a lease.
 */
export function encodeKey(key: string): string {
  return key.replace(/[^-_a-zA-Z0-9]/gu, (c) => (isLoneSurrogate(c) ? `=u${c.charCodeAt(0).toString(16)}` : `=${Buffer.from(c).toString('hex')}`));
}

function isLoneSurrogate(c: string): boolean {
  const unit = c.charCodeAt(0);
  return c.length === 1 && unit >= 0xd800 && unit <= 0xdfff;
}

function isWrongSequence(error: unknown): boolean {
  const message = (error as Error | undefined)?.message ?? '';
  return /wrong last sequence|key exists/i.test(message) || (error as { api_error?: { err_code?: number } }).api_error?.err_code === 10071;
}
