/**
 * A small read-through cache with a time to live and single-flight loads: when an entry
 * expires under load, one caller loads it and the others wait for that load, instead of every
 * concurrent caller querying storage at once.
 *
 * With `staleWhileRevalidate`, an expired entry is answered at once while one background load
 * replaces it: no caller waits on a reload. Only for values where being a load late is harmless
 * (tuning settings), never for a gate such as the recording switch or a token.
 */
export class RefreshingCache<K, V> {
  private readonly entries = new Map<K, { value: V; until: number }>();
  private readonly loading = new Map<K, Promise<V>>();
  /** Bumped by `set` and `delete`: a load begun before one may not overwrite what it wrote. */
  private generation = 0;

  constructor(
    private readonly ttlMs: number,
    private readonly load: (key: K) => Promise<V>,
    private readonly options: { staleWhileRevalidate?: boolean } = {},
  ) {}

  async get(key: K): Promise<V> {
    const entry = this.entries.get(key);
    if (entry && entry.until > Date.now()) return entry.value;
    if (entry && this.options.staleWhileRevalidate) {
      // A failed background load keeps the stale value; the next caller tries again.
      this.reload(key).catch(() => undefined);
      return entry.value;
    }
    return this.reload(key);
  }

  private reload(key: K): Promise<V> {
    let pending = this.loading.get(key);
    if (!pending) {
      const generation = this.generation;
      const load = this.load(key)
        .then((value) => {
          if (generation === this.generation) this.entries.set(key, { value, until: Date.now() + this.ttlMs });
          return value;
        })
        .finally(() => {
          if (this.loading.get(key) === load) this.loading.delete(key);
        });
      pending = load;
      this.loading.set(key, pending);
    }
    return pending;
  }

  /** Sets a value this process just wrote, so it reads its own write at once. */
  set(key: K, value: V): void {
    this.generation += 1;
    this.loading.delete(key);
    this.entries.set(key, { value, until: Date.now() + this.ttlMs });
  }

  /** Forgets an entry this process just changed in storage: the next read loads it anew. */
  delete(key: K): void {
    this.generation += 1;
    this.loading.delete(key);
    this.entries.delete(key);
  }
}
