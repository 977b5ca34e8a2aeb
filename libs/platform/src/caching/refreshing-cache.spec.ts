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

  it('with staleWhileRevalidate, an expired entry is answered at once while one load replaces it', async () => {
    let loads = 0;
    let release: () => void = () => undefined;
    const cache = new RefreshingCache<string, number>(
      20,
      async () => {
        loads += 1;
        if (loads > 1) await new Promise<void>((r) => (release = r));
        return loads;
      },
      { staleWhileRevalidate: true },
    );
    expect(await cache.get('k')).toBe(1);
    await new Promise((r) => setTimeout(r, 30));
    // Expired: the old value comes back at once, and one reload starts for all callers.
    expect(await Promise.all([cache.get('k'), cache.get('k')])).toEqual([1, 1]);
    expect(loads).toBe(2);
    release();
    await new Promise((r) => setTimeout(r, 5));
    expect(await cache.get('k')).toBe(2);
  });

  it('a load begun before a delete neither answers nor overwrites the read that follows it', async () => {
    let stored = 'old';
    let release: () => void = () => undefined;
    let slow = true;
    const cache = new RefreshingCache<string, string>(1000, async () => {
      const value = stored;
      if (slow) await new Promise<void>((r) => (release = r));
      return value;
    });
    const early = cache.get('k');
    // Another caller writes storage and forgets the entry while the first load still runs.
    stored = 'new';
    slow = false;
    cache.delete('k');
    expect(await cache.get('k')).toBe('new');
    release();
    expect(await early).toBe('old');
    expect(await cache.get('k')).toBe('new');
  });
});
