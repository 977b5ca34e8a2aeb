import { RefreshingCache } from './refreshing-cache';

describe('RefreshingCache', () => {
  it('loads once for many concurrent callers, then serves from cache until the TTL passes', async () => {
    let loads = 0;
    const cache = new RefreshingCache<string, number>(50, async () => {
      loads += 1;
      await new Promise((r) => setTimeout(r, 10));
      return loads;
    });
    const values = await Promise.all(Array.from({ length: 64 }, () => cache.get('k')));
    expect(new Set(values)).toEqual(new Set([1]));
    expect(loads).toBe(1);
    await new Promise((r) => setTimeout(r, 60));
    expect(await cache.get('k')).toBe(2);
  });

  it('does not cache a failed load', async () => {
    let calls = 0;
    const cache = new RefreshingCache<string, number>(1000, async () => {
      calls += 1;
      if (calls === 1) throw new Error('down');
      return 7;
    });
    await expect(cache.get('k')).rejects.toThrow('down');
    expect(await cache.get('k')).toBe(7);
  });

  it('reads its own writes at once', async () => {
    const cache = new RefreshingCache<string, boolean>(1000, async () => false);
    expect(await cache.get('ns')).toBe(false);
    cache.set('ns', true);
    expect(await cache.get('ns')).toBe(true);
  });
});
