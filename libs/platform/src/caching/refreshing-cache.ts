/**
 * A small read-through cache with a time to live and single-flight loads: when an entry
 * expires under load, one caller loads it and the others wait for that load, instead of every
 * concurrent caller querying storage at once.
 */
export class RefreshingCache<K, V> {
  private readonly entries = new Map<K, { value: V; until: number }>();
  private readonly loading = new Map<K, Promise<V>>();

  constructor(
    private readonly ttlMs: number,
    private readonly load: (key: K) => Promise<V>,
  ) {}

  async get(key: K): Promise<V> {
    const entry = this.entries.get(key);
    if (entry && entry.until > Date.now()) return entry.value;
    let pending = this.loading.get(key);
    if (!pending) {
      pending = this.load(key)
        .then((value) => {
          this.entries.set(key, { value, until: Date.now() + this.ttlMs });
          return value;
        })
        .finally(() => this.loading.delete(key));
      this.loading.set(key, pending);
    }
    return pending;
  }

  /** Sets a value this process just wrote, so it reads its own write at once. */
  set(key: K, value: V): void {
    this.entries.set(key, { value, until: Date.now() + this.ttlMs });
  }

  delete(key: K): void {
    this.entries.delete(key);
  }
}
