import { BloomFilter } from './bloom-filter';

describe('BloomFilter', () => {
  it('never answers "absent" for an added key, across growth beyond its first capacity', () => {
    const filter = new BloomFilter(1_000, 0.01);
    const keys = Array.from({ length: 20_000 }, (_, i) => `ns\u0000thread-${i % 97}\u0000msg-${i}`);
    keys.forEach((k) => filter.add(k));
    expect(keys.filter((k) => !filter.mayContain(k))).toEqual([]);
    expect(filter.size).toBe(20_000);
  });

  it('answers "maybe" for absent keys at about its false-positive rate', () => {
    const filter = new BloomFilter(5_000, 0.01);
    for (let i = 0; i < 50_000; i += 1) filter.add(`present-${i}`);
    let falsePositives = 0;
    for (let i = 0; i < 50_000; i += 1) if (filter.mayContain(`absent-${i}`)) falsePositives += 1;
    expect(falsePositives / 50_000).toBeLessThan(0.02);
  });
});
