import { EmbeddingProviderError, HashedEmbeddingProvider, type EmbeddingProvider } from '@loom/providers';

/**
 * An embedding provider for tests: the real hashed provider underneath, with a record of every
 * text it was sent, a switch to fail, and a gate to hold calls open.
 */
export class ControllableProvider implements EmbeddingProvider {
  readonly name = 'hashed';
  readonly inner = new HashedEmbeddingProvider();
  readonly received: string[] = [];
  failing = false;
  private gate: Promise<void> | undefined;
  private openGate: (() => void) | undefined;
  private entered: Array<() => void> = [];

  get model(): string {
    return this.inner.model;
  }
  get dims(): number {
    return this.inner.dims;
  }

  async embed(texts: readonly string[]): Promise<number[][]> {
    this.received.push(...texts);
    for (const notify of this.entered.splice(0)) notify();
    if (this.gate) await this.gate;
    if (this.failing) throw new EmbeddingProviderError('test provider: failing on purpose', true);
    return this.inner.embed(texts);
  }

  /** Holds every call until `release()`; resolves `whenCalled()` waiters as calls arrive. */
  hold(): void {
    this.gate = new Promise((resolve) => (this.openGate = resolve));
  }
  release(): void {
    this.openGate?.();
    this.gate = undefined;
  }
  whenCalled(): Promise<void> {
    return new Promise((resolve) => this.entered.push(resolve));
  }
  sawText(fragment: string): boolean {
    return this.received.some((t) => t.includes(fragment));
  }
}
