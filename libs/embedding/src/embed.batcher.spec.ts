import { LoomMetrics } from '@loom/platform';
import type { EmbeddingProvider } from '@loom/providers';
import { EmbedBatcher } from './embed.batcher';

/** A provider whose calls wait until released, so the test can look at the load mid-flight. */
function heldProvider(): { provider: EmbeddingProvider; release(): void; calls: number[] } {
  const waiting: Array<() => void> = [];
  const calls: number[] = [];
  const provider: EmbeddingProvider = {
    name: 'held',
    model: 'held-1',
    dims: 2,
    embed: async (texts) => {
      calls.push(texts.length);
      await new Promise<void>((r) => waiting.push(r));
      if (texts.includes('fail')) throw new Error('provider down');
      return texts.map(() => [1, 0]);
    },
  };
  return { provider, calls, release: () => waiting.splice(0).forEach((r) => r()) };
}

const sample = (text: string, name: string): number | undefined => {
  const m = new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(text);
  return m ? Number(m[1]) : undefined;
};

describe('EmbedBatcher metrics [issue 11: operators scale the embedder on its own]', () => {
  it('exports queue depth, provider calls in flight and the concurrency limit at scrape time, and provider latency as a histogram by outcome', async () => {
    const metrics = new LoomMetrics('embedder', { defaultMetrics: false });
    const held = heldProvider();
    const batcher = new EmbedBatcher(held.provider, { maxBatch: 2, lingerMs: 0, concurrency: 1 }, metrics);
    const first = batcher.embed(['a', 'b']);
    await new Promise((r) => setImmediate(r));
    const rest = batcher.embed(['c', 'd', 'e']);
    await new Promise((r) => setImmediate(r));

    const busy = await metrics.registry.metrics();
    expect(sample(busy, 'loom_embedder_in_flight')).toBe(1);
    expect(sample(busy, 'loom_embedder_queue_depth')).toBe(3);
    expect(sample(busy, 'loom_embedder_concurrency')).toBe(1);

    for (let i = 0; i < 3; i++) {
      held.release();
      await new Promise((r) => setImmediate(r));
    }
    await Promise.all([first, rest]);
    const idle = await metrics.registry.metrics();
    expect(sample(idle, 'loom_embedder_in_flight')).toBe(0);
    expect(sample(idle, 'loom_embedder_queue_depth')).toBe(0);
    expect(held.calls).toEqual([2, 2, 1]);
    expect(idle).toMatch(/^loom_embed_provider_duration_seconds_count\{[^}]*outcome="ok"[^}]*\} 3$/m);

    const failing = batcher.embed(['fail']);
    await new Promise((r) => setImmediate(r));
    held.release();
    await expect(failing).rejects.toThrow('provider down');
    expect(await metrics.registry.metrics()).toMatch(/^loom_embed_provider_duration_seconds_count\{[^}]*outcome="failed"[^}]*\} 1$/m);
  });
});
