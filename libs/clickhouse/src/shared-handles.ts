/**
 * Values one process shares by key (an engine connection, a write-behind queue): created on
 * first use, closed when the last holder releases. Releasing twice is a no-op.
 */
export class SharedHandles<V> {
  private readonly entries = new Map<string, { value: V; refs: number }>();

  constructor(private readonly close: (value: V) => Promise<void>) {}

  get keys(): string[] {
    return [...this.entries.keys()];
  }

  acquire(key: string, create: () => V): { value: V; release: () => Promise<void> } {
    let entry = this.entries.get(key);
    if (!entry) {
      entry = { value: create(), refs: 0 };
      this.entries.set(key, entry);
    }
    const held = entry;
    held.refs += 1;
    let released = false;
    return {
      value: held.value,
      release: async () => {
        if (released) return;
        released = true;
        held.refs -= 1;
        if (held.refs === 0 && this.entries.get(key) === held) {
          this.entries.delete(key);
          await this.close(held.value);
        }
      },
    };
  }
}
