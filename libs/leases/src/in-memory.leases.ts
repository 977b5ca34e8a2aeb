import { LazyAbort, LeaseLostError, pollUntil, type AcquireOptions, type Lease, type LeaseManager } from './lease';

interface Holding {
  token: number;
  expiresAt: number;
}

/** The embedded backend: one process is the only holder that can exist, so a map is exact. */
export class InMemoryLeaseManager implements LeaseManager {
  private readonly holdings = new Map<string, Holding>();
  private lastToken = 0;

  constructor(readonly ttlMs = 30_000, private readonly now: () => number = Date.now) {}

  acquire(key: string, options: AcquireOptions = {}): Promise<Lease | undefined> {
    return pollUntil(async () => this.tryAcquire(key), options);
  }

  async isHeld(key: string): Promise<boolean> {
    const held = this.holdings.get(key);
    return held !== undefined && held.expiresAt > this.now();
  }

  private tryAcquire(key: string): Lease | undefined {
    const held = this.holdings.get(key);
    if (held && held.expiresAt > this.now()) return undefined;
    const holding = { token: ++this.lastToken, expiresAt: this.now() + this.ttlMs };
    this.holdings.set(key, holding);
    const controller = new LazyAbort();
    const mine = (): boolean => {
      const current = this.holdings.get(key);
      return current?.token === holding.token && current.expiresAt > this.now();
    };
    return {
      key,
      token: holding.token,
      get signal() {
        return controller.signal;
      },
      renew: async () => {
        if (!mine()) {
          controller.abort(new LeaseLostError(key));
          throw new LeaseLostError(key);
        }
        holding.expiresAt = this.now() + this.ttlMs;
      },
      release: async () => {
        if (this.holdings.get(key)?.token === holding.token) this.holdings.delete(key);
        controller.abort();
      },
    };
  }

  async close(): Promise<void> {
    this.holdings.clear();
  }
}
