import { MicroBatcher } from './micro-batcher';

describe('MicroBatcher', () => {
  it('runs a lone item at once and answers it', async () => {
    const runs: number[][] = [];
    const batcher = new MicroBatcher<number, number>(async (items) => (runs.push(items), items.map((i) => i * 2)), { maxItems: 10, lingerMs: 0, maxConcurrent: 1 });
    await expect(batcher.submit(21)).resolves.toBe(42);
    expect(runs).toEqual([[21]]);
  });

  it('groups items that arrive while a run is in flight, in order', async () => {
    const runs: number[][] = [];
    let release: () => void = () => undefined;
    const gate = new Promise<void>((r) => (release = r));
    const batcher = new MicroBatcher<number, number>(
      async (items) => {
        runs.push(items);
        if (runs.length === 1) await gate;
        return items;
      },
      { maxItems: 100, lingerMs: 0, maxConcurrent: 1 },
    );
    const first = batcher.submit(0);
    await Promise.resolve();
    const rest = [1, 2, 3, 4].map((i) => batcher.submit(i));
    release();
    await expect(Promise.all([first, ...rest])).resolves.toEqual([0, 1, 2, 3, 4]);
    expect(runs).toEqual([[0], [1, 2, 3, 4]]);
  });

  it('splits at maxItems and fails only the items of a failed run', async () => {
    const batcher = new MicroBatcher<number, number>(
      async (items) => {
        if (items.includes(3)) throw new Error('boom');
        return items;
      },
      { maxItems: 2, lingerMs: 0, maxConcurrent: 4 },
    );
    const results = await Promise.allSettled([1, 2, 3, 4, 5].map((i) => batcher.submit(i)));
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'rejected', 'fulfilled']);
  });
});
