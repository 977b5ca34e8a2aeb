import type { NatsConnection } from 'nats';
import { randomUUID } from 'node:crypto';

const BUCKET = 'loom_locks';
/** A holder that dies keeps the lock at most this long (the bucket's TTL). */
const LOCK_TTL_MS = 5 * 60_000;

/**
 * A cluster-wide lock on NATS KV: `create` succeeds for one caller only, so it is the acquire;
 * delete is the release. Used so two starting gateways (or a gateway and the migrate Job)
 * never run migrations at once.
 */
export class NatsKvLock {
  constructor(
    private readonly nc: NatsConnection,
    private readonly options: { waitMs?: number; pollMs?: number } = {},
  ) {}

  async acquire(name: string): Promise<() => Promise<void>> {
    const kv = await this.nc.jetstream().views.kv(BUCKET, { ttl: LOCK_TTL_MS, history: 1 });
    const owner = randomUUID();
    const deadline = Date.now() + (this.options.waitMs ?? 10 * 60_000);
    for (;;) {
      try {
        await kv.create(name, new TextEncoder().encode(owner));
        break;
      } catch (error) {
        if (Date.now() > deadline) {
          throw new Error(`could not take the "${name}" lock within ${this.options.waitMs ?? 600_000} ms; another process holds it (it expires ${LOCK_TTL_MS / 1000} s after its holder dies)`, { cause: error });
        }
        await new Promise((r) => setTimeout(r, this.options.pollMs ?? 250));
      }
    }
    return async () => {
      const entry = await kv.get(name);
      // Release only our own hold: after a TTL expiry someone else may hold it now.
      if (entry && new TextDecoder().decode(entry.value) === owner) await kv.delete(name);
    };
  }
}
